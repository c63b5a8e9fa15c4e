package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/airlock-mcp/airlock/internal/testbuild"
)

// backendBin builds the go-sdk test backend (testdata/backend).
func backendBin(t *testing.T) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "backend")
	cmd := exec.Command("go", "build", "-o", out, "./testdata/backend")
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the test backend: %v\n%s", err, msg)
	}
	return out
}

// gatewayClient is a go-sdk client with a sampling handler, as an agent
// host would be.
func gatewayClient(sampled *[]string) *mcp.Client {
	return mcp.NewClient(&mcp.Implementation{Name: "e2e-client", Version: "1"}, &mcp.ClientOptions{
		CreateMessageHandler: func(_ context.Context, r *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			if sampled != nil {
				b, _ := json.Marshal(r.Params.Messages)
				*sampled = append(*sampled, string(b))
			}
			return &mcp.CreateMessageResult{Model: "test-model", Role: "assistant", Content: &mcp.TextContent{Text: "sampled!"}}, nil
		},
	})
}

// gatewayStdio starts `airlock gateway ARGS` and talks MCP to it over its
// stdin and stdout.
func gatewayStdio(t *testing.T, c *mcp.Client, args ...string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(airlockBin, append([]string{"gateway", "--log-level", "warn"}, args...)...)
	cmd.Env = append(os.Environ(), "AIRLOCK_CACHE_DIR="+cacheDir)
	log := &lockedBuffer{}
	cmd.Stderr = log
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("airlock gateway stderr:\n%s", log.String())
		}
	})
	cs, err := c.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connecting to airlock gateway: %v\n%s", err, log.String())
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// gatewayHTTP starts `airlock gateway --http 127.0.0.1:0 ARGS` and returns
// its URL.
func gatewayHTTP(t *testing.T, args ...string) string {
	t.Helper()
	return startHTTP(t, "gateway", args...)
}

func text(t *testing.T, r *mcp.CallToolResult) string {
	t.Helper()
	var parts []string
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// TestGateway runs the binary in front of a go-sdk backend, with the test
// plugin's interceptors, over both client transports.
func TestGateway(t *testing.T) {
	p := plugin(t)
	backend := backendBin(t)
	ctx := context.Background()
	for _, tr := range []string{"stdio", "streamable-http"} {
		t.Run(tr, func(t *testing.T) {
			var sampled []string
			c := gatewayClient(&sampled)
			var cs *mcp.ClientSession
			if tr == "stdio" {
				cs = gatewayStdio(t, c, "--plugin", p, "--", backend)
			} else {
				u := gatewayHTTP(t, "--plugin", p, "--", backend)
				var err error
				cs, err = c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: u}, nil)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { cs.Close() })
			}
			if info := cs.InitializeResult().ServerInfo; info.Name != "e2e-backend" || info.Version != "0.0.1" {
				t.Fatalf("serverInfo %+v: the gateway must look like its backend", info)
			}
			if got := cs.InitializeResult().Instructions; got != "a backend for the gateway tests" {
				t.Fatalf("instructions %q", got)
			}
			tools, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tool := range tools.Tools {
				names = append(names, tool.Name)
			}
			if !slices.Equal(names, []string{"contact", "echo", "sample"}) {
				t.Fatalf("tools %v", names)
			}
			// The validator blocks a call carrying an AWS key; the backend
			// never sees it.
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"key": "AKIAIOSFODNN7EXAMPLE"}})
			if err != nil {
				t.Fatal(err)
			}
			if txt := text(t, res); !res.IsError || !strings.Contains(txt, `"no-aws-keys"`) || !strings.Contains(txt, "request phase") {
				t.Fatalf("blocked call %+v %q", res, txt)
			}
			// A clean call goes through.
			res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"key": "none"}})
			if err != nil || res.IsError || text(t, res) != `echo: {"key":"none"}` {
				t.Fatalf("clean call %+v %v", res, err)
			}
			// The mutator redacts the result.
			res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "contact"})
			if err != nil || text(t, res) != "write to [email]" {
				t.Fatalf("redacted call %+v %v", res, err)
			}
			// Sampling goes from the backend through the gateway to us and back.
			res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "sample"})
			if err != nil || text(t, res) != "test-model: sampled!" || len(sampled) != 1 {
				t.Fatalf("sampling %+v %v %v", res, err, sampled)
			}
		})
	}
}

