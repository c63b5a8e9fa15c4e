package chain_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/airlock-mcp/airlock/host/chain"
	"github.com/airlock-mcp/airlock/host/native"
	"github.com/airlock-mcp/airlock/spec"
)

// trace records which interceptors were invoked, in the order they started.
type trace struct {
	mu    sync.Mutex
	calls []string
}

func (t *trace) add(name string) {
	t.mu.Lock()
	t.calls = append(t.calls, name)
	t.mu.Unlock()
}

func (t *trace) list() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.calls)
}

// fixture builds native interceptors whose behaviour is chosen per test.
type fixture struct {
	t   *testing.T
	tr  *trace
	src *native.Source
}

func newFixture(t *testing.T) *fixture {
	return &fixture{t: t, tr: &trace{}, src: native.New()}
}

type opt func(*spec.Interceptor)

func audit(d *spec.Interceptor)    { d.Mode = spec.ModeAudit }
func failOpen(d *spec.Interceptor) { d.FailOpen = true }
func prio(p int32) opt             { return func(d *spec.Interceptor) { d.PriorityHint = spec.Priority(p) } }
func phasePrio(req, res *int32) opt {
	return func(d *spec.Interceptor) { d.PriorityHint = spec.PhasePriority(req, res) }
}
func hooks(h ...spec.Hook) opt { return func(d *spec.Interceptor) { d.Hooks = h } }
func i32(v int32) *int32       { return &v }

func desc(name string, typ spec.Type, opts []opt) spec.Interceptor {
	d := spec.Interceptor{Name: name, Type: typ,
		Hooks: []spec.Hook{{Events: []string{"*"}, Phase: spec.PhaseRequest}, {Events: []string{"*"}, Phase: spec.PhaseResponse}}}
	for _, o := range opts {
		o(&d)
	}
	return d
}

func (f *fixture) add(d spec.Interceptor, h native.Handler) {
	f.t.Helper()
	if err := f.src.Add(d, func(ctx context.Context, p *spec.InvokeParams) (*spec.Result, error) {
		f.tr.add(p.Name)
		return h(ctx, p)
	}); err != nil {
		f.t.Fatal(err)
	}
}

// validator answers with a fixed verdict.
func (f *fixture) validator(name string, valid bool, sev spec.Severity, opts ...opt) {
	f.add(desc(name, spec.TypeValidation, opts), func(_ context.Context, p *spec.InvokeParams) (*spec.Result, error) {
		r := &spec.Result{Interceptor: p.Name, Type: spec.TypeValidation, Phase: p.Phase, Valid: valid, Severity: sev}
		if !valid {
			r.Messages = []spec.Message{{Message: name + " says no", Severity: sev}}
		}
		return r, nil
	})
}

// mutator appends its name to the payload's "trail" array.
func (f *fixture) mutator(name string, opts ...opt) {
	f.add(desc(name, spec.TypeMutation, opts), func(_ context.Context, p *spec.InvokeParams) (*spec.Result, error) {
		var body map[string]any
		if err := json.Unmarshal(p.Payload, &body); err != nil {
			return nil, err
		}
		trail, _ := body["trail"].([]any)
		body["trail"] = append(trail, name)
		out, _ := json.Marshal(body)
		return &spec.Result{Interceptor: p.Name, Type: spec.TypeMutation, Phase: p.Phase, Modified: true, Payload: out}, nil
	})
}

func (f *fixture) sink(name string, opts ...opt) {
	f.add(desc(name, spec.TypeSink, opts), func(_ context.Context, p *spec.InvokeParams) (*spec.Result, error) {
		return &spec.Result{Interceptor: p.Name, Type: spec.TypeSink, Phase: p.Phase, Recorded: true}, nil
	})
}

// failing fails with err (nil: returns a result that does not echo the call).
func (f *fixture) failing(name string, typ spec.Type, err error, opts ...opt) {
	f.add(desc(name, typ, opts), func(context.Context, *spec.InvokeParams) (*spec.Result, error) {
		if err == nil {
			return &spec.Result{Interceptor: "someone-else", Type: typ, Phase: spec.PhaseRequest, Valid: true, Recorded: true}, nil
		}
		return nil, err
	})
}

// slow waits for ctx (or d) before answering valid:true / recorded:true / unmodified.
func (f *fixture) slow(name string, typ spec.Type, d time.Duration, opts ...opt) {
	f.add(desc(name, typ, opts), func(ctx context.Context, p *spec.InvokeParams) (*spec.Result, error) {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(d):
		}
		return &spec.Result{Interceptor: p.Name, Type: typ, Phase: p.Phase, Valid: true, Recorded: true}, nil
	})
}

func (f *fixture) chain(opts chain.Options, more ...chain.Source) *chain.Chain {
	f.t.Helper()
	c, err := chain.New(context.Background(), append([]chain.Source{f.src}, more...), opts)
	if err != nil {
		f.t.Fatal(err)
	}
	return c
}

const callPayload = `{"name":"echo","arguments":{"text":"hi"}}`

func run(t *testing.T, c *chain.Chain, phase spec.Phase, dir spec.Direction) *spec.ChainResult {
	t.Helper()
	res, err := c.Run(context.Background(), &spec.ChainParams{Event: "tools/call", Phase: phase, Direction: dir,
		Payload: json.RawMessage(callPayload)})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func names(res *spec.ChainResult) []string {
	out := make([]string, len(res.Results))
	for i, r := range res.Results {
		out[i] = r.Interceptor
	}
	return out
}

func trail(t *testing.T, payload json.RawMessage) []string {
	t.Helper()
	var body struct{ Trail []string }
	if err := json.Unmarshal(payload, &body); err != nil {
		t.Fatalf("final payload %s: %v", payload, err)
	}
	return body.Trail
}

func infoError(t *testing.T, r spec.Result) string {
	t.Helper()
	var info struct{ Error string }
	if err := json.Unmarshal(r.Info, &info); err != nil {
		t.Fatalf("info of %s: %s: %v", r.Interceptor, r.Info, err)
	}
	return info.Error
}

var errBoom = errors.New("boom")
