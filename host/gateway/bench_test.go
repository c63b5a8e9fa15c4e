package gateway_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/airlock-mcp/airlock/host/chain"
	"github.com/airlock-mcp/airlock/host/gateway"
	"github.com/airlock-mcp/airlock/host/native"
	"github.com/airlock-mcp/airlock/spec"
)

// BenchmarkGateway measures one tools/call round trip over in-memory
// transports: straight to the backend, through the gateway with an empty
// chain, and through the gateway with a validator, a mutator and a sink.
func BenchmarkGateway(b *testing.B) {
	ctx := context.Background()
	backend := mcp.NewServer(&mcp.Implementation{Name: "bench"}, nil)
	backend.AddTool(&mcp.Tool{Name: "echo", InputSchema: map[string]any{"type": "object"}},
		func(_ context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hello ada@example.com"}}}, nil
		})
	dial := func(ctx context.Context) (mcp.Transport, error) {
		ct, st := mcp.NewInMemoryTransports()
		if _, err := backend.Connect(ctx, st, nil); err != nil {
			return nil, err
		}
		return ct, nil
	}

	three := native.New()
	three.MustAdd(spec.Interceptor{Name: "v", Type: spec.TypeValidation, Hooks: hook(spec.PhaseRequest, "tools/call")},
		func(_ context.Context, p *spec.InvokeParams) (*spec.Result, error) {
			return &spec.Result{Interceptor: "v", Type: spec.TypeValidation, Phase: p.Phase,
				Valid: !bytes.Contains(p.Payload, []byte("AKIA"))}, nil
		})
	three.MustAdd(spec.Interceptor{Name: "m", Type: spec.TypeMutation, Hooks: hook(spec.PhaseResponse, "tools/call")},
		func(_ context.Context, p *spec.InvokeParams) (*spec.Result, error) {
			out := bytes.ReplaceAll(p.Payload, []byte("ada@example.com"), []byte("[email]"))
			return &spec.Result{Interceptor: "m", Type: spec.TypeMutation, Phase: p.Phase,
				Modified: !bytes.Equal(out, p.Payload), Payload: out}, nil
		})
	three.MustAdd(spec.Interceptor{Name: "s", Type: spec.TypeSink,
		Hooks: []spec.Hook{{Events: []string{"*"}, Phase: spec.PhaseRequest}, {Events: []string{"*"}, Phase: spec.PhaseResponse}}},
		func(_ context.Context, p *spec.InvokeParams) (*spec.Result, error) {
			return &spec.Result{Interceptor: "s", Type: spec.TypeSink, Phase: p.Phase, Recorded: true}, nil
		})
	emptyChain, err := chain.New(ctx, nil, chain.Options{})
	if err != nil {
		b.Fatal(err)
	}
	threeChain, err := chain.New(ctx, []chain.Source{three}, chain.Options{})
	if err != nil {
		b.Fatal(err)
	}

	run := func(b *testing.B, t mcp.Transport, want string) {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench"}, nil).Connect(ctx, t, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer cs.Close()
		params := &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"q": "x"}}
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			res, err := cs.CallTool(ctx, params)
			if err != nil {
				b.Fatal(err)
			}
			if got := res.Content[0].(*mcp.TextContent).Text; got != want {
				b.Fatalf("result %q", got)
			}
		}
	}
	through := func(b *testing.B, c *chain.Chain, want string) {
		g, err := gateway.New(gateway.Options{Backend: dial, Chains: chain.Static(c)})
		if err != nil {
			b.Fatal(err)
		}
		defer g.Close()
		ct, st := mcp.NewInMemoryTransports()
		if _, err := g.MCP().Connect(ctx, st, nil); err != nil {
			b.Fatal(err)
		}
		run(b, ct, want)
	}

	b.Run("direct", func(b *testing.B) {
		t, err := dial(ctx)
		if err != nil {
			b.Fatal(err)
		}
		run(b, t, "hello ada@example.com")
	})
	b.Run("gateway-empty", func(b *testing.B) { through(b, emptyChain, "hello ada@example.com") })
	b.Run("gateway-3", func(b *testing.B) { through(b, threeChain, "hello [email]") })
}
