package wasm_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/airlock-mcp/airlock/host/wasm"
	"github.com/airlock-mcp/airlock/spec"
)

// afterFailure asserts that the plugin still answers: a failure affects only
// the instance it happened in.
func afterFailure(tb testing.TB, p *wasm.Plugin) {
	tb.Helper()
	r := mustInvoke(tb, p, "guard", "tools/call", spec.PhaseRequest, `{"name":"after"}`, "")
	if !r.Valid {
		tb.Fatalf("plugin broken after a failure: %+v", r)
	}
}

func TestExtismFailures(t *testing.T) {
	p := extismPlugin(t, wasm.Options{Name: "failing", Limits: wasm.Limits{MaxOutputBytes: 64 << 10, MaxInstances: 2}})
	cases := []struct {
		name, config, reason string
		discard              bool
	}{
		{"error return", `{"do":"error","url":"why"}`, `^refused: why$`, false},
		{"error without message", `{"do":"errnomsg"}`, `^returned 7 without an error message$`, false},
		{"go panic", `{"do":"panic"}`, `unreachable: panic: assignment to entry in nil map$`, true},
		{"exit", `{"do":"exit"}`, `^exited with code 3`, true},
		{"oversized output", `{"do":"big","n":70000}`, `output of 70000 bytes exceeds the limit of 65536 bytes`, true},
		{"malformed json", `{"do":"badjson"}`, `^malformed result: interceptor result: unexpected end of JSON input`, false},
		{"foreign interceptor", `{"do":"wrongecho"}`, `names interceptor "someone-else", the call was for "misbehave"`, false},
		{"wrong type", `{"do":"wrongtype"}`, `type "sink", interceptor "misbehave" is a validation interceptor`, false},
		{"wrong phase", `{"do":"wrongphase"}`, `phase "response", the call was for phase "request"`, false},
		{"no output", `{"do":"nooutput"}`, `^returned 0 but set no output$`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := p.Stats()
			_, err := invoke(t, p, "misbehave", "test/misbehave", spec.PhaseRequest, `{}`, c.config)
			wantFailure(t, err, "misbehave", c.reason)
			if d := p.Stats().Discarded - before.Discarded; (d == 1) != c.discard {
				t.Fatalf("discarded %d instances, want discard=%v", d, c.discard)
			}
			afterFailure(t, p)
		})
	}
}

func TestDeadlineStopsInfiniteLoop(t *testing.T) {
	for _, plugin := range []string{"extism", "direct"} {
		t.Run(plugin, func(t *testing.T) {
			p := load(t, goPlugin(t, plugin), wasm.Options{Name: plugin, Limits: wasm.Limits{MaxInstances: 1, Timeout: 30 * time.Second}})
			start := time.Now()
			params := &spec.InvokeParams{Name: "misbehave", Event: "test/misbehave", Phase: spec.PhaseRequest,
				Payload: json.RawMessage(`{}`), Config: json.RawMessage(`{"do":"loop"}`), TimeoutMs: 100}
			_, err := p.Invoke(context.Background(), params)
			se := wantFailure(t, err, "misbehave", "^timeout$")
			if !se.IsTimeout() {
				t.Fatal("IsTimeout = false")
			}
			if fd := se.Data.(*spec.FailureData); fd.TimeoutMs != 100 || fd.Phase != spec.PhaseRequest {
				t.Fatalf("data = %+v", fd)
			}
			if el := time.Since(start); el > 2*time.Second {
				t.Fatalf("the loop ran %v past a 100 ms deadline", el)
			}
			// The only instance was discarded; its replacement serves the
			// next call. Starting a Go instance takes milliseconds, much
			// more under -race on a loaded machine, and this call waits for
			// it: give it a generous deadline.
			params.Config, params.TimeoutMs = json.RawMessage(`{}`), 0
			if _, err := p.Invoke(context.Background(), params); err != nil {
				t.Fatal(err)
			}
			if s := p.Stats(); s.Discarded != 1 || s.Created != 2 {
				t.Fatalf("stats = %+v", s)
			}
		})
	}
	t.Run("host limit applies without timeoutMs", func(t *testing.T) {
		p := extismPlugin(t, wasm.Options{Limits: wasm.Limits{Timeout: 150 * time.Millisecond, MaxInstances: 1}})
		_, err := invoke(t, p, "misbehave", "test/misbehave", spec.PhaseRequest, `{}`, `{"do":"loop"}`)
		se := wantFailure(t, err, "misbehave", "^timeout$")
		if fd := se.Data.(*spec.FailureData); fd.TimeoutMs != 150 {
			t.Fatalf("timeoutMs = %d, want the host's 150", fd.TimeoutMs)
		}
	})
	t.Run("timeoutMs cannot raise the host limit", func(t *testing.T) {
		p := extismPlugin(t, wasm.Options{Limits: wasm.Limits{Timeout: 100 * time.Millisecond, MaxInstances: 1}})
		params := &spec.InvokeParams{Name: "misbehave", Event: "test/misbehave", Phase: spec.PhaseRequest,
			Payload: json.RawMessage(`{}`), Config: json.RawMessage(`{"do":"sleep","n":400}`), TimeoutMs: 60000}
		_, err := p.Invoke(context.Background(), params)
		wantFailure(t, err, "misbehave", "^timeout$")
	})
}

