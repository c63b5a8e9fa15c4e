// Package deadline is the seam through which a guest call is bounded in time.
//
// wazero v1.12.0 offers one way to stop a guest that never calls the host:
// RuntimeConfig.WithCloseOnContextDone(true), which exits to Go on every loop
// back-edge and function entry to look at the context. It costs 10 to 17
// times on Go plugins (upstream wazero issue 2466). The default mode here
// does what Wasmtime calls fuel: the module is rewritten once at load
// (package instrument) so that every function entry and loop header
// subtracts from a per-instance counter the instructions it may run before
// the next check, and calls the host only when the counter runs out (about
// once per million instructions); the host then compares the clock with the
// deadline. The hot path is a load, a subtraction, a store and a branch, all
// inside the guest. A third mode only observes the deadline where the guest
// crosses into the host and when it returns, which is free but cannot stop a
// pure loop.
package deadline
