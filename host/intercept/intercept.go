package intercept

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/airlock-mcp/airlock/host/chain"
	"github.com/airlock-mcp/airlock/spec"
)

// Options configure an Engine. Chains is required.
type Options struct {
	// Chains provides the chain of every phase, acquired for the phase and
	// released after it: a *chain.Live swapped while messages flow (a hot
	// reload) lets running phases finish on the chain they started with.
	// chain.Static(nil) intercepts nothing.
	Chains chain.Provider
	// ExposeMessages copies the blocking interceptor's reason (a validator's
	// messages, a failure's reason) into block answers. Off by default:
	// interceptor messages may describe policy or the data that tripped it,
	// and they are not the client's to see unless the operator says so.
	ExposeMessages bool
	// Timeout bounds each chain run (every interceptor of one phase); 0
	// leaves only the interceptors' own limits.
	Timeout time.Duration
	// Logger receives a line per block; nil discards.
	Logger *slog.Logger
	// Observe, when set, sees every chain result (after the run, before the
	// answer); for metrics and tests.
	Observe func(method string, res *spec.ChainResult)
	// Server says the engine runs inside an MCP server rather than in a
	// client or a gateway: it receives the client's requests and sends their
	// results, so every phase's direction is the reverse of [DirectionOf].
	Server bool
	// OnBlock, when set, is asked first how to answer a blocked phase: a
	// non-nil error is returned to the caller of Handle as it is (a typed Go
	// error for an embedding program); nil keeps the default answer.
	OnBlock func(method string, phase spec.Phase, res *spec.ChainResult) error
}

// Engine runs chains on MCP requests. It is safe for concurrent use.
type Engine struct {
	opts  Options
	hooks atomic.Pointer[hookTable]
}

// New returns an engine.
func New(opts Options) (*Engine, error) {
	if opts.Chains == nil {
		return nil, errors.New("intercept: Options.Chains is required")
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	return &Engine{opts: opts}, nil
}

// Call is one request passing through the engine.
type Call struct {
	// Method is the MCP method, e.g. "tools/call".
	Method string
	// Params are the request's typed params as received (may be nil for
	// list requests without params).
	Params mcp.Params
	// Session holds the list/call agreement of the MCP session the call
	// belongs to; nil turns the agreement off.
	Session *Session
	// Context is passed to every interceptor; the engine fills in what is
	// missing: timestamp, sessionId (from Session) and traceId/spanId (from a
	// W3C traceparent in the params' _meta).
	Context spec.Context
}

// Next sends the (possibly mutated) params to the peer and returns its
// result. Errors are returned to the caller of Handle as they are, so a
// peer's JSON-RPC error keeps its code, message and data.
type Next func(ctx context.Context, params mcp.Params) (mcp.Result, error)

// Handle runs call through the chain and the peer: the request phase (which
// may mutate the params or block), next, then the response phase (which may
// mutate the result or block). A block answers without (or instead of) the
// peer's result: for tools/call a CallToolResult with isError, otherwise a
// *jsonrpc.Error. Methods that are not intercepted go straight to next.
//
// # Notes
//
//   - A blocked request never reaches next.
//   - A tool, prompt or resource that a response mutation removed from a
//     list of call.Session is refused without calling next, as the server
//     would refuse an unknown one.
//   - tools/list results always leave with an object inputSchema on every
//     tool, whether or not anything intercepted them.
func (e *Engine) Handle(ctx context.Context, call Call, next Next) (mcp.Result, error) {
	m := methods[call.Method]
	if m == nil {
		return next(ctx, call.Params)
	}
	if call.Session != nil && m.calls != noKind {
		if name := calledName(call.Params); name != "" && call.Session.isHidden(m.calls, name) {
			return nil, notFound(m.calls, name)
		}
	}
	ictx := e.context(&call)

	params := call.Params
	if m.request {
		p, blocked, err := e.phase(ctx, call.Method, spec.PhaseRequest, params, ictx, func() any { return m.newParams() })
		if err != nil || blocked != nil {
			return blocked, err
		}
		if p != nil {
			params = p.(mcp.Params)
			// A mutation may rename what is called: the agreement holds for
			// what is actually sent.
			if call.Session != nil && m.calls != noKind {
				if name := calledName(params); name != "" && call.Session.isHidden(m.calls, name) {
					return nil, notFound(m.calls, name)
				}
			}
		}
	}

	res, err := next(ctx, params)
	if err != nil {
		return nil, err
	}
	backendRes := res
	if m.response && res != nil {
		r, blocked, err := e.phase(ctx, call.Method, spec.PhaseResponse, res, ictx, func() any { return m.newResult() })
		if err != nil || blocked != nil {
			return blocked, err
		}
		if r != nil {
			res = r.(mcp.Result)
		}
	}
	if lr, ok := res.(*mcp.ListToolsResult); ok {
		coerceInputSchemas(lr)
	}
	if call.Session != nil && m.lists != noKind {
		call.Session.record(m.lists, listedNames(backendRes), listedNames(res))
	}
	return res, nil
}

// phase runs the chain for one phase of method on v (typed params or
// result). It returns the replacement value when a mutation changed it, or
// the block answer, or neither.
func (e *Engine) phase(ctx context.Context, method string, phase spec.Phase, v any, ictx *spec.Context, zero func() any) (replaced any, blocked mcp.Result, err error) {
	c, release := e.opts.Chains.Acquire()
	defer release()
	if c == nil || !e.hooked(c, method, phase) {
		return nil, nil, nil
	}
	payload, err := encode(v)
	if err != nil {
		return nil, nil, internalError(fmt.Sprintf("encoding the %s %s payload: %v", method, phase, err))
	}
	dir := DirectionOf(method, phase)
	if e.opts.Server {
		dir = dir.Reverse()
	}
	p := &spec.ChainParams{Event: method, Phase: phase, Direction: dir,
		Payload: payload, Context: ictx}
	if e.opts.Timeout > 0 {
		p.TimeoutMs = e.opts.Timeout.Milliseconds()
	}
	res, err := c.Run(ctx, p)
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		return nil, nil, internalError(fmt.Sprintf("running the %s %s chain: %v", method, phase, err))
	}
	if e.opts.Observe != nil {
		e.opts.Observe(method, res)
	}
	if res.Blocked() {
		if e.opts.OnBlock != nil {
			if err := e.opts.OnBlock(method, phase, res); err != nil {
				return nil, nil, err
			}
		}
		b := newBlock(method, phase, res)
		e.opts.Logger.Info("blocked", "method", method, "phase", phase, "interceptor", b.Interceptor,
			"status", res.Status, "reason", b.reason)
		answer, err := b.answer(e.opts.ExposeMessages)
		return nil, answer, err
	}
	if bytes.Equal(res.FinalPayload, payload) {
		return nil, nil, nil
	}
	out := newLike(v, zero)
	if err := json.Unmarshal(res.FinalPayload, out); err != nil {
		// CheckPayload let it through, but the typed value refuses it: that
		// is still a mutation that does not decode as a valid payload.
		return nil, nil, internalError(fmt.Sprintf("the mutated %s %s payload does not decode: %v", method, phase, err))
	}
	return out, nil, nil
}

