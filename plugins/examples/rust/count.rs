//! rust-count: a sink on the Extism convention (abi/README.md section 5),
//! in Rust with no crates: the extism:host/env functions are declared by
//! hand. It records every request it sees, counting calls in a plugin
//! variable shared by all instances, and reports the payload size.
//!
//! Build: /usr/bin/rustc --edition 2021 --crate-type cdylib -O
//!        --target wasm32-unknown-unknown -o count.wasm count.rs
//!
//! It hooks only the request phase, so its results echo "request" as a
//! constant; the input's size stands in for the payload's size.
#![no_std]

use core::panic::PanicInfo;

#[panic_handler]
fn panic(_: &PanicInfo) -> ! {
    core::arch::wasm32::unreachable()
}

#[link(wasm_import_module = "extism:host/env")]
extern "C" {
    fn input_length() -> u64;
    fn alloc(n: u64) -> u64;
    fn store_u8(addr: u64, v: u8);
    fn load_u8(addr: u64) -> u8;
    fn length(h: u64) -> u64;
    fn output_set(h: u64, n: u64);
    fn var_get(key: u64) -> u64;
    fn var_set(key: u64, value: u64);
    fn log_info(msg: u64);
}

/// Copies bytes into a new block of host memory and returns its handle.
fn to_host(b: &[u8]) -> u64 {
    unsafe {
        let h = alloc(b.len() as u64);
        for (i, c) in b.iter().enumerate() {
            store_u8(h + i as u64, *c);
        }
        h
    }
}

/// A fixed-size text buffer, since there is no allocator here.
struct Buf {
    b: [u8; 512],
    n: usize,
}

impl Buf {
    fn new() -> Buf {
        Buf { b: [0; 512], n: 0 }
    }
    fn s(&mut self, s: &str) -> &mut Buf {
        for c in s.bytes() {
            if self.n < self.b.len() {
                self.b[self.n] = c;
                self.n += 1;
            }
        }
        self
    }
    fn u(&mut self, mut v: u64) -> &mut Buf {
        let mut d = [0u8; 20];
        let mut i = d.len();
        loop {
            i -= 1;
            d[i] = b'0' + (v % 10) as u8;
            v /= 10;
            if v == 0 {
                break;
            }
        }
        for c in &d[i..] {
            if self.n < self.b.len() {
                self.b[self.n] = *c;
                self.n += 1;
            }
        }
        self
    }
    fn bytes(&self) -> &[u8] {
        &self.b[..self.n]
    }
}

const DESCRIBE: &[u8] = br#"{"interceptors":[{"name":"rust-count","version":"1.0.0","description":"Counts requests and their sizes (Rust, Extism convention).","type":"sink","hooks":[{"events":["*"],"phase":"request"}]}]}"#;

#[no_mangle]
pub extern "C" fn describe() -> i32 {
    unsafe { output_set(to_host(DESCRIBE), DESCRIBE.len() as u64) };
    0
}

#[no_mangle]
pub extern "C" fn invoke() -> i32 {
    unsafe {
        let size = input_length();
        // The count is a little-endian u64 in the variable "count".
        let key = to_host(b"count");
        let mut count: u64 = 0;
        let v = var_get(key);
        if v != 0 && length(v) == 8 {
            for i in 0..8 {
                count |= (load_u8(v + i) as u64) << (8 * i);
            }
        }
        count += 1;
        let mut le = [0u8; 8];
        for i in 0..8 {
            le[i] = (count >> (8 * i)) as u8;
        }
        var_set(to_host(b"count"), to_host(&le));

        let mut msg = Buf::new();
        msg.s("rust-count: call ").u(count).s(", ").u(size).s(" bytes");
        log_info(to_host(msg.bytes()));

        let mut out = Buf::new();
        out.s(r#"{"interceptor":"rust-count","type":"sink","phase":"request","recorded":true,"metrics":{"count":"#)
            .u(count)
            .s(r#","inputBytes":"#)
            .u(size)
            .s("}}");
        output_set(to_host(out.bytes()), out.n as u64);
    }
    0
}
