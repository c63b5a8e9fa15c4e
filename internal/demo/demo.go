// Package demo is `airlock demo`: an embedded MCP server with realistic
// tools, the gateway in front of it with bundled interceptors, and a
// scripted client session that shows what they do.
package demo

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/airlock-mcp/airlock/host/config"
	"github.com/airlock-mcp/airlock/host/gateway"
	"github.com/airlock-mcp/airlock/host/loader"
	"github.com/airlock-mcp/airlock/host/wasm"
	"github.com/airlock-mcp/airlock/internal/pluginbuild"
)

// Options configure a demo run.
type Options struct {
	// Out receives the story; Progress the plugin builds.
	Out, Progress io.Writer
	// CacheDir keeps built plugins and compiled code between runs.
	CacheDir string
	// Keep, when set, leaves the gateway serving streamable HTTP on this
	// address until ctx is done.
	Keep string
	// Calls is how many calls the overhead measurement makes each way.
	Calls int
}

// plugins the demo puts in front of the backend, in source order.
var plugins = []string{"secrets", "pii-redact", "audit-log"}

// Run plays the demo.
func Run(ctx context.Context, o Options) error {
	if o.Calls <= 0 {
		o.Calls = 300
	}
	p := printer{w: o.Out}
	root, err := moduleRoot()
	if err != nil {
		return err
	}

	p.head("Building the bundled interceptors (cached after the first run)")
	var cfg config.File
	for _, name := range plugins {
		start := time.Now()
		path, built, err := pluginbuild.Cached(ctx, filepath.Join(root, "plugins", name), filepath.Join(o.CacheDir, "plugins"), o.Progress)
		if err != nil {
			return fmt.Errorf("building plugin %s: %w", name, err)
		}
		how := "cached"
		if built {
			how = "built in " + time.Since(start).Round(100*time.Millisecond).String()
		}
		p.line("  %-11s %s", name, how)
		cfg.Plugins = append(cfg.Plugins, config.Plugin{Path: path, Name: name})
	}

	audit := &auditTrail{}
	eng, err := wasm.NewEngine(wasm.EngineOptions{CacheDir: filepath.Join(o.CacheDir, "wasm"), Logger: slog.New(audit)})
	if err != nil {
		return err
	}
	defer eng.Close(context.Background())
	start := time.Now()
	l, err := loader.Open(ctx, &cfg, loader.Options{Engine: eng, Logger: slog.New(audit)})
	if err != nil {
		return err
	}
	defer l.Close()
	p.line("  loaded, compiled and pre-warmed in %s", time.Since(start).Round(10*time.Millisecond))

	backend := NewBackend()
	// The demo shows why a message was blocked; a production gateway keeps
	// interceptor messages on its side of the trust boundary by default.
	gw, err := gateway.New(gateway.Options{Chains: l.Live(), Backend: inMemory(backend.Server), ExposeMessages: true})
	if err != nil {
		return err
	}
	defer gw.Close()
	cs, closeClient, err := connect(ctx, func(ctx context.Context, t mcp.Transport) error { return gw.Serve(ctx, t) })
	if err != nil {
		return err
	}
	defer closeClient()

	p.head("A client connects to the gateway; to it, the gateway is the server")
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		return err
	}
	init := cs.InitializeResult()
	p.line("  server %q, %d tools:", init.ServerInfo.Name, len(res.Tools))
	for _, t := range res.Tools {
		p.line("    %-16s %s", t.Name, t.Description)
	}

	p.head("1. A clean call passes through")
	if err := p.call(ctx, cs, "echo", map[string]any{"text": "hello from the demo"}); err != nil {
		return err
	}

	p.head("2. A call that would leak a secret is blocked before it reaches the server")
	if err := p.call(ctx, cs, "send_email", map[string]any{"to": "partner@example.org",
		"body": "Here is the deploy token: ghp_8fK2mQ9xL4vR7tY1wZ3nB6cD0eH5jA2sP9uM"}); err != nil {
		return err
	}
	p.line("  calls of send_email that reached the server: %d", backend.Calls("send_email"))

	p.head("3. Personal data in a result is redacted on its way back")
	if err := p.call(ctx, cs, "lookup_customer", map[string]any{"id": 1042}); err != nil {
		return err
	}

	p.head("4. A credential in a result is stopped on its way back")
	if err := p.call(ctx, cs, "read_secret", map[string]any{"name": "aws"}); err != nil {
		return err
	}
	p.line("  calls of read_secret that reached the server: %d (the server answered; the answer was held)", backend.Calls("read_secret"))

	p.head("5. The audit trail: every message, recorded by a sink (sizes and hashes, never the payload)")
	for _, r := range audit.records() {
		p.line("  #%-3v %-11v %-9v %-16v %6v bytes  sha256 %.12v…", r["seq"], r["event"], r["phase"], orDash(r["tool"]), r["bytes"], r["sha256"])
	}

	p.head(fmt.Sprintf("6. The cost: %d echo calls straight to the server, then through the gateway", o.Calls))
	direct, err := timeCalls(ctx, o.Calls, func(ctx context.Context, t mcp.Transport) error { return backend.Server.Run(ctx, t) })
	if err != nil {
		return err
	}
	through, err := timeCalls(ctx, o.Calls, func(ctx context.Context, t mcp.Transport) error { return gw.Serve(ctx, t) })
	if err != nil {
		return err
	}
	p.line("  direct:           %8.1f µs per call", us(direct))
	p.line("  through Airlock:  %8.1f µs per call (3 sandboxed interceptors on the request and on the response)", us(through))
	p.line("  added per call:   %8.1f µs", us(through-direct))

	if o.Keep == "" {
		p.head("Done. `airlock demo --keep` leaves this gateway running for your own MCP client.")
		return nil
	}
	return keep(ctx, p, gw, o.Keep)
}

