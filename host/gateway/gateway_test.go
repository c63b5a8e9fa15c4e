package gateway_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/airlock-mcp/airlock/host/chain"
	"github.com/airlock-mcp/airlock/host/gateway"
	"github.com/airlock-mcp/airlock/spec"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// direct connects a client straight to the backend, for comparison.
func direct(t *testing.T, b *backend) *mcp.ClientSession {
	t.Helper()
	ct, err := b.dial(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "direct"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func TestMirrorsTheBackend(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr, func(t *testing.T) {
			b := newBackend(t)
			want := direct(t, b).InitializeResult()
			_, c := startGateway(t, b, chain.Static(newPolicy().chain(t)), tr, gateway.Options{})
			got := c.cs.InitializeResult()
			if !reflect.DeepEqual(got.ServerInfo, want.ServerInfo) {
				t.Errorf("serverInfo %+v, want %+v", got.ServerInfo, want.ServerInfo)
			}
			if got.Instructions != backendInstructions {
				t.Errorf("instructions %q", got.Instructions)
			}
			gc, _ := json.Marshal(got.Capabilities)
			wc, _ := json.Marshal(want.Capabilities)
			if !spec.JSONEqual(gc, wc) {
				t.Errorf("capabilities\n%s\nwant\n%s", gc, wc)
			}
			if got.ProtocolVersion != gateway.BackendProtocol {
				t.Errorf("protocol %s, want %s", got.ProtocolVersion, gateway.BackendProtocol)
			}
		})
	}
	t.Run("serverInfo override", func(t *testing.T) {
		b := newBackend(t)
		info := &mcp.Implementation{Name: "front", Version: "9"}
		_, c := startGateway(t, b, chain.Static(nil), "in-memory", gateway.Options{ServerInfo: info})
		if got := c.cs.InitializeResult().ServerInfo; got.Name != "front" || got.Version != "9" {
			t.Fatalf("serverInfo %+v", got)
		}
	})
}

// wantRPCError checks a JSON-RPC error's code and, when data is not empty,
// its data.
func wantRPCError(t *testing.T, err error, code int64, data string) *jsonrpc.Error {
	t.Helper()
	var we *jsonrpc.Error
	if !errors.As(err, &we) {
		t.Fatalf("got %v (%T), want a JSON-RPC error", err, err)
	}
	if we.Code != code {
		t.Fatalf("code %d (%s %s), want %d", we.Code, we.Message, we.Data, code)
	}
	if data != "" && !spec.JSONEqual(we.Data, json.RawMessage(data)) {
		t.Fatalf("data %s, want %s", we.Data, data)
	}
	return we
}

func toolText(t *testing.T, r *mcp.CallToolResult) string {
	t.Helper()
	var parts []string
	for _, c := range r.Content {
		tc, ok := c.(*mcp.TextContent)
		if !ok {
			t.Fatalf("content %T", c)
		}
		parts = append(parts, tc.Text)
	}
	return strings.Join(parts, "\n")
}

var _ = slices.Equal[[]string]
