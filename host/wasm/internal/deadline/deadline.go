package deadline

import (
	"context"
	"errors"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/sys"

	"github.com/airlock-mcp/airlock/host/wasm/internal/instrument"
)

// Mode says how deadlines are enforced for one plugin.
type Mode uint8

const (
	// Interrupt stops the guest wherever it is when the deadline passes: the
	// module is rewritten at load with fuel checks at every function entry
	// and loop header ([Prepare]), and the host's tick ends the call once
	// the deadline has passed. The instance must then be replaced.
	Interrupt Mode = iota
	// AtHostCalls observes the deadline only at host calls and on return. A
	// guest that loops without calling the host runs until it stops by
	// itself; its result is then discarded as a timeout.
	AtHostCalls
	// CloseOnContextDone is wazero's own mechanism: compiled code checks for
	// a done context on every loop back-edge and function entry (an exit to
	// Go each time) and closes the instance. Kept for comparison, and as the
	// fallback for a module the rewriter cannot read.
	CloseOnContextDone
)

// Refill is the fuel one tick grants: the number of instructions the guest
// may run, counted at load and charged ahead at each check, before it asks
// the host again. Straight code runs a few hundred million instructions per
// second or more, so a runaway guest is stopped within a few milliseconds of
// its deadline (about a millisecond measured, for loops in every language)
// unless each instruction costs tens of nanoseconds (a loop of dependent
// cache misses). The count is an upper bound: Go's code, whose loops are
// dispatch loops over a whole function, is charged many times what it runs
// and ticks more often, which costs a Go plugin 1 to 2% (a tick is a call
// into Go and a read of the clock).
const Refill = 1 << 21

// Configure returns cfg set up for m. The compiled code differs by mode
// (rewritten bytes, or wazero's own checks), and wazero keys its compilation
// cache by both, so every mode can share one cache.
func (m Mode) Configure(cfg wazero.RuntimeConfig) wazero.RuntimeConfig {
	return cfg.WithCloseOnContextDone(m == CloseOnContextDone)
}

// Prepare returns the module to compile for m: for Interrupt, bin rewritten
// with fuel checks; otherwise bin itself. When the rewriter cannot read bin,
// it returns bin, CloseOnContextDone and the reason: the caller should say
// so, since that mode costs much more.
func (m Mode) Prepare(bin []byte) ([]byte, Mode, error) {
	if m != Interrupt {
		return bin, m, nil
	}
	out, _, err := instrument.Rewrite(bin)
	if err != nil {
		return bin, CloseOnContextDone, err
	}
	return out, Interrupt, nil
}

// ImportModule is the host module rewritten modules import; a plugin may not
// import it itself.
const ImportModule = instrument.ImportModule

// Instantiate adds the host module that rewritten modules call into to rt.
func Instantiate(ctx context.Context, rt wazero.Runtime) error {
	_, err := rt.NewHostModuleBuilder(instrument.ImportModule).
		NewFunctionBuilder().
		WithGoModuleFunction(api.GoModuleFunc(tick), nil, []api.ValueType{api.ValueTypeI64}).
		Export(instrument.ImportName).
		Instantiate(ctx)
	return err
}

// tick is called by the guest when its fuel runs out. It runs on the guest's
// own goroutine and reads the clock itself, so it needs no timer to fire and
// no other goroutine to run: it stops a runaway guest even when every thread
// of the host is busy running guests. Being Go code, it is also a point where
// the Go scheduler can preempt the goroutine.
func tick(ctx context.Context, _ api.Module, stack []uint64) {
	if err := ctx.Err(); err != nil {
		stop(err)
	}
	if d, ok := ctx.Deadline(); ok && !time.Now().Before(d) {
		stop(context.DeadlineExceeded)
	}
	stack[0] = Refill
}

// stop ends the guest call: wazero returns the exit error from the call
// unwrapped.
func stop(err error) {
	if errors.Is(err, context.Canceled) {
		panic(sys.NewExitError(sys.ExitCodeContextCanceled))
	}
	panic(sys.NewExitError(sys.ExitCodeDeadlineExceeded))
}

// Bound returns the context a guest call runs under: ctx with the deadline
// d from now (or ctx's own, if sooner).
func Bound(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, d)
}

// TimedOut reports whether a guest call that ran under ctx (from [Bound]),
// started at start with budget d and ended with err, ran out of time. A call
// that returned normally but late counts too: its result arrived after the
// caller stopped waiting for it.
func TimedOut(ctx context.Context, err error, start time.Time, d time.Duration) bool {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return true
	}
	if err != nil {
		var exit *sys.ExitError
		if errors.As(err, &exit) && exit.ExitCode() == sys.ExitCodeDeadlineExceeded {
			return true
		}
	}
	return time.Since(start) > d
}

// Cancelled reports whether the call's context was cancelled (not timed out):
// the caller gave up, for example because a whole chain ran out of time.
func Cancelled(ctx context.Context) bool {
	return errors.Is(ctx.Err(), context.Canceled)
}
