package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/airlock-mcp/airlock/host/chain"
	"github.com/airlock-mcp/airlock/host/native"
	"github.com/airlock-mcp/airlock/host/remote"
	"github.com/airlock-mcp/airlock/host/server"
	"github.com/airlock-mcp/airlock/spec"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// interceptors is the fixture every transport is tested with.
func interceptors(t *testing.T) *chain.Chain {
	t.Helper()
	src := native.New()
	req := func(events ...string) []spec.Hook { return []spec.Hook{{Events: events, Phase: spec.PhaseRequest}} }
	src.MustAdd(spec.Interceptor{Name: "no-secrets", Type: spec.TypeValidation, Hooks: req("tools/call"),
		ConfigSchema: json.RawMessage(`{"type":"object","properties":{"limit":{"type":"integer","minimum":1}},"additionalProperties":false}`)},
		func(_ context.Context, p *spec.InvokeParams) (*spec.Result, error) {
			bad := strings.Contains(string(p.Payload), "AKIA")
			r := &spec.Result{Interceptor: p.Name, Type: spec.TypeValidation, Phase: p.Phase, Valid: !bad}
			if bad {
				r.Severity = spec.SeverityError
				r.Messages = []spec.Message{{Path: "$.arguments", Message: "AWS key", Severity: spec.SeverityError}}
			}
			return r, nil
		})
	src.MustAdd(spec.Interceptor{Name: "upper", Type: spec.TypeMutation, Hooks: []spec.Hook{{Events: []string{"tools/*"}, Phase: spec.PhaseResponse}}},
		func(_ context.Context, p *spec.InvokeParams) (*spec.Result, error) {
			return &spec.Result{Interceptor: p.Name, Type: spec.TypeMutation, Phase: p.Phase, Modified: true,
				Payload: json.RawMessage(strings.ToUpper(string(p.Payload)))}, nil
		})
	src.MustAdd(spec.Interceptor{Name: "audit", Type: spec.TypeSink, Hooks: []spec.Hook{{Events: []string{"*"}, Phase: spec.PhaseRequest}}},
		func(_ context.Context, p *spec.InvokeParams) (*spec.Result, error) {
			return &spec.Result{Interceptor: p.Name, Type: spec.TypeSink, Phase: p.Phase, Recorded: true,
				Metrics: map[string]float64{"bytes": float64(len(p.Payload))}}, nil
		})
	src.MustAdd(spec.Interceptor{Name: "sleepy", Type: spec.TypeValidation, Hooks: req("tools/call")},
		func(ctx context.Context, p *spec.InvokeParams) (*spec.Result, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		})
	src.MustAdd(spec.Interceptor{Name: "crashy", Type: spec.TypeValidation, Hooks: req("tools/call")},
		func(context.Context, *spec.InvokeParams) (*spec.Result, error) { panic("wasm trap: unreachable") })
	src.MustAdd(spec.Interceptor{Name: "liar", Type: spec.TypeValidation, Hooks: req("tools/call")},
		func(_ context.Context, p *spec.InvokeParams) (*spec.Result, error) {
			return &spec.Result{Interceptor: "no-secrets", Type: spec.TypeValidation, Phase: p.Phase, Valid: true}, nil
		})
	c, err := chain.New(context.Background(), []chain.Source{src}, chain.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// transports connects a remote.Host to a fresh server in each way a client
// can reach one.
var transports = []struct {
	name    string
	connect func(t *testing.T, s *server.Server) *remote.Host
}{
	{"in-memory", func(t *testing.T, s *server.Server) *remote.Host {
		ct, st := mcp.NewInMemoryTransports()
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); _ = s.Run(ctx, st) }()
		h, err := remote.Dial(context.Background(), "mem", ct)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { h.Close(); cancel(); <-done })
		return h
	}},
	{"streamable-http", func(t *testing.T, s *server.Server) *remote.Host {
		hs := httptest.NewServer(s.HTTPHandler())
		h, err := remote.Dial(context.Background(), "http", remote.URL(hs.URL))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { h.Close(); hs.CloseClientConnections(); hs.Close() })
		return h
	}},
}

