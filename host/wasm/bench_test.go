package wasm_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

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

// BenchmarkInvoke compares, in one run, one mutation interceptor called
// through each way of hosting it, at 1 KiB and 64 KiB: every case does the
// same work per call (encode the invoke params, run the guest, decode and
// check the result, which echoes the payload unchanged).
//
//   - airlock-pdk: a plugin written with Airlock's PDK (direct ABI), as the
//     bundled plugins are; its handler walks the payload's strings.
//   - airlock-direct, airlock-extism: the same hand-written logic (a scan
//     for the name, phase and payload: "redact-fast") on the direct ABI and
//     on the Extism convention, through the plain Extism go-pdk.
//   - extism-go-sdk: the very same Extism .wasm on github.com/extism/go-sdk,
//     as a Go user would host it, with the host-side JSON work Airlock
//     does; -deadline with a manifest timeout (which makes go-sdk use
//     wazero's close-on-context-done); -call-only on pre-encoded input
//     without decoding, go-sdk's best case.
//
// The airlock cases run with each deadline mode: none (at-host-calls, which
// cannot stop a loop), deadline (the default: fuel checks rewritten into the
// module) and close-on-done (wazero's close-on-context-done). The ratio
// deadline/none is the price of being able to stop a runaway plugin.
func BenchmarkInvoke(b *testing.B) {
	modes := []struct {
		name string
		mode wasm.DeadlineMode
	}{{"none", wasm.DeadlineAtHostCalls}, {"deadline", wasm.DeadlineInterrupt}, {"close-on-done", wasm.DeadlineCloseOnContextDone}}
	bins := []struct{ name, dir, interceptor string }{
		{"airlock-pdk", "pdk", "redact"},
		{"airlock-direct", "direct", "redact-fast"},
		{"airlock-extism", "extism", "redact-fast"},
	}
	type target struct {
		name, interceptor string
		p                 *wasm.Plugin
	}
	var targets []target
	for _, bn := range bins {
		bin := goPlugin(b, bn.dir)
		for _, m := range modes {
			// A generous deadline: on a loaded machine a call stalled by the
			// scheduler must not end the benchmark (the mechanism's cost does
			// not depend on the deadline's length).
			p := load(b, bin, wasm.Options{Name: bn.name, Limits: wasm.Limits{Deadlines: m.mode, MaxInstances: 1, Timeout: time.Minute}})
			targets = append(targets, target{bn.name + "-" + m.name, bn.interceptor, p})
		}
	}
	extismBin := goPlugin(b, "extism")
	sdk, sdkDeadline := newSDKPlugin(b, extismBin, false), newSDKPlugin(b, extismBin, true)
	for _, size := range []int{1 << 10, 64 << 10} {
		payload := benchPayload(size)
		params := func(interceptor string) *spec.InvokeParams {
			return &spec.InvokeParams{Name: interceptor, Event: "tools/call", Phase: spec.PhaseRequest, Payload: payload}
		}
		b.Run(fmt.Sprintf("%dKiB", size>>10), func(b *testing.B) {
			for _, tg := range targets {
				b.Run(tg.name, func(b *testing.B) { benchAirlock(b, tg.p, params(tg.interceptor)) })
			}
			b.Run("extism-go-sdk", func(b *testing.B) { benchSDK(b, sdk, params("redact-fast"), true) })
			b.Run("extism-go-sdk-deadline", func(b *testing.B) { benchSDK(b, sdkDeadline, params("redact-fast"), true) })
			b.Run("extism-go-sdk-call-only", func(b *testing.B) { benchSDK(b, sdk, params("redact-fast"), false) })
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
		// A PDK mutator omits an unchanged payload (abi/README.md 2.5).
		if r.Modified || (len(r.Payload) != len(params.Payload) && len(r.Payload) != 0) {
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
