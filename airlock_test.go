package airlock_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/airlock-mcp/airlock"
	"github.com/airlock-mcp/airlock/host/chain"
	"github.com/airlock-mcp/airlock/host/native"
	"github.com/airlock-mcp/airlock/internal/testbuild"
	"github.com/airlock-mcp/airlock/spec"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// probe is a set of native interceptors on every event and phase: a mutator
// that tags the payload's _meta, and a validator that records whether it
// saw the tag. Sending runs mutators before validators and receiving after,
// so the validator tells which direction each phase ran in.
type probe struct {
	mu      sync.Mutex
	sawTag  map[string]bool // "event/phase" -> the validator saw the mutator's tag
	invoked []string
}

func (p *probe) source() *native.Source {
	all := []spec.Hook{{Events: []string{"*"}, Phase: spec.PhaseRequest}, {Events: []string{"*"}, Phase: spec.PhaseResponse}}
	src := native.New()
	src.MustAdd(spec.Interceptor{Name: "tagger", Type: spec.TypeMutation, Hooks: all},
		func(_ context.Context, in *spec.InvokeParams) (*spec.Result, error) {
			var m map[string]any
			if err := json.Unmarshal(in.Payload, &m); err != nil {
				return nil, err
			}
			meta, _ := m["_meta"].(map[string]any)
			if meta == nil {
				meta = map[string]any{}
			}
			meta["airlockTag"] = true
			m["_meta"] = meta
			out, _ := json.Marshal(m)
			return &spec.Result{Interceptor: in.Name, Type: spec.TypeMutation, Phase: in.Phase, Modified: true, Payload: out}, nil
		})
	src.MustAdd(spec.Interceptor{Name: "observer", Type: spec.TypeValidation, Hooks: all},
		func(_ context.Context, in *spec.InvokeParams) (*spec.Result, error) {
			p.mu.Lock()
			key := in.Event + "/" + string(in.Phase)
			p.sawTag[key] = strings.Contains(string(in.Payload), `"airlockTag":true`)
			p.invoked = append(p.invoked, key)
			p.mu.Unlock()
			return &spec.Result{Interceptor: in.Name, Type: spec.TypeValidation, Phase: in.Phase, Valid: true}, nil
		})
	return src
}

// direction says how (event, phase) ran: "sending", "receiving" or "" when
// it did not run.
func (p *probe) direction(event string, phase spec.Phase) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	saw, ok := p.sawTag[event+"/"+string(phase)]
	switch {
	case !ok:
		return ""
	case saw:
		return "sending"
	}
	return "receiving"
}

// newHost loads the end-to-end test plugin (a real wasm module: no-aws-keys,
// redact-email, audit, ...) and the probe.
func newHost(t *testing.T) (*airlock.Host, *probe) {
	t.Helper()
	p := &probe{sawTag: map[string]bool{}}
	h, err := airlock.New(context.Background(), airlock.Options{
		Plugins:  []airlock.Plugin{{Path: testbuild.GoPlugin(t, "tests/e2e/testdata/plugin")}},
		Sources:  []chain.Source{p.source()},
		CacheDir: filepath.Join(testbuild.CacheDir(), "compiled"),
		Logger:   slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h, p
}

// backend is an MCP server with a tool, a prompt, a resource and a
// template, and a tool ("ask") that makes the server call its client for
// sampling, elicitation and roots.
type backend struct {
	server *mcp.Server
	echoes atomic.Int64
}

func newBackend() *backend {
	b := &backend{}
	// Protocol 2026-07-28 replaces server-initiated requests during a tool
	// call with multi-round-trip results; pin 2025-11-25 to exercise them.
	var versions []string
	for _, v := range mcp.SupportedProtocolVersions() {
		if v <= "2025-11-25" {
			versions = append(versions, v)
		}
	}
	b.server = mcp.NewServer(&mcp.Implementation{Name: "backend", Version: "1"}, &mcp.ServerOptions{
		SupportedProtocolVersions: versions,
		SubscribeHandler:          func(context.Context, *mcp.SubscribeRequest) error { return nil },
		UnsubscribeHandler:        func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
	})
	type echoIn struct {
		Text string `json:"text"`
	}
	mcp.AddTool(b.server, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
		b.echoes.Add(1)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	})
	mcp.AddTool(b.server, &mcp.Tool{Name: "ask"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		ss := req.Session
		msg, err := ss.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 5,
			Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "hi"}}}})
		if err != nil {
			return nil, nil, fmt.Errorf("sampling: %w", err)
		}
		el, err := ss.Elicit(ctx, &mcp.ElicitParams{Message: "ok?", RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{}}})
		if err != nil {
			return nil, nil, fmt.Errorf("elicitation: %w", err)
		}
		roots, err := ss.ListRoots(ctx, nil)
		if err != nil {
			return nil, nil, fmt.Errorf("roots: %w", err)
		}
		text := fmt.Sprintf("%s/%s/%d", msg.Content.(*mcp.TextContent).Text, el.Action, len(roots.Roots))
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
	})
	b.server.AddPrompt(&mcp.Prompt{Name: "greet"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "hello"}}}}, nil
	})
	b.server.AddResource(&mcp.Resource{Name: "a", URI: "file:///a"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "file:///a", Text: "A"}}}, nil
	})
	b.server.AddResourceTemplate(&mcp.ResourceTemplate{Name: "t", URITemplate: "file:///t/{x}"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{}, nil
	})
	return b
}