func TestDeadlineAtHostCalls(t *testing.T) {
	// Without interruption the guest cannot be stopped in a loop, but a
	// result that comes back late is still a timeout, never a verdict.
	p := extismPlugin(t, wasm.Options{Limits: wasm.Limits{Deadlines: wasm.DeadlineAtHostCalls, MaxInstances: 1}})
	params := &spec.InvokeParams{Name: "misbehave", Event: "test/misbehave", Phase: spec.PhaseRequest,
		Payload: json.RawMessage(`{}`), Config: json.RawMessage(`{"do":"sleep","n":300}`), TimeoutMs: 50}
	start := time.Now()
	_, err := p.Invoke(context.Background(), params)
	wantFailure(t, err, "misbehave", "^timeout$")
	if el := time.Since(start); el < 300*time.Millisecond {
		t.Fatalf("returned after %v: the sleep was interrupted, which this mode cannot do", el)
	}
	afterFailure(t, p)
	if p.Limits().Deadlines != wasm.DeadlineAtHostCalls {
		t.Fatal("mode not kept")
	}
}

func TestMemoryBomb(t *testing.T) {
	p := extismPlugin(t, wasm.Options{Limits: wasm.Limits{MemoryPages: 256, MaxInstances: 1}})
	_, err := invoke(t, p, "misbehave", "test/misbehave", spec.PhaseRequest, `{}`, `{"do":"oom"}`)
	wantFailure(t, err, "misbehave", `out of memory|unreachable|exited`)
	if p.Stats().Discarded != 1 {
		t.Fatalf("stats = %+v", p.Stats())
	}
	afterFailure(t, p)
}

func TestCancelledByCaller(t *testing.T) {
	p := extismPlugin(t, wasm.Options{Limits: wasm.Limits{MaxInstances: 1}})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		time.Sleep(50 * time.Millisecond)
		cancel()
	}()
	_, err := p.Invoke(ctx, &spec.InvokeParams{Name: "misbehave", Event: "test/misbehave", Phase: spec.PhaseRequest,
		Payload: json.RawMessage(`{}`), Config: json.RawMessage(`{"do":"loop"}`)})
	wantFailure(t, err, "misbehave", `cancelled`)
	afterFailure(t, p)
}

func TestClose(t *testing.T) {
	p, err := testEngine.Load(context.Background(), goPlugin(t, "extism"), wasm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	afterFailure(t, p)
	if err := p.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(context.Background()); err != nil {
		t.Fatal("second Close:", err)
	}
	_, err = invoke(t, p, "guard", "tools/call", spec.PhaseRequest, `{}`, "")
	var se *spec.Error
	if !errors.As(err, &se) || se.Code != spec.CodeInternalError {
		t.Fatalf("call after Close: %v", err)
	}
}
