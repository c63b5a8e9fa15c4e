package demo

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Backend is the demo's MCP server: a small customer-support toolset that
// does what real ones do — returns personal data, reads credentials, sends
// messages. It counts the calls that reach it, so the demo can show that a
// blocked call never did.
type Backend struct {
	Server *mcp.Server
	calls  map[string]*atomic.Int64
}

type echoIn struct {
	Text string `json:"text" jsonschema:"what to say back"`
}

type customerIn struct {
	ID int `json:"id" jsonschema:"the customer number"`
}

type secretIn struct {
	Name string `json:"name" jsonschema:"which credential to read, e.g. aws"`
}

type emailIn struct {
	To   string `json:"to" jsonschema:"recipient address"`
	Body string `json:"body" jsonschema:"message text"`
}

// NewBackend returns the demo server.
func NewBackend() *Backend {
	b := &Backend{calls: map[string]*atomic.Int64{}}
	b.Server = mcp.NewServer(&mcp.Implementation{Name: "acme-support", Version: "1.0.0"},
		&mcp.ServerOptions{Instructions: "Acme's support tools: customers, credentials and e-mail."})
	add := func(name string) func() {
		n := &atomic.Int64{}
		b.calls[name] = n
		return func() { n.Add(1) }
	}
	count := add("echo")
	mcp.AddTool(b.Server, &mcp.Tool{Name: "echo", Description: "Say something back."},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			count()
			return text(in.Text), nil, nil
		})
	countCustomer := add("lookup_customer")
	mcp.AddTool(b.Server, &mcp.Tool{Name: "lookup_customer", Description: "Look up a customer's contact and payment details."},
		func(_ context.Context, _ *mcp.CallToolRequest, in customerIn) (*mcp.CallToolResult, any, error) {
			countCustomer()
			return text(fmt.Sprintf("Customer %d: Ada Lovelace, ada.lovelace@example.com, +1 415 555 0132, "+
				"card 4111 1111 1111 1111, IBAN GB82 WEST 1234 5698 7654 32", in.ID)), nil, nil
		})
	countSecret := add("read_secret")
	mcp.AddTool(b.Server, &mcp.Tool{Name: "read_secret", Description: "Read a credential from the (fake) secret store."},
		func(_ context.Context, _ *mcp.CallToolRequest, in secretIn) (*mcp.CallToolResult, any, error) {
			countSecret()
			return text(fmt.Sprintf("[%s]\naws_access_key_id = AKIAY3RXQZ7W5MNP2K4D\n"+
				"aws_secret_access_key = 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", in.Name)), nil, nil
		})
	countEmail := add("send_email")
	mcp.AddTool(b.Server, &mcp.Tool{Name: "send_email", Description: "Send an e-mail."},
		func(_ context.Context, _ *mcp.CallToolRequest, in emailIn) (*mcp.CallToolResult, any, error) {
			countEmail()
			return text("sent to " + in.To), nil, nil
		})
	return b
}

// Calls is how many calls of the tool reached the server.
func (b *Backend) Calls(tool string) int64 { return b.calls[tool].Load() }

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}
