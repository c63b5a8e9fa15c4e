// Package bench is Airlock's benchmark suite (issue 8): one interceptor run
// by every kind of host, a chain, and cold start. `task bench` runs it and
// writes docs/benchmarks.md (tests/bench/benchtable). The benchmarks make
// no timed assertions; TestHostsAgree checks that every host gives the same
// verdict, so that the comparison compares like with like.
package bench_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	extism "github.com/extism/go-sdk"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tetratelabs/wazero"
	"go.uber.org/goleak"

	"github.com/airlock-mcp/airlock/host/chain"
	"github.com/airlock-mcp/airlock/host/remote"
	"github.com/airlock-mcp/airlock/host/server"
	"github.com/airlock-mcp/airlock/host/wasm"
	"github.com/airlock-mcp/airlock/internal/testbuild"
	"github.com/airlock-mcp/airlock/spec"
	"github.com/airlock-mcp/airlock/tests/bench/logic"
)

// serveEnv, set to 1, makes the test binary an interceptor server on stdio
// (the remote-stdio host): the same logic behind host/server, out of
// process.
const serveEnv = "AIRLOCK_BENCH_SERVE"

func TestMain(m *testing.M) {
	if os.Getenv(serveEnv) == "1" {
		os.Exit(serve())
	}
	code := m.Run()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

func serve() int {
	ctx := context.Background()
	c, err := chain.New(ctx, []chain.Source{logic.NativeSource()}, chain.Options{})
	if err == nil {
		var s *server.Server
		if s, err = server.New(chain.Static(c), server.Options{}); err == nil {
			err = s.Run(ctx, &mcp.StdioTransport{})
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// Sizes of the tools/call payloads.
var sizes = []struct {
	name string
	n    int
}{{"1KiB", 1 << 10}, {"64KiB", 64 << 10}}

// walkPath is where payload puts its one secret.
const walkPath = "/arguments/token"

// payload is a tools/call request of about n bytes: items of text and, at
// the end, one AWS-style access key id that the interceptor must find.
func payload(n int) json.RawMessage {
	var b strings.Builder
	b.WriteString(`{"name":"search","arguments":{"items":[`)
	for i := 0; b.Len() < n-80; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":%d,"text":"lorem ipsum dolor sit amet, AKIA is not enough"}`, i)
	}
	b.WriteString(`],"token":"AKIAY3RXQZ7W5MNP2K4D"}}`)
	return json.RawMessage(b.String())
}

func params(name string, n int) *spec.InvokeParams {
	return &spec.InvokeParams{Name: name, Event: "tools/call", Phase: spec.PhaseRequest, Payload: payload(n)}
}

// checkVerdict fails unless r is the verdict every host must give.
func checkVerdict(tb testing.TB, r *spec.Result) {
	want := logic.ScanPath
	if r.Interceptor == logic.Walk {
		want = walkPath
	}
	if r.Valid || r.Severity != spec.SeverityError || len(r.Messages) != 1 || r.Messages[0].Path != want {
		tb.Fatalf("unexpected verdict %+v", r)
	}
}

// host is one way to run the interceptor.
type host struct {
	name   string
	invoke func(ctx context.Context, p *spec.InvokeParams) (*spec.Result, error)
}

// hosts loads every host of BenchmarkInvoke and closes them when tb ends.
func hosts(tb testing.TB) []host {
	tb.Helper()
	eng := newEngine(tb)
	pdkBin, extismBin := plugin(tb, "pdk"), plugin(tb, "extism")
	// Without deadline enforcement: the guest is never interrupted (the
	// deadline is still checked when it returns), as extism/go-sdk without
	// a timeout.
	fast := wasm.Limits{MaxInstances: 1, Deadlines: wasm.DeadlineAtHostCalls}
	// With: the default mode, which can stop any guest.
	safe := wasm.Limits{MaxInstances: 1}
	airPDK := load(tb, eng, pdkBin, "pdk", fast)
	airPDKSafe := load(tb, eng, pdkBin, "pdk-deadline", safe)
	airExtism := load(tb, eng, extismBin, "extism", fast)
	sdk := sdkPlugin(tb, extismBin, false)
	sdkSafe := sdkPlugin(tb, extismBin, true)
	var src chain.Source = logic.NativeSource()
	rem := remoteHost(tb)
	return []host{
		{"airlock-pdk", airPDK.Invoke},
		{"airlock-extism-abi", airExtism.Invoke},
		{"extism-go-sdk", sdk.invoke},
		{"native", src.Invoke},
		{"remote-stdio", rem.Invoke},
		{"airlock-pdk-deadline", airPDKSafe.Invoke},
		{"extism-go-sdk-deadline", sdkSafe.invoke},
	}
}

// TestHostsAgree runs the interceptor once on every host, at both sizes: the
// benchmark is only a comparison if they all do the same work.
func TestHostsAgree(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two plugins and starts a server")
	}
	hs := hosts(t)
	for _, name := range []string{logic.Scan, logic.Walk} {
		for _, s := range sizes {
			p := params(name, s.n)
			for _, h := range hs {
				r, err := h.invoke(context.Background(), p)
				if err != nil {
					t.Fatalf("%s %s/%s: %v", name, h.name, s.name, err)
				}
				checkVerdict(t, r)
			}
		}
		// And a clean payload passes everywhere.
		clean := &spec.InvokeParams{Name: name, Event: "tools/call", Phase: spec.PhaseRequest,
			Payload: json.RawMessage(`{"name":"x","arguments":{"q":"AKIA too short"}}`)}
		for _, h := range hs {
			if r, err := h.invoke(context.Background(), clean); err != nil || !r.Valid || len(r.Messages) != 0 {
				t.Errorf("%s %s: clean payload: %+v %v", name, h.name, r, err)
			}
		}
	}
}

// BenchmarkInvoke is one interceptor/invoke of the same interceptor
// (secret-scan: a byte scan of the payload) on every host: <host>/<size>.
// Each iteration is a whole invocation as its host's user sees it: params
// in, a checked spec.Result out.
func BenchmarkInvoke(b *testing.B) { benchInvoke(b, logic.Scan) }

// BenchmarkInvokeWalk is BenchmarkInvoke with secret-walk, which visits
// every string of the payload: the guest's own work dominates.
func BenchmarkInvokeWalk(b *testing.B) { benchInvoke(b, logic.Walk) }

func benchInvoke(b *testing.B, name string) {
	hs := hosts(b)
	for _, h := range hs {
		for _, s := range sizes {
			p := params(name, s.n)
			b.Run(h.name+"/"+s.name, func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(p.Payload)))
				ctx := context.Background()
				for b.Loop() {
					r, err := h.invoke(ctx, p)
					if err != nil {
						b.Fatal(err)
					}
					checkVerdict(b, r)
				}
			})
		}
	}
}

