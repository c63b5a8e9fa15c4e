package intercept_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/airlock-mcp/airlock/host/chain"
	"github.com/airlock-mcp/airlock/host/intercept"
	"github.com/airlock-mcp/airlock/host/native"
	"github.com/airlock-mcp/airlock/spec"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestHookedAndDirection(t *testing.T) {
	req, res := spec.PhaseRequest, spec.PhaseResponse
	send, recv := spec.DirectionSending, spec.DirectionReceiving
	for _, tt := range []struct {
		method           string
		request, respons bool
		reqDir, resDir   spec.Direction
	}{
		{"tools/list", true, true, send, recv},
		{"tools/call", true, true, send, recv},
		{"prompts/list", true, true, send, recv},
		{"prompts/get", true, true, send, recv},
		{"resources/list", true, true, send, recv},
		{"resources/read", true, true, send, recv},
		{"resources/templates/list", true, true, send, recv},
		{"resources/subscribe", true, false, send, recv},
		{"sampling/createMessage", true, true, recv, send},
		{"elicitation/create", true, true, recv, send},
		{"roots/list", true, true, recv, send},
		{"resources/unsubscribe", false, false, send, recv},
		{"completion/complete", false, false, send, recv},
		{"logging/setLevel", false, false, send, recv},
		{"ping", false, false, send, recv},
		{"initialize", false, false, send, recv},
		{"notifications/progress", false, false, send, recv},
	} {
		t.Run(tt.method, func(t *testing.T) {
			if got := intercept.Hooked(tt.method, req); got != tt.request {
				t.Errorf("request hooked %v", got)
			}
			if got := intercept.Hooked(tt.method, res); got != tt.respons {
				t.Errorf("response hooked %v", got)
			}
			if got := intercept.DirectionOf(tt.method, req); got != tt.reqDir {
				t.Errorf("request direction %s", got)
			}
			if got := intercept.DirectionOf(tt.method, res); got != tt.resDir {
				t.Errorf("response direction %s", got)
			}
		})
	}
}

// fixture is an engine over native interceptors.
type fixture struct {
	src  *native.Source
	seen map[string][]string
}

func newFixture() *fixture { return &fixture{src: native.New(), seen: map[string][]string{}} }

func (f *fixture) mutate(name string, phase spec.Phase, events []string, fn func([]byte) []byte) {
	f.src.MustAdd(spec.Interceptor{Name: name, Type: spec.TypeMutation, Hooks: []spec.Hook{{Events: events, Phase: phase}}},
		func(_ context.Context, p *spec.InvokeParams) (*spec.Result, error) {
			f.seen[name] = append(f.seen[name], string(p.Payload))
			out := fn(p.Payload)
			mod := !bytes.Equal(out, p.Payload)
			r := &spec.Result{Interceptor: name, Type: spec.TypeMutation, Phase: p.Phase, Modified: mod}
			if mod {
				r.Payload = out
			}
			return r, nil
		})
}

func (f *fixture) reject(name string, phase spec.Phase, events []string, when string) {
	f.src.MustAdd(spec.Interceptor{Name: name, Type: spec.TypeValidation, Hooks: []spec.Hook{{Events: events, Phase: phase}}},
		func(_ context.Context, p *spec.InvokeParams) (*spec.Result, error) {
			f.seen[name] = append(f.seen[name], string(p.Payload))
			ok := !bytes.Contains(p.Payload, []byte(when))
			r := &spec.Result{Interceptor: name, Type: spec.TypeValidation, Phase: p.Phase, Valid: ok}
			if !ok {
				r.Messages = []spec.Message{{Message: "secret policy detail", Severity: spec.SeverityError}}
			}
			return r, nil
		})
}

