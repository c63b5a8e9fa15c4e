package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/airlock-mcp/airlock/host/chain"
	"github.com/airlock-mcp/airlock/host/internal/configschema"
	"github.com/airlock-mcp/airlock/host/internal/wire"
	"github.com/airlock-mcp/airlock/spec"
)

// Options configure a Server. The zero value works.
type Options struct {
	// Name and Version are the serverInfo; Name defaults to "airlock".
	Name, Version string
	// Logger receives the server's own log; nil discards it.
	Logger *slog.Logger
	// MaxTimeout bounds every invocation, whatever timeoutMs asks for; 0 means
	// 30 seconds. An invocation without timeoutMs gets MaxTimeout.
	MaxTimeout time.Duration
	// Observer, if set, is told about every invocation (metrics).
	Observer chain.Observer
}

const defaultMaxTimeout = 30 * time.Second

// Server answers the interceptor protocol for the interceptors of a chain.
type Server struct {
	mcp      *mcp.Server
	opts     Options
	provider chain.Provider
	cat      atomic.Pointer[catalog] // of the chain last seen
}

// catalog is an immutable name → interceptor index of one chain.
type catalog struct {
	chain   *chain.Chain
	list    []spec.Interceptor
	byName  map[string]int
	sources []chain.Source
	schemas []*configschema.Schema
}

func newCatalog(c *chain.Chain) (*catalog, error) {
	is := c.Interceptors()
	cat := &catalog{chain: c, list: make([]spec.Interceptor, len(is)), byName: make(map[string]int, len(is)),
		sources: make([]chain.Source, len(is)), schemas: make([]*configschema.Schema, len(is))}
	for i, it := range is {
		name := it.Descriptor.Name
		if _, dup := cat.byName[name]; dup {
			return nil, fmt.Errorf("server: two interceptors are named %q; names are unique within one host (restrict with an interceptor filter or rename one)", name)
		}
		s, err := configschema.Compile(it.Descriptor.ConfigSchema)
		if err != nil {
			return nil, fmt.Errorf("server: interceptor %q: %w", name, err)
		}
		cat.byName[name] = i
		cat.list[i] = it.Descriptor
		cat.sources[i] = it.Source
		cat.schemas[i] = s
	}
	return cat, nil
}

// Check reports whether a server can serve the interceptors of c: names
// must be unique and every configSchema must compile. A reload checks a new
// chain with it before swapping it in.
func Check(c *chain.Chain) error {
	_, err := newCatalog(c)
	return err
}

// New returns a server for the interceptors p provides (chain.Static for a
// fixed set, a *chain.Live for one that is swapped while serving). It fails
// if two interceptors share a name or a configSchema does not compile.
func New(p chain.Provider, opts Options) (*Server, error) {
	if opts.Name == "" {
		opts.Name = "airlock"
	}
	if opts.Version == "" {
		opts.Version = "devel"
	}
	if opts.MaxTimeout <= 0 {
		opts.MaxTimeout = defaultMaxTimeout
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Server{opts: opts, provider: p}
	c, release := p.Acquire()
	cat, err := s.catalogOf(c)
	release()
	if err != nil {
		return nil, err
	}
	caps := &mcp.ServerCapabilities{}
	caps.AddExtension(spec.CapabilityKey, map[string]any{"supportedEvents": spec.SupportedEvents(cat.list)})
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: opts.Name, Version: opts.Version},
		&mcp.ServerOptions{Capabilities: caps, Logger: opts.Logger})
	s.mcp.AddReceivingMiddleware(s.advertiseCurrent)
	if err := mcp.AddReceivingCustomMethod(s.mcp, spec.MethodList, s.list); err != nil {
		return nil, err
	}
	if err := mcp.AddReceivingCustomMethod(s.mcp, spec.MethodInvoke, s.invoke); err != nil {
		return nil, err
	}
	return s, nil
}