// client returns a client that answers sampling, elicitation and roots.
func client() *mcp.Client {
	c := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, &mcp.ClientOptions{
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Role: "assistant", Model: "m", Content: &mcp.TextContent{Text: "sampled"}}, nil
		},
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept"}, nil
		},
	})
	c.AddRoots(&mcp.Root{URI: "file:///root", Name: "root"})
	return c
}

// connect runs s on an in-memory pipe and connects c to it.
func connect(t *testing.T, c *mcp.Client, s *mcp.Server) *mcp.ClientSession {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = s.Run(ctx, st) }()
	cs, err := c.Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); cancel(); <-done })
	return cs
}

// exercise calls every intercepted method once, including the
// server-initiated ones (through the "ask" tool).
func exercise(t *testing.T, cs *mcp.ClientSession) {
	t.Helper()
	ctx := context.Background()
	steps := []struct {
		name string
		do   func() error
	}{
		{"tools/list", func() error { _, err := cs.ListTools(ctx, nil); return err }},
		{"tools/call", func() error {
			_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "x"}})
			return err
		}},
		{"prompts/list", func() error { _, err := cs.ListPrompts(ctx, nil); return err }},
		{"prompts/get", func() error { _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet"}); return err }},
		{"resources/list", func() error { _, err := cs.ListResources(ctx, nil); return err }},
		{"resources/read", func() error { _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "file:///a"}); return err }},
		{"resources/templates/list", func() error { _, err := cs.ListResourceTemplates(ctx, nil); return err }},
		{"resources/subscribe", func() error { return cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "file:///a"}) }},
		{"ask", func() error {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{}})
			if err == nil && (res.IsError || res.Content[0].(*mcp.TextContent).Text != "sampled/accept/1") {
				err = fmt.Errorf("ask: %+v", res.Content[0])
			}
			return err
		}},
	}
	for _, s := range steps {
		if err := s.do(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
	}
}

var clientSent = []string{"tools/list", "tools/call", "prompts/list", "prompts/get", "resources/list", "resources/read", "resources/templates/list"}
var serverSent = []string{"sampling/createMessage", "elicitation/create", "roots/list"}

