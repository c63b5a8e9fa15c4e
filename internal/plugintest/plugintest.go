// Package plugintest runs the bundled plugins' tests: each table of cases
// runs twice, once against the handlers in-process (pdk/pdktest) and once
// against the plugin built for WebAssembly and loaded by the real host
// (host/wasm), so the two can never drift apart.
package plugintest

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/airlock-mcp/airlock/host/wasm"
	"github.com/airlock-mcp/airlock/internal/testbuild"
	"github.com/airlock-mcp/airlock/pdk/pdktest"
	"github.com/airlock-mcp/airlock/spec"
)

// Target is something that runs interceptors: a pdktest.Env or a
// *wasm.Plugin.
type Target interface {
	Interceptors(ctx context.Context) ([]spec.Interceptor, error)
	Invoke(ctx context.Context, p *spec.InvokeParams) (*spec.Result, error)
}

// Named is a target with the name its subtests carry.
type Named struct {
	Name string
	Target
}

// Load builds the Go plugin at pkg (relative to the module root, e.g.
// "plugins/secrets"), loads it with the real host with the given plugin
// configuration, and closes it when the test ends.
func Load(t testing.TB, pkg string, config map[string]string) *wasm.Plugin {
	t.Helper()
	return LoadWith(t, pkg, wasm.Options{Config: config})
}

// LoadWith is Load with all the plugin's options.
func LoadWith(t testing.TB, pkg string, opts wasm.Options) *wasm.Plugin {
	t.Helper()
	path := testbuild.GoPlugin(t, pkg)
	ctx := context.Background()
	eng, err := wasm.NewEngine(wasm.EngineOptions{CacheDir: filepath.Join(testbuild.CacheDir(), "wazero")})
	if err != nil {
		t.Fatal(err)
	}
	if opts.Name == "" {
		opts.Name = filepath.Base(pkg)
	}
	p, err := eng.LoadFile(ctx, path, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = p.Close(ctx)
		_ = eng.Close(ctx)
	})
	return p
}

// Targets returns the in-process target and the WebAssembly target of the
// plugin at pkg, both with the same plugin configuration. With -short only
// the in-process one.
func Targets(t *testing.T, pkg string, config map[string]string) []Named {
	t.Helper()
	out := []Named{{"host", pdktest.New(t).WithConfig(config)}}
	if !testing.Short() {
		out = append(out, Named{"wasm", Load(t, pkg, config)})
	}
	return out
}

// Case is one invocation and what its result must be.
type Case struct {
	Name        string
	Interceptor string
	Event       string
	Phase       spec.Phase
	Payload     string
	Config      string // the call's own config, a JSON object
	Principal   string // "user:alice", "service:ci"; empty for none

	// For validators: whether the verdict passes (valid), and, when set,
	// its severity and JSON paths that its messages must name.
	Valid    bool
	Severity spec.Severity
	Paths    []string
	// MessageHas: a substring some message must contain.
	MessageHas string

	// For mutators: whether the payload changed, and, when set, the
	// expected payload (compared as JSON), substrings it must and must not
	// contain.
	Modified    bool
	Want        string
	Contains    []string
	NotContains []string

	// For sinks: whether the call was recorded, and metrics it must have.
	Recorded bool
	Metrics  map[string]float64

	// Err, when set, makes the call a failure whose error contains Err.
	Err string
	// Check, when set, runs extra checks on the result.
	Check func(t *testing.T, r *spec.Result)
}

// Params builds the invoke params of c.
func (c Case) Params() *spec.InvokeParams {
	p := &spec.InvokeParams{Name: c.Interceptor, Event: c.Event, Phase: c.Phase, Payload: json.RawMessage(c.Payload)}
	if c.Config != "" {
		p.Config = json.RawMessage(c.Config)
	}
	if c.Principal != "" {
		typ, id, _ := strings.Cut(c.Principal, ":")
		p.Context = &spec.Context{Principal: &spec.Principal{Type: spec.PrincipalType(typ), ID: id}}
	}
	return p
}

// Run runs every case against every target, as subtests target/case.
func Run(t *testing.T, targets []Named, typ spec.Type, cases []Case) {
	t.Helper()
	for _, tg := range targets {
		t.Run(tg.Name, func(t *testing.T) {
			for _, c := range cases {
				t.Run(c.Name, func(t *testing.T) {
					r, err := tg.Invoke(context.Background(), c.Params())
					Check(t, typ, c, r, err)
				})
			}
		})
	}
}

// Check asserts that (r, err) is what c expects of an interceptor of type typ.
func Check(t *testing.T, typ spec.Type, c Case, r *spec.Result, err error) {
	t.Helper()
	if c.Err != "" {
		if err == nil {
			t.Fatalf("want a failure containing %q, got result %s", c.Err, mustJSON(r))
		}
		if !strings.Contains(err.Error(), c.Err) {
			t.Fatalf("failure %q does not contain %q", err, c.Err)
		}
		return
	}
	if err != nil {
		t.Fatalf("invoke: %v", err)
	}
	switch typ {
	case spec.TypeValidation:
		if r.Valid != c.Valid {
			t.Fatalf("valid = %v, want %v; result %s", r.Valid, c.Valid, mustJSON(r))
		}
		if c.Severity != "" && r.Severity != c.Severity {
			t.Errorf("severity = %q, want %q; result %s", r.Severity, c.Severity, mustJSON(r))
		}
		for _, p := range c.Paths {
			found := false
			for _, m := range r.Messages {
				found = found || m.Path == p
			}
			if !found {
				t.Errorf("no message has path %q; result %s", p, mustJSON(r))
			}
		}
		if c.MessageHas != "" {
			found := false
			for _, m := range r.Messages {
				found = found || strings.Contains(m.Message, c.MessageHas)
			}
			if !found {
				t.Errorf("no message contains %q; result %s", c.MessageHas, mustJSON(r))
			}
		}
	case spec.TypeMutation:
		if r.Modified != c.Modified {
			t.Fatalf("modified = %v, want %v; result %s", r.Modified, c.Modified, mustJSON(r))
		}
		out := string(r.Payload)
		if !r.Modified {
			out = c.Payload
		}
		if c.Want != "" && !spec.JSONEqual(json.RawMessage(out), json.RawMessage(c.Want)) {
			t.Errorf("payload\n got %s\nwant %s", out, c.Want)
		}
		for _, s := range c.Contains {
			if !strings.Contains(out, s) {
				t.Errorf("payload %s does not contain %q", out, s)
			}
		}
		for _, s := range c.NotContains {
			if strings.Contains(out, s) {
				t.Errorf("payload %s still contains %q", out, s)
			}
		}
	case spec.TypeSink:
		if r.Recorded != c.Recorded {
			t.Fatalf("recorded = %v, want %v; result %s", r.Recorded, c.Recorded, mustJSON(r))
		}
		for k, v := range c.Metrics {
			if got, ok := r.Metrics[k]; !ok || got != v {
				t.Errorf("metric %s = %v (present %v), want %v", k, got, ok, v)
			}
		}
	}
	if c.Check != nil {
		c.Check(t, r)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
