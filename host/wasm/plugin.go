package wasm

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/tetratelabs/wazero"

	"github.com/airlock-mcp/airlock/host/wasm/internal/deadline"
	"github.com/airlock-mcp/airlock/host/wasm/internal/hostenv"
	"github.com/airlock-mcp/airlock/host/wasm/internal/pool"
	"github.com/airlock-mcp/airlock/spec"

	"log/slog"
)

// Plugin is a loaded module: a source of interceptors for a chain. It is
// safe for concurrent use.
type Plugin struct {
	name     string
	conv     Convention
	rt       wazero.Runtime
	compiled wazero.CompiledModule
	start    []string
	limits   Limits
	logger   *slog.Logger
	shared   *hostenv.Shared
	descs    []spec.Interceptor
	pool     *pool.Pool[*instance]

	// life is held for reading by every call and for writing by Close, so
	// that Close waits for calls in flight (each bounded by its deadline).
	life   sync.RWMutex
	closed bool
}

// Name is the plugin's name, as used in errors and logs.
func (p *Plugin) Name() string { return p.name }

// Convention is the calling convention the module follows.
func (p *Plugin) Convention() Convention { return p.conv }

// Limits are the limits in force, defaults filled in.
func (p *Plugin) Limits() Limits { return p.limits }

// Interceptors returns the plugin's descriptors, as described at load with
// "both" hooks expanded. The slice is new; the descriptors' own slices and
// raw JSON are shared and must not be modified.
func (p *Plugin) Interceptors(context.Context) ([]spec.Interceptor, error) {
	return slices.Clone(p.descs), nil
}

func (p *Plugin) descriptor(name string) *spec.Interceptor {
	for i := range p.descs {
		if p.descs[i].Name == name {
			return &p.descs[i]
		}
	}
	return nil
}

// Invoke runs one interceptor/invoke. Errors are *spec.Error: -32602 for a
// name the plugin does not have or an event/phase its hooks do not cover,
// -32603 for every failure of the plugin (reason "timeout" for the deadline).
//
// The deadline is the plugin's Limits.Timeout, lowered by p.TimeoutMs when
// set; it includes waiting for a free instance.
//
// # Notes
//
//   - When a mutation returns the input payload unchanged, the result's
//     Payload is params.Payload itself (not a copy): treat both as
//     read-only, as raw JSON usually is.
//   - params is not modified and not kept after Invoke returns.
func (p *Plugin) Invoke(ctx context.Context, params *spec.InvokeParams) (*spec.Result, error) {
	if params == nil {
		return nil, spec.InvalidParams("", "missing params")
	}
	d := p.descriptor(params.Name)
	if d == nil {
		return nil, spec.UnknownInterceptor(params.Name)
	}
	if !d.Matches(params.Event, params.Phase) {
		return nil, spec.HookNotCovered(params.Name, params.Event, params.Phase, d.Hooks)
	}
	var ctxJSON []byte
	if params.Context != nil {
		b, err := json.Marshal(params.Context)
		if err != nil {
			return nil, spec.InvalidParams(params.Name, "context: "+err.Error())
		}
		ctxJSON = b
	}

	budget := p.limits.Timeout
	if params.TimeoutMs > 0 && time.Duration(params.TimeoutMs)*time.Millisecond < budget {
		budget = time.Duration(params.TimeoutMs) * time.Millisecond
	}
	timeout := func() error { return spec.InvocationTimeout(params.Name, budget.Milliseconds(), params.Phase) }

	p.life.RLock()
	defer p.life.RUnlock()
	if p.closed {
		return nil, spec.InvocationFailed(params.Name, "plugin "+p.name+" is closed")
	}
	start := time.Now()
	cctx, cancel := deadline.Bound(ctx, budget)
	defer cancel()
	in, err := p.pool.Get(cctx)
	if err != nil {
		if deadline.TimedOut(cctx, err, start, budget) {
			return nil, timeout()
		}
		return nil, spec.InvocationFailed(params.Name, "no instance: "+err.Error())
	}
	if cctx.Err() != nil {
		// Entering the guest with a done context would only close a healthy
		// instance (with close-on-context-done, wazero closes it at entry).
		p.pool.Put(in)
		if deadline.TimedOut(cctx, nil, start, budget) {
			return nil, timeout()
		}
		return nil, spec.InvocationFailed(params.Name, "cancelled by the caller")
	}
	out, f := in.run(cctx, p, params, ctxJSON, budget)
	if f != nil {
		p.release(in, f, params.Name)
		if f.timeout {
			return nil, timeout()
		}
		return nil, spec.InvocationFailed(params.Name, f.reason)
	}
	// Decode before the instance goes back: out lives in its memory.
	r, err := decodeResult(out, params, &in.scratch)
	p.pool.Put(in)
	if err != nil {
		return nil, spec.InvocationFailed(params.Name, "malformed result: "+err.Error())
	}
	if err := spec.CheckResult(r, params, d.Type); err != nil {
		return nil, spec.InvocationFailed(params.Name, err.Error())
	}
	if r.DurationMs == 0 {
		r.DurationMs = float64(time.Since(start).Microseconds()) / 1000
	}
	return r, nil
}

// release puts an instance back after a failure, or discards it when its
// state is suspect.
func (p *Plugin) release(in *instance, f *failure, interceptor string) {
	if !f.discard {
		p.pool.Put(in)
		return
	}
	p.logger.Warn("plugin instance discarded after a failure",
		"plugin", p.name, "interceptor", interceptor, "reason", f.reason)
	p.pool.Discard(in)
}

// describe runs describe on in and returns the validated descriptors.
func (p *Plugin) describe(ctx context.Context, in *instance) ([]spec.Interceptor, error) {
	budget := max(p.limits.Timeout, startTimeout)
	cctx, cancel := deadline.Bound(ctx, budget)
	defer cancel()
	out, f := in.run(cctx, p, nil, nil, budget)
	if f != nil {
		return nil, fmt.Errorf("describe failed: %s", f.reason)
	}
	return parseDescriptors(out)
}

// Stats are counters about a plugin's instances.
type Stats = pool.Stats

// Stats returns the plugin's instance counters.
func (p *Plugin) Stats() Stats { return p.pool.Stats() }

// Vars returns a copy of the plugin variable key, for inspection.
func (p *Plugin) Vars(key string) ([]byte, bool) { return p.shared.Vars.Get(key) }

// Close waits for calls in flight, then releases every instance and the
// plugin's runtime. Calls made after Close fail.
func (p *Plugin) Close(ctx context.Context) error {
	p.life.Lock()
	if p.closed {
		p.life.Unlock()
		return nil
	}
	p.closed = true
	p.life.Unlock()
	p.pool.Close()
	err := p.rt.Close(ctx)
	// The runtime does not release its compiled code when the engine is
	// shared through a compilation cache: without this, every distinct
	// module a hot reload loads stays in memory for the life of the engine.
	_ = p.compiled.Close(ctx)
	if err != nil {
		return fmt.Errorf("close plugin %q: %w", p.name, err)
	}
	return nil
}