// TestGatewayServerEverything runs the gateway in front of a real
// third-party server, @modelcontextprotocol/server-everything (installed by
// scripts/install-deps).
func TestGatewayServerEverything(t *testing.T) {
	node := testbuild.Tool(t, "node", "nodejs")
	entry := filepath.Join(testbuild.ModuleRoot(t), "tests/e2e/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js")
	if _, err := os.Stat(entry); err != nil {
		msg := "@modelcontextprotocol/server-everything is not installed: run scripts/install-deps (npm ci in tests/e2e/npm)"
		if os.Getenv(testbuild.SkipEnv) == "1" {
			t.Skip(msg + "; skipped because " + testbuild.SkipEnv + "=1")
		}
		t.Fatal(msg + "; set " + testbuild.SkipEnv + "=1 to skip instead")
	}
	var sampled []string
	cs := gatewayStdio(t, gatewayClient(&sampled), "--plugin", plugin(t), "--", node, entry, "stdio")
	ctx := context.Background()
	if name := cs.InitializeResult().ServerInfo.Name; !strings.Contains(name, "everything") {
		t.Fatalf("serverInfo %+v", cs.InitializeResult().ServerInfo)
	}

	// The server registers its sampling tool once it sees (through the
	// gateway's mirrored capabilities) that the client can sample.
	var names []string
	deadline := time.Now().Add(20 * time.Second)
	for {
		names = names[:0]
		for tool, err := range cs.Tools(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			names = append(names, tool.Name)
			if s, ok := tool.InputSchema.(map[string]any); !ok || s["type"] != "object" {
				t.Errorf("tool %s inputSchema %v", tool.Name, tool.InputSchema)
			}
		}
		if slices.Contains(names, "trigger-sampling-request") || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, want := range []string{"echo", "get-sum", "trigger-sampling-request"} {
		if !slices.Contains(names, want) {
			t.Fatalf("tools %v lack %s", names, want)
		}
	}

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get-sum", Arguments: map[string]any{"a": 2, "b": 3}})
	if err != nil || res.IsError || !strings.Contains(text(t, res), "5") {
		t.Fatalf("get-sum %+v %v", res, err)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "key AKIAIOSFODNN7EXAMPLE"}})
	if err != nil {
		t.Fatal(err)
	}
	if txt := text(t, res); !res.IsError || !strings.Contains(txt, `"no-aws-keys"`) {
		t.Fatalf("the validator did not block: %q", txt)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "mail ada@example.com"}})
	if err != nil || text(t, res) != "Echo: mail [email]" {
		t.Fatalf("the mutator did not redact: %+v %v", res, err)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "trigger-sampling-request", Arguments: map[string]any{"prompt": "hi"}})
	if err != nil || res.IsError || !strings.Contains(text(t, res), "sampled!") || len(sampled) != 1 {
		t.Fatalf("sampling through the gateway: %+v %v %v", res, err, sampled)
	}
}

// The backend, the gateway's settings and /metrics can all come from the
// config file.
func TestGatewayFromConfig(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "airlock.yaml")
	writeFile(t, cfg, fmt.Sprintf(`plugins:
  - path: %s
interceptors:
  enabled: [no-aws-keys]
backend:
  command: [%s]
gateway:
  exposeMessages: true
  serverName: guarded
`, plugin(t), backendBin(t)))
	u := gatewayHTTP(t, "--config", cfg)
	ctx := context.Background()
	cs, err := gatewayClient(nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: u}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if name := cs.InitializeResult().ServerInfo.Name; name != "guarded" {
		t.Fatalf("serverInfo name %q, want the config's", name)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"key": "AKIAIOSFODNN7EXAMPLE"}})
	if err != nil || !res.IsError || !strings.Contains(text(t, res), "AWS access key in the arguments") {
		t.Fatalf("exposeMessages from the config: %+v %v", res, err)
	}
	resp, err := http.Get(strings.TrimSuffix(u, "/mcp") + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(body), `airlock_invocations_total{interceptor="no-aws-keys",outcome="blocked",phase="request",type="validation"} 1`) {
		t.Fatalf("gateway metrics:\n%s", body)
	}
}