// keep serves the gateway over streamable HTTP until ctx is done.
func keep(ctx context.Context, p printer, gw *gateway.Gateway, addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("--keep: listen on %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", gw.HTTPHandler())
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	p.head("The gateway is serving streamable HTTP at http://" + ln.Addr().String() + "/mcp (Ctrl-C to stop)")
	go func() {
		<-ctx.Done()
		sd, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = hs.Shutdown(sd)
	}()
	if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// inMemory is a gateway backend that runs the demo server in this process,
// one session per client session.
func inMemory(s *mcp.Server) gateway.Backend {
	return func(ctx context.Context) (mcp.Transport, error) {
		ct, st := mcp.NewInMemoryTransports()
		go func() { _ = s.Run(context.WithoutCancel(ctx), st) }()
		return ct, nil
	}
}

// connect runs serve on one end of an in-memory pipe and connects a client
// to the other.
func connect(ctx context.Context, serve func(context.Context, mcp.Transport) error) (*mcp.ClientSession, func(), error) {
	ct, st := mcp.NewInMemoryTransports()
	sctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); _ = serve(sctx, st) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "demo-client", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		cancel()
		wg.Wait()
		return nil, nil, err
	}
	return cs, func() { cs.Close(); cancel(); wg.Wait() }, nil
}

func timeCalls(ctx context.Context, n int, serve func(context.Context, mcp.Transport) error) (time.Duration, error) {
	cs, done, err := connect(ctx, serve)
	if err != nil {
		return 0, err
	}
	defer done()
	call := func() error {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "ping"}})
		return err
	}
	for range 20 { // warm up both paths the same way
		if err := call(); err != nil {
			return 0, err
		}
	}
	start := time.Now()
	for range n {
		if err := call(); err != nil {
			return 0, err
		}
	}
	return time.Since(start) / time.Duration(n), nil
}

func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

func orDash(v any) any {
	if v == nil {
		return "-"
	}
	return v
}

// moduleRoot finds the Airlock repository the demo builds plugins from.
func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("the demo builds its plugins with Go, and `go env GOMOD` failed: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	f, err := os.Open(gomod)
	if err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		if sc.Scan() && strings.TrimSpace(sc.Text()) == "module github.com/airlock-mcp/airlock" {
			return filepath.Dir(gomod), nil
		}
	}
	return "", errors.New("run the demo from a clone of the Airlock repository: it builds the bundled plugins from plugins/")
}

// printer writes the story.
type printer struct{ w io.Writer }

func (p printer) head(s string) { fmt.Fprintf(p.w, "\n== %s\n", s) }
func (p printer) line(f string, a ...any) {
	fmt.Fprintf(p.w, f+"\n", a...)
}

// call makes one tool call and says what came back.
func (p printer) call(ctx context.Context, cs *mcp.ClientSession, tool string, args map[string]any) error {
	b, _ := json.Marshal(args)
	p.line("  → tools/call %s %s", tool, b)
	start := time.Now()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	took := time.Since(start)
	if err != nil {
		p.line("  ✗ error: %v", err)
		return nil
	}
	var texts []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			texts = append(texts, strings.ReplaceAll(t.Text, "\n", " | "))
		}
	}
	mark := "✓"
	if res.IsError {
		mark = "✗ blocked:"
	}
	p.line("  %s %s   (%s)", mark, strings.Join(texts, " "), took.Round(10*time.Microsecond))
	return nil
}

// auditTrail is a slog.Handler that keeps the audit-log plugin's records
// and drops the rest of the host's log.
type auditTrail struct {
	mu   sync.Mutex
	recs []map[string]any
}

func (a *auditTrail) Enabled(context.Context, slog.Level) bool { return true }
func (a *auditTrail) Handle(_ context.Context, r slog.Record) error {
	body, ok := strings.CutPrefix(r.Message, "audit ")
	if !ok {
		return nil
	}
	var rec map[string]any
	if json.Unmarshal([]byte(body), &rec) == nil {
		a.mu.Lock()
		a.recs = append(a.recs, rec)
		a.mu.Unlock()
	}
	return nil
}
func (a *auditTrail) WithAttrs([]slog.Attr) slog.Handler { return a }
func (a *auditTrail) WithGroup(string) slog.Handler      { return a }

func (a *auditTrail) records() []map[string]any {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]map[string]any(nil), a.recs...)
}