func newServer(t *testing.T) *server.Server {
	t.Helper()
	s, err := server.New(chain.Static(interceptors(t)), server.Options{MaxTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestProtocol(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			h := tr.connect(t, newServer(t))
			ctx := context.Background()

			t.Run("list", func(t *testing.T) {
				got, err := h.Interceptors(ctx)
				if err != nil {
					t.Fatal(err)
				}
				want := []string{"no-secrets", "upper", "audit", "sleepy", "crashy", "liar"}
				if n := names(got); !slices.Equal(n, want) {
					t.Fatalf("list %v, want %v (registration order)", n, want)
				}
			})
			t.Run("invoke each kind", func(t *testing.T) {
				v, err := h.Invoke(ctx, params("no-secrets", "tools/call", spec.PhaseRequest, `{"name":"x","arguments":{"k":"AKIAXXXX"}}`))
				if err != nil || v.Valid || v.Severity != spec.SeverityError || v.Messages[0].Path != "$.arguments" || v.DurationMs <= 0 {
					t.Fatalf("validation: %+v %v", v, err)
				}
				m, err := h.Invoke(ctx, params("upper", "tools/call", spec.PhaseResponse, `{"content":[]}`))
				if err != nil || !m.Modified || string(m.Payload) != `{"CONTENT":[]}` {
					t.Fatalf("mutation: %+v %v", m, err)
				}
				s, err := h.Invoke(ctx, params("audit", "prompts/get", spec.PhaseRequest, `{"name":"p"}`))
				if err != nil || !s.Recorded || s.Metrics["bytes"] != 12 {
					t.Fatalf("sink: %+v %v", s, err)
				}
			})
			t.Run("error table", func(t *testing.T) {
				for _, tt := range errorTable {
					t.Run(tt.name, func(t *testing.T) {
						_, err := h.Invoke(ctx, &tt.p)
						checkError(t, err, tt.code, tt.data)
					})
				}
			})
			t.Run("32 concurrent invocations", func(t *testing.T) {
				var wg sync.WaitGroup
				errs := make(chan error, 32)
				for i := range 32 {
					wg.Add(1)
					go func() {
						defer wg.Done()
						payload := fmt.Sprintf(`{"name":"t%d","arguments":{}}`, i)
						r, err := h.Invoke(ctx, params("audit", "tools/call", spec.PhaseRequest, payload))
						if err == nil && r.Metrics["bytes"] != float64(len(payload)) {
							err = fmt.Errorf("call %d got metrics %v", i, r.Metrics)
						}
						errs <- err
					}()
				}
				wg.Wait()
				close(errs)
				for err := range errs {
					if err != nil {
						t.Fatal(err)
					}
				}
			})
		})
	}
}

var errorTable = []struct {
	name string
	p    spec.InvokeParams
	code int64
	data string
}{
	{"unknown name", *params("nope", "tools/call", spec.PhaseRequest, `{}`), -32602, `{"name":"nope"}`},
	{"event not hooked", *params("no-secrets", "prompts/get", spec.PhaseRequest, `{"name":"p"}`), -32602,
		`{"name":"no-secrets","event":"prompts/get","phase":"request","advertisedHooks":[{"events":["tools/call"],"phase":"request"}]}`},
	{"phase not hooked", *params("no-secrets", "tools/call", spec.PhaseResponse, `{}`), -32602,
		`{"name":"no-secrets","event":"tools/call","phase":"response","advertisedHooks":[{"events":["tools/call"],"phase":"request"}]}`},
	{"malformed params: phase both", *params("no-secrets", "tools/call", spec.PhaseBoth, `{}`), -32602,
		`{"name":"no-secrets","reason":"phase \"both\" is authoring sugar and never valid at execution time: use request or response"}`},
	{"config rejected by configSchema", withConfig(params("no-secrets", "tools/call", spec.PhaseRequest, `{"name":"x"}`), `{"limit":0}`), -32602,
		`{"name":"no-secrets","reason":"config.limit: minimum: got 0, want 1"}`},
	{"interceptor failed", *params("crashy", "tools/call", spec.PhaseRequest, `{"name":"x"}`), -32603,
		`{"interceptor":"crashy","reason":"panic: wasm trap: unreachable"}`},
	{"malformed result", *params("liar", "tools/call", spec.PhaseRequest, `{"name":"x"}`), -32603,
		`{"interceptor":"liar","reason":"malformed result: result names interceptor \"no-secrets\", the call was for \"liar\""}`},
	{"timeout", withTimeout(params("sleepy", "tools/call", spec.PhaseRequest, `{"name":"x"}`), 50), -32603,
		`{"interceptor":"sleepy","reason":"timeout","timeoutMs":50,"phase":"request"}`},
}

