package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/airlock-mcp/airlock/host/internal/wire"
	"github.com/airlock-mcp/airlock/host/server"
	"github.com/airlock-mcp/airlock/spec"
)

// exposeInterceptors answers the interceptor protocol on the gateway's own
// server, from the same chains it intercepts with. Invocations go through
// host/server, so that they are checked (hooks, configSchema, timeouts)
// exactly as `airlock serve` checks them.
func (g *Gateway) exposeInterceptors() error {
	c, release := g.opts.Chains.Acquire()
	release()
	if c == nil {
		return errors.New("exposing the interceptor protocol needs a chain")
	}
	srv, err := server.New(g.opts.Chains, server.Options{Logger: g.opts.Logger})
	if err != nil {
		return err
	}
	list := func(_ context.Context, _ *mcp.ServerSession, p *wire.Params) (*wire.ListResult, error) {
		var lp spec.ListParams
		if p != nil && len(p.Raw) > 0 && string(p.Raw) != "null" {
			if err := json.Unmarshal(p.Raw, &lp); err != nil {
				return nil, wire.Error(spec.InvalidParams("", "interceptors/list params: "+err.Error()))
			}
		}
		if lp.Cursor != "" {
			// Every interceptor comes in one page: any cursor is unknown.
			return nil, wire.Error(spec.InvalidParams("", fmt.Sprintf("unknown cursor %q", lp.Cursor)))
		}
		out := &wire.ListResult{Result: spec.ListResult{Interceptors: []spec.Interceptor{}}}
		for _, d := range g.interceptors() {
			if lp.Event == "" || d.MatchesAnyPhase(lp.Event) {
				out.Result.Interceptors = append(out.Result.Interceptors, d)
			}
		}
		return out, nil
	}
	invoke := func(ctx context.Context, _ *mcp.ServerSession, p *wire.Params) (*wire.InvokeResult, error) {
		res, serr := srv.Invoke(ctx, p.Raw)
		if serr != nil {
			return nil, wire.Error(serr)
		}
		return &wire.InvokeResult{Result: *res}, nil
	}
	if err := mcp.AddReceivingCustomMethod(g.server, spec.MethodList, list); err != nil {
		return err
	}
	return mcp.AddReceivingCustomMethod(g.server, spec.MethodInvoke, invoke)
}

// interceptors are the descriptors of the current chain.
func (g *Gateway) interceptors() []spec.Interceptor {
	c, release := g.opts.Chains.Acquire()
	defer release()
	if c == nil {
		return nil
	}
	is := c.Interceptors()
	out := make([]spec.Interceptor, len(is))
	for i := range is {
		out[i] = is[i].Descriptor
	}
	return out
}

// advertiseInterceptors adds the interceptors capability, naming the events
// of the chain current when the session initializes.
func (g *Gateway) advertiseInterceptors(caps *mcp.ServerCapabilities) {
	caps.AddExtension(spec.CapabilityKey, map[string]any{"supportedEvents": spec.SupportedEvents(g.interceptors())})
}
