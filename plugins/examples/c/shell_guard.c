/* c-shell-guard: a validator on Airlock's direct ABI (abi/README.md section 4),
 * in C with no library beyond wasi-libc. It refuses tools/call requests whose
 * params contain a destructive shell pattern ("rm -rf", "mkfs", a fork bomb),
 * naming the pattern, and logs each refusal through airlock:host/v1.
 *
 * Build: clang --target=wasm32-wasi -O2 -mexec-model=reactor -o shell_guard.wasm shell_guard.c
 *
 * It hooks only the request phase of tools/call, so the host never calls it
 * with another event or phase, and its results can echo "request" as a
 * constant. It reads the payload as bytes: no JSON parser needed for a
 * substring check (a JSON escape could hide a pattern; a real guard would
 * decode the strings first). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT(name) __attribute__((export_name(name)))
#define IMPORT(name) __attribute__((import_module("airlock:host/v1"), import_name(name)))

IMPORT("log") void airlock_log(int32_t level, const char *p, uint32_t n);

static uint64_t pack(const char *p, uint32_t n, int err) {
  return ((uint64_t)(uintptr_t)p << 32) | n | (err ? 0x80000000u : 0);
}

EXPORT("airlock_abi_version") int32_t abi_version(void) { return 1; }

static uint8_t *in_buf;
static uint32_t in_cap;

/* One input buffer, grown as needed and reused for every call. */
EXPORT("airlock_alloc") uint8_t *alloc_input(uint32_t size) {
  if (size > in_cap) {
    uint8_t *b = realloc(in_buf, size);
    if (!b) return 0;
    in_buf = b;
    in_cap = size;
  }
  return in_buf;
}

static const char describe_json[] =
    "{\"interceptors\":[{\"name\":\"c-shell-guard\",\"version\":\"1.0.0\","
    "\"description\":\"Refuses destructive shell commands in tool arguments (C, direct ABI).\","
    "\"type\":\"validation\",\"hooks\":[{\"events\":[\"tools/call\"],\"phase\":\"request\"}]}]}";

EXPORT("airlock_describe") uint64_t describe(void) {
  return pack(describe_json, sizeof describe_json - 1, 0);
}

static const char *patterns[] = {"rm -rf", "mkfs", ":(){ :|:& };:", "dd if=/dev/zero of=/dev/"};

static int contains(const uint8_t *hay, uint32_t n, const char *needle) {
  size_t m = strlen(needle);
  if (m > n) return 0;
  for (uint32_t i = 0; i + m <= n; i++)
    if (memcmp(hay + i, needle, m) == 0) return 1;
  return 0;
}

static char out[512];

EXPORT("airlock_invoke") uint64_t invoke(uint8_t *p, uint32_t n) {
  for (size_t i = 0; i < sizeof patterns / sizeof *patterns; i++) {
    if (contains(p, n, patterns[i])) {
      int len = snprintf(out, sizeof out,
          "{\"interceptor\":\"c-shell-guard\",\"type\":\"validation\",\"phase\":\"request\","
          "\"valid\":false,\"severity\":\"error\",\"messages\":[{\"path\":\"/arguments\","
          "\"message\":\"destructive shell pattern \\\"%s\\\"\",\"severity\":\"error\"}]}",
          patterns[i]);
      char msg[128];
      int ml = snprintf(msg, sizeof msg, "c-shell-guard: refused \"%s\"", patterns[i]);
      airlock_log(3, msg, (uint32_t)ml);
      return pack(out, (uint32_t)len, 0);
    }
  }
  static const char ok[] =
      "{\"interceptor\":\"c-shell-guard\",\"type\":\"validation\",\"phase\":\"request\",\"valid\":true}";
  return pack(ok, sizeof ok - 1, 0);
}