func params(name, event string, phase spec.Phase, payload string) *spec.InvokeParams {
	return &spec.InvokeParams{Name: name, Event: event, Phase: phase, Payload: json.RawMessage(payload)}
}

func withConfig(p *spec.InvokeParams, c string) spec.InvokeParams {
	p.Config = json.RawMessage(c)
	return *p
}

func withTimeout(p *spec.InvokeParams, ms int64) spec.InvokeParams {
	p.TimeoutMs = ms
	return *p
}

func checkError(t *testing.T, err error, code int64, data string) {
	t.Helper()
	var se *spec.Error
	if !errors.As(err, &se) {
		t.Fatalf("got %v (%T), want a JSON-RPC error", err, err)
	}
	raw, _ := json.Marshal(se.Data)
	if se.Code != code || !spec.JSONEqual(raw, json.RawMessage(data)) {
		t.Fatalf("got code %d data %s\nwant code %d data %s", se.Code, raw, code, data)
	}
}

func names(ds []spec.Interceptor) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.Name
	}
	return out
}

func TestListAndCapability(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			live := chain.NewLive(interceptors(t))
			s, err := server.New(live, server.Options{})
			if err != nil {
				t.Fatal(err)
			}
			h := tr.connect(t, s)
			ctx := context.Background()
			c, ok := h.Capability()
			if !ok || !slices.Equal(c.SupportedEvents, []string{"*", "tools/*", "tools/call"}) {
				t.Fatalf("capability %+v %v", c, ok)
			}
			tests := []struct {
				event string
				want  []string
			}{
				// "audit" hooks "*", so it matches every event; "upper" hooks tools/* on the response phase.
				{"tools/call", []string{"no-secrets", "upper", "audit", "sleepy", "crashy", "liar"}},
				{"tools/list", []string{"upper", "audit"}},
				{"prompts/get", []string{"audit"}},
				{"acme/custom", []string{"audit"}},
				{"initialize", []string{}},
			}
			for _, tt := range tests {
				var res struct {
					Interceptors []spec.Interceptor `json:"interceptors"`
				}
				if err := callList(ctx, h, map[string]any{"event": tt.event}, &res); err != nil {
					t.Fatal(err)
				}
				if got := names(res.Interceptors); !slices.Equal(got, tt.want) {
					t.Errorf("event %s: %v, want %v", tt.event, got, tt.want)
				}
			}
			err = callList(ctx, h, map[string]any{"cursor": "page-2"}, nil)
			checkError(t, err, -32602, `{"name":"","reason":"unknown cursor \"page-2\""}`)

			// A swap is visible to the next list at once.
			src := native.New().MustAdd(spec.Interceptor{Name: "fresh", Type: spec.TypeSink,
				Hooks: []spec.Hook{{Events: []string{"tools/call"}, Phase: spec.PhaseRequest}}},
				func(context.Context, *spec.InvokeParams) (*spec.Result, error) { return nil, nil })
			nc, err := chain.New(ctx, []chain.Source{src}, chain.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if err := server.Check(nc); err != nil {
				t.Fatal(err)
			}
			<-live.Swap(nc, nil)
			got, err := h.Interceptors(ctx)
			if err != nil || !slices.Equal(names(got), []string{"fresh"}) {
				t.Fatalf("after swap: %v %v", names(got), err)
			}
			// A session that starts after the swap is told the new events.
			h2 := tr.connect(t, s)
			if c, ok := h2.Capability(); !ok || !slices.Equal(c.SupportedEvents, []string{"tools/call"}) {
				t.Fatalf("capability after swap %+v", c)
			}
		})
	}
}

