package chain_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/airlock-mcp/airlock/host/chain"
	"github.com/airlock-mcp/airlock/spec"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestStageOrder(t *testing.T) {
	tests := []struct {
		name  string
		phase spec.Phase
		dir   spec.Direction
		want  []string // results in plan order
	}{
		{"sending: mutations, validations, sinks", spec.PhaseRequest, spec.DirectionSending, []string{"m1", "m2", "v1", "v2", "s1"}},
		{"receiving: validations, sinks, mutations", spec.PhaseResponse, spec.DirectionReceiving, []string{"v1", "v2", "s1", "m1", "m2"}},
		{"direction, not phase, decides", spec.PhaseRequest, spec.DirectionReceiving, []string{"v1", "v2", "s1", "m1", "m2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.sink("s1")
			f.validator("v2", true, "")
			f.mutator("m2")
			f.validator("v1", true, "")
			f.mutator("m1")
			res := run(t, f.chain(chain.Options{}), tt.phase, tt.dir)
			if res.Status != spec.StatusSuccess {
				t.Fatalf("status %s", res.Status)
			}
			if got := names(res); !slices.Equal(got, tt.want) {
				t.Fatalf("results %v, want %v", got, tt.want)
			}
			// Invocation order respects the stages (validators run in parallel,
			// so only stage boundaries are checked).
			calls := f.tr.list()
			stages := map[byte]int{'m': 0, 'v': 1, 's': 2}
			if tt.dir == spec.DirectionReceiving {
				stages = map[byte]int{'v': 0, 's': 1, 'm': 2}
			}
			stage := func(n string) int { return stages[n[0]] }
			for i := 1; i < len(calls); i++ {
				if stage(calls[i]) < stage(calls[i-1]) {
					t.Fatalf("invocation order %v breaks the stage order", calls)
				}
			}
			if got := trail(t, res.FinalPayload); !slices.Equal(got, []string{"m1", "m2"}) {
				t.Fatalf("trail %v", got)
			}
		})
	}
}

func TestMutationPriority(t *testing.T) {
	tests := []struct {
		name  string
		phase spec.Phase
		setup func(f *fixture)
		want  []string
	}{
		{"scalar, object and unset hints", spec.PhaseRequest, func(f *fixture) {
			f.mutator("unset")                                     // 0
			f.mutator("scalar-5", prio(5))                         // 5
			f.mutator("scalar-neg", prio(-10))                     // -10
			f.mutator("object-req-3", phasePrio(i32(3), nil))      // 3 on request
			f.mutator("object-res-only", phasePrio(nil, i32(-50))) // 0 on request
		}, []string{"scalar-neg", "object-res-only", "unset", "object-req-3", "scalar-5"}},
		{"per-phase priorities on the response phase", spec.PhaseResponse, func(f *fixture) {
			f.mutator("a", phasePrio(i32(1), i32(9)))
			f.mutator("b", phasePrio(i32(9), i32(1)))
			f.mutator("c", prio(5))
		}, []string{"b", "c", "a"}},
		{"per-phase priorities on the request phase", spec.PhaseRequest, func(f *fixture) {
			f.mutator("a", phasePrio(i32(1), i32(9)))
			f.mutator("b", phasePrio(i32(9), i32(1)))
			f.mutator("c", prio(5))
		}, []string{"a", "c", "b"}},
		{"ties broken by byte-wise name, not locale", spec.PhaseRequest, func(f *fixture) {
			f.mutator("b")
			f.mutator("é") // U+00E9 sorts after every ASCII letter
			f.mutator("B") // upper case sorts before lower case
			f.mutator("a")
			f.mutator("z")
		}, []string{"B", "a", "b", "z", "é"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			tt.setup(f)
			res := run(t, f.chain(chain.Options{}), tt.phase, spec.DirectionSending)
			if got := names(res); !slices.Equal(got, tt.want) {
				t.Fatalf("results %v, want %v", got, tt.want)
			}
			// Each mutator saw the previous one's output.
			if got := trail(t, res.FinalPayload); !slices.Equal(got, tt.want) {
				t.Fatalf("payload trail %v, want %v", got, tt.want)
			}
			if got := f.tr.list(); !slices.Equal(got, tt.want) {
				t.Fatalf("invocation order %v, want %v", got, tt.want)
			}
		})
	}
}

