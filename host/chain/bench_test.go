package chain_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/airlock-mcp/airlock/host/chain"
	"github.com/airlock-mcp/airlock/host/native"
	"github.com/airlock-mcp/airlock/spec"
)

// BenchmarkChain runs a 10-interceptor chain (4 mutators, 4 validators,
// 2 sinks) over in-process sources, so the figure is the runner's own cost.
func BenchmarkChain(b *testing.B) {
	src := native.New()
	all := []spec.Hook{{Events: []string{"tools/call"}, Phase: spec.PhaseRequest}}
	for i := range 4 {
		src.MustAdd(spec.Interceptor{Name: fmt.Sprintf("m%d", i), Type: spec.TypeMutation, Hooks: all, PriorityHint: spec.Priority(int32(i))},
			func(_ context.Context, p *spec.InvokeParams) (*spec.Result, error) {
				return &spec.Result{Interceptor: p.Name, Type: spec.TypeMutation, Phase: p.Phase, Modified: true, Payload: p.Payload}, nil
			})
		src.MustAdd(spec.Interceptor{Name: fmt.Sprintf("v%d", i), Type: spec.TypeValidation, Hooks: all},
			func(_ context.Context, p *spec.InvokeParams) (*spec.Result, error) {
				return &spec.Result{Interceptor: p.Name, Type: spec.TypeValidation, Phase: p.Phase, Valid: true}, nil
			})
	}
	for i := range 2 {
		src.MustAdd(spec.Interceptor{Name: fmt.Sprintf("s%d", i), Type: spec.TypeSink, Hooks: all},
			func(_ context.Context, p *spec.InvokeParams) (*spec.Result, error) {
				return &spec.Result{Interceptor: p.Name, Type: spec.TypeSink, Phase: p.Phase, Recorded: true}, nil
			})
	}
	c, err := chain.New(context.Background(), []chain.Source{src}, chain.Options{})
	if err != nil {
		b.Fatal(err)
	}
	p := &spec.ChainParams{Event: "tools/call", Phase: spec.PhaseRequest, Direction: spec.DirectionSending,
		Payload: json.RawMessage(`{"name":"echo","arguments":{"text":"hello"}}`)}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		res, err := c.Run(ctx, p)
		if err != nil || res.Status != spec.StatusSuccess || len(res.Results) != 10 {
			b.Fatalf("%v %+v", err, res)
		}
	}
}
