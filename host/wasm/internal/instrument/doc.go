// Package instrument rewrites a WebAssembly module so that a runaway guest
// can be stopped cheaply: what Wasmtime calls fuel, done on the binary before
// wazero compiles it.
//
// Every function entry and loop header gets a check that subtracts from a
// new mutable i64 global the number of instructions its code may run before
// the next check (counted at rewrite time: the instructions of the function
// or loop body outside nested loops, an upper bound per pass), and calls the
// imported airlock:deadline.tick when the global drops below zero; tick
// returns the next budget or stops the call. A function whose body starts
// with straight code into a loop (every Go function: a short prologue, then
// the loop of its block dispatch) has no entry check: that loop's check,
// which every call passes, also pays for the code outside it. Bulk memory and table
// operations are charged by their length before they run. Any infinite
// execution passes an entry or a loop header over and over, so the host
// regains control after at most one budget of instructions, without a timer,
// another goroutine or an exit to Go on the hot path: the check is a load, a
// subtraction, a store and a branch on a register.
//
// The decoder knows every instruction of WebAssembly 2.0 (what Go, C, Rust
// and AssemblyScript compilers emit: MVP, sign extension, saturating
// conversions, bulk memory, reference types, multi-value, SIMD) plus tail
// calls, threads and relaxed SIMD. It rewrites only what it must: code,
// function indices (the new import shifts defined functions by one), the
// global, type and import sections; every other section is copied byte for
// byte, except DWARF custom sections, whose code offsets would be wrong.
// A module it cannot read is refused with an error, never half rewritten.
//
// It was written for Airlock rather than taken from a library: the one
// binary toolkit on the module proxy (github.com/tetratelabs/wabin, a 2023
// snapshot of wazero's old decoder) keeps function bodies as opaque bytes,
// which is the part that needs decoding, and re-encodes a module from its own
// model: it moves every custom section to the end and drops the name
// subsections it does not model. Here sections are rewritten in place.
package instrument
