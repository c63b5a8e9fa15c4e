package wasm_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/airlock-mcp/airlock/host/wasm"
	"github.com/airlock-mcp/airlock/spec"
)

// TestConcurrentCalls keeps 64 calls in flight on fewer instances, with
// failing calls mixed in. Every answer must be the answer to its own call (an
// instance shared by two calls would mix their inputs), failures must not
// leak into other calls, and -race must stay quiet.
func TestConcurrentCalls(t *testing.T) {
	for _, plugin := range []string{"extism", "direct"} {
		t.Run(plugin, func(t *testing.T) {
			p := load(t, goPlugin(t, plugin), wasm.Options{Name: plugin, Limits: wasm.Limits{MaxInstances: 8}})
			const inFlight, perCaller = 64, 8
			var wg sync.WaitGroup
			start := make(chan struct{})
			errs := make(chan error, inFlight*perCaller)
			for g := range inFlight {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					for i := range perCaller {
						if g%16 == 0 && i == perCaller/2 {
							// Every 16th caller makes one panicking call.
							_, err := p.Invoke(context.Background(), &spec.InvokeParams{Name: "misbehave",
								Event: "test/misbehave", Phase: spec.PhaseRequest,
								Payload: json.RawMessage(`{}`), Config: json.RawMessage(`{"do":"panic"}`)})
							if err == nil {
								errs <- fmt.Errorf("caller %d: panic call succeeded", g)
							}
							continue
						}
						in := fmt.Sprintf(`{"name":"tool","arguments":{"caller":%d,"call":%d,"v":"secret-%d-%d"}}`, g, i, g, i)
						want := fmt.Sprintf(`{"name":"tool","arguments":{"caller":%d,"call":%d,"v":"[REDACTED]-%d-%d"}}`, g, i, g, i)
						r, err := p.Invoke(context.Background(), &spec.InvokeParams{Name: "redact",
							Event: "tools/call", Phase: spec.PhaseRequest, Payload: json.RawMessage(in)})
						if err != nil {
							errs <- fmt.Errorf("caller %d call %d: %v", g, i, err)
							continue
						}
						if string(r.Payload) != want {
							errs <- fmt.Errorf("caller %d call %d got %s", g, i, r.Payload)
						}
					}
				}()
			}
			close(start)
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
			s := p.Stats()
			if s.Size != 8 || s.Discarded != inFlight/16 {
				t.Fatalf("stats = %+v, want 8 slots and %d discarded", s, inFlight/16)
			}
			// Instances are created at load and to replace discarded ones,
			// never for a call.
			if s.Created > int64(s.Size)+s.Discarded {
				t.Fatalf("stats = %+v: instances created on the hot path", s)
			}
		})
	}
}
