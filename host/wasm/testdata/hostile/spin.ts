// A hostile direct-ABI plugin in AssemblyScript: its "spin" validator never
// returns.
// Build: asc spin.ts -O3 --runtime stub --use abort= -o spin.wasm

const DESCRIBE = String.UTF8.encode(
  '{"interceptors":[{"name":"spin","type":"validation","hooks":[{"events":["test/misbehave"],"phase":"request"}]}]}');
const IN = new ArrayBuffer(65536);
let counter: u32 = 0;

export function airlock_abi_version(): i32 {
  return 1;
}

export function airlock_alloc(size: i32): usize {
  return size <= IN.byteLength ? changetype<usize>(IN) : 0;
}

export function airlock_describe(): u64 {
  return (<u64>changetype<usize>(DESCRIBE) << 32) | <u64>DESCRIBE.byteLength;
}

export function airlock_invoke(p: usize, n: i32): u64 {
  while (true) {
    counter++;
    store<u32>(changetype<usize>(IN), counter);
  }
  return 0;
}
