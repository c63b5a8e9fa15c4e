// A hostile direct-ABI plugin in Rust (no std, no crates): its "spin"
// validator never returns.
// Build: rustc --edition 2021 --crate-type cdylib -O -C panic=abort --target wasm32-unknown-unknown spin.rs
#![no_std]
use core::panic::PanicInfo;
use core::ptr::{addr_of, addr_of_mut, read_volatile, write_volatile};

#[panic_handler]
fn panic(_: &PanicInfo) -> ! {
    loop {}
}

static DESCRIBE: &[u8] = b"{\"interceptors\":[{\"name\":\"spin\",\"type\":\"validation\",\"hooks\":[{\"events\":[\"test/misbehave\"],\"phase\":\"request\"}]}]}";
static mut IN: [u8; 65536] = [0; 65536];
static mut COUNTER: u32 = 0;

#[no_mangle]
pub extern "C" fn airlock_abi_version() -> i32 {
    1
}

#[no_mangle]
pub extern "C" fn airlock_alloc(size: u32) -> *mut u8 {
    if size as usize > 65536 {
        return core::ptr::null_mut();
    }
    unsafe { addr_of_mut!(IN) as *mut u8 }
}

#[no_mangle]
pub extern "C" fn airlock_describe() -> u64 {
    ((DESCRIBE.as_ptr() as u64) << 32) | DESCRIBE.len() as u64
}

#[no_mangle]
pub extern "C" fn airlock_invoke(_p: *const u8, _n: u32) -> u64 {
    loop {
        unsafe { write_volatile(addr_of_mut!(COUNTER), read_volatile(addr_of!(COUNTER)) + 1) }
    }
}