func TestValidationVerdicts(t *testing.T) {
	tests := []struct {
		name    string
		sev     spec.Severity
		valid   bool
		opts    []opt
		status  spec.ChainStatus
		summary spec.ValidationSummary
	}{
		{"valid passes", spec.SeverityError, true, nil, spec.StatusSuccess, spec.ValidationSummary{}},
		{"error blocks", spec.SeverityError, false, nil, spec.StatusValidationFailed, spec.ValidationSummary{Errors: 1}},
		{"missing severity blocks", "", false, nil, spec.StatusValidationFailed, spec.ValidationSummary{Errors: 1}},
		{"unknown severity blocks", "critical", false, nil, spec.StatusValidationFailed, spec.ValidationSummary{Errors: 1}},
		{"warn does not block", spec.SeverityWarn, false, nil, spec.StatusSuccess, spec.ValidationSummary{Warnings: 1}},
		{"info does not block", spec.SeverityInfo, false, nil, spec.StatusSuccess, spec.ValidationSummary{Infos: 1}},
		{"audit never blocks but is counted", spec.SeverityError, false, []opt{audit}, spec.StatusSuccess, spec.ValidationSummary{Errors: 1}},
		{"failOpen does not turn valid:false into a pass", spec.SeverityError, false, []opt{failOpen}, spec.StatusValidationFailed, spec.ValidationSummary{Errors: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.mutator("m")
			f.validator("v", tt.valid, tt.sev, tt.opts...)
			f.validator("ok", true, "")
			res := run(t, f.chain(chain.Options{}), spec.PhaseRequest, spec.DirectionSending)
			if res.Status != tt.status || res.ValidationSummary != tt.summary {
				t.Fatalf("status %s summary %+v, want %s %+v", res.Status, res.ValidationSummary, tt.status, tt.summary)
			}
			if tt.status == spec.StatusSuccess {
				if res.AbortedAt != nil || !slices.Equal(trail(t, res.FinalPayload), []string{"m"}) {
					t.Fatalf("success must carry the mutated payload and no abortedAt: %+v", res)
				}
				return
			}
			// Atomic abort: the block releases no mutation at all.
			if res.FinalPayload != nil {
				t.Fatalf("blocked chain released a payload: %s", res.FinalPayload)
			}
			want := spec.AbortedAt{Interceptor: "v", Reason: "v says no", Type: spec.AbortValidation, Phase: spec.PhaseRequest}
			if res.AbortedAt == nil || *res.AbortedAt != want {
				t.Fatalf("abortedAt %+v, want %+v", res.AbortedAt, want)
			}
			if len(res.Results) != 3 {
				t.Fatalf("every validator runs and is recorded: %v", names(res))
			}
		})
	}
}

func TestValidatorsShareOneSnapshotAndAllRun(t *testing.T) {
	f := newFixture(t)
	seen := make(chan string, 8)
	for _, n := range []string{"a", "b", "c", "d"} {
		f.add(desc(n, spec.TypeValidation, nil), func(_ context.Context, p *spec.InvokeParams) (*spec.Result, error) {
			seen <- string(p.Payload)
			// "a" blocks; the others still run.
			return &spec.Result{Interceptor: p.Name, Type: spec.TypeValidation, Phase: p.Phase, Valid: p.Name != "a"}, nil
		})
	}
	res := run(t, f.chain(chain.Options{}), spec.PhaseRequest, spec.DirectionSending)
	close(seen)
	n := 0
	for p := range seen {
		n++
		if p != callPayload {
			t.Fatalf("validator saw %s", p)
		}
	}
	if n != 4 || res.Status != spec.StatusValidationFailed || res.AbortedAt.Interceptor != "a" {
		t.Fatalf("ran %d validators, status %s, abortedAt %+v", n, res.Status, res.AbortedAt)
	}
}

func TestAuditMutatorIsShadowed(t *testing.T) {
	f := newFixture(t)
	f.mutator("a-shadow", prio(-1), audit)
	f.mutator("b-real")
	res := run(t, f.chain(chain.Options{}), spec.PhaseRequest, spec.DirectionSending)
	if res.Status != spec.StatusSuccess {
		t.Fatal(res.Status)
	}
	if got := trail(t, res.FinalPayload); !slices.Equal(got, []string{"b-real"}) {
		t.Fatalf("audit mutation was applied: trail %v", got)
	}
	if !res.Results[0].Modified || !slices.Equal(trail(t, res.Results[0].Payload), []string{"a-shadow"}) {
		t.Fatalf("audit mutation must be recorded: %+v", res.Results[0])
	}
}

