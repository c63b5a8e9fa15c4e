package gateway

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/airlock-mcp/airlock/host/chain"
	"github.com/airlock-mcp/airlock/host/intercept"
	"github.com/airlock-mcp/airlock/spec"
)

// BackendProtocol is the protocol version the gateway speaks to its backend
// and the newest it offers its clients. 2026-07-28 replaces server-initiated
// requests with multi-round-trip results and notifications with
// subscriptions; a gateway that forwards both ways pins the hop to the last
// version where they exist (see RATIONALE.md).
const BackendProtocol = "2025-11-25"

// Backend opens one connection to the backend server. The gateway calls it
// once per client session (see [Gateway]); a transport is used once.
type Backend func(ctx context.Context) (mcp.Transport, error)

// Command returns a Backend that starts the command for every session and
// speaks MCP over its stdin and stdout. configure, when not nil, can set the
// command's Stderr, Env or Dir before it starts.
func Command(configure func(*exec.Cmd), name string, args ...string) Backend {
	return func(context.Context) (mcp.Transport, error) {
		cmd := exec.Command(name, args...)
		if configure != nil {
			configure(cmd)
		}
		return &mcp.CommandTransport{Command: cmd}, nil
	}
}

// URL returns a Backend that connects to a streamable HTTP endpoint.
func URL(endpoint string) Backend {
	return func(context.Context) (mcp.Transport, error) {
		return &mcp.StreamableClientTransport{Endpoint: endpoint}, nil
	}
}

// Options configure a Gateway. Backend and Chains are required.
type Options struct {
	Backend Backend
	// Chains provides the interceptor chain of every message; a provider
	// that swaps chains (a hot reload) takes effect on the next message.
	Chains chain.Provider
	// ServerInfo, when set, replaces the backend's serverInfo.
	ServerInfo *mcp.Implementation
	// ExposeMessages copies interceptor messages into block answers (off:
	// clients learn which interceptor blocked, in which phase, not why).
	ExposeMessages bool
	// ChainTimeout bounds each chain run; 0 leaves the interceptors' own
	// limits.
	ChainTimeout time.Duration
	// Principal names the caller of a request for the interceptors'
	// context.principal, from what the transport knows (HTTP headers, a
	// verified bearer token). Nil uses a verified token's user id when there
	// is one. Return nil for "unknown".
	Principal func(*mcp.RequestExtra) *spec.Principal
	// ConnectTimeout bounds connecting to the backend for a new session;
	// 0 means 30 seconds.
	ConnectTimeout time.Duration
	// Logger receives the gateway's log; nil discards it.
	Logger *slog.Logger
	// ExposeInterceptors also serves the interceptor protocol to clients:
	// the gateway advertises the interceptors capability and answers
	// interceptors/list and interceptor/invoke from Chains. Off by default.
	ExposeInterceptors bool
}

// Gateway is an MCP server that stands in front of a backend server: to its
// clients it is the backend (its serverInfo, instructions and capabilities),
// every message is forwarded both ways, and the intercepted ones (SPEC.md
// section 7) run the interceptor chain on the way.
//
// # Notes
//
//   - Every client session gets its own backend session, opened when the
//     client initializes and closed with it (a backend command is started
//     once per session). Backend sessions are never shared: progress
//     tokens, subscriptions, log levels and server-initiated requests all
//     belong to one client, and a shared session would mix them.
//   - If the backend session ends, the client session is closed too.
//   - A Gateway is safe for concurrent use. Close ends every session.
type Gateway struct {
	opts    Options
	engine  *intercept.Engine
	server  *mcp.Server
	toFront mcp.MethodHandler // the server's innermost sending handler

	mu     sync.Mutex
	links  map[*mcp.ServerSession]*link
	closed bool
	wg     sync.WaitGroup
}

