// as-no-eval: a validator on Airlock's direct ABI (abi/README.md section 4),
// in AssemblyScript. It refuses tools/call requests whose params contain
// "eval(" or "exec(", and logs each refusal through airlock:host/v1.
//
// Build: npx asc no_eval.ts -O3 --runtime stub --use abort= -o no_eval.wasm
//
// It works on raw bytes in linear memory: the input is never turned into an
// AssemblyScript (UTF-16) string. It hooks only the request phase, so its
// results echo "request" as a constant.

@external("airlock:host/v1", "log")
declare function hostLog(level: i32, ptr: usize, len: i32): void;

// Encodes a string once, as UTF-8 bytes kept in static memory.
function utf8(s: string): ArrayBuffer {
  return String.UTF8.encode(s);
}

const DESCRIBE = utf8(
  '{"interceptors":[{"name":"as-no-eval","version":"1.0.0",' +
  '"description":"Refuses eval( and exec( in tool arguments (AssemblyScript, direct ABI).",' +
  '"type":"validation","hooks":[{"events":["tools/call"],"phase":"request"}]}]}');
const OK = utf8('{"interceptor":"as-no-eval","type":"validation","phase":"request","valid":true}');
const DENY = utf8(
  '{"interceptor":"as-no-eval","type":"validation","phase":"request","valid":false,"severity":"error",' +
  '"messages":[{"path":"/arguments","message":"code evaluation (eval/exec) is not allowed","severity":"error"}]}');
const LOG = utf8("as-no-eval: refused a call that evaluates code");
const NEEDLES: ArrayBuffer[] = [utf8("eval("), utf8("exec(")];

let inBuf: usize = 0;
let inCap: i32 = 0;

function pack(buf: ArrayBuffer): u64 {
  return (<u64>changetype<usize>(buf) << 32) | <u64>buf.byteLength;
}

export function airlock_abi_version(): i32 {
  return 1;
}

// One input buffer, grown by whole pages at the end of memory.
export function airlock_alloc(size: i32): usize {
  if (size > inCap) {
    const pages = ((size + 0xffff) >>> 16);
    const before = memory.grow(pages);
    if (before < 0) return 0;
    inBuf = <usize>before << 16;
    inCap = pages << 16;
  }
  return inBuf;
}

export function airlock_describe(): u64 {
  return pack(DESCRIBE);
}

function contains(p: usize, n: i32, needle: ArrayBuffer): bool {
  const m = needle.byteLength;
  const q = changetype<usize>(needle);
  for (let i = 0; i + m <= n; i++) {
    let j = 0;
    while (j < m && load<u8>(p + i + j) == load<u8>(q + j)) j++;
    if (j == m) return true;
  }
  return false;
}

export function airlock_invoke(ptr: usize, len: i32): u64 {
  for (let k = 0; k < NEEDLES.length; k++) {
    if (contains(ptr, len, NEEDLES[k])) {
      hostLog(3, changetype<usize>(LOG), LOG.byteLength);
      return pack(DENY);
    }
  }
  return pack(OK);
}