// catalogOf returns the catalog of c, building it the first time c is seen.
func (s *Server) catalogOf(c *chain.Chain) (*catalog, error) {
	if cat := s.cat.Load(); cat != nil && cat.chain == c {
		return cat, nil
	}
	cat, err := newCatalog(c)
	if err != nil {
		return nil, err
	}
	s.cat.Store(cat)
	return cat, nil
}

// advertiseCurrent makes each new session's capability name the events of
// the interceptors served now, not those served when the server started.
// Sessions learn capabilities from initialize, or from server/discover in
// protocol 2026-07-28.
func (s *Server) advertiseCurrent(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if err != nil {
			return res, err
		}
		switch r := res.(type) {
		case *mcp.InitializeResult:
			r.Capabilities = s.withCurrentEvents(r.Capabilities)
		case *mcp.DiscoverResult:
			r.Capabilities = s.withCurrentEvents(r.Capabilities)
		}
		return res, err
	}
}

// withCurrentEvents returns a copy of caps whose interceptor capability lists
// the current chain's events.
func (s *Server) withCurrentEvents(caps *mcp.ServerCapabilities) *mcp.ServerCapabilities {
	if caps == nil {
		return nil
	}
	c, release := s.provider.Acquire()
	cat, err := s.catalogOf(c)
	release()
	if err != nil {
		return caps
	}
	out := *caps
	out.Extensions = make(map[string]any, len(caps.Extensions))
	for k, v := range caps.Extensions {
		out.Extensions[k] = v
	}
	out.Extensions[spec.CapabilityKey] = map[string]any{"supportedEvents": spec.SupportedEvents(cat.list)}
	return &out
}

// MCP returns the underlying go-sdk server, for running it on any transport.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// Run serves one session on t (for example &mcp.StdioTransport{}) until the
// peer disconnects or ctx is done.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error { return s.mcp.Run(ctx, t) }

// HTTPHandler serves the protocol over streamable HTTP, one session per
// client.
func (s *Server) HTTPHandler() http.Handler {
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, nil)
}

func (s *Server) list(_ context.Context, _ *mcp.ServerSession, p *wire.Params) (*wire.ListResult, error) {
	var lp spec.ListParams
	if p != nil && len(p.Raw) > 0 && string(p.Raw) != "null" {
		if err := json.Unmarshal(p.Raw, &lp); err != nil {
			return nil, wire.Error(spec.InvalidParams("", "interceptors/list params: "+err.Error()))
		}
	}
	if lp.Cursor != "" {
		// This host returns every interceptor in one page, so it never hands
		// out a cursor, and any cursor is one it does not know.
		return nil, wire.Error(spec.InvalidParams("", fmt.Sprintf("unknown cursor %q", lp.Cursor)))
	}
	c, release := s.provider.Acquire()
	defer release()
	cat, err := s.catalogOf(c)
	if err != nil {
		return nil, wire.Error(&spec.Error{Code: spec.CodeInternalError, Message: err.Error()})
	}
	out := &wire.ListResult{Result: spec.ListResult{Interceptors: make([]spec.Interceptor, 0, len(cat.list))}}
	for i := range cat.list {
		if lp.Event == "" || cat.list[i].MatchesAnyPhase(lp.Event) {
			out.Result.Interceptors = append(out.Result.Interceptors, cat.list[i])
		}
	}
	return out, nil
}

func (s *Server) invoke(ctx context.Context, _ *mcp.ServerSession, p *wire.Params) (*wire.InvokeResult, error) {
	res, err := s.Invoke(ctx, p.Raw)
	if err != nil {
		return nil, wire.Error(err)
	}
	return &wire.InvokeResult{Result: *res}, nil
}

