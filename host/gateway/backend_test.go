package gateway_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/airlock-mcp/airlock/host/gateway"
)

// backend is a go-sdk MCP server that uses every feature a gateway must
// forward, and records what reached it.
type backend struct {
	server *mcp.Server

	mu         sync.Mutex
	calls      []json.RawMessage // arguments of every echo call, as received
	subscribed []string
	cancelled  chan string // tool "slow": the reason its context ended
	started    chan struct{}
	sessions   []*mcp.ServerSession
}

const backendInstructions = "Use echo to echo."

func newBackend(t *testing.T) *backend {
	t.Helper()
	b := &backend{cancelled: make(chan string, 1), started: make(chan struct{}, 1)}
	b.server = mcp.NewServer(&mcp.Implementation{Name: "test-backend", Version: "1.2.3", Title: "Test Backend"}, &mcp.ServerOptions{
		Instructions: backendInstructions,
		PageSize:     3, // tools/list pages: the gateway must pass cursors through
		Capabilities: &mcp.ServerCapabilities{
			Logging:      &mcp.LoggingCapabilities{},
			Experimental: map[string]any{"acme/feature": map[string]any{"on": true}},
			Extensions:   map[string]any{"acme/ext": map[string]any{"v": 1.0}},
		},
		SubscribeHandler: func(_ context.Context, r *mcp.SubscribeRequest) error {
			b.mu.Lock()
			b.subscribed = append(b.subscribed, r.Params.URI)
			b.mu.Unlock()
			return nil
		},
		UnsubscribeHandler: func(_ context.Context, r *mcp.UnsubscribeRequest) error {
			b.mu.Lock()
			b.subscribed = append(b.subscribed, "-"+r.Params.URI)
			b.mu.Unlock()
			return nil
		},
		CompletionHandler: func(_ context.Context, r *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{
				Values: []string{r.Params.Argument.Value + "-one", r.Params.Argument.Value + "-two"}}}, nil
		},
	})
	s := b.server
	obj := json.RawMessage(`{"type":"object"}`)
	text := func(s string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
	}
	s.AddTool(&mcp.Tool{Name: "echo", Description: "echoes its arguments", InputSchema: obj},
		func(ctx context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			b.mu.Lock()
			b.calls = append(b.calls, append(json.RawMessage(nil), r.Params.Arguments...))
			b.mu.Unlock()
			if tok := r.Params.GetProgressToken(); tok != nil {
				for i := 1; i <= 3; i++ {
					if err := r.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
						ProgressToken: tok, Progress: float64(i), Total: 3, Message: fmt.Sprintf("step %d", i)}); err != nil {
						return nil, err
					}
				}
			}
			return text("echo: " + string(r.Params.Arguments)), nil
		})
	s.AddTool(&mcp.Tool{Name: "contact", Description: "tells an email address", InputSchema: obj},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return text("write to ada@example.com"), nil
		})
	s.AddTool(&mcp.Tool{Name: "internal-admin", Description: "must not be listed", InputSchema: obj},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return text("admin done"), nil
		})
	s.AddTool(&mcp.Tool{Name: "fail", Description: "answers a JSON-RPC error", InputSchema: obj},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, &jsonrpc.Error{Code: -32042, Message: "backend says no", Data: json.RawMessage(`{"why":"because","n":7}`)}
		})
	s.AddTool(&mcp.Tool{Name: "slow", Description: "waits until cancelled", InputSchema: obj},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			b.started <- struct{}{}
			<-ctx.Done()
			b.cancelled <- context.Cause(ctx).Error()
			return nil, ctx.Err()
		})
	s.AddTool(&mcp.Tool{Name: "sample", Description: "asks the client's model", InputSchema: obj},
		func(ctx context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, err := r.Session.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 50, SystemPrompt: "be brief",
				Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: string(r.Params.Arguments)}}}})
			if err != nil {
				return text("sampling failed: " + err.Error()), nil
			}
			return text(fmt.Sprintf("model %s said %s", res.Model, res.Content.(*mcp.TextContent).Text)), nil
		})
	s.AddTool(&mcp.Tool{Name: "elicit", Description: "asks the user", InputSchema: obj},
		func(ctx context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, err := r.Session.Elicit(ctx, &mcp.ElicitParams{Message: "your name?",
				RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}})
			if err != nil {
				return text("elicitation failed: " + err.Error()), nil
			}
			b, _ := json.Marshal(res.Content)
			return text(res.Action + " " + string(b)), nil
		})
	s.AddTool(&mcp.Tool{Name: "roots", Description: "lists the client's roots", InputSchema: obj},
		func(ctx context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, err := r.Session.ListRoots(ctx, nil)
			if err != nil {
				return text("roots failed: " + err.Error()), nil
			}
			var uris []string
			for _, root := range res.Roots {
				uris = append(uris, root.URI)
			}
			return text(strings.Join(uris, ",")), nil
		})
	s.AddTool(&mcp.Tool{Name: "log", Description: "logs at every level", InputSchema: obj},
		func(ctx context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			for _, lvl := range []mcp.LoggingLevel{"debug", "info", "error"} {
				if err := r.Session.Log(ctx, &mcp.LoggingMessageParams{Level: lvl, Logger: "backend", Data: "at " + string(lvl)}); err != nil {
					return nil, err
				}
			}
			return text("logged"), nil
		})
	s.AddTool(&mcp.Tool{Name: "change", Description: "changes the lists and a resource", InputSchema: obj},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			s.AddTool(&mcp.Tool{Name: "added", InputSchema: obj}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return text("added"), nil
			})
			s.AddPrompt(&mcp.Prompt{Name: "added"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
				return &mcp.GetPromptResult{}, nil
			})
			if err := s.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: "test://docs/readme"}); err != nil {
				return nil, err
			}
			return text("changed"), nil
		})

	s.AddPrompt(&mcp.Prompt{Name: "greet", Description: "greets", Arguments: []*mcp.PromptArgument{{Name: "who", Required: true}}},
		func(_ context.Context, r *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Description: "a greeting", Messages: []*mcp.PromptMessage{
				{Role: "user", Content: &mcp.TextContent{Text: "hello " + r.Params.Arguments["who"] + ", mail ada@example.com"}}}}, nil
		})
	s.AddPrompt(&mcp.Prompt{Name: "internal-prompt"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "secret prompt"}}}}, nil
	})
	read := func(body string) mcp.ResourceHandler {
		return func(_ context.Context, r *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: r.Params.URI, MIMEType: "text/plain", Text: body}}}, nil
		}
	}
	s.AddResource(&mcp.Resource{URI: "test://docs/readme", Name: "readme"}, read("read me, ada@example.com"))
	s.AddResource(&mcp.Resource{URI: "test://internal/keys", Name: "keys"}, read("the keys"))
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "test://items/{id}", Name: "item"}, read("an item"))
	return b
}

// dial is the gateway's Backend for this server: a new in-memory session
// per client session.
func (b *backend) dial(ctx context.Context) (mcp.Transport, error) {
	ct, st := mcp.NewInMemoryTransports()
	ss, err := b.server.Connect(ctx, st, nil)
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	b.sessions = append(b.sessions, ss)
	b.mu.Unlock()
	return ct, nil
}

var _ gateway.Backend = (*backend)(nil).dial

func (b *backend) echoCalls() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]string, len(b.calls))
	for i, c := range b.calls {
		out[i] = string(c)
	}
	return out
}

func (b *backend) subscriptions() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.subscribed...)
}