func TestFailures(t *testing.T) {
	tests := []struct {
		name    string
		typ     spec.Type
		opts    []opt
		status  spec.ChainStatus
		summary spec.ValidationSummary
	}{
		{"fail-closed validator blocks", spec.TypeValidation, nil, spec.StatusValidationFailed, spec.ValidationSummary{Errors: 1}},
		{"fail-open validator is recorded", spec.TypeValidation, []opt{failOpen}, spec.StatusSuccess, spec.ValidationSummary{Errors: 1}},
		{"audit validator failure is recorded", spec.TypeValidation, []opt{audit}, spec.StatusSuccess, spec.ValidationSummary{Errors: 1}},
		{"fail-closed mutator blocks", spec.TypeMutation, nil, spec.StatusMutationFailed, spec.ValidationSummary{}},
		{"fail-open mutator is recorded", spec.TypeMutation, []opt{failOpen}, spec.StatusSuccess, spec.ValidationSummary{}},
		{"failing sink never blocks", spec.TypeSink, nil, spec.StatusSuccess, spec.ValidationSummary{}},
	}
	for _, tt := range tests {
		for _, cause := range []struct {
			name string
			err  error
			want string
		}{
			{"error", errBoom, "boom"},
			{"spec error", spec.InvocationFailed("x", "wasm trap: unreachable"), "wasm trap: unreachable"},
			{"non-echoing result", nil, "malformed result"},
		} {
			t.Run(tt.name+"/"+cause.name, func(t *testing.T) {
				f := newFixture(t)
				f.failing("x", tt.typ, cause.err, tt.opts...)
				f.mutator("m", prio(10))
				res := run(t, f.chain(chain.Options{}), spec.PhaseRequest, spec.DirectionSending)
				if res.Status != tt.status || res.ValidationSummary != tt.summary {
					t.Fatalf("status %s summary %+v, want %s %+v", res.Status, res.ValidationSummary, tt.status, tt.summary)
				}
				i := slices.Index(names(res), "x")
				if i < 0 {
					t.Fatalf("failure not recorded: %v", names(res))
				}
				r := res.Results[i]
				if r.Type != tt.typ || r.Valid || r.Modified || r.Recorded || !strings.Contains(infoError(t, r), cause.want) {
					t.Fatalf("recorded failure %+v (info %s)", r, r.Info)
				}
				if tt.status != spec.StatusSuccess {
					if res.AbortedAt == nil || res.AbortedAt.Interceptor != "x" || !strings.Contains(res.AbortedAt.Reason, cause.want) || res.FinalPayload != nil {
						t.Fatalf("abortedAt %+v finalPayload %s", res.AbortedAt, res.FinalPayload)
					}
				} else if res.FinalPayload == nil {
					t.Fatal("success without a final payload")
				}
			})
		}
	}
}

func TestMalformedMutations(t *testing.T) {
	tests := []struct {
		name   string
		result func(p *spec.InvokeParams) *spec.Result
		want   string
	}{
		{"unmodified but changed", func(p *spec.InvokeParams) *spec.Result {
			return &spec.Result{Interceptor: p.Name, Type: spec.TypeMutation, Phase: p.Phase, Modified: false,
				Payload: json.RawMessage(`{"name":"rm -rf"}`)}
		}, "claims modified:false"},
		{"invalid replacement", func(p *spec.InvokeParams) *spec.Result {
			return &spec.Result{Interceptor: p.Name, Type: spec.TypeMutation, Phase: p.Phase, Modified: true,
				Payload: json.RawMessage(`{"arguments":{}}`)}
		}, `"name" is required`},
		{"wrong kind", func(p *spec.InvokeParams) *spec.Result {
			return &spec.Result{Interceptor: p.Name, Type: spec.TypeValidation, Phase: p.Phase, Valid: true}
		}, "malformed result"},
		{"wrong phase", func(p *spec.InvokeParams) *spec.Result {
			return &spec.Result{Interceptor: p.Name, Type: spec.TypeMutation, Phase: spec.PhaseResponse}
		}, "malformed result"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.add(desc("bad", spec.TypeMutation, nil), func(_ context.Context, p *spec.InvokeParams) (*spec.Result, error) {
				return tt.result(p), nil
			})
			res := run(t, f.chain(chain.Options{}), spec.PhaseRequest, spec.DirectionSending)
			if res.Status != spec.StatusMutationFailed || !strings.Contains(res.AbortedAt.Reason, tt.want) {
				t.Fatalf("status %s abortedAt %+v", res.Status, res.AbortedAt)
			}
		})
	}
	t.Run("unmodified with the same payload re-encoded is fine", func(t *testing.T) {
		f := newFixture(t)
		f.add(desc("same", spec.TypeMutation, nil), func(_ context.Context, p *spec.InvokeParams) (*spec.Result, error) {
			return &spec.Result{Interceptor: p.Name, Type: spec.TypeMutation, Phase: p.Phase,
				Payload: json.RawMessage(`{ "arguments": {"text":"hi"}, "name": "echo" }`)}, nil
		})
		res := run(t, f.chain(chain.Options{}), spec.PhaseRequest, spec.DirectionSending)
		if res.Status != spec.StatusSuccess || string(res.FinalPayload) != callPayload {
			t.Fatalf("status %s payload %s", res.Status, res.FinalPayload)
		}
	})
}

