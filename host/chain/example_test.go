package chain_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/airlock-mcp/airlock/host/chain"
	"github.com/airlock-mcp/airlock/host/native"
	"github.com/airlock-mcp/airlock/spec"
)

// A validator written as a Go function blocks a dangerous tool call.
func Example() {
	ctx := context.Background()
	src := native.New()
	src.MustAdd(spec.Interceptor{Name: "no-rm", Type: spec.TypeValidation,
		Hooks: []spec.Hook{{Events: []string{"tools/call"}, Phase: spec.PhaseRequest}}},
		func(ctx context.Context, p *spec.InvokeParams) (*spec.Result, error) {
			ok := !bytes.Contains(p.Payload, []byte("rm -rf"))
			return &spec.Result{Interceptor: p.Name, Type: spec.TypeValidation, Phase: p.Phase, Valid: ok}, nil
		})
	c, err := chain.New(ctx, []chain.Source{src}, chain.Options{})
	if err != nil {
		panic(err)
	}
	res, err := c.Run(ctx, &spec.ChainParams{Event: "tools/call", Phase: spec.PhaseRequest,
		Direction: spec.DirectionSending, Payload: json.RawMessage(`{"name":"shell","arguments":{"cmd":"rm -rf /"}}`)})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Status, res.AbortedAt.Interceptor, res.ValidationSummary.Errors)
	// Output: validation_failed no-rm 1
}

// Mutators run in priority order and each sees the previous one's output.
func Example_mutators() {
	ctx := context.Background()
	src := native.New()
	for i, tag := range []string{"second", "first"} {
		src.MustAdd(spec.Interceptor{Name: tag, Type: spec.TypeMutation, PriorityHint: spec.Priority(int32(-i)),
			Hooks: []spec.Hook{{Events: []string{"tools/*"}, Phase: spec.PhaseResponse}}},
			func(ctx context.Context, p *spec.InvokeParams) (*spec.Result, error) {
				var r struct {
					Content []map[string]string `json:"content"`
				}
				if err := json.Unmarshal(p.Payload, &r); err != nil {
					return nil, err
				}
				r.Content = append(r.Content, map[string]string{"type": "text", "text": p.Name})
				out, _ := json.Marshal(r)
				return &spec.Result{Interceptor: p.Name, Type: spec.TypeMutation, Phase: p.Phase, Modified: true, Payload: out}, nil
			})
	}
	c, _ := chain.New(ctx, []chain.Source{src}, chain.Options{})
	res, _ := c.Run(ctx, &spec.ChainParams{Event: "tools/call", Phase: spec.PhaseResponse,
		Direction: spec.DirectionReceiving, Payload: json.RawMessage(`{"content":[]}`)})
	fmt.Println(string(res.FinalPayload))
	// Output: {"content":[{"text":"first","type":"text"},{"text":"second","type":"text"}]}
}
