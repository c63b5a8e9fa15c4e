package airlock

import (
	"context"
	"reflect"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/airlock-mcp/airlock/host/intercept"
	"github.com/airlock-mcp/airlock/spec"
)

// ClientOptions configure InstallClient.
type ClientOptions struct {
	// NonThrowing answers a blocked tools/call with
	// CallToolResult{IsError: true} and a short text naming the interceptor
	// and phase, as a gateway does, instead of a *BlockedError. Other
	// methods still fail with a *BlockedError.
	NonThrowing bool
	// ExposeMessages puts the blocking interceptor's messages in that text.
	ExposeMessages bool
	// Timeout bounds each chain run; 0 leaves the interceptors' own limits.
	Timeout time.Duration
}

// InstallClient makes every intercepted request the client sends (tools,
// prompts, resources, subscribe) run its chain — the request phase before
// it is sent, the response phase on its result — and every server-initiated
// request the client answers (sampling/createMessage, elicitation/create,
// roots/list) run in the reverse direction. Install it before connecting.
//
// A validation block is a *BlockedError returned by the session's method
// (or, with NonThrowing, an isError tool result). A tool, prompt or resource
// that a response mutation removed from a list is refused when called.
//
// # Notes
//
//   - The interception is middleware on c: every session c connects is
//     intercepted. A session made by another mcp.Client is not.
//   - The principal of a call is the one set on its context with
//     WithPrincipal.
//   - The list/call agreement of each session is kept for the life of c.
func (h *Host) InstallClient(c *mcp.Client, o ClientOptions) error {
	eng, err := intercept.New(intercept.Options{Chains: h.Chains(), ExposeMessages: o.ExposeMessages, Timeout: o.Timeout,
		Logger: h.logger, OnBlock: func(method string, phase spec.Phase, res *spec.ChainResult) error {
			if o.NonThrowing && method == "tools/call" {
				return nil
			}
			return &BlockedError{Method: method, Phase: phase, Result: res}
		}})
	if err != nil {
		return err
	}
	mw := middleware(eng)
	c.AddSendingMiddleware(mw)
	c.AddReceivingMiddleware(mw)
	return nil
}

// ServerOptions configure InstallServer.
type ServerOptions struct {
	// ExposeMessages puts the blocking interceptor's messages in block
	// answers (a tools/call isError text, a JSON-RPC error's data). Off by
	// default: they may describe policy, and they go to the client.
	ExposeMessages bool
	// Timeout bounds each chain run; 0 leaves the interceptors' own limits.
	Timeout time.Duration
}

// InstallServer makes every intercepted request the server receives run its
// chain — the request phase (receiving) before the server's handler, the
// response phase (sending) on the handler's result — and every intercepted
// request the server sends its client (sampling, elicitation, roots) run in
// the reverse direction. A block answers the client as a gateway would: a
// tools/call with an isError result, anything else with a JSON-RPC error
// naming the interceptor.
func (h *Host) InstallServer(s *mcp.Server, o ServerOptions) error {
	eng, err := intercept.New(intercept.Options{Chains: h.Chains(), ExposeMessages: o.ExposeMessages,
		Timeout: o.Timeout, Logger: h.logger, Server: true})
	if err != nil {
		return err
	}
	mw := middleware(eng)
	s.AddReceivingMiddleware(mw)
	s.AddSendingMiddleware(mw)
	return nil
}

// middleware runs the engine around every request that passes, keeping one
// list/call agreement per session.
func middleware(eng *intercept.Engine) mcp.Middleware {
	var sessions sync.Map // mcp.Session -> *intercept.Session
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if !intercept.Hooked(method, spec.PhaseRequest) && !intercept.Hooked(method, spec.PhaseResponse) {
				return next(ctx, method, req)
			}
			var sess *intercept.Session
			if s := req.GetSession(); s != nil {
				v, _ := sessions.LoadOrStore(s, intercept.NewSession(s.ID()))
				sess = v.(*intercept.Session)
			}
			call := intercept.Call{Method: method, Params: req.GetParams(), Session: sess,
				Context: spec.Context{Principal: principalFrom(ctx)}}
			return eng.Handle(ctx, call, func(ctx context.Context, p mcp.Params) (mcp.Result, error) {
				return next(ctx, method, withParams(req, p))
			})
		}
	}
}

// withParams returns req, or a copy of it carrying p when a mutation
// replaced the params. The SDK's handlers assert the request's concrete
// type, so the copy keeps it: same type, same session and extra, new params.
func withParams(req mcp.Request, p mcp.Params) mcp.Request {
	if p == nil || req.GetParams() == p { // params are pointers: identity
		return req
	}
	v := reflect.ValueOf(req)
	cp := reflect.New(v.Elem().Type())
	cp.Elem().Set(v.Elem())
	f := cp.Elem().FieldByName("Params")
	if !f.IsValid() || !reflect.ValueOf(p).Type().AssignableTo(f.Type()) {
		return req
	}
	f.Set(reflect.ValueOf(p))
	return cp.Interface().(mcp.Request)
}
