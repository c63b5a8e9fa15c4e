/* A hostile direct-ABI plugin in C: its "spin" validator never returns.
 * Build: clang --target=wasm32-wasi -O2 -mexec-model=reactor -o spin.wasm spin.c */
#include <stdint.h>

#define EXPORT(name) __attribute__((export_name(name)))

static const char describe_json[] =
    "{\"interceptors\":[{\"name\":\"spin\",\"type\":\"validation\","
    "\"hooks\":[{\"events\":[\"test/misbehave\"],\"phase\":\"request\"}]}]}";
static uint8_t in_buf[1 << 16];
static volatile uint32_t counter;

EXPORT("airlock_abi_version") int32_t abi_version(void) { return 1; }
EXPORT("airlock_alloc") uint8_t *alloc_input(uint32_t size) { return size <= sizeof in_buf ? in_buf : 0; }
EXPORT("airlock_describe") uint64_t describe(void) {
  return ((uint64_t)(uintptr_t)describe_json << 32) | (sizeof describe_json - 1);
}
EXPORT("airlock_invoke") uint64_t invoke(uint8_t *p, uint32_t n) {
  for (;;) counter++;
}
