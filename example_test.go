package airlock_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/airlock-mcp/airlock"
	"github.com/airlock-mcp/airlock/host/chain"
	"github.com/airlock-mcp/airlock/host/native"
	"github.com/airlock-mcp/airlock/spec"
)

// An agent intercepts its own MCP client: every tool call it makes runs the
// interceptors first. Plugins are listed the same way as in airlock.yaml,
// e.g. airlock.Plugin{Path: "secrets.wasm"}; this example uses a Go
// function as the interceptor so that it runs anywhere.
func Example() {
	ctx := context.Background()
	noSecrets := native.New().MustAdd(spec.Interceptor{Name: "no-secrets", Type: spec.TypeValidation,
		Hooks: []spec.Hook{{Events: []string{"tools/call"}, Phase: spec.PhaseRequest}}},
		func(_ context.Context, p *spec.InvokeParams) (*spec.Result, error) {
			r := &spec.Result{Interceptor: p.Name, Type: spec.TypeValidation, Phase: p.Phase, Valid: true}
			if strings.Contains(string(p.Payload), "AKIA") {
				r.Valid = false
				r.Messages = []spec.Message{{Path: "/arguments", Message: "an AWS key", Severity: spec.SeverityError}}
			}
			return r, nil
		})
	host, err := airlock.New(ctx, airlock.Options{
		// Plugins: []airlock.Plugin{{Path: "secrets.wasm"}},
		Sources: []chain.Source{noSecrets},
	})
	if err != nil {
		panic(err)
	}
	defer host.Close()

	// Any MCP server; here one in the same process.
	server := mcp.NewServer(&mcp.Implementation{Name: "tools", Version: "1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "upload"}, func(_ context.Context, _ *mcp.CallToolRequest, in struct {
		Data string `json:"data"`
	}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "uploaded"}}}, nil, nil
	})
	ct, st := mcp.NewInMemoryTransports()
	go server.Run(ctx, st)

	client := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil)
	if err := host.InstallClient(client, airlock.ClientOptions{}); err != nil {
		panic(err)
	}
	session, err := client.Connect(ctx, ct, nil)
	if err != nil {
		panic(err)
	}
	defer session.Close()

	res, _ := session.CallTool(ctx, &mcp.CallToolParams{Name: "upload", Arguments: map[string]any{"data": "hello"}})
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)

	_, err = session.CallTool(ctx, &mcp.CallToolParams{Name: "upload", Arguments: map[string]any{"data": "AKIAY3RXQZ7W5MNP2K4D"}})
	var blocked *airlock.BlockedError
	if errors.As(err, &blocked) {
		fmt.Println(blocked.Interceptor(), blocked.Messages()[0].Message)
	}
	// Output:
	// uploaded
	// no-secrets an AWS key
}

// An agent runs the llm/completion chain around its own model calls.
func ExampleHost_Complete() {
	ctx := context.Background()
	redact := native.New().MustAdd(spec.Interceptor{Name: "redact", Type: spec.TypeMutation,
		Hooks: []spec.Hook{{Events: []string{"llm/completion"}, Phase: spec.PhaseRequest}}},
		func(_ context.Context, p *spec.InvokeParams) (*spec.Result, error) {
			out := strings.ReplaceAll(string(p.Payload), "ada@example.com", "[email]")
			return &spec.Result{Interceptor: p.Name, Type: spec.TypeMutation, Phase: p.Phase,
				Modified: out != string(p.Payload), Payload: []byte(out)}, nil
		})
	host, err := airlock.New(ctx, airlock.Options{Sources: []chain.Source{redact}})
	if err != nil {
		panic(err)
	}
	defer host.Close()
	model := func(_ context.Context, req *spec.LLMRequest) (*spec.LLMResponse, error) {
		fmt.Println("the model sees:", req.Messages[0].Text())
		return &spec.LLMResponse{Message: spec.TextMessage("assistant", "sent")}, nil
	}
	res, err := host.Complete(ctx, &spec.LLMRequest{Messages: []spec.LLMMessage{
		spec.TextMessage("user", "e-mail ada@example.com the report")}}, model)
	if err != nil {
		panic(err)
	}
	fmt.Println("the agent gets:", res.Message.Text())
	// Output:
	// the model sees: e-mail [email] the report
	// the agent gets: sent
}
