package wasm_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/airlock-mcp/airlock/host/wasm"
	"github.com/airlock-mcp/airlock/spec"
)

// readmeWAT returns the WAT example of abi/README.md, exactly as written.
func readmeWAT(tb testing.TB) string {
	tb.Helper()
	doc, err := os.ReadFile("../../abi/README.md")
	if err != nil {
		tb.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "```wat\n")
	if !ok {
		tb.Fatal("abi/README.md has no ```wat block")
	}
	src, _, ok := strings.Cut(rest, "```")
	if !ok {
		tb.Fatal("abi/README.md: unterminated ```wat block")
	}
	return src
}

func TestREADMEExample(t *testing.T) {
	logs := &logRecorder{level: slog.LevelDebug}
	p := load(t, watModule(t, readmeWAT(t)), wasm.Options{Name: "wat-example", Logger: slog.New(logs)})
	if p.Convention() != wasm.ConventionDirect {
		t.Fatalf("convention = %s, want direct", p.Convention())
	}
	descs, _ := p.Interceptors(context.Background())
	if len(descs) != 1 || descs[0].Name != "wat-allow" || descs[0].Type != spec.TypeValidation ||
		len(descs[0].Hooks) != 1 || descs[0].Hooks[0].Phase != spec.PhaseRequest {
		t.Fatalf("descriptors = %+v", descs)
	}

	r := mustInvoke(t, p, "wat-allow", "tools/call", spec.PhaseRequest, `{"name":"x","arguments":{}}`, "")
	if !r.Valid || r.Interceptor != "wat-allow" || r.Phase != spec.PhaseRequest {
		t.Fatalf("result = %+v", r)
	}
	recs := logs.records()
	if len(recs) != 1 || recs[0].Msg != "wat-allow: allowed" || recs[0].Level != slog.LevelInfo ||
		recs[0].Attrs["plugin"] != "wat-example" {
		t.Fatalf("log records = %+v", recs)
	}

	// The example's error path: over 1 MiB of input.
	big := `{"name":"x","arguments":{"blob":"` + strings.Repeat("a", 1<<20) + `"}}`
	_, err := invoke(t, p, "wat-allow", "tools/call", spec.PhaseRequest, big, "")
	wantFailure(t, err, "wat-allow", "^input over 1 MiB$")
	// ...which leaves the instance usable.
	mustInvoke(t, p, "wat-allow", "tools/call", spec.PhaseRequest, `{"name":"x"}`, "")

	// Calls the descriptor does not cover never reach the plugin.
	_, err = invoke(t, p, "wat-allow", "tools/call", spec.PhaseResponse, `{}`, "")
	var se *spec.Error
	if !errors.As(err, &se) || se.Code != spec.CodeInvalidParams {
		t.Fatalf("uncovered phase: err = %v, want -32602", err)
	}
	_, err = invoke(t, p, "nope", "tools/call", spec.PhaseRequest, `{}`, "")
	if !errors.As(err, &se) || se.Code != spec.CodeInvalidParams {
		t.Fatalf("unknown name: err = %v, want -32602", err)
	}
	if _, ok := se.Data.(*spec.NameData); !ok {
		t.Fatalf("unknown name: data = %#v", se.Data)
	}
}

// directWAT is a direct-ABI module in the README's shape whose behaviour is
// spliced in, for the cases Go cannot produce (a real trap) or that test the
// host's checks of the ABI itself.
func directWAT(version int, invokeBody string) string {
	return `(module
  (memory (export "memory") 1)
  (data (i32.const 1024) "{\"interceptors\":[{\"name\":\"t\",\"type\":\"validation\",\"hooks\":[{\"events\":[\"*\"],\"phase\":\"both\"}]}]}")
  (data (i32.const 2048) "{\"interceptor\":\"t\",\"type\":\"validation\",\"phase\":\"request\",\"valid\":true}")
  (func (export "airlock_abi_version") (result i32) (i32.const ` + itoa(version) + `))
  (func (export "airlock_alloc") (param i32) (result i32) (i32.const 4096))
  (func (export "airlock_describe") (result i64)
    (i64.or (i64.shl (i64.const 1024) (i64.const 32)) (i64.const 93)))
  (func (export "airlock_invoke") (param $ptr i32) (param $len i32) (result i64)
    ` + invokeBody + `))`
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestDirectABIChecks(t *testing.T) {
	okResult := `(i64.or (i64.shl (i64.const 2048) (i64.const 32)) (i64.const 70))`
	cases := []struct {
		name, body, reason string
		discarded          bool
	}{
		{"trap", `(unreachable)`, `unreachable`, true},
		{"out of bounds output", `(i64.or (i64.shl (i64.const 65000) (i64.const 32)) (i64.const 4096))`, `outside memory`, true},
		{"empty output", `(i64.const 0)`, `empty output`, false},
		{"stack overflow", `(call 3 (local.get $ptr) (local.get $len)) (drop) ` + okResult, `stack overflow|call stack`, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// A generous deadline: unbounded recursion takes a while to
			// exhaust the stack, more so under -race.
			p := load(t, watModule(t, directWAT(1, c.body)), wasm.Options{Name: "direct-" + c.name,
				Limits: wasm.Limits{Timeout: 30 * time.Second}})
			before := p.Stats()
			_, err := invoke(t, p, "t", "tools/call", spec.PhaseRequest, `{}`, "")
			wantFailure(t, err, "t", c.reason)
			if got := p.Stats().Discarded - before.Discarded; (got > 0) != c.discarded {
				t.Fatalf("discarded %d instances, want discarded=%v", got, c.discarded)
			}
		})
	}
	t.Run("ok", func(t *testing.T) {
		p := load(t, watModule(t, directWAT(1, okResult)), wasm.Options{})
		descs, _ := p.Interceptors(context.Background())
		if len(descs[0].Hooks) != 2 {
			t.Fatalf(`"both" not expanded: %+v`, descs[0].Hooks)
		}
		mustInvoke(t, p, "t", "tools/call", spec.PhaseRequest, `{}`, "")
		// The constant result says "request": a response call gets a
		// result that does not echo it.
		_, err := invoke(t, p, "t", "tools/call", spec.PhaseResponse, `{}`, "")
		wantFailure(t, err, "t", `phase "request".*phase "response"`)
	})
	t.Run("unknown version", func(t *testing.T) {
		_, err := testEngine.Load(context.Background(), watModule(t, directWAT(2, okResult)), wasm.Options{Name: "v2"})
		if err == nil || !strings.Contains(err.Error(), "direct ABI version 2") {
			t.Fatalf("err = %v", err)
		}
	})
}
