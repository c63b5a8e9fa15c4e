package gateway

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/airlock-mcp/airlock/host/intercept"
	"github.com/airlock-mcp/airlock/spec"
)

// link is one client session and the backend session that serves it.
type link struct {
	g         *Gateway
	front     *mcp.ServerSession
	back      *mcp.ClientSession
	toBack    mcp.MethodHandler // the backend client's innermost sending handler
	sess      *intercept.Session
	principal *spec.Principal // of the initialize request
	order     *barrier        // keeps backend notifications ahead of the responses they preceded

	mu       sync.Mutex
	progress map[any]context.Context // progress token → the client request that carries it
}

// connect opens the backend session of a client session that is
// initializing, introducing itself to the backend as the client did.
func (g *Gateway) connect(ctx context.Context, ss *mcp.ServerSession, params *mcp.InitializeParams, extra *mcp.RequestExtra) (*link, error) {
	g.mu.Lock()
	closed := g.closed
	g.mu.Unlock()
	if closed {
		return nil, fmt.Errorf("the gateway is closing")
	}
	l := &link{g: g, front: ss, sess: intercept.NewSession(sessionID(ss)), principal: g.principalOf(extra),
		progress: map[any]context.Context{}, order: newBarrier()}

	info := params.ClientInfo
	if info == nil {
		info = &mcp.Implementation{Name: "airlock-gateway", Version: "devel"}
	}
	client := mcp.NewClient(info, &mcp.ClientOptions{
		Capabilities:   clientCapabilities(params.Capabilities),
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
		Logger:         g.opts.Logger,
	})
	l.toBack = innermost(client.AddSendingMiddleware)
	client.AddReceivingMiddleware(l.fromBackend)

	// The backend session outlives this request, and its connection keeps
	// the values of the context it was made with: the SDK routes a message
	// sent with a context that names a client request onto that request's
	// stream, and initialize's is gone once it is answered. So the session
	// starts from a fresh context; only the handshake is bounded, and the
	// client giving up on initialize stops it.
	cctx, cancel := context.WithTimeout(context.Background(), g.opts.ConnectTimeout)
	stop := context.AfterFunc(ctx, cancel)
	defer stop()
	defer cancel()
	t, err := g.opts.Backend(cctx)
	if err != nil {
		return nil, fmt.Errorf("connecting to the backend: %w", err)
	}
	if _, http := t.(*mcp.StreamableClientTransport); !http {
		t = &orderedTransport{Transport: t, b: l.order}
	}
	cs, err := client.Connect(cctx, t, &mcp.ClientSessionOptions{ProtocolVersion: BackendProtocol})
	if err != nil {
		return nil, fmt.Errorf("connecting to the backend: %w", err)
	}
	l.back = cs

	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		_ = cs.Close()
		return nil, fmt.Errorf("the gateway is closing")
	}
	g.links[ss] = l
	g.wg.Add(2)
	g.mu.Unlock()
	// Each side's end ends the other.
	go func() {
		defer g.wg.Done()
		_ = ss.Wait()
		_ = cs.Close()
		g.mu.Lock()
		delete(g.links, ss)
		g.mu.Unlock()
	}()
	go func() {
		defer g.wg.Done()
		_ = cs.Wait()
		_ = ss.Close()
	}()
	g.opts.Logger.Info("backend session connected", "session", l.sess.ID(),
		"backend", cs.InitializeResult().ServerInfo)
	return l, nil
}

// clientCapabilities are the capabilities the gateway declares to the
// backend: the client's own, so that the backend asks for sampling,
// elicitation and roots exactly when the client can answer.
func clientCapabilities(c *mcp.ClientCapabilities) *mcp.ClientCapabilities {
	out := &mcp.ClientCapabilities{}
	if c == nil {
		return out
	}
	out.Experimental = c.Experimental
	out.Extensions = c.Extensions
	out.Sampling = c.Sampling
	out.Elicitation = c.Elicitation
	out.RootsV2 = c.RootsV2
	if out.RootsV2 == nil && c.Roots.ListChanged {
		out.RootsV2 = &mcp.RootCapabilities{ListChanged: true}
	}
	return out
}

// toBackend sends a request or notification to the backend as it is.
func (l *link) toBackend(ctx context.Context, method string, p mcp.Params) (mcp.Result, error) {
	return l.toBack(ctx, method, &mcp.ClientRequest[mcp.Params]{Session: l.back, Params: p})
}

// toClient sends a request or notification to the client as it is.
func (l *link) toClient(ctx context.Context, method string, p mcp.Params) (mcp.Result, error) {
	return l.g.toFront(ctx, method, &mcp.ServerRequest[mcp.Params]{Session: l.front, Params: p})
}

// fromBackend handles everything the backend sends: server-initiated
// requests run the chain in the reverse direction; notifications go to the
// client as they are.
func (l *link) fromBackend(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if strings.HasPrefix(method, "notifications/") {
			defer l.order.handled()
		}
		switch {
		case method == "notifications/cancelled":
			// Already cancelled the handler's context, and with it the
			// request forwarded to the client.
			return nil, nil
		case method == "notifications/progress":
			_, err := l.toClient(l.progressContext(ctx, req.GetParams()), method, req.GetParams())
			return nil, err
		case strings.HasPrefix(method, "notifications/"):
			_, err := l.toClient(ctx, method, req.GetParams())
			return nil, err
		}
		call := intercept.Call{Method: method, Params: req.GetParams(), Session: l.sess,
			Context: spec.Context{Principal: l.principal}}
		res, err := l.g.engine.Handle(ctx, call, func(ctx context.Context, p mcp.Params) (mcp.Result, error) {
			return l.toClient(ctx, method, p)
		})
		return res, peerError(err)
	}
}

// trackProgress remembers the client request that carries a progress token,
// so that the backend's progress notifications for it travel with that
// request (on streamable HTTP, on the request's own response stream).
func (l *link) trackProgress(ctx context.Context, p mcp.Params) (context.Context, func()) {
	rp, ok := p.(mcp.RequestParams)
	if !ok || reflect.ValueOf(rp).IsNil() {
		return ctx, func() {}
	}
	tok := rp.GetProgressToken()
	switch tok.(type) {
	case string, float64, int, int64:
	default:
		return ctx, func() {} // no token, or one that cannot be a map key
	}
	l.mu.Lock()
	l.progress[tok] = ctx
	l.mu.Unlock()
	return ctx, func() {
		l.mu.Lock()
		delete(l.progress, tok)
		l.mu.Unlock()
	}
}

func (l *link) progressContext(ctx context.Context, p mcp.Params) context.Context {
	pp, ok := p.(*mcp.ProgressNotificationParams)
	if !ok || pp == nil {
		return ctx
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if c, ok := l.progress[pp.ProgressToken]; ok {
		return c
	}
	return ctx
}