// encode returns the JSON of typed params or a result; absent params are {}.
func encode(v any) (json.RawMessage, error) {
	if v == nil || isNil(v) {
		return json.RawMessage("{}"), nil
	}
	return json.Marshal(v)
}

func isNil(v any) bool {
	rv := reflect.ValueOf(v)
	return rv.Kind() == reflect.Pointer && rv.IsNil()
}

// newLike returns a new zero value of v's own type (so that a client using
// CallToolParams and a server using CallToolParamsRaw both get theirs back),
// or zero() when v is absent.
func newLike(v any, zero func() any) any {
	if v == nil || isNil(v) {
		return zero()
	}
	return reflect.New(reflect.TypeOf(v).Elem()).Interface()
}

// context returns the invocation context of call.
func (e *Engine) context(call *Call) *spec.Context {
	c := call.Context
	if c.Timestamp == "" {
		c.Timestamp = time.Now().UTC().Format(time.RFC3339Nano)
	}
	if c.SessionID == "" && call.Session != nil {
		c.SessionID = call.Session.ID()
	}
	if c.TraceID == "" && call.Params != nil && !isNil(call.Params) {
		c.TraceID, c.SpanID = traceParent(call.Params.GetMeta())
	}
	return &c
}

// hookTable records which (method, phase) pairs one chain has interceptors
// for, so that a message nobody hooks costs no encoding at all.
type hookTable struct {
	c      *chain.Chain
	hooked map[string][2]bool // by method: request, response
}

func (e *Engine) hooked(c *chain.Chain, method string, phase spec.Phase) bool {
	t := e.hooks.Load()
	if t == nil || t.c != c {
		t = &hookTable{c: c, hooked: make(map[string][2]bool, len(methods))}
		is := c.Interceptors()
		for name := range methods {
			var h [2]bool
			for i := range is {
				h[0] = h[0] || is[i].Descriptor.Matches(name, spec.PhaseRequest)
				h[1] = h[1] || is[i].Descriptor.Matches(name, spec.PhaseResponse)
			}
			t.hooked[name] = h
		}
		e.hooks.Store(t)
	}
	h := t.hooked[method]
	if phase == spec.PhaseRequest {
		return h[0]
	}
	return h[1]
}

// internalError is a -32603 JSON-RPC error of the gateway itself.
func internalError(msg string) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "airlock: " + msg}
}
