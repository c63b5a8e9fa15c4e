package intercept_test

import (
	"bytes"
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/airlock-mcp/airlock/host/chain"
	"github.com/airlock-mcp/airlock/host/intercept"
	"github.com/airlock-mcp/airlock/host/native"
	"github.com/airlock-mcp/airlock/spec"
)

// Handle runs one tools/call through a chain around the call to the server
// (here a function standing in for it).
func ExampleEngine_Handle() {
	src := native.New().MustAdd(spec.Interceptor{Name: "no-rm", Type: spec.TypeValidation,
		Hooks: []spec.Hook{{Events: []string{"tools/call"}, Phase: spec.PhaseRequest}}},
		func(_ context.Context, p *spec.InvokeParams) (*spec.Result, error) {
			return &spec.Result{Interceptor: p.Name, Type: spec.TypeValidation, Phase: p.Phase,
				Valid: !bytes.Contains(p.Payload, []byte("rm -rf"))}, nil
		})
	c, _ := chain.New(context.Background(), []chain.Source{src}, chain.Options{})
	e, _ := intercept.New(intercept.Options{Chains: chain.Static(c)})
	server := func(context.Context, mcp.Params) (mcp.Result, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
	}
	for _, cmd := range []string{"ls", "rm -rf /"} {
		res, _ := e.Handle(context.Background(), intercept.Call{Method: "tools/call",
			Params: &mcp.CallToolParams{Name: "shell", Arguments: map[string]any{"cmd": cmd}}}, server)
		r := res.(*mcp.CallToolResult)
		fmt.Println(r.IsError, r.Content[0].(*mcp.TextContent).Text)
	}
	// Output:
	// false done
	// true airlock: blocked by interceptor "no-rm" (request phase)
}
