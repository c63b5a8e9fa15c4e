// Package hostenv implements the host side of both plugin conventions in Go:
// every function of the Extism host module ("extism:host/env") and of the
// direct ABI's host module ("airlock:host/v1"), see abi/README.md.
//
// # Notes
//
//   - The host modules are instantiated once per wazero runtime and shared by
//     all instances of a plugin. The per-instance state, a [Call], reaches the
//     host functions through the context of each guest call ([WithCall]); a
//     context value at the top of the chain costs a few nanoseconds, which is
//     small next to the ~40 ns of a host crossing.
//   - A [Call] is used by one guest call at a time: instances are never
//     shared between two calls in flight. [Vars] is shared by all instances of
//     one plugin and is safe for concurrent use.
//   - Extism handles are offsets into a per-call arena owned by the [Call]:
//     no Extism kernel module runs and no handle outlives a call.
//   - A host function that must fail the call records why in the [Call]
//     ([Call.Fault]) and then panics, which wazero turns into a trap.
package hostenv
