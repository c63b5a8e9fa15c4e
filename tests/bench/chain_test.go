package bench_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/airlock-mcp/airlock/host/chain"
	"github.com/airlock-mcp/airlock/host/gateway"
	"github.com/airlock-mcp/airlock/host/native"
	"github.com/airlock-mcp/airlock/host/wasm"
	"github.com/airlock-mcp/airlock/internal/testbuild"
	"github.com/airlock-mcp/airlock/spec"
)

// chainKinds are the ten interceptors of BenchmarkChain: four mutations,
// four validations, two sinks, all on tools/call requests.
var chainKinds = []spec.Type{
	spec.TypeMutation, spec.TypeValidation, spec.TypeSink, spec.TypeMutation, spec.TypeValidation,
	spec.TypeMutation, spec.TypeValidation, spec.TypeSink, spec.TypeMutation, spec.TypeValidation,
}

// constResult is the constant answer of a chain interceptor: a pass that
// changes nothing, so that the chain runs all ten and the cost measured is
// the hosts', not the interceptors' logic.
func constResult(name string, typ spec.Type) string {
	switch typ {
	case spec.TypeMutation:
		return fmt.Sprintf(`{"interceptor":%q,"type":"mutation","phase":"request","modified":false}`, name)
	case spec.TypeSink:
		return fmt.Sprintf(`{"interceptor":%q,"type":"sink","phase":"request","recorded":true}`, name)
	}
	return fmt.Sprintf(`{"interceptor":%q,"type":"validation","phase":"request","valid":true}`, name)
}

// constWAT is a direct-ABI module whose one interceptor answers constResult.
func constWAT(name string, typ spec.Type) string {
	desc := fmt.Sprintf(`{"interceptors":[{"name":%q,"type":%q,"hooks":[{"events":["tools/call"],"phase":"request"}]}]}`, name, typ)
	res := constResult(name, typ)
	esc := func(s string) string { return strings.ReplaceAll(s, `"`, `\"`) }
	return fmt.Sprintf(`(module
  (memory (export "memory") 1)
  (data (i32.const 1024) "%s")
  (data (i32.const 8192) "%s")
  (func (export "airlock_abi_version") (result i32) (i32.const 1))
  (func (export "airlock_alloc") (param $size i32) (result i32)
    (local $pages i32)
    (local.set $pages (i32.add (i32.const 1) (i32.shr_u (i32.add (local.get $size) (i32.const 65535)) (i32.const 16))))
    (if (i32.gt_u (local.get $pages) (memory.size))
      (then (if (i32.eq (memory.grow (i32.sub (local.get $pages) (memory.size))) (i32.const -1))
        (then (return (i32.const 0))))))
    (i32.const 65536))
  (func (export "airlock_describe") (result i64) (i64.const %d))
  (func (export "airlock_invoke") (param i32 i32) (result i64) (i64.const %d)))`,
		esc(desc), esc(res), 1024<<32|len(desc), 8192<<32|len(res))
}

// chainSources returns the ten interceptors as native Go functions (one
// source) or as ten WAT plugins on the real wasm path.
func chainSources(tb testing.TB, kind string) []chain.Source {
	tb.Helper()
	switch kind {
	case "native":
		src := native.New()
		for i, typ := range chainKinds {
			name := fmt.Sprintf("i%d", i)
			res := json.RawMessage(constResult(name, typ))
			src.MustAdd(spec.Interceptor{Name: name, Type: typ, Hooks: []spec.Hook{{Events: []string{"tools/call"}, Phase: spec.PhaseRequest}}},
				func(_ context.Context, p *spec.InvokeParams) (*spec.Result, error) {
					var r spec.Result
					err := json.Unmarshal(res, &r)
					return &r, err
				})
		}
		return []chain.Source{src}
	case "wasm":
		eng := newEngine(tb)
		var out []chain.Source
		for i, typ := range chainKinds {
			name := fmt.Sprintf("i%d", i)
			out = append(out, load(tb, eng, testbuild.WAT(tb, constWAT(name, typ)), name, wasm.Limits{}))
		}
		return out
	}
	tb.Fatalf("no source kind %q", kind)
	return nil
}

// BenchmarkChain runs one chain of ten interceptors (four mutations, four
// validations, two sinks) on a tools/call request, sending: the interceptors
// as native Go functions, and as ten WebAssembly plugins (WAT, direct ABI),
// so that the ratio is the cost of the wasm path in a chain.
func BenchmarkChain(b *testing.B) {
	ctx := context.Background()
	for _, kind := range []string{"native", "wasm"} {
		c, err := chain.New(ctx, chainSources(b, kind), chain.Options{})
		if err != nil {
			b.Fatal(err)
		}
		for _, s := range sizes {
			p := &spec.ChainParams{Event: "tools/call", Phase: spec.PhaseRequest,
				Direction: spec.DirectionSending, Payload: payload(s.n)}
			b.Run(kind+"-10/"+s.name, func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(p.Payload)))
				for b.Loop() {
					res, err := c.Run(ctx, p)
					if err != nil {
						b.Fatal(err)
					}
					if res.Status != spec.StatusSuccess || len(res.Results) != len(chainKinds) {
						b.Fatalf("chain result: %s, %d results", res.Status, len(res.Results))
					}
				}
			})
		}
	}
}

