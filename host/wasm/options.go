package wasm

import (
	"log/slog"
	"runtime"
	"time"

	"github.com/airlock-mcp/airlock/host/wasm/internal/deadline"
)

// DeadlineMode says how a plugin's invocation deadline is enforced.
type DeadlineMode uint8

const (
	// DeadlineInterrupt stops a guest that runs past its deadline wherever it
	// is, even in a loop that never calls the host; the instance is then
	// discarded and replaced. It is the default. The module is rewritten once
	// at load so that every function entry and loop header counts down a
	// per-instance budget of instructions, and asks the host to compare the
	// clock with the deadline when it runs out (about once per million
	// instructions): a runaway guest stops within about a millisecond of its
	// deadline, and a Go plugin runs a few percent slower than with no
	// deadline at all. A module the rewriter cannot read (it uses a proposal
	// beyond WebAssembly 2.0, such as exception handling) falls back to
	// [DeadlineCloseOnContextDone], with a warning in the log.
	DeadlineInterrupt DeadlineMode = iota
	// DeadlineAtHostCalls checks the deadline only when the guest calls the
	// host and when it returns: a late result is still a timeout, but a
	// guest stuck in a loop holds its instance (and its caller) until it
	// stops by itself (and Plugin.Close waits for it). Only for trusted
	// plugins, and to measure what deadlines cost.
	DeadlineAtHostCalls
	// DeadlineCloseOnContextDone uses wazero's own interruption
	// (RuntimeConfig.WithCloseOnContextDone): it stops a loop too, but
	// exits to Go on every loop back-edge, which makes Go plugins 10-17x
	// slower on wazero v1.12.0. Kept for comparison.
	DeadlineCloseOnContextDone
)

func (m DeadlineMode) internal() deadline.Mode {
	switch m {
	case DeadlineAtHostCalls:
		return deadline.AtHostCalls
	case DeadlineCloseOnContextDone:
		return deadline.CloseOnContextDone
	}
	return deadline.Interrupt
}

// String names the mode.
func (m DeadlineMode) String() string {
	switch m {
	case DeadlineAtHostCalls:
		return "at-host-calls"
	case DeadlineCloseOnContextDone:
		return "close-on-context-done"
	}
	return "interrupt"
}

// Limits bound what one plugin may use. A zero field takes its default (see
// [DefaultLimits]).
type Limits struct {
	// MemoryPages caps each instance's linear memory, in 64 KiB pages.
	// Go plugins need at least 64 to start.
	MemoryPages uint32
	// Timeout bounds one invocation, waiting for a free instance included.
	// A call's own timeoutMs may lower it, never raise it.
	Timeout time.Duration
	// MaxOutputBytes caps the output of one invocation or describe.
	MaxOutputBytes int
	// MaxVarBytes caps the plugin's variables (keys plus values, all keys).
	MaxVarBytes int
	// MaxInstances is the pool size: the number of calls the plugin serves
	// at once. All are created at load.
	MaxInstances int
	// Deadlines selects how Timeout is enforced.
	Deadlines DeadlineMode
}

// Defaults of [Limits].
const (
	DefaultMemoryPages    = 1024 // 64 MiB
	DefaultTimeout        = time.Second
	DefaultMaxOutputBytes = 4 << 20
	DefaultMaxVarBytes    = 1 << 20
)

// DefaultMaxInstances caps the default pool size: a Go plugin's instance
// holds several MiB, and a host with many cores and many plugins would
// otherwise reserve gigabytes for concurrency it may never see.
const DefaultMaxInstances = 8

// DefaultLimits returns the limits a zero [Limits] stands for. MaxInstances
// defaults to GOMAXPROCS (a wasm call holds a thread while it runs, so more
// instances than threads only add memory), at most [DefaultMaxInstances].
func DefaultLimits() Limits {
	return Limits{
		MemoryPages:    DefaultMemoryPages,
		Timeout:        DefaultTimeout,
		MaxOutputBytes: DefaultMaxOutputBytes,
		MaxVarBytes:    DefaultMaxVarBytes,
		MaxInstances:   min(runtime.GOMAXPROCS(0), DefaultMaxInstances),
		Deadlines:      DeadlineInterrupt,
	}
}

// withDefaults fills the zero fields of l.
func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	if l.MemoryPages == 0 {
		l.MemoryPages = d.MemoryPages
	}
	if l.Timeout <= 0 {
		l.Timeout = d.Timeout
	}
	if l.MaxOutputBytes <= 0 {
		l.MaxOutputBytes = d.MaxOutputBytes
	}
	if l.MaxVarBytes <= 0 {
		l.MaxVarBytes = d.MaxVarBytes
	}
	if l.MaxInstances <= 0 {
		l.MaxInstances = d.MaxInstances
	}
	return l
}

// Options configure one plugin. The zero value works: a sandboxed plugin with
// default limits, no configuration and no network.
type Options struct {
	// Name identifies the plugin in errors and logs. Default: the file's base
	// name for [Engine.LoadFile], "plugin" for [Engine.Load].
	Name string
	// Config is the plugin's configuration, read with Extism config_get.
	// (The per-call config travels in each invocation's input.)
	Config map[string]string
	// AllowedHosts are the hosts Extism http_request may reach: exact names
	// or path.Match globs ("*.example.com"). Empty: no HTTP at all.
	AllowedHosts []string
	// Limits bound the plugin's resources.
	Limits Limits
	// Logger receives the plugin's log records (with plugin=Name) and the
	// host's reports about it. Default: the engine's logger.
	Logger *slog.Logger
}
