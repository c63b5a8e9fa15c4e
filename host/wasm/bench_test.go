package wasm_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	extism "github.com/extism/go-sdk"
	"github.com/tetratelabs/wazero"

	"github.com/airlock-mcp/airlock/host/wasm"
	"github.com/airlock-mcp/airlock/spec"
)

// benchPayload is a tools/call request of about size bytes, without the word
// the redact interceptor replaces: the result echoes it unchanged, so input
// and output both carry the whole payload.
func benchPayload(size int) json.RawMessage {
	var b strings.Builder
	b.WriteString(`{"name":"search","arguments":{"items":[`)
	for i := 0; b.Len() < size-40; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":%d,"text":"lorem ipsum dolor sit amet"}`, i)
	}
	b.WriteString(`]}}`)
	return json.RawMessage(b.String())
}

// BenchmarkInvoke compares, in one run, one interceptor (the same Go logic in
// both test plugins) called three ways: the Extism-convention module on
// Airlock, the direct-ABI module on Airlock, and the very same
// Extism-convention .wasm on github.com/extism/go-sdk. Each does the same
// work per call: encode the invoke params, run the guest, decode and check
// the result.
//
//   - interrupt / at-host-calls: with deadlines that can stop a loop
//     (wazero's close-on-context-done, which go-sdk also uses when a timeout
//     is set), or without.
//   - scan / encoding-json: the guest finds name, phase and payload with a
//     hand-written scanner ("redact-fast"), or decodes and encodes with
//     encoding/json ("redact"). The first measures the host and the ABI;
//     the second shows how much a reflection-based JSON library in the guest
//     costs, which no calling convention can save.
func BenchmarkInvoke(b *testing.B) {
	extismBin, directBin := goPlugin(b, "extism"), goPlugin(b, "direct")
	for _, mode := range []wasm.DeadlineMode{wasm.DeadlineInterrupt, wasm.DeadlineAtHostCalls} {
		b.Run(mode.String(), func(b *testing.B) {
			limits := wasm.Limits{Deadlines: mode, MaxInstances: 1}
			airExtism := load(b, extismBin, wasm.Options{Name: "bench-extism", Limits: limits})
			airDirect := load(b, directBin, wasm.Options{Name: "bench-direct", Limits: limits})
			sdk := newSDKPlugin(b, extismBin, mode == wasm.DeadlineInterrupt)
			for _, logic := range []struct{ name, interceptor string }{{"scan", "redact-fast"}, {"encoding-json", "redact"}} {
				for _, size := range []int{1 << 10, 64 << 10} {
					params := &spec.InvokeParams{Name: logic.interceptor, Event: "tools/call", Phase: spec.PhaseRequest,
						Payload: benchPayload(size)}
					b.Run(fmt.Sprintf("%s/%dKiB", logic.name, size>>10), func(b *testing.B) {
						b.Run("airlock-direct", func(b *testing.B) { benchAirlock(b, airDirect, params) })
						b.Run("airlock-extism", func(b *testing.B) { benchAirlock(b, airExtism, params) })
						b.Run("extism-go-sdk", func(b *testing.B) { benchSDK(b, sdk, params, true) })
						b.Run("extism-go-sdk-call-only", func(b *testing.B) { benchSDK(b, sdk, params, false) })
					})
				}
			}
		})
	}
}

func benchAirlock(b *testing.B, p *wasm.Plugin, params *spec.InvokeParams) {
	b.ReportAllocs()
	b.SetBytes(int64(len(params.Payload)))
	ctx := context.Background()
	for b.Loop() {
		r, err := p.Invoke(ctx, params)
		if err != nil {
			b.Fatal(err)
		}
		if r.Modified || len(r.Payload) != len(params.Payload) {
			b.Fatalf("unexpected result %+v", r)
		}
	}
}

// benchSDK calls the plugin on go-sdk. With decode, it does what a host
// built on go-sdk must do per call (encode the params, decode and check the
// result with encoding/json); without, it measures the bare call on
// pre-encoded input, which is go-sdk's best case.
func benchSDK(b *testing.B, p *extism.Plugin, params *spec.InvokeParams, decode bool) {
	b.ReportAllocs()
	b.SetBytes(int64(len(params.Payload)))
	ctx := context.Background()
	encoded, err := json.Marshal(params)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		in := encoded
		if decode {
			if in, err = json.Marshal(params); err != nil {
				b.Fatal(err)
			}
		}
		rc, out, err := p.CallWithContext(ctx, "invoke", in)
		if err != nil || rc != 0 {
			b.Fatalf("rc %d: %v", rc, err)
		}
		if !decode {
			if len(out) < len(params.Payload) {
				b.Fatalf("short output %q", out)
			}
			continue
		}
		var r spec.Result
		if err := r.UnmarshalJSON(out); err != nil {
			b.Fatal(err)
		}
		if err := spec.CheckResult(&r, params, spec.TypeMutation); err != nil {
			b.Fatal(err)
		}
		if r.Modified || len(r.Payload) != len(params.Payload) {
			b.Fatalf("unexpected result %+v", r)
		}
	}
}

// newSDKPlugin loads bin on extism/go-sdk, as a Go user would: a compiled
// plugin with a compilation cache, one instance, WASI on, and a timeout when
// deadlines must interrupt (which makes go-sdk use close-on-context-done).
func newSDKPlugin(b *testing.B, bin []byte, withTimeout bool) *extism.Plugin {
	b.Helper()
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
		b.Fatal(err)
	}
	p, err := compiled.Instance(ctx, extism.PluginInstanceConfig{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = p.Close(ctx)
		_ = compiled.Close(ctx)
		_ = cache.Close(ctx)
	})
	return p
}
