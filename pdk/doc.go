// Package pdk is the Go plugin development kit for Airlock interceptors.
//
// A plugin is a main package that registers its interceptors in init and is
// built for WebAssembly with the standard toolchain:
//
//	package main
//
//	import "github.com/airlock-mcp/airlock/pdk"
//
//	func main() {}
//
//	func init() {
//		pdk.Validator(pdk.Descriptor{Name: "no-rm", Events: []string{"tools/call"}, Phase: pdk.Request},
//			func(c *pdk.Call) pdk.Verdict {
//				call, err := c.ToolCall()
//				if err != nil {
//					c.Fail(err)
//				}
//				if strings.Contains(string(call.Arguments), "rm -rf") {
//					return pdk.DenyAt("/arguments", "refusing to run rm -rf")
//				}
//				return pdk.Allow()
//			})
//	}
//
// Build it with `airlock plugin build DIR -o FILE.wasm`, which runs
// `GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared`.
//
// The PDK does the rest: it exports Airlock's direct ABI (abi/README.md
// section 4, the fast path), answers describe from the registrations, decodes
// each invocation, calls the handler and encodes its result so that it echoes
// the call, as the host requires.
//
// # Handlers
//
// A validator returns a [Verdict], a mutator a [Mutation], a sink a [Record].
// The zero Verdict allows; findings added with [Verdict.Error], [Verdict.Warn]
// and [Verdict.Info] set valid and severity. A Mutation comes from
// [Call.Replace] or [Call.RewriteStrings], which set "modified" only when the
// payload really changed. A handler fails the invocation (a JSON-RPC error,
// never a verdict) with [Call.Fail], or by panicking: the PDK turns a panic
// into a failure whose reason is the panic message and where it happened.
//
// # Testing
//
// Handlers are plain Go: package pdktest runs them on the host with `go test`
// (no WebAssembly), with plugin configuration, variables and a log it records.
//
// # Notes
//
//   - Each WebAssembly instance runs one call at a time; handlers need no
//     locks for package state, but the host may run several instances of a
//     plugin at once and may discard an instance at any time, so state that
//     must be shared or kept belongs in variables ([Vars]).
//   - Registration must happen in init (or package variable initialisers):
//     describe runs once, right after the instance starts.
//   - A panic that the Go runtime cannot recover (out of memory, stack
//     overflow, a fatal error) still traps the instance; the host reports it
//     as a failure and replaces the instance.
package pdk
