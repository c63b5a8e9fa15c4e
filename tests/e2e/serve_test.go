package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/airlock-mcp/airlock/host/remote"
	"github.com/airlock-mcp/airlock/spec"
)

// TestServe checks `airlock serve` against SPEC.md sections 1, 2 and 6 over
// both transports, with a go-sdk client.
func TestServe(t *testing.T) {
	p := plugin(t)
	for _, tr := range []struct {
		name  string
		start func(*testing.T, ...string) *remote.Host
	}{{"stdio", serveStdio}, {"streamable-http", serveHTTP}} {
		t.Run(tr.name, func(t *testing.T) {
			h := tr.start(t, "--plugin", p)
			ctx := context.Background()

			t.Run("capability", func(t *testing.T) {
				c, ok := h.Capability()
				want := []string{"*", "acme/impostor", "acme/spin", "acme/tag", "acme/trap", "tools/*", "tools/call"}
				if !ok || !slices.Equal(c.SupportedEvents, want) {
					t.Fatalf("capability %+v (advertised %v), want %v", c, ok, want)
				}
			})
			t.Run("list", func(t *testing.T) {
				all, err := h.Interceptors(ctx)
				if err != nil {
					t.Fatal(err)
				}
				want := []string{"no-aws-keys", "redact-email", "audit", "tag-a", "tag-b", "tag-c", "spin", "trap", "impostor"}
				if got := names(all); !slices.Equal(got, want) {
					t.Fatalf("list %v, want %v", got, want)
				}
				// The plugin wrote "both"; the host expanded it into two hooks.
				if a := all[2]; len(a.Hooks) != 2 || a.Hooks[0].Phase != spec.PhaseRequest || a.Hooks[1].Phase != spec.PhaseResponse {
					t.Fatalf("audit hooks %+v", a.Hooks)
				}
				for event, want := range map[string][]string{
					"tools/list":  {"redact-email", "audit"}, // tools/* and the "*" wildcard
					"tools/call":  {"no-aws-keys", "redact-email", "audit"},
					"prompts/get": {"audit"},
					"ping":        {},
				} {
					raw, err := h.Call(ctx, spec.MethodList, map[string]string{"event": event})
					if err != nil {
						t.Fatal(err)
					}
					var res spec.ListResult
					if err := json.Unmarshal(raw, &res); err != nil {
						t.Fatal(err)
					}
					if got := names(res.Interceptors); !slices.Equal(got, want) {
						t.Errorf("list event=%s: %v, want %v", event, got, want)
					}
				}
			})
			t.Run("invoke each kind", func(t *testing.T) {
				v, err := h.Invoke(ctx, call("no-aws-keys", "tools/call", spec.PhaseRequest, `{"name":"s3","arguments":{"key":"AKIAIOSFODNN7EXAMPLE"}}`))
				if err != nil || v.Valid || v.Severity != spec.SeverityError || len(v.Messages) != 1 || v.Messages[0].Path != "$.arguments" {
					t.Fatalf("validation %+v %v", v, err)
				}
				v, err = h.Invoke(ctx, call("no-aws-keys", "tools/call", spec.PhaseRequest, `{"name":"s3","arguments":{"key":"none"}}`))
				if err != nil || !v.Valid {
					t.Fatalf("validation of a clean call %+v %v", v, err)
				}
				m, err := h.Invoke(ctx, call("redact-email", "tools/call", spec.PhaseResponse, `{"content":[{"type":"text","text":"mail ada@example.com now"}]}`))
				if err != nil || !m.Modified || !spec.JSONEqual(m.Payload, json.RawMessage(`{"content":[{"type":"text","text":"mail [email] now"}]}`)) {
					t.Fatalf("mutation %+v %v", m, err)
				}
				s, err := h.Invoke(ctx, call("audit", "prompts/get", spec.PhaseResponse, `{"messages":[]}`))
				if err != nil || !s.Recorded || s.Metrics["bytes"] != 15 {
					t.Fatalf("sink %+v %v", s, err)
				}
			})
			t.Run("errors", func(t *testing.T) {
				for _, tt := range errorTable() {
					t.Run(tt.name, func(t *testing.T) {
						_, err := h.Invoke(ctx, &tt.params)
						wantError(t, err, tt.code, tt.data)
					})
				}
				// The host keeps serving after every failure above.
				if v, err := h.Invoke(ctx, call("no-aws-keys", "tools/call", spec.PhaseRequest, `{"name":"x"}`)); err != nil || !v.Valid {
					t.Fatalf("after the failures: %+v %v", v, err)
				}
			})
			t.Run("32 concurrent invocations", func(t *testing.T) {
				var wg sync.WaitGroup
				errs := make(chan error, 32)
				for i := range 32 {
					wg.Add(1)
					go func() {
						defer wg.Done()
						payload := fmt.Sprintf(`{"trail":["c%d"]}`, i)
						r, err := h.Invoke(ctx, call("tag-b", "acme/tag", spec.PhaseRequest, payload))
						if err == nil && !spec.JSONEqual(r.Payload, json.RawMessage(fmt.Sprintf(`{"trail":["c%d","tag-b"]}`, i))) {
							err = fmt.Errorf("call %d got %s", i, r.Payload)
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

type errorCase struct {
	name   string
	params spec.InvokeParams
	code   int64
	data   string // the exact JSON-RPC error data
}

// errorTable has a case for every row of SPEC.md's error table.
func errorTable() []errorCase {
	withConfig := func(p *spec.InvokeParams, c string) spec.InvokeParams { p.Config = json.RawMessage(c); return *p }
	withTimeout := func(p *spec.InvokeParams, ms int64) spec.InvokeParams { p.TimeoutMs = ms; return *p }
	return []errorCase{
		{"unknown interceptor", *call("nope", "tools/call", spec.PhaseRequest, `{}`), -32602, `{"name":"nope"}`},
		{"event not hooked", *call("no-aws-keys", "prompts/get", spec.PhaseRequest, `{"name":"p"}`), -32602,
			`{"name":"no-aws-keys","event":"prompts/get","phase":"request","advertisedHooks":[{"events":["tools/call"],"phase":"request"}]}`},
		{"phase not hooked", *call("no-aws-keys", "tools/call", spec.PhaseResponse, `{"content":[]}`), -32602,
			`{"name":"no-aws-keys","event":"tools/call","phase":"response","advertisedHooks":[{"events":["tools/call"],"phase":"request"}]}`},
		{"malformed params", *call("no-aws-keys", "tools/call", spec.PhaseBoth, `{}`), -32602,
			`{"name":"no-aws-keys","reason":"phase \"both\" is authoring sugar and never valid at execution time: use request or response"}`},
		{"config rejected by the configSchema", withConfig(call("no-aws-keys", "tools/call", spec.PhaseRequest, `{"name":"x"}`), `{"prefix":"A"}`), -32602,
			`{"name":"no-aws-keys","reason":"config.prefix: minLength: got 1, want 2"}`},
		{"interceptor trapped", *call("trap", "acme/trap", spec.PhaseRequest, `{}`), -32603, ``},
		{"malformed result", *call("impostor", "acme/impostor", spec.PhaseRequest, `{}`), -32603,
			`{"interceptor":"impostor","reason":"malformed result: result names interceptor \"no-aws-keys\", the call was for \"impostor\""}`},
		{"timeout", withTimeout(call("spin", "acme/spin", spec.PhaseRequest, `{}`), 100), -32603,
			`{"interceptor":"spin","reason":"timeout","timeoutMs":100,"phase":"request"}`},
	}
}

func call(name, event string, phase spec.Phase, payload string) *spec.InvokeParams {
	return &spec.InvokeParams{Name: name, Event: event, Phase: phase, Payload: json.RawMessage(payload)}
}

// wantError checks a JSON-RPC error's code and data; with data "" it checks
// that data names the interceptor and gives a reason.
func wantError(t *testing.T, err error, code int64, data string) {
	t.Helper()
	var se *spec.Error
	if !errors.As(err, &se) {
		t.Fatalf("got %v (%T), want a JSON-RPC error", err, err)
	}
	raw, _ := json.Marshal(se.Data)
	if se.Code != code {
		t.Fatalf("code %d (%s), want %d", se.Code, raw, code)
	}
	if data != "" {
		if !spec.JSONEqual(raw, json.RawMessage(data)) {
			t.Fatalf("data %s\nwant %s", raw, data)
		}
		return
	}
	var fd spec.FailureData
	if json.Unmarshal(raw, &fd) != nil || fd.Interceptor == "" || fd.Reason == "" {
		t.Fatalf("data %s does not name the interceptor and a reason", raw)
	}
}

func names(ds []spec.Interceptor) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.Name
	}
	return out
}

func TestServeHTTPOperability(t *testing.T) {
	h := serveHTTP(t, "--plugin", plugin(t))
	ctx := context.Background()
	if _, err := h.Invoke(ctx, call("no-aws-keys", "tools/call", spec.PhaseRequest, `{"name":"x","arguments":{"k":"AKIA1"}}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Invoke(ctx, call("trap", "acme/trap", spec.PhaseRequest, `{}`)); err == nil {
		t.Fatal("trap did not fail")
	}
	base := strings.TrimSuffix(h.Name(), "/mcp")
	get := func(path string) string {
		t.Helper()
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("GET %s: %s", path, resp.Status)
		}
		return string(b)
	}
	var health struct {
		Status       string
		Interceptors int
	}
	if err := json.Unmarshal([]byte(get("/healthz")), &health); err != nil || health.Status != "ok" || health.Interceptors != 9 {
		t.Fatalf("healthz %+v %v", health, err)
	}
	m := get("/metrics")
	for _, want := range []string{
		`airlock_invocations_total{interceptor="no-aws-keys",outcome="blocked",phase="request",type="validation"} 1`,
		`airlock_invocations_total{interceptor="trap",outcome="failed",phase="request",type="validation"} 1`,
		`airlock_pool_instances_discarded_total{plugin="`,
	} {
		if !strings.Contains(m, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}
