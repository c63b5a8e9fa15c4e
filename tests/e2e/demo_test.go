package e2e

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The demo runs on a clean checkout and tells its story.
func TestDemo(t *testing.T) {
	r := airlock(t, "", "demo", "--calls", "20")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{
		"✓ hello from the demo",
		`✗ blocked: airlock: blocked by interceptor "secrets" (request phase)`,
		"calls of send_email that reached the server: 0",
		"[REDACTED:email]",
		`blocked by interceptor "secrets" (response phase)`,
		"tools/call  request   send_email",
		"through Airlock:",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the demo did not show %q", want)
		}
	}
	if t.Failed() {
		t.Logf("stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	}
}

// demo --keep leaves the gateway serving streamable HTTP for a real client.
func TestDemoKeep(t *testing.T) {
	cmd := exec.Command(airlockBin, "demo", "--keep", "--http", "127.0.0.1:0", "--calls", "5")
	cmd.Env = append(os.Environ(), "AIRLOCK_CACHE_DIR="+cacheDir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	}()
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if i := strings.Index(sc.Text(), "http://"); i >= 0 && strings.Contains(sc.Text(), "serving") {
				urls <- strings.Fields(sc.Text()[i:])[0]
			}
		}
	}()
	var url string
	select {
	case url = <-urls:
	case <-time.After(2 * time.Minute):
		t.Fatal("demo --keep did not print its URL")
	}
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "lookup_customer", Arguments: map[string]any{"id": 7}})
	if err != nil {
		t.Fatal(err)
	}
	if txt := res.Content[0].(*mcp.TextContent).Text; res.IsError || !strings.Contains(txt, "[REDACTED:email]") {
		t.Fatalf("through the kept gateway: %+v %q", res, txt)
	}
}