// New returns a gateway; nothing connects until a client does.
func New(opts Options) (*Gateway, error) {
	if opts.Backend == nil {
		return nil, errors.New("gateway: Options.Backend is required")
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.ConnectTimeout <= 0 {
		opts.ConnectTimeout = 30 * time.Second
	}
	eng, err := intercept.New(intercept.Options{Chains: opts.Chains, ExposeMessages: opts.ExposeMessages,
		Timeout: opts.ChainTimeout, Logger: opts.Logger})
	if err != nil {
		return nil, fmt.Errorf("gateway: %w", err)
	}
	g := &Gateway{opts: opts, engine: eng, links: map[*mcp.ServerSession]*link{}}
	var versions []string
	for _, v := range mcp.SupportedProtocolVersions() {
		if v <= BackendProtocol {
			versions = append(versions, v)
		}
	}
	// The serverInfo and capabilities given here are placeholders: every
	// initialize answer carries the backend's.
	g.server = mcp.NewServer(&mcp.Implementation{Name: "airlock-gateway", Version: "devel"}, &mcp.ServerOptions{
		Capabilities:              &mcp.ServerCapabilities{},
		SupportedProtocolVersions: versions,
		Logger:                    opts.Logger,
	})
	g.toFront = innermost(g.server.AddSendingMiddleware)
	if opts.ExposeInterceptors {
		if err := g.exposeInterceptors(); err != nil {
			return nil, fmt.Errorf("gateway: %w", err)
		}
	}
	g.server.AddReceivingMiddleware(g.fromClient)
	return g, nil
}

// innermost captures the handler that add's middleware wraps: for a sending
// chain that is the SDK's own sender, which can send any method it knows.
func innermost(add func(...mcp.Middleware)) mcp.MethodHandler {
	var h mcp.MethodHandler
	add(func(next mcp.MethodHandler) mcp.MethodHandler {
		h = next
		return next
	})
	return h
}

// MCP returns the gateway's go-sdk server, for transports of one's own.
func (g *Gateway) MCP() *mcp.Server { return g.server }

// Serve serves one client session on t (for example &mcp.StdioTransport{})
// until the client disconnects, the backend session ends, or ctx is done.
func (g *Gateway) Serve(ctx context.Context, t mcp.Transport) error {
	err := g.server.Run(ctx, t)
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// HTTPHandler serves streamable HTTP, one session per client (and so one
// backend session per client).
func (g *Gateway) HTTPHandler() http.Handler {
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return g.server },
		&mcp.StreamableHTTPOptions{Logger: g.opts.Logger})
}

// Close ends every client session and its backend session, and waits for
// them to be gone.
func (g *Gateway) Close() error {
	g.mu.Lock()
	g.closed = true
	links := make([]*link, 0, len(g.links))
	for _, l := range g.links {
		links = append(links, l)
	}
	g.mu.Unlock()
	for _, l := range links {
		_ = l.front.Close()
		_ = l.back.Close()
	}
	g.wg.Wait()
	return nil
}

// Sessions returns the number of client sessions connected to a backend.
func (g *Gateway) Sessions() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.links)
}

func (g *Gateway) link(ss *mcp.ServerSession) *link {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.links[ss]
}

// fromClient handles everything a client sends.
func (g *Gateway) fromClient(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		ss, _ := req.GetSession().(*mcp.ServerSession)
		switch method {
		case "initialize":
			return g.initialize(ctx, next, method, req)
		case "notifications/initialized":
			return next(ctx, method, req)
		case "notifications/cancelled":
			// The SDK has already cancelled the handler's context, which
			// cancels the forwarded call and so notifies the backend.
			return nil, nil
		case spec.MethodList, spec.MethodInvoke:
			// Registered only when the interceptor protocol is exposed.
			return next(ctx, method, req)
		case "server/discover", "subscriptions/listen":
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound,
				Message: fmt.Sprintf("%q is not supported through this gateway (protocol %s)", method, BackendProtocol)}
		}
		l := g.link(ss)
		if l == nil {
			if method == "ping" {
				return next(ctx, method, req)
			}
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
				Message: "airlock: this session has no backend (initialize first; if you did, connecting to the backend failed)"}
		}
		if strings.HasPrefix(method, "notifications/") {
			_, err := l.toBackend(ctx, method, req.GetParams())
			return nil, err
		}
		ctx, done := l.trackProgress(ctx, req.GetParams())
		defer done()
		call := intercept.Call{Method: method, Params: req.GetParams(), Session: l.sess,
			Context: spec.Context{Principal: g.principal(req.GetExtra(), l)}}
		res, err := g.engine.Handle(ctx, call, func(ctx context.Context, p mcp.Params) (mcp.Result, error) {
			return l.toBackend(ctx, method, p)
		})
		return res, peerError(err)
	}
}