// callList sends interceptors/list with arbitrary params through a second
// connection-independent path: the remote host's own list only sends cursors.
func callList(ctx context.Context, h *remote.Host, params map[string]any, out any) error {
	raw, err := h.Call(ctx, spec.MethodList, params)
	if err != nil {
		return err
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(raw, out)
}

func TestDuplicateNamesRefused(t *testing.T) {
	mk := func() chain.Source {
		return native.New().MustAdd(spec.Interceptor{Name: "same", Type: spec.TypeSink,
			Hooks: []spec.Hook{{Events: []string{"*"}, Phase: spec.PhaseRequest}}},
			func(context.Context, *spec.InvokeParams) (*spec.Result, error) { return nil, nil })
	}
	c, err := chain.New(context.Background(), []chain.Source{mk(), mk()}, chain.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := server.New(chain.Static(c), server.Options{}); err == nil || !strings.Contains(err.Error(), `"same"`) {
		t.Fatalf("got %v", err)
	}
}

// A remote interceptor host and a local source form one chain in one global
// priority order.
func TestRemoteAndLocalInOneChain(t *testing.T) {
	mut := func(name string, prio int32) (spec.Interceptor, native.Handler) {
		return spec.Interceptor{Name: name, Type: spec.TypeMutation, PriorityHint: spec.Priority(prio),
				Hooks: []spec.Hook{{Events: []string{"tools/call"}, Phase: spec.PhaseRequest}}},
			func(_ context.Context, p *spec.InvokeParams) (*spec.Result, error) {
				var body map[string]any
				_ = json.Unmarshal(p.Payload, &body)
				trail, _ := body["trail"].([]any)
				body["trail"] = append(trail, p.Name)
				b, _ := json.Marshal(body)
				return &spec.Result{Interceptor: p.Name, Type: spec.TypeMutation, Phase: p.Phase, Modified: true, Payload: b}, nil
			}
	}
	far := native.New()
	far.MustAdd(mut("remote-first", -5))
	far.MustAdd(mut("remote-last", 5))
	fc, err := chain.New(context.Background(), []chain.Source{far}, chain.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := server.New(chain.Static(fc), server.Options{})
	if err != nil {
		t.Fatal(err)
	}
	h := transports[0].connect(t, s)
	near := native.New()
	near.MustAdd(mut("local-mid", 0))
	c, err := chain.New(context.Background(), []chain.Source{near, h}, chain.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Run(context.Background(), &spec.ChainParams{Event: "tools/call", Phase: spec.PhaseRequest,
		Direction: spec.DirectionSending, Payload: json.RawMessage(`{"name":"x"}`)})
	if err != nil {
		t.Fatal(err)
	}
	var body struct{ Trail []string }
	_ = json.Unmarshal(res.FinalPayload, &body)
	if want := []string{"remote-first", "local-mid", "remote-last"}; res.Status != spec.StatusSuccess || !slices.Equal(body.Trail, want) {
		t.Fatalf("status %s trail %v, want %v", res.Status, body.Trail, want)
	}
}

func TestMalformedInvokeParams(t *testing.T) {
	h := transports[0].connect(t, newServer(t))
	ctx := context.Background()
	tests := []struct {
		name   string
		params any
		reason string
	}{
		{"name of the wrong type", map[string]any{"name": 5, "event": "tools/call", "phase": "request", "payload": map[string]any{}}, "cannot unmarshal"},
		{"no name", map[string]any{"event": "tools/call", "phase": "request", "payload": map[string]any{}}, `"name" is required`},
		{"no payload", map[string]any{"name": "audit", "event": "tools/call", "phase": "request"}, `"payload" is required`},
		{"bad phase", map[string]any{"name": "audit", "event": "tools/call", "phase": "pre", "payload": map[string]any{}}, `phase "pre"`},
		{"ping", map[string]any{"name": "audit", "event": "ping", "phase": "request", "payload": map[string]any{}}, "cannot be intercepted"},
		{"config not an object", map[string]any{"name": "audit", "event": "tools/call", "phase": "request", "payload": map[string]any{}, "config": []int{1}}, "config must be an object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := h.Call(ctx, spec.MethodInvoke, tt.params)
			var se *spec.Error
			if !errors.As(err, &se) || se.Code != -32602 || !strings.Contains(se.Reason(), tt.reason) {
				t.Fatalf("got %v, want -32602 with reason containing %q", err, tt.reason)
			}
		})
	}
}