func TestSelection(t *testing.T) {
	f := newFixture(t)
	f.sink("all")
	f.sink("tools-req", hooks(spec.Hook{Events: []string{"tools/*"}, Phase: spec.PhaseRequest}))
	f.sink("call-res", hooks(spec.Hook{Events: []string{"tools/call"}, Phase: spec.PhaseResponse}))
	f.sink("prompts", hooks(spec.Hook{Events: []string{"prompts/get"}, Phase: spec.PhaseRequest}))
	c := f.chain(chain.Options{})
	tests := []struct {
		event string
		phase spec.Phase
		want  []string
	}{
		{"tools/call", spec.PhaseRequest, []string{"all", "tools-req"}},
		{"tools/list", spec.PhaseRequest, []string{"all", "tools-req"}},
		{"tools/call", spec.PhaseResponse, []string{"all", "call-res"}},
		{"prompts/get", spec.PhaseRequest, []string{"all", "prompts"}},
		{"resources/read", spec.PhaseResponse, []string{"all"}},
	}
	for _, tt := range tests {
		res, err := c.Run(context.Background(), &spec.ChainParams{Event: tt.event, Phase: tt.phase,
			Direction: spec.DirectionSending, Payload: json.RawMessage(`{"name":"x","uri":"u"}`)})
		if err != nil {
			t.Fatal(err)
		}
		if got := names(res); !slices.Equal(got, tt.want) {
			t.Errorf("%s %s: ran %v, want %v", tt.event, tt.phase, got, tt.want)
		}
	}
	t.Run("name filter", func(t *testing.T) {
		c := f.chain(chain.Options{Interceptors: []string{"tools-req"}})
		if got := names(run(t, c, spec.PhaseRequest, spec.DirectionSending)); !slices.Equal(got, []string{"tools-req"}) {
			t.Fatalf("ran %v", got)
		}
		if _, err := chain.New(context.Background(), []chain.Source{f.src}, chain.Options{Interceptors: []string{"nope"}}); err == nil || !strings.Contains(err.Error(), `"nope"`) {
			t.Fatalf("unknown name in the filter: %v", err)
		}
	})
}

func TestRunRejectsBadParams(t *testing.T) {
	f := newFixture(t)
	f.sink("s")
	c := f.chain(chain.Options{})
	for _, p := range []*spec.ChainParams{
		{Event: "tools/call", Phase: spec.PhaseBoth, Direction: spec.DirectionSending, Payload: json.RawMessage(`{}`)},
		{Event: "tools/call", Phase: spec.PhaseRequest, Payload: json.RawMessage(`{}`)},
		{Event: "initialize", Phase: spec.PhaseRequest, Direction: spec.DirectionSending, Payload: json.RawMessage(`{}`)},
	} {
		if _, err := c.Run(context.Background(), p); err == nil {
			t.Errorf("Run(%+v) succeeded", p)
		}
	}
	if len(f.tr.list()) != 0 {
		t.Fatal("an interceptor ran for rejected params")
	}
	// A source may not describe "both" at execution either: native expands
	// it, a raw source listing it is refused when the chain is built.
	raw := listOnly{spec.Interceptor{Name: "b", Type: spec.TypeSink, Hooks: []spec.Hook{{Events: []string{"*"}, Phase: spec.PhaseBoth}}}}
	if _, err := chain.New(context.Background(), []chain.Source{raw}, chain.Options{}); err == nil || !strings.Contains(err.Error(), "both") {
		t.Fatalf("a source listing a both hook: %v", err)
	}
}

