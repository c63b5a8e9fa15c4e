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
	// is, even in a loop that never calls the host; the instance is closed
	// and replaced. It is the default and the only mode that bounds a
	// runaway plugin. On wazero v1.12.0 it makes Go plugins 10-17x slower
	// (a check on every loop back-edge).
	DeadlineInterrupt DeadlineMode = iota
	// DeadlineAtHostCalls checks the deadline only when the guest calls the
	// host and when it returns: a late result is still a timeout, but a
	// guest stuck in a loop holds its instance (and its caller) until it
	// stops by itself (and Plugin.Close waits for it). Only for trusted
	// plugins whose speed matters more.
	DeadlineAtHostCalls
)

func (m DeadlineMode) internal() deadline.Mode {
	if m == DeadlineAtHostCalls {
		return deadline.AtHostCalls
	}
	return deadline.Interrupt
}

// String names the mode.
func (m DeadlineMode) String() string {
	if m == DeadlineAtHostCalls {
		return "at-host-calls"
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
