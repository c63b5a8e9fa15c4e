package deadline

import (
	"context"
	"errors"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/sys"
)

// Mode says how deadlines are enforced for one plugin.
type Mode uint8

const (
	// Interrupt stops the guest wherever it is when the deadline passes; the
	// instance is closed and must be replaced.
	Interrupt Mode = iota
	// AtHostCalls observes the deadline only at host calls and on return. A
	// guest that loops without calling the host runs until it stops by
	// itself; its result is then discarded as a timeout.
	AtHostCalls
)

// Configure returns cfg set up for m. Modules compiled with different modes
// differ (the interrupting code is compiled in), and wazero keys its
// compilation cache by the mode, so both can share one cache.
func (m Mode) Configure(cfg wazero.RuntimeConfig) wazero.RuntimeConfig {
	return cfg.WithCloseOnContextDone(m == Interrupt)
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
