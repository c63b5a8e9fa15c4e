package wasm

import (
	"context"
	crand "crypto/rand"
	"errors"
	"fmt"
	"strings"
	"time"
	"unsafe"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/sys"

	"github.com/airlock-mcp/airlock/abi"
	"github.com/airlock-mcp/airlock/host/wasm/internal/deadline"
	"github.com/airlock-mcp/airlock/host/wasm/internal/hostenv"
	"github.com/airlock-mcp/airlock/spec"
)

// startTimeout bounds an instance's start-up (_initialize): a Go plugin needs
// milliseconds; a module that takes longer is broken or hostile.
const startTimeout = 10 * time.Second

// instance is one instantiated module with its host-side state. It serves one
// call at a time; the pool guarantees it.
type instance struct {
	mod    api.Module
	mem    api.Memory
	call   *hostenv.Call
	stderr *stderrTail

	describeFn, invokeFn api.Function
	allocFn              api.Function // direct ABI only

	stack   [2]uint64
	in      []byte // Extism input, reused across calls
	scratch []byte // result decoding, reused across calls
}

// newInstance instantiates the plugin's module, sandboxed: no files, no
// environment, no arguments, no sockets, no stdin; real clocks and random;
// stderr kept (bounded) to explain failures.
func (p *Plugin) newInstance(ctx context.Context) (*instance, error) {
	in := &instance{call: hostenv.NewCall(p.shared), stderr: &stderrTail{max: 4096}}
	cfg := wazero.NewModuleConfig().
		WithName(""). // anonymous: many instances of one module
		WithStartFunctions(p.start...).
		WithSysWalltime().WithSysNanotime().
		WithNanosleep(in.sleep).
		WithRandSource(crand.Reader).
		WithStderr(in.stderr)
	ctx, cancel := deadline.Bound(ctx, startTimeout)
	defer cancel()
	ctx = hostenv.WithCall(ctx, in.call)
	in.call.Reset(ctx, nil)
	defer in.call.Done()
	mod, err := p.rt.InstantiateModule(ctx, p.compiled, cfg)
	if err != nil {
		return nil, fmt.Errorf("instantiate: %s%s", firstLine(err.Error()), in.stderr.suffix())
	}
	if mod.IsClosed() {
		return nil, errors.New("the module is a WASI command whose _start exits, so it cannot serve repeated calls; " +
			"build it as a reactor (Go: -buildmode=c-shared; C: -mexec-model=reactor; Rust: a cdylib)")
	}
	in.mod, in.mem = mod, mod.Memory()
	switch p.conv {
	case ConventionDirect:
		in.describeFn = mod.ExportedFunction(abi.ExportDescribe)
		in.invokeFn = mod.ExportedFunction(abi.ExportInvoke)
		in.allocFn = mod.ExportedFunction(abi.ExportAlloc)
	default:
		in.describeFn = mod.ExportedFunction(abi.ExtismDescribe)
		in.invokeFn = mod.ExportedFunction(abi.ExtismInvoke)
	}
	return in, nil
}

// sleep is the guest's WASI sleep. It ends early when the call's context is
// done: a sleeping guest runs no instructions, so the fuel checks that stop a
// runaway loop would never see its deadline, and a plugin sleeping for an
// hour would hold its caller and its instance for an hour. Woken early, the
// guest either returns or runs on into the next fuel check, which stops it.
func (in *instance) sleep(ns int64) {
	if ns <= 0 {
		return
	}
	var done <-chan struct{}
	if ctx := in.call.Context(); ctx != nil {
		done = ctx.Done()
	}
	t := time.NewTimer(time.Duration(ns))
	defer t.Stop()
	select {
	case <-t.C:
	case <-done:
	}
}

// checkVersion refuses a direct-ABI module of a version this host does not
// implement, rather than guess what its exports mean.
func (in *instance) checkVersion(ctx context.Context) error {
	fn := in.mod.ExportedFunction(abi.ExportVersion)
	ctx, cancel := deadline.Bound(ctx, startTimeout)
	defer cancel()
	in.call.Reset(hostenv.WithCall(ctx, in.call), nil)
	defer in.call.Done()
	if err := fn.CallWithStack(hostenv.WithCall(ctx, in.call), in.stack[:]); err != nil {
		return fmt.Errorf("%s: %s", abi.ExportVersion, firstLine(err.Error()))
	}
	if v := int32(in.stack[0]); v != abi.Version {
		return fmt.Errorf("module implements direct ABI version %d, this host implements version %d; "+
			"rebuild the plugin against abi/README.md", v, abi.Version)
	}
	return nil
}

func (in *instance) close() {
	if in.mod != nil {
		_ = in.mod.Close(context.Background())
	}
}

// failure is why a guest call did not produce output.
type failure struct {
	reason  string
	timeout bool
	// discard is set when the instance's state is suspect (a trap, an exit,
	// a deadline, a limit): it must not serve another call.
	discard bool
}

// trapped classifies the error of a guest call that did not return normally.
func (in *instance) trapped(ctx context.Context, err error, start time.Time, budget time.Duration) *failure {
	f := &failure{discard: true}
	var exit *sys.ExitError
	switch {
	case deadline.TimedOut(ctx, err, start, budget):
		f.timeout, f.reason = true, spec.ReasonTimeout
	case deadline.Cancelled(ctx):
		f.reason = "cancelled by the caller"
	case in.call.Fault() != nil:
		f.reason = in.call.Fault().Error()
	case errors.As(err, &exit):
		f.reason = fmt.Sprintf("exited with code %d", exit.ExitCode()) + in.stderr.suffix()
	default:
		f.reason = firstLine(err.Error()) + in.stderr.suffix()
	}
	return f
}