func TestClientWrapper(t *testing.T) {
	h, p := newHost(t)
	b := newBackend()
	c := client()
	if err := h.InstallClient(c, airlock.ClientOptions{}); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, c, b.server)
	exercise(t, cs)

	// What the client sends: the request is sent, the result received.
	for _, ev := range clientSent {
		if d := p.direction(ev, spec.PhaseRequest); d != "sending" {
			t.Errorf("%s request ran %q, want sending", ev, d)
		}
		if d := p.direction(ev, spec.PhaseResponse); d != "receiving" {
			t.Errorf("%s response ran %q, want receiving", ev, d)
		}
	}
	if d := p.direction("resources/subscribe", spec.PhaseRequest); d != "sending" {
		t.Errorf("resources/subscribe request ran %q", d)
	}
	// What the client answers: the server's request is received, the answer sent.
	for _, ev := range serverSent {
		if d := p.direction(ev, spec.PhaseRequest); d != "receiving" {
			t.Errorf("%s request ran %q, want receiving", ev, d)
		}
		if d := p.direction(ev, spec.PhaseResponse); d != "sending" {
			t.Errorf("%s response ran %q, want sending", ev, d)
		}
	}

	ctx := context.Background()
	t.Run("a wasm mutator redacts a result", func(t *testing.T) {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "mail ada@example.com"}})
		if err != nil || res.Content[0].(*mcp.TextContent).Text != "mail [email]" {
			t.Fatalf("%+v %v", res, err)
		}
	})
	t.Run("a wasm validator's block is a typed error", func(t *testing.T) {
		before := b.echoes.Load()
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "AKIAY3RXQZ7W5MNP2K4D"}})
		var be *airlock.BlockedError
		if !errors.As(err, &be) {
			t.Fatalf("got %v (%T), want *airlock.BlockedError", err, err)
		}
		if be.Interceptor() != "no-aws-keys" || be.Phase != spec.PhaseRequest || be.Method != "tools/call" ||
			be.Result.Status != spec.StatusValidationFailed || len(be.Messages()) != 1 || !strings.Contains(be.Error(), "no-aws-keys") {
			t.Fatalf("blocked error %+v: %v", be, be)
		}
		if b.echoes.Load() != before {
			t.Fatal("the blocked call reached the server")
		}
	})
	t.Run("non-throwing mode answers with an isError result", func(t *testing.T) {
		c2 := client()
		if err := h.InstallClient(c2, airlock.ClientOptions{NonThrowing: true}); err != nil {
			t.Fatal(err)
		}
		cs2 := connect(t, c2, b.server)
		res, err := cs2.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "AKIAY3RXQZ7W5MNP2K4D"}})
		if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, `"no-aws-keys"`) {
			t.Fatalf("%+v %v", res, err)
		}
	})
	t.Run("the principal on the context reaches the interceptors", func(t *testing.T) {
		got := make(chan *spec.Principal, 1)
		src := native.New().MustAdd(spec.Interceptor{Name: "who", Type: spec.TypeSink,
			Hooks: []spec.Hook{{Events: []string{"tools/call"}, Phase: spec.PhaseRequest}}},
			func(_ context.Context, in *spec.InvokeParams) (*spec.Result, error) {
				if in.Context != nil {
					got <- in.Context.Principal
				}
				return &spec.Result{Interceptor: in.Name, Type: spec.TypeSink, Phase: in.Phase, Recorded: true}, nil
			})
		h2, err := airlock.New(ctx, airlock.Options{Sources: []chain.Source{src}})
		if err != nil {
			t.Fatal(err)
		}
		defer h2.Close()
		c3 := client()
		_ = h2.InstallClient(c3, airlock.ClientOptions{})
		cs3 := connect(t, c3, b.server)
		uctx := airlock.WithPrincipal(ctx, &spec.Principal{Type: spec.PrincipalUser, ID: "alice"})
		if _, err := cs3.CallTool(uctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "x"}}); err != nil {
			t.Fatal(err)
		}
		if pr := <-got; pr == nil || pr.ID != "alice" {
			t.Fatalf("principal %+v", pr)
		}
	})
}

