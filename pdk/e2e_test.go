package pdk_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/airlock-mcp/airlock/host/wasm"
	"github.com/airlock-mcp/airlock/internal/plugintest"
	_ "github.com/airlock-mcp/airlock/pdk/internal/e2eplugin"
	"github.com/airlock-mcp/airlock/pdk/pdktest"
	"github.com/airlock-mcp/airlock/spec"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const e2ePkg = "pdk/testdata/e2e"

// pluginConfig exercises both readings of a plugin config value: JSON
// (deny) and a plain string (severity, greeting).
var pluginConfig = map[string]string{
	"deny":     `["forbidden","bad"]`,
	"severity": "error",
	"greeting": "hello",
	"hide":     "rm",
}

func TestE2EDescribe(t *testing.T) {
	targets := plugintest.Targets(t, e2ePkg, pluginConfig)
	var want []byte
	for _, tg := range targets {
		descs, err := tg.Interceptors(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		got, _ := json.Marshal(descs)
		if want == nil {
			want = got
			// "both" is expanded, defaults are off the wire, the rest kept.
			for _, s := range []string{
				`{"name":"e2e-validate","version":"1.0.0","description":"flags denied words anywhere in tools/call arguments","type":"validation","hooks":[{"events":["tools/call"],"phase":"request"}],"configSchema":`,
				`"name":"e2e-mutate","type":"mutation","hooks":[{"events":["tools/call"],"phase":"response"}],"priorityHint":5}`,
				`{"name":"e2e-sink","type":"sink","hooks":[{"events":["*"],"phase":"request"},{"events":["*"],"phase":"response"}],"mode":"audit"}`,
				`"failOpen":true`,
			} {
				if !strings.Contains(string(got), s) {
					t.Errorf("%s: describe lacks %s\n%s", tg.Name, s, got)
				}
			}
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s describes differently:\n%s\nvs\n%s", tg.Name, got, want)
		}
	}
}

func TestE2EValidator(t *testing.T) {
	const name, ev = "e2e-validate", "tools/call"
	rq := spec.PhaseRequest
	cases := []plugintest.Case{
		{Name: "clean", Payload: `{"name":"echo","arguments":{"text":"hi"}}`, Valid: true,
			Check: func(t *testing.T, r *spec.Result) {
				if len(r.Messages) != 0 || r.Severity != "" {
					t.Errorf("a clean call has findings: %+v", r)
				}
			}},
		{Name: "denied word nested, plugin-config severity", Valid: false, Severity: spec.SeverityError,
			Payload: `{"name":"echo","arguments":{"items":[{"text":"a forbidden thing"}],"a/b":"bad ~ idea"}}`,
			Paths:   []string{"/arguments/items/0/text", "/arguments/a~1b"},
			Check: func(t *testing.T, r *spec.Result) {
				if len(r.Suggestions) != 2 || string(r.Suggestions[0].Value) != `"a [removed] thing"` {
					t.Errorf("suggestions = %+v", r.Suggestions)
				}
			}},
		{Name: "call config wins", Config: `{"severity":"warn","deny":["hi"]}`,
			Payload: `{"name":"echo","arguments":{"text":"hi, forbidden"}}`,
			Valid:   false, Severity: spec.SeverityWarn, Paths: []string{"/arguments/text"},
			Check: func(t *testing.T, r *spec.Result) {
				if len(r.Messages) != 1 { // deny replaced, not merged
					t.Errorf("messages = %+v", r.Messages)
				}
			}},
		{Name: "info only stays valid", Payload: `{"name":"echo"}`, Valid: true, Severity: spec.SeverityInfo, Paths: []string{"/arguments"}},
		{Name: "panic is a failure", Payload: `{"name":"echo","arguments":{"panic":true}}`,
			Err: `interceptor "e2e-validate" panicked: assignment to entry in nil map (at e2eplugin.go:`},
		{Name: "Fail is a failure", Payload: `{"name":"echo","arguments":{"fail":"because"}}`,
			Err: `interceptor "e2e-validate" failed: asked to fail: because`},
		{Name: "bad call config is a failure", Config: `{"deny":"not a list"}`, Payload: `{"name":"echo"}`,
			Err: "call config"},
	}
	for i := range cases {
		cases[i].Interceptor, cases[i].Event, cases[i].Phase = name, ev, rq
	}
	plugintest.Run(t, plugintest.Targets(t, e2ePkg, pluginConfig), spec.TypeValidation, cases)
}

func TestE2EMutators(t *testing.T) {
	rs := spec.PhaseResponse
	// Odd key order and escapes: members that are not rewritten keep their
	// order and form. (White space is kept too through the real host; pdktest
	// compacts the payload on the way in, so the check compacts it.)
	const odd = `{ "content" : [ {"type":"text","text":"my secret is \"x\"\u00e9"} ],"isError":false ,"z":1}`
	cases := []plugintest.Case{
		{Name: "rewrite: nothing to do", Interceptor: "e2e-mutate", Event: "tools/call", Phase: rs,
			Payload: `{"content":[{"type":"text","text":"nothing here"}]}`, Modified: false},
		{Name: "rewrite: only the string changes", Interceptor: "e2e-mutate", Event: "tools/call", Phase: rs,
			Payload: odd, Modified: true,
			Check: func(t *testing.T, r *spec.Result) {
				want := `{"content":[{"type":"text","text":"my ****** is \"x\"é"}],"isError":false,"z":1}`
				var got bytes.Buffer
				if err := json.Compact(&got, r.Payload); err != nil || got.String() != want {
					t.Errorf("payload\n got %s\nwant %s (%v)", r.Payload, want, err)
				}
				if string(r.Info) != `{"redacted":1}` {
					t.Errorf("info = %s", r.Info)
				}
			}},
		{Name: "typed: re-encoded but equal is unchanged", Interceptor: "e2e-typed", Event: "tools/list", Phase: rs,
			Payload:  `{"tools":[{"inputSchema":{"type":"object"},"name":"ls","x-vendor":{"a":1}}],"zz":true}`,
			Modified: false},
		{Name: "typed: removal keeps unknown members", Interceptor: "e2e-typed", Event: "tools/list", Phase: rs,
			Payload:  `{"tools":[{"name":"rm","inputSchema":{"type":"object"}},{"name":"ls","x-vendor":{"a":1}}],"nextCursor":"c2","zz":true}`,
			Modified: true, Want: `{"tools":[{"name":"ls","x-vendor":{"a":1}}],"nextCursor":"c2","zz":true}`},
		{Name: "typed llm: edit one field", Interceptor: "e2e-typed", Event: "llm/completion", Phase: rs,
			Payload:  `{"model":"m","message":{"role":"assistant","content":"TODO: x","x":1},"usage":{"inputTokens":1,"outputTokens":2},"custom":[1]}`,
			Modified: true, Want: `{"model":"m","message":{"role":"assistant","content":"done: x","x":1},"usage":{"inputTokens":1,"outputTokens":2},"custom":[1]}`},
		{Name: "typed llm: untouched", Interceptor: "e2e-typed", Event: "llm/completion", Phase: rs,
			Payload: `{"message":{"role":"assistant","content":"fine"},"stopReason":"end"}`, Modified: false},
	}
	plugintest.Run(t, plugintest.Targets(t, e2ePkg, pluginConfig), spec.TypeMutation, cases)
}

func TestE2ESinkVarsAndLogs(t *testing.T) {
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&syncWriter{w: &logs}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	env := pdktest.New(t)
	targets := []plugintest.Named{{Name: "host", Target: env}}
	var plugin *wasm.Plugin
	if !testing.Short() {
		plugin = plugintest.LoadWith(t, e2ePkg, wasm.Options{Logger: logger})
		targets = append(targets, plugintest.Named{Name: "wasm", Target: plugin})
	}
	c := func(name, principal string, n float64, payload string) plugintest.Case {
		return plugintest.Case{Name: name, Interceptor: "e2e-sink", Event: "tools/call", Phase: spec.PhaseRequest,
			Principal: principal, Payload: payload, Recorded: true,
			Metrics: map[string]float64{"count": n, "bytes": float64(len(payload))}}
	}
	plugintest.Run(t, targets, spec.TypeSink, []plugintest.Case{
		c("alice 1", "user:alice", 1, `{"name":"a"}`),
		c("alice 2", "user:alice", 2, `{"name":"ab"}`),
		c("bob 1", "service:bob", 1, `{"name":"a"}`),
		c("anonymous 1", "", 1, `{"name":"abc"}`),
	})
	// Variables are the host's: both targets counted in their own store.
	if v, ok := env.Var("count/user:alice"); !ok || len(v) != 8 || v[0] != 2 {
		t.Errorf("host var = %v %v", v, ok)
	}
	if !strings.Contains(env.LogText(), "e2e-sink tools/call request principal=user:alice trace= n=2") {
		t.Errorf("host log:\n%s", env.LogText())
	}
	if plugin != nil {
		if v, ok := plugin.Vars("count/service:bob"); !ok || v[0] != 1 {
			t.Errorf("wasm var = %v %v", v, ok)
		}
		if !strings.Contains(logs.String(), "e2e-sink tools/call request principal=anonymous") {
			t.Errorf("wasm log:\n%s", logs.String())
		}
	}
}

func TestE2EContext(t *testing.T) {
	p := &spec.InvokeParams{Name: "e2e-context", Event: "prompts/get", Phase: spec.PhaseRequest,
		Payload: json.RawMessage(`{"name":"greet","arguments":{"who":"world"}}`), TimeoutMs: 250,
		Config: json.RawMessage(`{"k":1}`), Meta: json.RawMessage(`{"m":true}`),
		Context: &spec.Context{Principal: &spec.Principal{Type: spec.PrincipalUser, ID: "ann"},
			TraceID: "t-1", SessionID: "s-9"}}
	want := `{"args":{"who":"world"},"greeting":"hello","hasGreeting":true,"meta":{"m":true},"principal":"user:ann",` +
		`"prompt":"greet","rawConfig":{"k":1},"sessionId":"s-9","timeoutMs":250,"traceId":"t-1"}`
	for _, tg := range plugintest.Targets(t, e2ePkg, pluginConfig) {
		r, err := tg.Invoke(context.Background(), p)
		if err != nil {
			t.Fatalf("%s: %v", tg.Name, err)
		}
		if !r.Valid || string(r.Info) != want {
			t.Errorf("%s: info\n got %s\nwant %s", tg.Name, r.Info, want)
		}
	}
}

func TestE2ERefusals(t *testing.T) {
	for _, tg := range plugintest.Targets(t, e2ePkg, nil) {
		for _, p := range []*spec.InvokeParams{
			{Name: "nope", Event: "tools/call", Phase: spec.PhaseRequest, Payload: json.RawMessage(`{}`)},
			{Name: "e2e-validate", Event: "tools/list", Phase: spec.PhaseRequest, Payload: json.RawMessage(`{}`)},
		} {
			_, err := tg.Invoke(context.Background(), p)
			var se *spec.Error
			if !errors.As(err, &se) || se.Code != spec.CodeInvalidParams {
				t.Errorf("%s %s %s: err = %v, want -32602", tg.Name, p.Name, p.Event, err)
			}
		}
		// A typed accessor refuses another event's payload.
		_, err := tg.Invoke(context.Background(), &spec.InvokeParams{Name: "e2e-context", Event: "prompts/get",
			Phase: spec.PhaseRequest, Payload: json.RawMessage(`{"name":7}`)})
		if err == nil || !strings.Contains(err.Error(), "prompts/get request payload") {
			t.Errorf("%s: bad payload: err = %v", tg.Name, err)
		}
	}
}

// syncWriter serialises writes (the host logs from its call goroutines).
type syncWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (s *syncWriter) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(b)
}

// BenchmarkE2E is one validator call with a 1 KiB payload: in-process
// (pdktest), and through the real host with each deadline mode.
func BenchmarkE2E(b *testing.B) {
	payload := json.RawMessage(`{"name":"echo","arguments":{"text":"` + strings.Repeat("lorem ipsum ", 85) + `"}}`)
	p := &spec.InvokeParams{Name: "e2e-validate", Event: "tools/call", Phase: spec.PhaseRequest, Payload: payload}
	targets := []plugintest.Named{{Name: "pdktest", Target: pdktest.New(b)}}
	for _, m := range []wasm.DeadlineMode{wasm.DeadlineInterrupt, wasm.DeadlineAtHostCalls} {
		targets = append(targets, plugintest.Named{Name: "wasm-" + m.String(),
			Target: plugintest.LoadWith(b, e2ePkg, wasm.Options{Limits: wasm.Limits{Deadlines: m}})})
	}
	for _, tg := range targets {
		b.Run(tg.Name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if r, err := tg.Invoke(context.Background(), p); err != nil || !r.Valid {
					b.Fatal(err)
				}
			}
		})
	}
}
