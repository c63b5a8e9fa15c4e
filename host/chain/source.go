package chain

import (
	"context"

	"github.com/airlock-mcp/airlock/spec"
)

// Source is a set of interceptors that a chain can list and invoke: a loaded
// WebAssembly plugin, a remote interceptor host, or native Go functions.
//
// # Notes
//
//   - Invoke is called concurrently and must honour ctx: the chain cancels it
//     when an invocation's or the whole chain's time is up, and waits for it
//     to return.
//   - Invoke returns a *spec.Error for failures that carry a JSON-RPC code and
//     data (an invocation timeout is recognised by [spec.Error.IsTimeout]);
//     any error is an invocation failure to the chain.
//   - Interceptors is called once, when a chain is built.
type Source interface {
	Interceptors(ctx context.Context) ([]spec.Interceptor, error)
	Invoke(ctx context.Context, p *spec.InvokeParams) (*spec.Result, error)
}