func TestServerMiddleware(t *testing.T) {
	h, p := newHost(t)
	b := newBackend()
	if err := h.InstallServer(b.server, airlock.ServerOptions{}); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, client(), b.server)
	exercise(t, cs)

	// What the server receives: the request is received, the result sent.
	for _, ev := range clientSent {
		if d := p.direction(ev, spec.PhaseRequest); d != "receiving" {
			t.Errorf("%s request ran %q, want receiving", ev, d)
		}
		if d := p.direction(ev, spec.PhaseResponse); d != "sending" {
			t.Errorf("%s response ran %q, want sending", ev, d)
		}
	}
	// What the server sends its client: the request is sent, the answer received.
	for _, ev := range serverSent {
		if d := p.direction(ev, spec.PhaseRequest); d != "sending" {
			t.Errorf("%s request ran %q, want sending", ev, d)
		}
		if d := p.direction(ev, spec.PhaseResponse); d != "receiving" {
			t.Errorf("%s response ran %q, want receiving", ev, d)
		}
	}
	ctx := context.Background()
	before := b.echoes.Load()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "AKIAY3RXQZ7W5MNP2K4D"}})
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, `"no-aws-keys"`) || b.echoes.Load() != before {
		t.Fatalf("a block in the server: %+v %v (handler ran %d times)", res, err, b.echoes.Load()-before)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "ada@example.com"}})
	if err != nil || res.Content[0].(*mcp.TextContent).Text != "[email]" {
		t.Fatalf("redaction in the server: %+v %v", res, err)
	}
}

func TestComplete(t *testing.T) {
	src := native.New()
	src.MustAdd(spec.Interceptor{Name: "redact-prompt", Type: spec.TypeMutation,
		Hooks: []spec.Hook{{Events: []string{"llm/completion"}, Phase: spec.PhaseRequest}}},
		func(_ context.Context, in *spec.InvokeParams) (*spec.Result, error) {
			out := strings.ReplaceAll(string(in.Payload), "ada@example.com", "[email]")
			return &spec.Result{Interceptor: in.Name, Type: spec.TypeMutation, Phase: in.Phase,
				Modified: out != string(in.Payload), Payload: json.RawMessage(out)}, nil
		})
	src.MustAdd(spec.Interceptor{Name: "no-secret-answers", Type: spec.TypeValidation,
		Hooks: []spec.Hook{{Events: []string{"llm/completion"}, Phase: spec.PhaseBoth}}},
		func(_ context.Context, in *spec.InvokeParams) (*spec.Result, error) {
			bad := strings.Contains(string(in.Payload), "sk_live_")
			r := &spec.Result{Interceptor: in.Name, Type: spec.TypeValidation, Phase: in.Phase, Valid: !bad}
			if bad {
				r.Messages = []spec.Message{{Message: "a Stripe key", Severity: spec.SeverityError}}
			}
			return r, nil
		})
	ctx := context.Background()
	h, err := airlock.New(ctx, airlock.Options{Sources: []chain.Source{src}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	var seen []string
	model := func(answer string) airlock.Model {
		return func(_ context.Context, req *spec.LLMRequest) (*spec.LLMResponse, error) {
			seen = append(seen, req.Messages[0].Text())
			return &spec.LLMResponse{Model: req.Model, Message: spec.TextMessage("assistant", answer), StopReason: "end"}, nil
		}
	}
	req := &spec.LLMRequest{Model: "m", Messages: []spec.LLMMessage{spec.TextMessage("user", "write to ada@example.com")}}
	res, err := h.Complete(ctx, req, model("done"))
	if err != nil || res.Message.Text() != "done" || !slices.Equal(seen, []string{"write to [email]"}) {
		t.Fatalf("round trip: %+v %v, the model saw %q", res, err, seen)
	}
	_, err = h.Complete(ctx, req, model("the key is sk_live_abc"))
	var be *airlock.BlockedError
	if !errors.As(err, &be) || be.Phase != spec.PhaseResponse || be.Interceptor() != "no-secret-answers" || be.Messages()[0].Message != "a Stripe key" {
		t.Fatalf("answer block: %v", err)
	}
	seen = nil
	_, err = h.Complete(ctx, &spec.LLMRequest{Messages: []spec.LLMMessage{spec.TextMessage("user", "use sk_live_abc")}}, model("x"))
	if !errors.As(err, &be) || be.Phase != spec.PhaseRequest || len(seen) != 0 {
		t.Fatalf("prompt block: %v; the model saw %q", err, seen)
	}
}
