package gateway_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/airlock-mcp/airlock/host/chain"
	"github.com/airlock-mcp/airlock/host/gateway"
	"github.com/airlock-mcp/airlock/host/native"
	"github.com/airlock-mcp/airlock/host/remote"
	"github.com/airlock-mcp/airlock/spec"
)

func chainOf(t *testing.T, src *native.Source) *chain.Chain {
	t.Helper()
	c, err := chain.New(context.Background(), []chain.Source{src}, chain.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestInputSchemas checks that every listed tool leaves with an object
// inputSchema, whatever the backend sent and whatever a mutator did.
func TestInputSchemas(t *testing.T) {
	b := newBackend(t)
	// The backend lists tools the go-sdk would never let it register.
	b.server.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method != "tools/list" {
				return next(ctx, method, req)
			}
			return &mcp.ListToolsResult{Tools: []*mcp.Tool{
				{Name: "none"},
				{Name: "string", InputSchema: "anything"},
				{Name: "untyped", InputSchema: map[string]any{"properties": map[string]any{"a": map[string]any{"type": "string"}}}},
				{Name: "array", InputSchema: map[string]any{"type": "array"}},
				{Name: "good", InputSchema: map[string]any{"type": "object", "required": []any{"x"}}},
				{Name: "broken-by-mutator", InputSchema: map[string]any{"type": "object"}},
			}}, nil
		}
	})
	p := newPolicy()
	p.mutator("schema-breaker", hook(spec.PhaseResponse, "tools/list"), func(m map[string]any) {
		for _, it := range m["tools"].([]any) {
			if tool := it.(map[string]any); tool["name"] == "broken-by-mutator" {
				tool["inputSchema"] = 42
			}
		}
	})
	_, c := startGateway(t, b, chain.Static(p.chain(t)), "in-memory", gateway.Options{})
	res, err := c.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, tool := range res.Tools {
		s, _ := json.Marshal(tool.InputSchema)
		got[tool.Name] = string(s)
	}
	want := map[string]string{
		"none":              `{"type":"object"}`,
		"string":            `{"type":"object"}`,
		"untyped":           `{"properties":{"a":{"type":"string"}},"type":"object"}`,
		"array":             `{"type":"object"}`,
		"good":              `{"required":["x"],"type":"object"}`,
		"broken-by-mutator": `{"type":"object"}`,
	}
	for name, w := range want {
		if !spec.JSONEqual(json.RawMessage(got[name]), json.RawMessage(w)) {
			t.Errorf("%s: inputSchema %s, want %s", name, got[name], w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("tools %v", got)
	}
}

// TestBlockAnswers checks how each kind of block reaches the client.
func TestBlockAnswers(t *testing.T) {
	src := native.New()
	fail := func(ctx context.Context, p *spec.InvokeParams) (*spec.Result, error) {
		return nil, errors.New("internal detail: /etc/policy.rego line 3")
	}
	src.MustAdd(spec.Interceptor{Name: "broken", Type: spec.TypeValidation, Hooks: hook(spec.PhaseRequest, "tools/call", "prompts/get")}, fail)
	src.MustAdd(spec.Interceptor{Name: "slow", Type: spec.TypeMutation, Hooks: hook(spec.PhaseResponse, "prompts/list", "tools/call")},
		func(ctx context.Context, p *spec.InvokeParams) (*spec.Result, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		})
	src.MustAdd(spec.Interceptor{Name: "strict", Type: spec.TypeValidation, Hooks: hook(spec.PhaseRequest, "resources/read")},
		func(_ context.Context, p *spec.InvokeParams) (*spec.Result, error) {
			return &spec.Result{Interceptor: "strict", Type: spec.TypeValidation, Phase: p.Phase, Valid: false,
				Messages: []spec.Message{{Path: "$.uri", Message: "reads are off today", Severity: spec.SeverityError}}}, nil
		})
	c := chainOf(t, src)
	ctx := context.Background()

	for _, expose := range []bool{false, true} {
		name := "messages kept"
		if expose {
			name = "messages exposed"
		}
		t.Run(name, func(t *testing.T) {
			b := newBackend(t)
			_, cl := startGateway(t, b, chain.Static(c), "in-memory", gateway.Options{ExposeMessages: expose, ChainTimeout: 100 * time.Millisecond})

			// A failing validator: tools/call → isError naming it; others → -32603.
			res, err := cl.cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo"})
			if err != nil {
				t.Fatal(err)
			}
			txt := toolText(t, res)
			if !res.IsError || !strings.Contains(txt, `failed by interceptor "broken" (request phase)`) {
				t.Fatalf("tools/call %q", txt)
			}
			if leaked := strings.Contains(txt, "policy.rego"); leaked != expose {
				t.Fatalf("reason in %q: %v, expose %v", txt, leaked, expose)
			}
			blocked, _ := res.Meta[spec.CapabilityKey].(map[string]any)["blocked"].(map[string]any)
			if blocked["interceptor"] != "broken" || blocked["status"] != "validation_failed" {
				t.Fatalf("_meta %v", res.Meta)
			}
			_, err = cl.cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet"})
			data := `{"interceptor":"broken","phase":"request","status":"validation_failed"}`
			if expose {
				data = `{"interceptor":"broken","phase":"request","status":"validation_failed","reason":"internal detail: /etc/policy.rego line 3"}`
			}
			wantRPCError(t, err, -32603, data)

			// A validator's verdict: -32602, messages only when exposed.
			_, err = cl.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://docs/readme"})
			data = `{"interceptor":"strict","phase":"request","status":"validation_failed"}`
			if expose {
				data = `{"interceptor":"strict","phase":"request","status":"validation_failed","reason":"reads are off today",` +
					`"messages":[{"path":"$.uri","message":"reads are off today","severity":"error"}]}`
			}
			we := wantRPCError(t, err, -32602, data)
			if leaked := strings.Contains(we.Message, "off today"); leaked != expose {
				t.Fatalf("message %q", we.Message)
			}

			// A chain timeout in the response phase: the backend answered, the
			// client gets -32603 with reason timeout (never a secret).
			_, err = cl.cs.ListPrompts(ctx, nil)
			wantRPCError(t, err, -32603, `{"interceptor":"slow","phase":"response","status":"timeout","reason":"timeout"}`)
		})
	}
}

// TestHTTPSessions checks that every HTTP client gets a backend session of
// its own, with its own list/call agreement, and that closing either side
// closes the other.
func TestHTTPSessions(t *testing.T) {
	b := newBackend(t)
	p := newPolicy()
	g, srv := httpGateway(t, gateway.Options{Backend: b.dial, Chains: chain.Static(p.chain(t))})
	ctx := context.Background()
	connect := func() *mcp.ClientSession {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "c"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	a, c := connect(), connect()
	if n := g.Sessions(); n != 2 {
		t.Fatalf("%d sessions", n)
	}
	b.mu.Lock()
	if len(b.sessions) != 2 {
		t.Fatalf("the backend has %d sessions", len(b.sessions))
	}
	b.mu.Unlock()
	// a listed, so a is refused the hidden tool; c never listed, so the
	// gateway has nothing to refuse for c (the agreement is per session).
	listAll(t, a)
	if _, err := a.CallTool(ctx, &mcp.CallToolParams{Name: "internal-admin"}); err == nil {
		t.Fatal("a called a hidden tool")
	}
	if r, err := c.CallTool(ctx, &mcp.CallToolParams{Name: "internal-admin"}); err != nil || toolText(t, r) != "admin done" {
		t.Fatalf("c: %v %v", r, err)
	}
	// Two sessions, two audit session ids.
	ids := map[string]bool{}
	for _, au := range p.audits() {
		ids[au.Context.SessionID] = true
	}
	if len(ids) != 2 {
		t.Fatalf("session ids %v", ids)
	}
	a.Close()
	waitFor(t, "a's backend session to close", func() bool { return g.Sessions() == 1 })
	// The backend ending a session ends the client's.
	b.mu.Lock()
	backs := slices.Clone(b.sessions)
	b.mu.Unlock()
	for _, ss := range backs {
		ss.Close()
	}
	waitFor(t, "c's session to close", func() bool { return g.Sessions() == 0 })
	if err := c.Ping(ctx, nil); err == nil {
		t.Fatal("c still answers after its backend session closed")
	}
	c.Close()
}

// httpGateway serves a gateway over streamable HTTP on loopback. The gateway
// closes before the server, so that no session holds an HTTP stream open.
func httpGateway(t *testing.T, opts gateway.Options) (*gateway.Gateway, *httptest.Server) {
	t.Helper()
	g, err := gateway.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(g.HTTPHandler())
	t.Cleanup(srv.Close)
	t.Cleanup(func() { g.Close() })
	return g, srv
}

// listAll lists every page of tools, as a client that wants them all does.
func listAll(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	var names []string
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
	}
	return names
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestHotSwap swaps the chain under a running session: the next message runs
// the new chain, and a tool the old chain hid is callable once listed again.
func TestHotSwap(t *testing.T) {
	b := newBackend(t)
	live := chain.NewLive(newPolicy().chain(t))
	_, c := startGateway(t, b, live, "in-memory", gateway.Options{})
	ctx := context.Background()
	listAll(t, c.cs)
	if _, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: "internal-admin"}); err == nil {
		t.Fatal("hidden tool callable")
	}
	<-live.Swap(chainOf(t, native.New()), nil)
	res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: "contact"})
	if err != nil || toolText(t, res) != "write to ada@example.com" {
		t.Fatalf("after the swap: %v %v", res, err)
	}
	if !slices.Contains(listAll(t, c.cs), "internal-admin") {
		t.Fatal("the new chain still hides internal-admin")
	}
	if _, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: "internal-admin"}); err != nil {
		t.Fatalf("listed again, still refused: %v", err)
	}
}