// BenchmarkGateway is host/gateway's benchmark of one tools/call round
// trip, with real plugins: straight to the backend, through the gateway with
// an empty chain, and with three bundled plugins (secrets, a validation;
// pii-redact, a mutation; audit-log, a sink) on the wasm path.
func BenchmarkGateway(b *testing.B) {
	ctx := context.Background()
	backend := mcp.NewServer(&mcp.Implementation{Name: "bench"}, nil)
	backend.AddTool(&mcp.Tool{Name: "echo", InputSchema: map[string]any{"type": "object"}},
		func(_ context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hello ada@example.com"}}}, nil
		})
	dial := func(ctx context.Context) (mcp.Transport, error) {
		ct, st := mcp.NewInMemoryTransports()
		if _, err := backend.Connect(ctx, st, nil); err != nil {
			return nil, err
		}
		return ct, nil
	}
	run := func(b *testing.B, t mcp.Transport, redacted bool) {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench"}, nil).Connect(ctx, t, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer cs.Close()
		params := &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"q": "x"}}
		b.ReportAllocs()
		for b.Loop() {
			res, err := cs.CallTool(ctx, params)
			if err != nil {
				b.Fatal(err)
			}
			got := res.Content[0].(*mcp.TextContent).Text
			if strings.Contains(got, "ada@example.com") == redacted {
				b.Fatalf("result %q (redaction expected: %v)", got, redacted)
			}
		}
	}
	through := func(b *testing.B, sources []chain.Source, redacted bool) {
		c, err := chain.New(ctx, sources, chain.Options{})
		if err != nil {
			b.Fatal(err)
		}
		g, err := gateway.New(gateway.Options{Backend: dial, Chains: chain.Static(c)})
		if err != nil {
			b.Fatal(err)
		}
		defer g.Close()
		ct, st := mcp.NewInMemoryTransports()
		if _, err := g.MCP().Connect(ctx, st, nil); err != nil {
			b.Fatal(err)
		}
		run(b, ct, redacted)
	}
	b.Run("direct", func(b *testing.B) {
		t, err := dial(ctx)
		if err != nil {
			b.Fatal(err)
		}
		run(b, t, false)
	})
	b.Run("gateway-empty", func(b *testing.B) { through(b, nil, false) })
	b.Run("gateway-3-wasm", func(b *testing.B) {
		eng := newEngine(b)
		var sources []chain.Source
		for _, name := range []string{"secrets", "pii-redact", "audit-log"} {
			bin, err := os.ReadFile(testbuild.GoPlugin(b, "plugins/"+name))
			if err != nil {
				b.Fatal(err)
			}
			sources = append(sources, load(b, eng, bin, name, wasm.Limits{}))
		}
		through(b, sources, true)
	})
}

// BenchmarkColdStart is what a plugin costs before its first answer:
// <plugin>/<stage>, with stages load-nocache (compile from scratch: a new
// engine with an empty compilation cache), load-diskcache (a new engine on a
// warm on-disk cache, as after a restart), and first-call (the latter, then
// the first invocation). Load includes instantiating the pool (one instance
// here) and describe.
func BenchmarkColdStart(b *testing.B) {
	ctx := context.Background()
	plugins := []struct {
		name, interceptor string
		bin               []byte
	}{
		{"go-pdk", "secret-scan", plugin(b, "pdk")},
		{"wat", "i0", testbuild.WAT(b, constWAT("i0", spec.TypeValidation))},
	}
	limits := wasm.Limits{MaxInstances: 1}
	quiet := slog.New(slog.DiscardHandler)
	for _, pl := range plugins {
		warm := filepath.Join(b.TempDir(), "cache")
		func() { // fill the disk cache
			eng, err := wasm.NewEngine(wasm.EngineOptions{CacheDir: warm, Logger: quiet})
			if err != nil {
				b.Fatal(err)
			}
			defer eng.Close(ctx)
			p, err := eng.Load(ctx, pl.bin, wasm.Options{Limits: limits})
			if err != nil {
				b.Fatal(err)
			}
			_ = p.Close(ctx)
		}()
		stage := func(name string, opts wasm.EngineOptions, call bool) {
			b.Run(pl.name+"/"+name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					eng, err := wasm.NewEngine(opts)
					if err != nil {
						b.Fatal(err)
					}
					p, err := eng.Load(ctx, pl.bin, wasm.Options{Limits: limits})
					if err != nil {
						b.Fatal(err)
					}
					if call {
						if _, err := p.Invoke(ctx, params(pl.interceptor, 1<<10)); err != nil {
							b.Fatal(err)
						}
					}
					_ = p.Close(ctx)
					_ = eng.Close(ctx)
				}
			})
		}
		stage("load-nocache", wasm.EngineOptions{MemoryCacheOnly: true, Logger: quiet}, false)
		stage("load-diskcache", wasm.EngineOptions{CacheDir: warm, Logger: quiet}, false)
		stage("first-call", wasm.EngineOptions{CacheDir: warm, Logger: quiet}, true)
	}
}