// initialize lets the SDK answer the handshake, connects this session's
// backend, and answers with the backend's identity and capabilities.
func (g *Gateway) initialize(ctx context.Context, next mcp.MethodHandler, method string, req mcp.Request) (mcp.Result, error) {
	res, err := next(ctx, method, req)
	if err != nil {
		return nil, err
	}
	ir, ok := res.(*mcp.InitializeResult)
	ss, ok2 := req.GetSession().(*mcp.ServerSession)
	params, ok3 := req.GetParams().(*mcp.InitializeParams)
	if !ok || !ok2 || !ok3 {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "airlock: unexpected initialize types"}
	}
	l, err := g.connect(ctx, ss, params, req.GetExtra())
	if err != nil {
		g.opts.Logger.Error("connecting to the backend", "error", err)
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "airlock: " + err.Error()}
	}
	back := l.back.InitializeResult()
	ir.Capabilities = mirrorCapabilities(back.Capabilities)
	if g.opts.ExposeInterceptors {
		g.advertiseInterceptors(ir.Capabilities)
	}
	ir.Instructions = back.Instructions
	ir.ServerInfo = back.ServerInfo
	if g.opts.ServerInfo != nil {
		ir.ServerInfo = g.opts.ServerInfo
	}
	return ir, nil
}

// mirrorCapabilities copies the backend's capabilities (maps included, so
// that adding to them never writes into the backend session's state).
func mirrorCapabilities(c *mcp.ServerCapabilities) *mcp.ServerCapabilities {
	if c == nil {
		return &mcp.ServerCapabilities{}
	}
	out := *c
	if c.Experimental != nil {
		out.Experimental = make(map[string]any, len(c.Experimental))
		for k, v := range c.Experimental {
			out.Experimental[k] = v
		}
	}
	if c.Extensions != nil {
		out.Extensions = make(map[string]any, len(c.Extensions))
		for k, v := range c.Extensions {
			out.Extensions[k] = v
		}
	}
	return &out
}

// principal is the configured principal of a request, else the one of the
// session's initialize request.
func (g *Gateway) principal(extra *mcp.RequestExtra, l *link) *spec.Principal {
	if p := g.principalOf(extra); p != nil {
		return p
	}
	if l != nil {
		return l.principal
	}
	return nil
}

func (g *Gateway) principalOf(extra *mcp.RequestExtra) *spec.Principal {
	if extra == nil {
		return nil
	}
	if g.opts.Principal != nil {
		return g.opts.Principal(extra)
	}
	if ti := extra.TokenInfo; ti != nil && ti.UserID != "" {
		return &spec.Principal{Type: spec.PrincipalUser, ID: ti.UserID}
	}
	return nil
}

// peerError passes a peer's JSON-RPC error on exactly (the SDK wraps it,
// and a wrapped error would reach the client without its data); cancellation
// stays itself; anything else is the gateway's internal error.
func peerError(err error) error {
	if err == nil {
		return nil
	}
	var we *jsonrpc.Error
	if errors.As(err, &we) {
		return we
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if errors.Is(err, mcp.ErrConnectionClosed) {
		return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "airlock: the backend session is closed"}
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "airlock: " + err.Error()}
}

// sessionID is a front session's id, or a fresh one for transports without
// (stdio), so that interceptors can tell sessions apart.
func sessionID(ss *mcp.ServerSession) string {
	if id := ss.ID(); id != "" {
		return id
	}
	return rand.Text()
}