func (f *fixture) engine(t *testing.T) *intercept.Engine {
	t.Helper()
	c, err := chain.New(context.Background(), []chain.Source{f.src}, chain.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e, err := intercept.New(intercept.Options{Chains: chain.Static(c)})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func replace(old, new string) func([]byte) []byte {
	return func(b []byte) []byte { return bytes.ReplaceAll(b, []byte(old), []byte(new)) }
}

func TestHandle(t *testing.T) {
	f := newFixture()
	f.mutate("rename-arg", spec.PhaseRequest, []string{"tools/call"}, replace(`"q"`, `"query"`))
	f.reject("no-secrets", spec.PhaseRequest, []string{"tools/call", "prompts/get"}, "secret")
	f.mutate("shout", spec.PhaseResponse, []string{"tools/call"}, replace("hello", "HELLO"))
	f.mutate("hide", spec.PhaseResponse, []string{"tools/list"}, replace(`{"inputSchema":{"type":"object"},"name":"admin"},`, ""))
	f.mutate("reroute", spec.PhaseRequest, []string{"tools/call"}, replace(`"name":"alias"`, `"name":"admin"`))
	f.mutate("break-result", spec.PhaseResponse, []string{"prompts/get"}, replace(`"messages":[]`, `"messages":[],"description":7`))
	e := f.engine(t)
	ctx := context.Background()
	sess := intercept.NewSession("s1")

	t.Run("not intercepted: next gets the very params", func(t *testing.T) {
		p := &mcp.CompleteParams{}
		_, err := e.Handle(ctx, intercept.Call{Method: "completion/complete", Params: p}, func(_ context.Context, got mcp.Params) (mcp.Result, error) {
			if got != p {
				t.Fatal("params were replaced")
			}
			return &mcp.CompleteResult{}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})

	t.Run("mutations keep the caller's types", func(t *testing.T) {
		for _, params := range []mcp.Params{
			&mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"q": "hi"}},
			&mcp.CallToolParamsRaw{Name: "echo", Arguments: json.RawMessage(`{"q":"hi"}`)},
		} {
			var sent mcp.Params
			res, err := e.Handle(ctx, intercept.Call{Method: "tools/call", Params: params}, func(_ context.Context, p mcp.Params) (mcp.Result, error) {
				sent = p
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hello"}}}, nil
			})
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(sent)
			if !strings.Contains(string(b), `"query":"hi"`) || !sameType(sent, params) {
				t.Fatalf("sent %T %s", sent, b)
			}
			if txt := res.(*mcp.CallToolResult).Content[0].(*mcp.TextContent).Text; txt != "HELLO" {
				t.Fatalf("result %q", txt)
			}
		}
	})

	t.Run("a block never calls next", func(t *testing.T) {
		called := false
		next := func(context.Context, mcp.Params) (mcp.Result, error) {
			called = true
			return &mcp.CallToolResult{}, nil
		}
		res, err := e.Handle(ctx, intercept.Call{Method: "tools/call", Params: &mcp.CallToolParams{Name: "x", Arguments: map[string]any{"a": "secret"}}}, next)
		if err != nil {
			t.Fatal(err)
		}
		r := res.(*mcp.CallToolResult)
		if !r.IsError || called || strings.Contains(r.Content[0].(*mcp.TextContent).Text, "policy detail") {
			t.Fatalf("result %+v, next called %v", r.Content[0], called)
		}
		_, err = e.Handle(ctx, intercept.Call{Method: "prompts/get", Params: &mcp.GetPromptParams{Name: "secret"}}, next)
		var we *jsonrpc.Error
		if !errors.As(err, &we) || we.Code != -32602 || called {
			t.Fatalf("prompts/get: %v, next called %v", err, called)
		}
		if !spec.JSONEqual(we.Data, json.RawMessage(`{"interceptor":"no-secrets","phase":"request","status":"validation_failed"}`)) {
			t.Fatalf("data %s", we.Data)
		}
	})

	t.Run("a mutation that does not decode is a failure", func(t *testing.T) {
		_, err := e.Handle(ctx, intercept.Call{Method: "prompts/get", Params: &mcp.GetPromptParams{Name: "p"}},
			func(context.Context, mcp.Params) (mcp.Result, error) {
				return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{}}, nil
			})
		var we *jsonrpc.Error
		if !errors.As(err, &we) || we.Code != -32603 {
			t.Fatalf("got %v", err)
		}
	})

	t.Run("absent list params are {} and stay typed", func(t *testing.T) {
		res, err := e.Handle(ctx, intercept.Call{Method: "tools/list", Session: sess}, func(_ context.Context, p mcp.Params) (mcp.Result, error) {
			if p != nil {
				t.Fatalf("params %v", p)
			}
			return &mcp.ListToolsResult{Tools: []*mcp.Tool{
				{Name: "admin", InputSchema: map[string]any{"type": "object"}},
				{Name: "echo", InputSchema: map[string]any{"type": "object"}}}}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if tools := res.(*mcp.ListToolsResult).Tools; len(tools) != 1 || tools[0].Name != "echo" {
			t.Fatalf("tools %+v", tools)
		}
		if !sess.HiddenTool("admin") || sess.HiddenTool("echo") {
			t.Fatal("the session did not record what was hidden")
		}
	})

	t.Run("hidden names are refused, also after a request mutation", func(t *testing.T) {
		next := func(context.Context, mcp.Params) (mcp.Result, error) {
			t.Fatal("next called")
			return nil, nil
		}
		for _, name := range []string{"admin", "alias"} {
			_, err := e.Handle(ctx, intercept.Call{Method: "tools/call", Session: sess, Params: &mcp.CallToolParams{Name: name}}, next)
			var we *jsonrpc.Error
			if !errors.As(err, &we) || we.Code != -32602 || we.Message != `unknown tool "admin"` {
				t.Fatalf("%s: %v", name, err)
			}
		}
	})

	t.Run("context: session, timestamp and trace", func(t *testing.T) {
		var got *spec.Context
		src := native.New().MustAdd(spec.Interceptor{Name: "ctx", Type: spec.TypeSink, Hooks: []spec.Hook{{Events: []string{"*"}, Phase: spec.PhaseRequest}}},
			func(_ context.Context, p *spec.InvokeParams) (*spec.Result, error) {
				got = p.Context
				return &spec.Result{Interceptor: "ctx", Type: spec.TypeSink, Phase: p.Phase, Recorded: true}, nil
			})
		c, err := chain.New(ctx, []chain.Source{src}, chain.Options{})
		if err != nil {
			t.Fatal(err)
		}
		e, _ := intercept.New(intercept.Options{Chains: chain.Static(c)})
		for _, tt := range []struct{ tp, trace, span string }{
			{"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"},
			{"00-00000000000000000000000000000000-00f067aa0ba902b7-01", "", ""}, // all-zero trace id is invalid
			{"00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01", "", ""}, // upper case is invalid
			{"garbage", "", ""},
		} {
			p := &mcp.CallToolParams{Name: "x"}
			p.SetMeta(map[string]any{"traceparent": tt.tp})
			_, err := e.Handle(ctx, intercept.Call{Method: "tools/call", Params: p, Session: intercept.NewSession("sess-9"),
				Context: spec.Context{Principal: &spec.Principal{Type: spec.PrincipalService, ID: "ci"}}},
				func(context.Context, mcp.Params) (mcp.Result, error) { return &mcp.CallToolResult{}, nil })
			if err != nil {
				t.Fatal(err)
			}
			if got.TraceID != tt.trace || got.SpanID != tt.span || got.SessionID != "sess-9" || got.Timestamp == "" || got.Principal.ID != "ci" {
				t.Fatalf("%s: context %+v", tt.tp, got)
			}
		}
	})
}

func sameType(a, b any) bool {
	switch a.(type) {
	case *mcp.CallToolParams:
		_, ok := b.(*mcp.CallToolParams)
		return ok
	case *mcp.CallToolParamsRaw:
		_, ok := b.(*mcp.CallToolParamsRaw)
		return ok
	}
	return false
}
