package wasm_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/airlock-mcp/airlock/host/chain"
	"github.com/airlock-mcp/airlock/host/wasm"
	"github.com/airlock-mcp/airlock/spec"
)

// A loaded plugin is a chain source.
var _ chain.Source = (*wasm.Plugin)(nil)

func extismPlugin(tb testing.TB, opts wasm.Options) *wasm.Plugin {
	tb.Helper()
	if opts.Name == "" {
		opts.Name = "extism-test"
	}
	return load(tb, goPlugin(tb, "extism"), opts)
}

func TestExtismDescribe(t *testing.T) {
	p := extismPlugin(t, wasm.Options{})
	if p.Convention() != wasm.ConventionExtism {
		t.Fatalf("convention = %s", p.Convention())
	}
	descs, err := p.Interceptors(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range descs {
		names = append(names, d.Name)
	}
	if got := strings.Join(names, ","); got != "redact,redact-fast,guard,audit,probe,misbehave" {
		t.Fatalf("names = %s", got)
	}
	redact := descs[0]
	if redact.Type != spec.TypeMutation || redact.Version != "1.0.0" || len(redact.Hooks) != 2 ||
		redact.Hooks[0].Phase != spec.PhaseRequest || redact.Hooks[1].Phase != spec.PhaseResponse {
		t.Fatalf(`redact ("both" should expand to request+response) = %+v`, redact)
	}
	if descs[3].Mode != spec.ModeAudit || descs[3].Type != spec.TypeSink {
		t.Fatalf("audit = %+v", descs[3])
	}
	// The list is a copy: changing it changes nothing in the plugin.
	descs[0].Name = "changed"
	again, _ := p.Interceptors(context.Background())
	if again[0].Name != "redact" {
		t.Fatal("Interceptors returned the plugin's own slice")
	}
}

func TestExtismResultKinds(t *testing.T) {
	p := extismPlugin(t, wasm.Options{})
	t.Run("mutation modified", func(t *testing.T) {
		r := mustInvoke(t, p, "redact", "tools/call", spec.PhaseRequest, `{"name":"t","arguments":{"key":"secret"}}`, "")
		if r.Type != spec.TypeMutation || !r.Modified || string(r.Payload) != `{"name":"t","arguments":{"key":"[REDACTED]"}}` {
			t.Fatalf("result = %+v payload %s", r, r.Payload)
		}
	})
	t.Run("mutation unchanged, response phase", func(t *testing.T) {
		r := mustInvoke(t, p, "redact", "tools/call", spec.PhaseResponse, `{"content":[]}`, "")
		if r.Modified || r.Phase != spec.PhaseResponse || string(r.Payload) != `{"content":[]}` {
			t.Fatalf("result = %+v", r)
		}
	})
	t.Run("validation pass", func(t *testing.T) {
		r := mustInvoke(t, p, "guard", "tools/call", spec.PhaseRequest, `{"name":"t"}`, "")
		if r.Type != spec.TypeValidation || !r.Valid || len(r.Messages) != 0 {
			t.Fatalf("result = %+v", r)
		}
	})
	t.Run("validation block", func(t *testing.T) {
		r := mustInvoke(t, p, "guard", "tools/call", spec.PhaseRequest, `{"name":"t","arguments":{"q":"forbidden"}}`, "")
		if r.Valid || r.Severity != spec.SeverityError || len(r.Messages) != 1 ||
			r.Messages[0].Path != "/arguments" || !r.Blocks() {
			t.Fatalf("result = %+v", r)
		}
	})
	t.Run("sink", func(t *testing.T) {
		r := mustInvoke(t, p, "audit", "prompts/get", spec.PhaseResponse, `{"messages":[]}`, "")
		if r.Type != spec.TypeSink || !r.Recorded || r.Metrics["bytes"] != float64(len(`{"messages":[]}`)) {
			t.Fatalf("result = %+v", r)
		}
	})
	t.Run("duration measured", func(t *testing.T) {
		r := mustInvoke(t, p, "guard", "tools/call", spec.PhaseRequest, `{}`, "")
		if r.DurationMs <= 0 {
			t.Fatalf("durationMs = %v", r.DurationMs)
		}
	})
}

func TestExtismConfigAndContext(t *testing.T) {
	p := extismPlugin(t, wasm.Options{Config: map[string]string{"greeting": "hello"}})
	params := &spec.InvokeParams{
		Name: "probe", Event: "tools/list", Phase: spec.PhaseRequest, Payload: json.RawMessage(`{}`),
		Config:  json.RawMessage(`{"level": "strict"}`),
		Context: &spec.Context{TraceID: "trace-1", Principal: &spec.Principal{Type: spec.PrincipalUser, ID: "ann"}},
	}
	r, err := p.Invoke(context.Background(), params)
	if err != nil {
		t.Fatal(err)
	}
	var info struct {
		Greeting   string          `json:"greeting"`
		MissingKey bool            `json:"missingKey"`
		CallConfig json.RawMessage `json:"callConfig"`
		Context    struct {
			TraceID   string `json:"traceId"`
			Principal struct {
				Type, ID string
			} `json:"principal"`
		} `json:"context"`
	}
	if err := json.Unmarshal(r.Info, &info); err != nil {
		t.Fatal(err)
	}
	if info.Greeting != "hello" || info.MissingKey {
		t.Fatalf("plugin config: %s", r.Info)
	}
	// (The plugin's own encoder compacts it; input_test.go checks that the
	// host passes it byte for byte.)
	if string(info.CallConfig) != `{"level":"strict"}` {
		t.Fatalf("call config = %s", info.CallConfig)
	}
	if info.Context.TraceID != "trace-1" || info.Context.Principal.ID != "ann" || info.Context.Principal.Type != "user" {
		t.Fatalf("context = %+v", info.Context)
	}
}

func TestExtismSandbox(t *testing.T) {
	t.Setenv("AIRLOCK_TEST_SECRET", "must-not-leak")
	p := extismPlugin(t, wasm.Options{})
	r := mustInvoke(t, p, "probe", "tools/list", spec.PhaseRequest, `{}`, "")
	var info struct {
		Env       []string `json:"env"`
		Args      []string `json:"args"`
		Home      string   `json:"home"`
		ReadFile  string   `json:"readFile"`
		ReadDir   string   `json:"readDir"`
		WriteFile string   `json:"writeFile"`
	}
	if err := json.Unmarshal(r.Info, &info); err != nil {
		t.Fatal(err)
	}
	if len(info.Env) != 0 || info.Home != "" || strings.Contains(string(r.Info), "must-not-leak") {
		t.Fatalf("environment visible to the plugin: %s", r.Info)
	}
	if len(info.Args) > 0 {
		t.Fatalf("arguments visible to the plugin: %v", info.Args)
	}
	for what, got := range map[string]string{"read": info.ReadFile, "readdir": info.ReadDir, "write": info.WriteFile} {
		if strings.Contains(got, "succeeded") || strings.Contains(got, "entries") || got == "" {
			t.Errorf("file system %s allowed: %q", what, got)
		}
	}
}

func TestExtismVars(t *testing.T) {
	p := extismPlugin(t, wasm.Options{Limits: wasm.Limits{MaxInstances: 2}})
	const n = 20
	for i := 1; i <= n; i++ {
		r := mustInvoke(t, p, "audit", "tools/call", spec.PhaseRequest, `{}`, "")
		if r.Metrics["count"] != float64(i) {
			t.Fatalf("call %d: count = %v (vars must be shared by all instances)", i, r.Metrics["count"])
		}
	}
	v, ok := p.Vars("count")
	if !ok || len(v) != 8 || v[0] != n {
		t.Fatalf("var count = %v, %v", v, ok)
	}

	t.Run("size cap", func(t *testing.T) {
		small := extismPlugin(t, wasm.Options{Name: "small-vars", Limits: wasm.Limits{MaxVarBytes: 1000}})
		mustInvoke(t, small, "misbehave", "test/misbehave", spec.PhaseRequest, `{}`, `{"do":"varbomb","n":500}`)
		_, err := invoke(t, small, "misbehave", "test/misbehave", spec.PhaseRequest, `{}`, `{"do":"varbomb","n":2000}`)
		wantFailure(t, err, "misbehave", `variable store is full \(limit 1000 bytes\)`)
		if v, _ := small.Vars("bomb"); len(v) != 500 {
			t.Fatalf("a refused var_set changed the store: %d bytes", len(v))
		}
	})
}

func TestExtismLogs(t *testing.T) {
	t.Run("info", func(t *testing.T) {
		logs := &logRecorder{level: slog.LevelInfo}
		p := extismPlugin(t, wasm.Options{Name: "logger", Logger: slog.New(logs)})
		mustInvoke(t, p, "misbehave", "test/misbehave", spec.PhaseRequest, `{}`, `{"do":"logs"}`)
		var got []string
		for _, r := range logs.records() {
			if r.Attrs["plugin"] != "logger" {
				t.Fatalf("record without the plugin's name: %+v", r)
			}
			got = append(got, r.Level.String()+":"+r.Msg)
		}
		if strings.Join(got, "|") != "INFO:info line|WARN:warn line|ERROR:error line" {
			t.Fatalf("records = %v", got)
		}
	})
	t.Run("trace", func(t *testing.T) {
		logs := &logRecorder{level: slog.LevelDebug - 4}
		p := extismPlugin(t, wasm.Options{Name: "logger", Logger: slog.New(logs)})
		mustInvoke(t, p, "misbehave", "test/misbehave", spec.PhaseRequest, `{}`, `{"do":"logs"}`)
		recs := logs.records()
		// go-pdk v1.1.3 sends trace records through log_error: they arrive,
		// at error level, which is the PDK's choice and not the host's.
		if len(recs) != 5 || recs[0].Msg != "trace line" || recs[1].Msg != "debug line" || recs[1].Level != slog.LevelDebug {
			t.Fatalf("records = %+v", recs)
		}
	})
}

func TestExtismHTTP(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Reply", "pong")
		w.WriteHeader(http.StatusTeapot)
		_, _ = w.Write([]byte("probe=" + r.Header.Get("X-Probe")))
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	cfg := `{"do":"http","url":"` + srv.URL + `/x"}`

	t.Run("denied by default", func(t *testing.T) {
		p := extismPlugin(t, wasm.Options{})
		_, err := invoke(t, p, "misbehave", "test/misbehave", spec.PhaseRequest, `{}`, cfg)
		wantFailure(t, err, "misbehave", `denied: host "127.0.0.1" is not in the plugin's allowed hosts`)
	})
	t.Run("allowed host", func(t *testing.T) {
		p := extismPlugin(t, wasm.Options{AllowedHosts: []string{"example.com", u.Hostname()}})
		r := mustInvoke(t, p, "misbehave", "test/misbehave", spec.PhaseRequest, `{}`, cfg)
		if string(r.Info) != `{"status":418,"body":"probe=airlock","header":"pong"}` {
			t.Fatalf("info = %s", r.Info)
		}
	})
	t.Run("redirect to a host not allowed", func(t *testing.T) {
		redirect := httptest.NewServer(http.RedirectHandler("http://localhost:1/elsewhere", http.StatusFound))
		defer redirect.Close()
		p := extismPlugin(t, wasm.Options{AllowedHosts: []string{u.Hostname()}})
		_, err := invoke(t, p, "misbehave", "test/misbehave", spec.PhaseRequest, `{}`, `{"do":"http","url":"`+redirect.URL+`"}`)
		wantFailure(t, err, "misbehave", `redirect to "http://localhost:1/elsewhere" denied`)
	})
	t.Run("glob", func(t *testing.T) {
		p := extismPlugin(t, wasm.Options{AllowedHosts: []string{"127.0.0.*"}})
		mustInvoke(t, p, "misbehave", "test/misbehave", spec.PhaseRequest, `{}`, cfg)
	})
}

func TestExtismInputOffsetAndState(t *testing.T) {
	p := extismPlugin(t, wasm.Options{Limits: wasm.Limits{MaxInstances: 1}})
	r := mustInvoke(t, p, "misbehave", "test/misbehave", spec.PhaseRequest, `{"k":1}`, `{"do":"inputoffset"}`)
	var info struct{ N int }
	_ = json.Unmarshal(r.Info, &info)
	want := len(`{"name":"misbehave","event":"test/misbehave","phase":"request","payload":{"k":1},"config":{"do":"inputoffset"}}`)
	if info.N != want {
		t.Fatalf("input_offset block length = %d, want %d", info.N, want)
	}
	// One instance: module globals persist from one call to the next.
	for i := 1; i <= 3; i++ {
		r := mustInvoke(t, p, "misbehave", "test/misbehave", spec.PhaseRequest, `{}`, `{"do":"state"}`)
		if string(r.Info) != `{"calls":`+itoa(i)+`}` {
			t.Fatalf("call %d: info = %s", i, r.Info)
		}
	}
}