// listOnly is a source that lists fixed descriptors and refuses to invoke.
type listOnly []spec.Interceptor

func (l listOnly) Interceptors(context.Context) ([]spec.Interceptor, error) { return l, nil }
func (l listOnly) Invoke(_ context.Context, p *spec.InvokeParams) (*spec.Result, error) {
	return nil, spec.UnknownInterceptor(p.Name)
}

func TestTimeouts(t *testing.T) {
	t.Run("chain timeout cancels in-flight invocations", func(t *testing.T) {
		f := newFixture(t)
		f.mutator("m")
		f.slow("v-slow", spec.TypeValidation, time.Minute)
		f.validator("v-fast", true, "")
		f.sink("s")
		c := f.chain(chain.Options{})
		start := time.Now()
		res, err := c.Run(context.Background(), &spec.ChainParams{Event: "tools/call", Phase: spec.PhaseRequest,
			Direction: spec.DirectionSending, Payload: json.RawMessage(callPayload), TimeoutMs: 50})
		if err != nil {
			t.Fatal(err)
		}
		if time.Since(start) > 10*time.Second {
			t.Fatal("the chain did not stop at its timeout")
		}
		want := spec.AbortedAt{Interceptor: "v-slow", Reason: "timeout", Type: spec.AbortTimeout, Phase: spec.PhaseRequest}
		if res.Status != spec.StatusTimeout || res.AbortedAt == nil || *res.AbortedAt != want || res.FinalPayload != nil {
			t.Fatalf("status %s abortedAt %+v payload %s", res.Status, res.AbortedAt, res.FinalPayload)
		}
		if slices.Contains(f.tr.list(), "s") {
			t.Fatal("a sink ran after the chain timed out")
		}
	})
	t.Run("caller cancellation is an error, not a verdict", func(t *testing.T) {
		f := newFixture(t)
		f.slow("v", spec.TypeValidation, time.Minute)
		c := f.chain(chain.Options{})
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(20*time.Millisecond, cancel)
		if _, err := c.Run(ctx, &spec.ChainParams{Event: "tools/call", Phase: spec.PhaseRequest,
			Direction: spec.DirectionSending, Payload: json.RawMessage(callPayload)}); err == nil {
			t.Fatal("want an error")
		}
	})
	for _, tt := range []struct {
		name   string
		open   bool
		status spec.ChainStatus
	}{
		{"per-interceptor timeout, fail-closed", false, spec.StatusValidationFailed},
		{"per-interceptor timeout, fail-open", true, spec.StatusSuccess},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.slow("v", spec.TypeValidation, time.Minute)
			c := f.chain(chain.Options{Overrides: map[string]spec.Override{"v": {TimeoutMs: 30, FailOpen: &tt.open}}})
			res := run(t, c, spec.PhaseRequest, spec.DirectionSending)
			if res.Status != tt.status {
				t.Fatalf("status %s, want %s", res.Status, tt.status)
			}
			if r := res.Results[0]; infoError(t, r) != "timeout" || r.Valid {
				t.Fatalf("recorded %+v info %s", r, r.Info)
			}
			if !tt.open && (res.AbortedAt.Reason != "timeout" || res.AbortedAt.Type != spec.AbortValidation) {
				t.Fatalf("abortedAt %+v", res.AbortedAt)
			}
		})
	}
	t.Run("timeoutMs reaches the source", func(t *testing.T) {
		f := newFixture(t)
		got := make(chan int64, 1)
		f.add(desc("s", spec.TypeSink, nil), func(_ context.Context, p *spec.InvokeParams) (*spec.Result, error) {
			got <- p.TimeoutMs
			return &spec.Result{Interceptor: p.Name, Type: spec.TypeSink, Phase: p.Phase, Recorded: true}, nil
		})
		run(t, f.chain(chain.Options{Overrides: map[string]spec.Override{"s": {TimeoutMs: 77}}}), spec.PhaseRequest, spec.DirectionSending)
		if v := <-got; v != 77 {
			t.Fatalf("timeoutMs %d", v)
		}
	})
}

