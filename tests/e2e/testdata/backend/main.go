// Command backend is the MCP server the end-to-end tests put behind
// `airlock gateway`: a go-sdk server on stdio with a few tools that exercise
// calls, results worth redacting, sampling and progress.
package main

import (
	"context"
	"fmt"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	s := mcp.NewServer(&mcp.Implementation{Name: "e2e-backend", Version: "0.0.1"},
		&mcp.ServerOptions{Instructions: "a backend for the gateway tests"})
	obj := map[string]any{"type": "object"}
	text := func(s string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
	}
	s.AddTool(&mcp.Tool{Name: "echo", Description: "echoes its arguments", InputSchema: obj},
		func(ctx context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if tok := r.Params.GetProgressToken(); tok != nil {
				_ = r.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: 1, Total: 1})
			}
			return text("echo: " + string(r.Params.Arguments)), nil
		})
	s.AddTool(&mcp.Tool{Name: "contact", Description: "tells an e-mail address", InputSchema: obj},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return text("write to ada@example.com"), nil
		})
	s.AddTool(&mcp.Tool{Name: "sample", Description: "asks the client's model", InputSchema: obj},
		func(ctx context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, err := r.Session.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 10,
				Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "hello"}}}})
			if err != nil {
				return nil, err
			}
			return text(fmt.Sprintf("%s: %s", res.Model, res.Content.(*mcp.TextContent).Text)), nil
		})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Print(err)
	}
}
