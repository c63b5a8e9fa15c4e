package config

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/airlock-mcp/airlock/spec"
)

func TestLoadFull(t *testing.T) {
	f, err := Load("testdata/full.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p := f.Plugins[0]
	if want, _ := filepath.Abs(filepath.Join("testdata", "secrets.wasm")); p.Path != want {
		t.Errorf("path %q not resolved against the file's folder", p.Path)
	}
	if f.Plugins[1].Path != "/opt/airlock/pii-redact.wasm" {
		t.Errorf("absolute path changed: %q", f.Plugins[1].Path)
	}
	if p.Name != "secrets" || p.Config["allow"] != "AKIAIOSFODNN7EXAMPLE" || p.Config["minEntropy"] != "4.2" ||
		p.Config["disable"] != `["jwt","slack-token"]` || len(p.SHA256) != 64 {
		t.Errorf("plugin %+v", p)
	}
	l := p.Limits
	if l.Memory != 64<<20 || time.Duration(l.Timeout) != 250*time.Millisecond || l.MaxOutput != 1<<20 || l.MaxVars != 256<<10 || l.Instances != 4 || l.Deadlines != "interrupt" {
		t.Errorf("limits %+v", l)
	}
	if !slices.Equal(f.Remotes[0].Command, []string{"airlock", "serve", "--plugin", "/opt/policies/tool policy.wasm"}) || f.Remotes[0].Label() != "policies" {
		t.Errorf("remote command %q", f.Remotes[0].Command)
	}
	if f.Remotes[1].URL != "http://127.0.0.1:9000/mcp" {
		t.Errorf("remote url %+v", f.Remotes[1])
	}
	o := f.Interceptors.Overrides["pii-redact"]
	if o.Mode == nil || !o.Mode.IsAudit() || o.FailOpen == nil || !*o.FailOpen || o.PriorityHint.For(spec.PhaseRequest) != -10 ||
		o.PriorityHint.For(spec.PhaseResponse) != 5 || o.TimeoutMs != 100 || len(o.Hooks) != 1 || !strings.Contains(string(o.Config), "[redacted]") {
		t.Errorf("override %+v", o)
	}
	if s := f.Interceptors.Overrides["secrets"]; s.PriorityHint == nil || s.PriorityHint.IsObject() || s.PriorityHint.For(spec.PhaseResponse) != 3 {
		t.Errorf("scalar priority %+v", s.PriorityHint)
	}
	if !slices.Equal(f.Backend.Command, []string{"npx", "-y", "@modelcontextprotocol/server-filesystem", "/srv/data"}) {
		t.Errorf("backend %+v", f.Backend)
	}
	if g := f.Gateway; time.Duration(g.ChainTimeout) != 2*time.Second || g.PrincipalHeader != "X-Authenticated-User" || g.ExposeMessages {
		t.Errorf("gateway %+v", g)
	}
	if f.Listen.HTTP != "127.0.0.1:8080" || f.Logging.Level != "debug" || f.Logging.Format != "json" || !f.Metrics.On() {
		t.Errorf("listen/logging/metrics %+v %+v %+v", f.Listen, f.Logging, f.Metrics)
	}
}

func TestParseEmpty(t *testing.T) {
	for _, in := range []string{"", "# nothing\n", "{}"} {
		if _, err := Parse("empty.yaml", []byte(in)); err != nil {
			t.Errorf("%q: %v", in, err)
		}
	}
}

func TestParseProblems(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string // each problem as "line:col: field: substring"
	}{
		{"unknown top-level field", "plugin:\n  - path: a.wasm\n",
			[]string{"1:1: : additional properties 'plugin' not allowed"}},
		{"unknown plugin field", "plugins:\n  - path: a.wasm\n    memory: 64MiB\n",
			[]string{"2:5: plugins[0]: additional properties 'memory' not allowed"}},
		{"missing path", "plugins:\n  - name: a\n",
			[]string{"2:5: plugins[0]: missing property 'path'"}},
		{"bad size unit", "plugins:\n  - path: a.wasm\n    limits:\n      memory: 64MB\n",
			[]string{"4:7: plugins[0].limits.memory: a size is a whole number"}},
		{"size not a page multiple", "plugins:\n  - path: a.wasm\n    limits:\n      memory: 100KiB\n",
			[]string{"4:7: plugins[0].limits.memory: must be a multiple of 64KiB"}},
		{"bad duration", "plugins:\n  - path: a.wasm\n    limits:\n      timeout: soon\n",
			[]string{"4:7: plugins[0].limits.timeout: a duration is like"}},
		{"bad sha256", "plugins:\n  - path: a.wasm\n    sha256: abc\n",
			[]string{"3:5: plugins[0].sha256: 64 hexadecimal digits"}},
		{"instances zero", "plugins:\n  - path: a.wasm\n    limits: {instances: 0}\n",
			[]string{"3:14: plugins[0].limits.instances: minimum"}},
		{"bad mode", "interceptors:\n  overrides:\n    secrets:\n      mode: shadow\n",
			[]string{"4:7: interceptors.overrides.secrets.mode: value must be one of"}},
		{"priority as text", "interceptors:\n  overrides:\n    secrets:\n      priorityHint: high\n",
			[]string{"4:7: interceptors.overrides.secrets.priorityHint: matches none of the allowed forms"}},
		{"bad event in a hook", "interceptors:\n  overrides:\n    s:\n      hooks:\n        - events: [tools]\n          phase: request\n",
			[]string{"5:20: interceptors.overrides.s.hooks[0].events[0]: \"tools\" is not an event"}},
		{"backend with both", "backend:\n  command: x\n  url: http://a\n",
			[]string{"1:1: backend: matches more than one of the allowed forms"}},
		{"remote url scheme", "remotes:\n  - url: ftp://x\n",
			[]string{"2:5: remotes[0]"}},
		{"two problems, both reported", "plugins:\n  - path: a.wasm\n    limits: {timeout: x}\nlogging:\n  level: loud\n",
			[]string{"3:14: plugins[0].limits.timeout", "5:3: logging.level"}},
		{"not YAML", "plugins: [\n", []string{"not valid YAML"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("airlock.yaml", []byte(tt.in))
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("got %v, want *Error", err)
			}
			if len(ce.Problems) != len(tt.want) {
				t.Fatalf("got %d problems:\n%v\nwant %d", len(ce.Problems), err, len(tt.want))
			}
			for i, w := range tt.want {
				got := strings.TrimPrefix(ce.Problems[i].String(), "airlock.yaml:")
				if !strings.HasPrefix(w, "not valid") && !strings.HasPrefix(got, w[:strings.Index(w, ": ")]) {
					t.Errorf("problem %d: %q, want position/field %q", i, got, w)
				}
				if !strings.Contains(got, w[strings.LastIndex(w, ": ")+2:]) && !strings.Contains(got, w) {
					t.Errorf("problem %d: %q, want it to contain %q", i, got, w)
				}
			}
		})
	}
}

func TestSplitCommand(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{`airlock serve --plugin a.wasm`, []string{"airlock", "serve", "--plugin", "a.wasm"}},
		{`run "a b" 'c d' e\ f`, []string{"run", "a b", "c d", "e f"}},
		{`say "it's" 'say "hi"'`, []string{"say", "it's", `say "hi"`}},
		{`x ""`, []string{"x", ""}},
	}
	for _, tt := range tests {
		got, err := SplitCommand(tt.in)
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("SplitCommand(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{`"open`, `x\`, ``, `   `} {
		if _, err := SplitCommand(bad); err == nil {
			t.Errorf("SplitCommand(%q) succeeded", bad)
		}
	}
}

func TestSizes(t *testing.T) {
	for in, want := range map[string]int64{"0B": 0, "100B": 100, "1KiB": 1024, "64MiB": 64 << 20, "2GiB": 2 << 30} {
		got, err := ParseSize(in)
		if err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v", in, got, err)
		}
	}
	for _, bad := range []string{"64MB", "MiB", "-1B", "1.5MiB"} {
		if _, err := ParseSize(bad); err == nil {
			t.Errorf("ParseSize(%q) succeeded", bad)
		}
	}
}