func TestOverrides(t *testing.T) {
	base := func(t *testing.T) *fixture {
		f := newFixture(t)
		f.validator("v", false, spec.SeverityError, hooks(
			spec.Hook{Events: []string{"tools/*", "prompts/get"}, Phase: spec.PhaseRequest},
			spec.Hook{Events: []string{"tools/call"}, Phase: spec.PhaseResponse}))
		return f
	}
	audit := spec.ModeAudit
	narrowing := []struct {
		name  string
		hooks []spec.Hook
	}{
		{"exact inside a glob", []spec.Hook{{Events: []string{"tools/call"}, Phase: spec.PhaseRequest}}},
		{"the same glob", []spec.Hook{{Events: []string{"tools/*"}, Phase: spec.PhaseRequest}}},
		{"fewer hooks", []spec.Hook{{Events: []string{"tools/call"}, Phase: spec.PhaseResponse}}},
	}
	for _, tt := range narrowing {
		t.Run("narrowing allowed: "+tt.name, func(t *testing.T) {
			f := base(t)
			c := f.chain(chain.Options{Overrides: map[string]spec.Override{"v": {Hooks: tt.hooks}}})
			d := c.Interceptors()[0].Descriptor
			if len(d.Hooks) != len(tt.hooks) {
				t.Fatalf("effective hooks %+v", d.Hooks)
			}
		})
	}
	widening := []struct {
		name  string
		hooks []spec.Hook
	}{
		{"star", []spec.Hook{{Events: []string{"*"}, Phase: spec.PhaseRequest}}},
		{"other event", []spec.Hook{{Events: []string{"resources/read"}, Phase: spec.PhaseRequest}}},
		{"other phase", []spec.Hook{{Events: []string{"prompts/get"}, Phase: spec.PhaseResponse}}},
		{"both expands into an uncovered phase", []spec.Hook{{Events: []string{"tools/list"}, Phase: spec.PhaseBoth}}},
		{"glob over an exact", []spec.Hook{{Events: []string{"tools/*"}, Phase: spec.PhaseResponse}}},
	}
	for _, tt := range widening {
		t.Run("widening rejected: "+tt.name, func(t *testing.T) {
			f := base(t)
			_, err := chain.New(context.Background(), []chain.Source{f.src}, chain.Options{Overrides: map[string]spec.Override{"v": {Hooks: tt.hooks}}})
			if err == nil || !strings.Contains(err.Error(), "widen") {
				t.Fatalf("got %v", err)
			}
		})
	}
	t.Run("narrowed hooks change selection", func(t *testing.T) {
		f := base(t)
		c := f.chain(chain.Options{Overrides: map[string]spec.Override{"v": {Hooks: []spec.Hook{{Events: []string{"prompts/get"}, Phase: spec.PhaseRequest}}}}})
		if res := run(t, c, spec.PhaseRequest, spec.DirectionSending); len(res.Results) != 0 {
			t.Fatalf("narrowed-away event still ran: %v", names(res))
		}
	})
	t.Run("mode override to audit stops the block", func(t *testing.T) {
		f := base(t)
		c := f.chain(chain.Options{Overrides: map[string]spec.Override{"v": {Mode: &audit}}})
		if res := run(t, c, spec.PhaseRequest, spec.DirectionSending); res.Status != spec.StatusSuccess || res.ValidationSummary.Errors != 1 {
			t.Fatalf("status %s summary %+v", res.Status, res.ValidationSummary)
		}
	})
	t.Run("priority override beats the hint", func(t *testing.T) {
		f := newFixture(t)
		f.mutator("a", prio(1))
		f.mutator("b", prio(2))
		p := spec.Priority(3)
		c := f.chain(chain.Options{Overrides: map[string]spec.Override{"a": {PriorityHint: &p}}})
		if got := names(run(t, c, spec.PhaseRequest, spec.DirectionSending)); !slices.Equal(got, []string{"b", "a"}) {
			t.Fatalf("order %v", got)
		}
	})
	t.Run("config reaches the interceptor", func(t *testing.T) {
		f := newFixture(t)
		got := make(chan string, 1)
		f.add(desc("s", spec.TypeSink, nil), func(_ context.Context, p *spec.InvokeParams) (*spec.Result, error) {
			got <- string(p.Config)
			return &spec.Result{Interceptor: p.Name, Type: spec.TypeSink, Phase: p.Phase, Recorded: true}, nil
		})
		run(t, f.chain(chain.Options{Overrides: map[string]spec.Override{"s": {Config: json.RawMessage(`{"k":1}`)}}}), spec.PhaseRequest, spec.DirectionSending)
		if v := <-got; v != `{"k":1}` {
			t.Fatalf("config %s", v)
		}
	})
	t.Run("override for an unknown name is an error", func(t *testing.T) {
		f := base(t)
		if _, err := chain.New(context.Background(), []chain.Source{f.src}, chain.Options{Overrides: map[string]spec.Override{"typo": {}}}); err == nil {
			t.Fatal("want an error")
		}
	})
}

