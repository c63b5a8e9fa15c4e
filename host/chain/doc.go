// Package chain runs interceptor chains (SPEC.md section 5) over any set of
// interceptor sources: WebAssembly plugins, remote interceptor hosts and
// native Go functions all satisfy the two-method [Source] interface.
//
// A [Chain] is built once from its sources ([New]): it lists every source in
// parallel, validates the invoker's overrides, and then runs as many times as
// needed, concurrently. To change the set of interceptors, build a new Chain
// and swap it in; a Chain never changes after New returns.
//
// Order is decided by the explicit [spec.Direction]:
//
//   - sending: mutations (sequential) → validations (parallel) → sinks (parallel)
//   - receiving: validations (parallel) → sinks (parallel) → mutations (sequential)
//
// Mutations run in ascending effective priority, ties broken by name
// (byte-wise) and then by source order. Validators all see one snapshot and
// are all awaited. Sinks never block. Audit-mode interceptors never block and
// audit mutations are recorded but not applied. A failed invocation blocks
// when the interceptor is active and fail-closed, and is recorded otherwise.
package chain