// TestPrincipal checks that the configured principal reaches interceptors.
func TestPrincipal(t *testing.T) {
	b := newBackend(t)
	p := newPolicy()
	_, srv := httpGateway(t, gateway.Options{Backend: b.dial, Chains: chain.Static(p.chain(t)),
		Principal: func(e *mcp.RequestExtra) *spec.Principal {
			if u := e.Header.Get("X-User"); u != "" {
				return &spec.Principal{Type: spec.PrincipalUser, ID: u}
			}
			return nil
		}})
	hc := &http.Client{Transport: headerRT{"X-User", "ada"}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: hc}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo"}); err != nil {
		t.Fatal(err)
	}
	audits := p.audits()
	if len(audits) == 0 {
		t.Fatal("no audits")
	}
	for _, a := range audits {
		if a.Context.Principal == nil || a.Context.Principal.ID != "ada" || a.Context.Principal.Type != spec.PrincipalUser {
			t.Fatalf("%s %s principal %+v", a.Event, a.Phase, a.Context.Principal)
		}
	}
}

type headerRT struct{ k, v string }

func (h headerRT) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(h.k, h.v)
	return http.DefaultTransport.RoundTrip(r)
}

// TestExposeInterceptors checks the optional interceptor protocol.
func TestExposeInterceptors(t *testing.T) {
	b := newBackend(t)
	p := newPolicy()
	ctx := context.Background()

	_, plain := startGateway(t, b, chain.Static(p.chain(t)), "in-memory", gateway.Options{})
	if _, ok := plain.cs.InitializeResult().Capabilities.Extensions[spec.CapabilityKey]; ok {
		t.Fatal("advertised without being asked to")
	}

	_, c := startGateway(t, b, chain.Static(p.chain(t)), "in-memory", gateway.Options{ExposeInterceptors: true})
	ext, ok := c.cs.InitializeResult().Capabilities.Extensions[spec.CapabilityKey].(map[string]any)
	if !ok {
		t.Fatalf("extensions %v", c.cs.InitializeResult().Capabilities.Extensions)
	}
	if evs, _ := ext["supportedEvents"].([]any); len(evs) == 0 || evs[0] != "*" {
		t.Fatalf("supportedEvents %v", ext)
	}
	// The backend's own extension is still there.
	if _, ok := c.cs.InitializeResult().Capabilities.Extensions["acme/ext"]; !ok {
		t.Fatal("the backend's extension was dropped")
	}

	// interceptors/list and interceptor/invoke, with a client of the protocol.
	ct, st := mcp.NewInMemoryTransports()
	g, err := gateway.New(gateway.Options{Backend: b.dial, Chains: chain.Static(p.chain(t)), ExposeInterceptors: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	if _, err := g.MCP().Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	h, err := remote.Dial(ctx, "gateway", ct)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	list, err := h.Interceptors(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 19 || list[0].Name != "stamp" || list[len(list)-1].Name != "audit" {
		t.Fatalf("%d interceptors, %s first, %s last", len(list), list[0].Name, list[len(list)-1].Name)
	}
	res, err := h.Invoke(ctx, &spec.InvokeParams{Name: "guard", Event: "tools/call", Phase: spec.PhaseRequest,
		Payload: json.RawMessage(`{"name":"echo","arguments":{"x":"forbidden"}}`)})
	if err != nil || res.Valid || res.Interceptor != "guard" {
		t.Fatalf("invoke %+v %v", res, err)
	}
	_, err = h.Invoke(ctx, &spec.InvokeParams{Name: "nope", Event: "tools/call", Phase: spec.PhaseRequest, Payload: json.RawMessage(`{}`)})
	var se *spec.Error
	if !errors.As(err, &se) || se.Code != -32602 {
		t.Fatalf("unknown interceptor: %v", err)
	}
}

// TestHTTPBackend puts the gateway in front of a backend served over
// streamable HTTP (gateway.URL), with a stdio-like in-memory client.
func TestHTTPBackend(t *testing.T) {
	b := newBackend(t)
	bs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return b.server }, nil))
	t.Cleanup(bs.Close)
	p := newPolicy()
	g, err := gateway.New(gateway.Options{Backend: gateway.URL(bs.URL), Chains: chain.Static(p.chain(t))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	c := connectClient(t, g, "in-memory")
	ctx := context.Background()
	if got := c.cs.InitializeResult().ServerInfo.Name; got != "test-backend" {
		t.Fatalf("serverInfo %q", got)
	}
	res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: "contact"})
	if err != nil || toolText(t, res) != "write to [email]" {
		t.Fatalf("contact %+v %v", res, err)
	}
	res, err = c.cs.CallTool(ctx, &mcp.CallToolParams{Name: "sample", Arguments: map[string]any{"q": "hello"}})
	if err != nil || toolText(t, res) != "model m1 said hi (via airlock)" {
		t.Fatalf("sampling %+v %v", res, err)
	}
	_, err = c.cs.CallTool(ctx, &mcp.CallToolParams{Name: "fail"})
	wantRPCError(t, err, -32042, `{"why":"because","n":7}`)
}