func TestManySources(t *testing.T) {
	t.Run("merged in global priority order", func(t *testing.T) {
		a, b := newFixture(t), newFixture(t)
		b.tr = a.tr
		a.mutator("a-late", prio(10))
		a.mutator("a-early", prio(-10))
		b.mutator("b-mid", prio(0))
		b.mutator("b-first", prio(-20))
		res := run(t, a.chain(chain.Options{}, b.src), spec.PhaseRequest, spec.DirectionSending)
		want := []string{"b-first", "a-early", "b-mid", "a-late"}
		if got := trail(t, res.FinalPayload); !slices.Equal(got, want) {
			t.Fatalf("trail %v, want %v", got, want)
		}
	})
	t.Run("duplicate names across sources are both invoked, in source order", func(t *testing.T) {
		a, b := newFixture(t), newFixture(t)
		var order []string
		for i, f := range []*fixture{a, b} {
			tag := []string{"first", "second"}[i]
			f.add(desc("dup", spec.TypeMutation, nil), func(_ context.Context, p *spec.InvokeParams) (*spec.Result, error) {
				order = append(order, tag) // mutators are sequential
				return &spec.Result{Interceptor: p.Name, Type: spec.TypeMutation, Phase: p.Phase}, nil
			})
		}
		c := a.chain(chain.Options{}, b.src)
		res := run(t, c, spec.PhaseRequest, spec.DirectionSending)
		if !slices.Equal(order, []string{"first", "second"}) || len(res.Results) != 2 {
			t.Fatalf("order %v results %v", order, names(res))
		}
		if is := c.Interceptors(); len(is) != 2 || is[0].SourceIndex != 0 || is[1].SourceIndex != 1 {
			t.Fatalf("interceptors %+v", is)
		}
	})
	t.Run("a source that cannot be listed fails the chain", func(t *testing.T) {
		a := newFixture(t)
		a.sink("s")
		_, err := chain.New(context.Background(), []chain.Source{a.src, brokenSource{}}, chain.Options{})
		if err == nil || !strings.Contains(err.Error(), "source 1") {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("a source listing one name twice is refused", func(t *testing.T) {
		d := spec.Interceptor{Name: "x", Type: spec.TypeSink, Hooks: []spec.Hook{{Events: []string{"*"}, Phase: spec.PhaseRequest}}}
		if _, err := chain.New(context.Background(), []chain.Source{listOnly{d, d}}, chain.Options{}); err == nil || !strings.Contains(err.Error(), "twice") {
			t.Fatalf("got %v", err)
		}
	})
}

type brokenSource struct{}

func (brokenSource) Interceptors(context.Context) ([]spec.Interceptor, error) {
	return nil, spec.MethodNotFound(spec.MethodList)
}
func (brokenSource) Invoke(context.Context, *spec.InvokeParams) (*spec.Result, error) {
	return nil, errBoom
}

func TestGating(t *testing.T) {
	t.Run("receiving: no active mutator after a validation block", func(t *testing.T) {
		f := newFixture(t)
		f.validator("v", false, spec.SeverityError)
		f.mutator("m-active")
		f.mutator("m-audit", audit)
		f.sink("s")
		res := run(t, f.chain(chain.Options{}), spec.PhaseResponse, spec.DirectionReceiving)
		calls := f.tr.list()
		if res.Status != spec.StatusValidationFailed || slices.Contains(calls, "m-active") {
			t.Fatalf("status %s calls %v", res.Status, calls)
		}
		if !slices.Contains(calls, "s") || !slices.Contains(calls, "m-audit") {
			t.Fatalf("sinks and audit members still observe: calls %v", calls)
		}
	})
	t.Run("sending: no active validator after a mutation block", func(t *testing.T) {
		f := newFixture(t)
		f.failing("m", spec.TypeMutation, errBoom)
		f.mutator("m-later", prio(5))
		f.validator("v-active", true, "")
		f.validator("v-audit", true, "", audit)
		f.sink("s")
		res := run(t, f.chain(chain.Options{}), spec.PhaseRequest, spec.DirectionSending)
		calls := f.tr.list()
		if res.Status != spec.StatusMutationFailed || res.AbortedAt.Interceptor != "m" {
			t.Fatalf("status %s abortedAt %+v", res.Status, res.AbortedAt)
		}
		if slices.Contains(calls, "v-active") || slices.Contains(calls, "m-later") {
			t.Fatalf("an active member ran after the block: %v", calls)
		}
		if !slices.Contains(calls, "s") || !slices.Contains(calls, "v-audit") {
			t.Fatalf("sinks and audit members still observe: calls %v", calls)
		}
	})
}

func TestConcurrentRuns(t *testing.T) {
	f := newFixture(t)
	f.mutator("m1")
	f.mutator("m2", prio(1))
	f.validator("v1", true, "")
	f.validator("v2", false, spec.SeverityWarn)
	f.sink("s")
	c := f.chain(chain.Options{})
	errs := make(chan error, 64)
	for range 64 {
		go func() {
			res, err := c.Run(context.Background(), &spec.ChainParams{Event: "tools/call", Phase: spec.PhaseRequest,
				Direction: spec.DirectionSending, Payload: json.RawMessage(callPayload)})
			if err == nil && (res.Status != spec.StatusSuccess || len(res.Results) != 5) {
				err = errBoom
			}
			errs <- err
		}()
	}
	for range 64 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

// panicky is a source whose Invoke panics, as a buggy third-party source might.
type panicky struct{ listOnly }

func (panicky) Invoke(context.Context, *spec.InvokeParams) (*spec.Result, error) { panic("bug") }

func TestPanickingSourceIsContained(t *testing.T) {
	src := panicky{listOnly{spec.Interceptor{Name: "p", Type: spec.TypeValidation, Hooks: []spec.Hook{{Events: []string{"*"}, Phase: spec.PhaseRequest}}}}}
	c, err := chain.New(context.Background(), []chain.Source{src}, chain.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res := run(t, c, spec.PhaseRequest, spec.DirectionSending)
	if res.Status != spec.StatusValidationFailed || res.AbortedAt.Reason != "panic: bug" {
		t.Fatalf("status %s abortedAt %+v", res.Status, res.AbortedAt)
	}
}

func TestOverrideOfAFilteredOutInterceptor(t *testing.T) {
	f := newFixture(t)
	f.sink("a")
	f.sink("b")
	// An override may name an interceptor the filter leaves out: config
	// files keep overrides for interceptors that are not always enabled.
	c := f.chain(chain.Options{Interceptors: []string{"a"}, Overrides: map[string]spec.Override{"b": {TimeoutMs: 5}}})
	if got := names(run(t, c, spec.PhaseRequest, spec.DirectionSending)); !slices.Equal(got, []string{"a"}) {
		t.Fatalf("ran %v", got)
	}
}

// earlyClock is a source that, like a wasm plugin checking the clock, gives
// up when the deadline has passed by time, before ctx's timer has fired.
type earlyClock struct{ listOnly }

func (earlyClock) Invoke(ctx context.Context, p *spec.InvokeParams) (*spec.Result, error) {
	d, _ := ctx.Deadline()
	time.Sleep(time.Until(d))
	return nil, spec.InvocationTimeout(p.Name, 0, p.Phase)
}

func TestChainTimeoutSeenByClock(t *testing.T) {
	src := earlyClock{listOnly{spec.Interceptor{Name: "slow", Type: spec.TypeValidation, Hooks: []spec.Hook{{Events: []string{"*"}, Phase: spec.PhaseRequest}}}}}
	c, err := chain.New(context.Background(), []chain.Source{src}, chain.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for range 20 {
		res, err := c.Run(context.Background(), &spec.ChainParams{Event: "tools/call", Phase: spec.PhaseRequest,
			Direction: spec.DirectionSending, Payload: json.RawMessage(callPayload), TimeoutMs: 5})
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != spec.StatusTimeout || res.AbortedAt.Type != spec.AbortTimeout {
			t.Fatalf("status %s abortedAt %+v: the chain's own deadline must read as a chain timeout", res.Status, res.AbortedAt)
		}
	}
}
