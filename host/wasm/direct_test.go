package wasm_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"testing"

	"github.com/airlock-mcp/airlock/host/wasm"
	"github.com/airlock-mcp/airlock/spec"
)

func TestDirectGoPlugin(t *testing.T) {
	logs := &logRecorder{level: slog.LevelInfo}
	p := load(t, goPlugin(t, "direct"), wasm.Options{Name: "direct-go", Logger: slog.New(logs),
		Limits: wasm.Limits{MaxOutputBytes: 1 << 20, MaxVarBytes: 4096}})
	if p.Convention() != wasm.ConventionDirect {
		t.Fatalf("convention = %s", p.Convention())
	}
	descs, _ := p.Interceptors(context.Background())
	if len(descs) != 4 || descs[0].Name != "redact" || len(descs[0].Hooks) != 2 {
		t.Fatalf("descriptors = %+v", descs)
	}

	t.Run("mutation", func(t *testing.T) {
		r := mustInvoke(t, p, "redact", "tools/call", spec.PhaseResponse, `{"content":[{"type":"text","text":"a secret"}]}`, "")
		if !r.Modified || string(r.Payload) != `{"content":[{"type":"text","text":"a [REDACTED]"}]}` || r.Phase != spec.PhaseResponse {
			t.Fatalf("result = %+v %s", r, r.Payload)
		}
	})
	t.Run("vars and logs through airlock:host/v1", func(t *testing.T) {
		for i := 1; i <= 3; i++ {
			r := mustInvoke(t, p, "count", "tools/list", spec.PhaseRequest, `{}`, "")
			if !r.Recorded || r.Metrics["count"] != float64(i) {
				t.Fatalf("call %d: %+v", i, r)
			}
		}
		recs := logs.records()
		if len(recs) != 3 || recs[2].Msg != "count tools/list #3" || recs[2].Attrs["plugin"] != "direct-go" {
			t.Fatalf("records = %+v", recs)
		}
		// var_set returns -1 past the limit, and the plugin reports it.
		_, err := invoke(t, p, "misbehave", "test/misbehave", spec.PhaseRequest, `{}`, `{"do":"varbomb","n":5000}`)
		wantFailure(t, err, "misbehave", "^var store full$")
	})
	failures := []struct{ name, config, reason string }{
		{"error flag", `{"do":"error"}`, `^refused on purpose$`},
		{"panic", `{"do":"panic"}`, `unreachable: panic: assignment to entry in nil map`},
		{"oversized output", `{"do":"big","n":2000000}`, `output of 2000000 bytes exceeds the limit of 1048576 bytes`},
	}
	for _, c := range failures {
		t.Run(c.name, func(t *testing.T) {
			_, err := invoke(t, p, "misbehave", "test/misbehave", spec.PhaseRequest, `{}`, c.config)
			wantFailure(t, err, "misbehave", c.reason)
			mustInvoke(t, p, "redact", "tools/call", spec.PhaseRequest, `{}`, "")
		})
	}
}

// The benchmark's claim that both plugins run the same logic rests on this.
func TestBenchmarkLogicIsShared(t *testing.T) {
	a, err := os.ReadFile("testdata/extism/fast.go")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("testdata/direct/fast.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Fatal("testdata/extism/fast.go and testdata/direct/fast.go differ")
	}
}

func TestRedactFast(t *testing.T) {
	for _, plugin := range []string{"extism", "direct"} {
		t.Run(plugin, func(t *testing.T) {
			p := load(t, goPlugin(t, plugin), wasm.Options{Name: plugin})
			r := mustInvoke(t, p, "redact-fast", "tools/call", spec.PhaseRequest,
				`{"name":"t","arguments":{"a":"top secret","b":["\"secret\"",{"c":1}]}}`, "")
			if !r.Modified || string(r.Payload) != `{"name":"t","arguments":{"a":"top [REDACTED]","b":["\"[REDACTED]\"",{"c":1}]}}` {
				t.Fatalf("result = %+v %s", r, r.Payload)
			}
			// The hand-written scanner does not depend on key order.
			raw := &spec.InvokeParams{Name: "redact-fast", Event: "tools/call", Phase: spec.PhaseRequest,
				Payload: json.RawMessage(`{ "name" : "t" }`)}
			r, err := p.Invoke(context.Background(), raw)
			if err != nil || r.Modified || string(r.Payload) != `{ "name" : "t" }` {
				t.Fatalf("unchanged payload: %+v %v", r, err)
			}
		})
	}
}