var (
	engineOnce sync.Once
	cacheDir   string
)

// newEngine returns an engine with an on-disk compilation cache shared by
// the package's tests (kept between runs, like the CLI's).
func newEngine(tb testing.TB) *wasm.Engine {
	tb.Helper()
	engineOnce.Do(func() { cacheDir = filepath.Join(testbuild.CacheDir(), "wazero-bench") })
	eng, err := wasm.NewEngine(wasm.EngineOptions{CacheDir: cacheDir, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = eng.Close(context.Background()) })
	return eng
}

// plugin builds tests/bench/testdata/<name> (cached on disk by its inputs).
func plugin(tb testing.TB, name string) []byte {
	tb.Helper()
	bin, err := os.ReadFile(testbuild.GoPlugin(tb, "tests/bench/testdata/"+name))
	if err != nil {
		tb.Fatal(err)
	}
	return bin
}

func load(tb testing.TB, eng *wasm.Engine, bin []byte, name string, limits wasm.Limits) *wasm.Plugin {
	tb.Helper()
	p, err := eng.Load(context.Background(), bin, wasm.Options{Name: name, Limits: limits})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = p.Close(context.Background()) })
	return p
}

// sdk is the Extism plugin on github.com/extism/go-sdk, doing per call what
// a host built on it must: encode the params, call, decode and check the
// result.
type sdk struct {
	mu sync.Mutex // an extism.Plugin is not safe for concurrent use
	p  *extism.Plugin
}

func (s *sdk) invoke(ctx context.Context, p *spec.InvokeParams) (*spec.Result, error) {
	in, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	rc, out, err := s.p.CallWithContext(ctx, "invoke", in)
	if err == nil && rc != 0 {
		err = fmt.Errorf("invoke returned %d", rc)
	}
	var r spec.Result
	if err == nil {
		err = json.Unmarshal(out, &r)
	}
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if err := spec.CheckResult(&r, p, spec.TypeValidation); err != nil {
		return nil, err
	}
	return &r, nil
}

// sdkPlugin loads bin on extism/go-sdk as a Go user would: a compiled plugin
// with a compilation cache, one instance, WASI on; with a timeout when
// deadlines are enforced (go-sdk then uses wazero's close-on-context-done).
func sdkPlugin(tb testing.TB, bin []byte, withTimeout bool) *sdk {
	tb.Helper()
	ctx := context.Background()
	cache := wazero.NewCompilationCache()
	manifest := extism.Manifest{Wasm: []extism.Wasm{extism.WasmData{Data: bin}}}
	if withTimeout {
		manifest.Timeout = 1000
	}
	compiled, err := extism.NewCompiledPlugin(ctx, manifest, extism.PluginConfig{
		EnableWasi:    true,
		RuntimeConfig: wazero.NewRuntimeConfig().WithCompilationCache(cache),
	}, nil)
	if err != nil {
		tb.Fatal(err)
	}
	p, err := compiled.Instance(ctx, extism.PluginInstanceConfig{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		_ = p.Close(ctx)
		_ = compiled.Close(ctx)
		_ = cache.Close(ctx)
	})
	return &sdk{p: p}
}

// remoteHost starts this test binary as an interceptor server on stdio and
// connects to it, as a chain reaches a remote host.
func remoteHost(tb testing.TB) *remote.Host {
	tb.Helper()
	exe, err := os.Executable()
	if err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), serveEnv+"=1")
	cmd.Stderr = os.Stderr
	h, err := remote.Dial(context.Background(), "bench", &mcp.CommandTransport{Command: cmd})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = h.Close() })
	return h
}
