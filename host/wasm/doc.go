// Package wasm hosts interceptor plugins: WebAssembly modules that follow one
// of the two conventions of abi/README.md (Extism-compatible, or Airlock's
// direct ABI), run sandboxed on wazero.
//
// An [Engine] holds what all plugins share: the compilation cache (on disk,
// so that a restart does not recompile) and the logger. [Engine.Load] checks
// a module (magic number, imports, exports), instantiates it, reads its
// descriptors with describe, pre-warms a pool of instances and returns a
// [Plugin]. A Plugin is a chain source: [Plugin.Interceptors] lists the
// descriptors and [Plugin.Invoke] runs one interceptor/invoke.
//
// # Notes
//
//   - Every plugin gets its own wazero runtime, because the memory limit and
//     the deadline mechanism are runtime settings; the compiled code is shared
//     through the engine's cache.
//   - A Plugin is safe for concurrent use. Its instances are not: each call
//     takes one instance from the pool for its duration.
//   - Failures of the plugin (trap, panic, exit, memory limit, deadline,
//     oversized or malformed output) are returned as *spec.Error values with
//     code -32603; the instance involved is discarded when its state is
//     suspect and replaced in the background. The host process is never
//     affected.
//   - Deadlines interrupt a looping guest by default: Load rewrites the
//     module once, before compiling it, so that the guest counts down a
//     budget of instructions and asks the host for the time when it runs
//     out. It costs Go plugins a few percent; see [DeadlineMode].
package wasm