// Invoke answers one interceptor/invoke request given its raw params, with
// the errors of SPEC.md section 1. It is what the protocol handler runs, and
// what the CLI's invoke command runs without a transport.
func (s *Server) Invoke(ctx context.Context, raw json.RawMessage) (*spec.Result, *spec.Error) {
	if s.opts.Observer == nil {
		res, _, _, err := s.invokeRaw(ctx, raw)
		return res, err
	}
	start := time.Now()
	res, d, phase, err := s.invokeRaw(ctx, raw)
	if d != nil { // nil: the call never reached an interceptor
		outcome := chain.OutcomeOK
		switch {
		case err != nil && err.IsTimeout():
			outcome = chain.OutcomeTimeout
		case err != nil:
			outcome = chain.OutcomeFailed
		case res.Blocks():
			outcome = chain.OutcomeBlocked
		}
		s.opts.Observer.Invocation(d.Name, d.Type, phase, time.Since(start), outcome)
	}
	return res, err
}

func (s *Server) invokeRaw(ctx context.Context, raw json.RawMessage) (*spec.Result, *spec.Interceptor, spec.Phase, *spec.Error) {
	var p spec.InvokeParams
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil, "", spec.InvalidParams("", "interceptor/invoke needs params")
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		var name struct {
			Name string `json:"name"`
		}
		_ = json.Unmarshal(raw, &name)
		return nil, nil, "", spec.InvalidParams(name.Name, err.Error())
	}
	if p.Name == "" {
		return nil, nil, "", spec.InvalidParams("", `"name" is required`)
	}
	c, release := s.provider.Acquire()
	defer release()
	cat, err := s.catalogOf(c)
	if err != nil {
		return nil, nil, "", &spec.Error{Code: spec.CodeInternalError, Message: err.Error()}
	}
	i, ok := cat.byName[p.Name]
	if !ok {
		return nil, nil, "", spec.UnknownInterceptor(p.Name)
	}
	d := &cat.list[i]
	if reason := checkParams(&p); reason != "" {
		return nil, nil, "", spec.InvalidParams(p.Name, reason)
	}
	if !d.Matches(p.Event, p.Phase) {
		return nil, nil, "", spec.HookNotCovered(p.Name, p.Event, p.Phase, d.Hooks)
	}
	if err := cat.schemas[i].Validate(p.Config); err != nil {
		return nil, nil, "", spec.InvalidParams(p.Name, err.Error())
	}
	timeout := s.opts.MaxTimeout
	if p.TimeoutMs > 0 && time.Duration(p.TimeoutMs)*time.Millisecond < timeout {
		timeout = time.Duration(p.TimeoutMs) * time.Millisecond
	}
	ictx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	start := time.Now()
	res, err := chain.SafeInvoke(ictx, cat.sources[i], &p)
	if err != nil {
		var se *spec.Error
		switch {
		case errors.Is(ictx.Err(), context.DeadlineExceeded) && ctx.Err() == nil,
			errors.As(err, &se) && se.IsTimeout():
			return nil, d, p.Phase, spec.InvocationTimeout(p.Name, timeout.Milliseconds(), p.Phase)
		case errors.As(err, &se):
			return nil, d, p.Phase, se
		}
		return nil, d, p.Phase, spec.InvocationFailed(p.Name, err.Error())
	}
	if res == nil {
		return nil, d, p.Phase, spec.InvocationFailed(p.Name, "the interceptor returned no result")
	}
	if err := spec.CheckResult(res, &p, d.Type); err != nil {
		return nil, d, p.Phase, spec.InvocationFailed(p.Name, err.Error())
	}
	if res.DurationMs == 0 {
		res.DurationMs = float64(time.Since(start)) / float64(time.Millisecond)
	}
	return res, d, p.Phase, nil
}

// checkParams returns why p is malformed, or "".
func checkParams(p *spec.InvokeParams) string {
	switch {
	case p.Phase == spec.PhaseBoth:
		return `phase "both" is authoring sugar and never valid at execution time: use request or response`
	case !p.Phase.Valid():
		return fmt.Sprintf("phase %q is not one of request, response", p.Phase)
	case !spec.Interceptable(p.Event):
		return fmt.Sprintf("event %q cannot be intercepted", p.Event)
	case len(p.Payload) == 0:
		return `"payload" is required`
	case p.TimeoutMs < 0:
		return "timeoutMs must not be negative"
	case len(p.Config) > 0 && p.Config[0] != '{':
		return "config must be an object"
	}
	return ""
}