// run makes one guest call: invoke with params, or describe when params is
// nil. The returned bytes live in guest or arena memory and are valid until
// the instance's next call.
func (in *instance) run(ctx context.Context, p *Plugin, params *spec.InvokeParams, ctxJSON []byte, budget time.Duration) ([]byte, *failure) {
	start := time.Now()
	in.stderr.reset()
	ctx = hostenv.WithCall(ctx, in.call)
	var out []byte
	var f *failure
	if p.conv == ConventionDirect {
		out, f = in.runDirect(ctx, params, ctxJSON, start, budget)
	} else {
		out, f = in.runExtism(ctx, params, ctxJSON, start, budget)
	}
	if f != nil {
		return nil, f
	}
	if len(out) > p.limits.MaxOutputBytes {
		return nil, &failure{discard: true,
			reason: fmt.Sprintf("output of %d bytes exceeds the limit of %d bytes", len(out), p.limits.MaxOutputBytes)}
	}
	// A result that arrives after the deadline is not used, even in the mode
	// that could not interrupt the guest.
	if deadline.TimedOut(ctx, nil, start, budget) {
		return nil, &failure{timeout: true, reason: spec.ReasonTimeout}
	}
	return out, nil
}

func (in *instance) runExtism(ctx context.Context, params *spec.InvokeParams, ctxJSON []byte, start time.Time, budget time.Duration) ([]byte, *failure) {
	fn := in.describeFn
	input := in.in[:0]
	if params != nil {
		fn = in.invokeFn
		input = appendInput(input, params, ctxJSON)
		// Keep the buffer for the next call unless one payload made it big.
		if cap(input) <= 1<<20 {
			in.in = input
		}
	}
	in.call.Reset(ctx, input)
	defer in.call.Done()
	in.stack[0] = 0
	if err := fn.CallWithStack(ctx, in.stack[:]); err != nil {
		return nil, in.trapped(ctx, err, start, budget)
	}
	if rc := int32(in.stack[0]); rc != 0 {
		msg, ok := in.call.Error()
		if !ok {
			msg = fmt.Sprintf("returned %d without an error message", rc)
		}
		return nil, &failure{reason: truncate(msg, 1024)}
	}
	out, ok := in.call.Output()
	if !ok {
		return nil, &failure{reason: "returned 0 but set no output"}
	}
	return out, nil
}

func (in *instance) runDirect(ctx context.Context, params *spec.InvokeParams, ctxJSON []byte, start time.Time, budget time.Duration) ([]byte, *failure) {
	in.call.Reset(ctx, nil)
	defer in.call.Done()
	fn := in.describeFn
	if params != nil {
		fn = in.invokeFn
		n := inputSize(params, ctxJSON)
		if n > abi.MaxLen {
			return nil, &failure{reason: fmt.Sprintf("input of %d bytes is too large for the direct ABI", n)}
		}
		in.stack[0] = uint64(n)
		if err := in.allocFn.CallWithStack(ctx, in.stack[:]); err != nil {
			return nil, in.trapped(ctx, err, start, budget)
		}
		ptr := uint32(in.stack[0])
		if ptr == 0 {
			return nil, &failure{discard: true, reason: fmt.Sprintf("%s could not allocate %d bytes", abi.ExportAlloc, n)}
		}
		view, ok := in.mem.Read(ptr, uint32(n))
		if !ok {
			return nil, &failure{discard: true, reason: fmt.Sprintf("%s returned %d bytes at %d, outside memory", abi.ExportAlloc, n, ptr)}
		}
		// The input is encoded straight into guest memory: view has
		// capacity n, so appendInput cannot move it elsewhere unless
		// inputSize and appendInput disagree, which is checked.
		if w := appendInput(view[:0:n], params, ctxJSON); len(w) != n || unsafe.SliceData(w) != unsafe.SliceData(view) {
			return nil, &failure{reason: "internal error: input size mismatch"}
		}
		in.stack[0], in.stack[1] = uint64(ptr), uint64(n)
	}
	if err := fn.CallWithStack(ctx, in.stack[:]); err != nil {
		return nil, in.trapped(ctx, err, start, budget)
	}
	r := abi.Result(in.stack[0])
	out, ok := in.mem.Read(r.Ptr(), r.Len())
	if !ok {
		return nil, &failure{discard: true, reason: fmt.Sprintf("returned %d bytes at %d, outside memory", r.Len(), r.Ptr())}
	}
	if r.IsError() {
		return nil, &failure{reason: truncate(string(out), 1024)}
	}
	if len(out) == 0 {
		return nil, &failure{reason: "returned an empty output"}
	}
	return out, nil
}

// stderrTail keeps the beginning of what a guest writes to stderr during one
// call (a Go panic message, for example), bounded.
type stderrTail struct {
	buf []byte
	max int
}

func (t *stderrTail) Write(b []byte) (int, error) {
	if room := t.max - len(t.buf); room > 0 {
		t.buf = append(t.buf, b[:min(room, len(b))]...)
	}
	return len(b), nil
}

func (t *stderrTail) reset() { t.buf = t.buf[:0] }

// suffix returns ": <the most telling line of stderr>" or "".
func (t *stderrTail) suffix() string {
	lines := strings.Split(string(t.buf), "\n")
	for _, prefix := range []string{"panic:", "fatal error:"} {
		for _, l := range lines {
			if strings.HasPrefix(l, prefix) {
				return ": " + truncate(l, 512)
			}
		}
	}
	for _, l := range lines {
		if l = strings.TrimSpace(l); l != "" {
			return ": " + truncate(l, 512)
		}
	}
	return ""
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return truncate(s, 512)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
