package hostenv

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
)

// Shared is the per-plugin state every instance's host calls see. It is set
// up once at load and read-only afterwards, apart from Vars.
type Shared struct {
	Plugin       string            // the plugin's name, for logs and errors
	Logger       *slog.Logger      // records go here with plugin=Plugin
	Config       map[string]string // answers Extism config_get
	AllowedHosts []string          // hosts http_request may reach (exact or path.Match glob)
	HTTPClient   *http.Client      // used for allowed requests
	Vars         *Vars             // plugin variables, shared by all instances
	MaxArena     int               // bytes of Extism host memory per call
	MaxLogBytes  int               // longer log records are truncated
	MaxHTTPBody  int               // bytes of an HTTP response body kept
}

// Call is the state of one instance, reset at the start of every guest call.
// The zero value is not usable: build it with [NewCall].
type Call struct {
	sh  *Shared
	ctx context.Context

	// input is the current invocation's input (Extism input_*).
	input       []byte
	inputHandle uint64

	// arena is the Extism host memory: blocks of an 8-byte little-endian
	// length followed by the data; a handle is the offset of the data.
	arena []byte
	last  uint64 // most recent handle, which free can give back at once

	outSet         bool
	outOff, outLen uint64
	errSet         bool
	errMsg         string

	httpStatus  int32
	httpHeaders []byte

	fault error
}

// NewCall returns the state of a new instance of a plugin.
func NewCall(sh *Shared) *Call { return &Call{sh: sh} }

// Shared returns the plugin state this call belongs to.
func (c *Call) Shared() *Shared { return c.sh }

type callKey struct{}

// WithCall returns ctx carrying c, for the duration of one guest call.
func WithCall(ctx context.Context, c *Call) context.Context {
	return context.WithValue(ctx, callKey{}, c)
}

// callFrom returns the Call of a guest call. A host function entered without
// one (a misuse of the host by Airlock itself) panics: wazero reports it as a
// trap of that guest call, never as a host crash.
func callFrom(ctx context.Context) *Call {
	c, ok := ctx.Value(callKey{}).(*Call)
	if !ok {
		panic("airlock: host function called outside a plugin call")
	}
	return c
}

// Reset prepares c for a guest call with the given input and context. The
// input is not copied: the caller keeps it unchanged until the call returns.
func (c *Call) Reset(ctx context.Context, input []byte) {
	c.ctx = ctx
	c.input = input
	c.inputHandle = 0
	// Keep the arena's capacity for the next call (no allocation on the hot
	// path), unless one call made it large: then let it go.
	if cap(c.arena) > 1<<20 {
		c.arena = nil
	}
	c.arena = c.arena[:0]
	c.last = 0
	c.outSet, c.outOff, c.outLen = false, 0, 0
	c.errSet, c.errMsg = false, ""
	c.httpStatus, c.httpHeaders = 0, nil
	c.fault = nil
}

// Done drops the references a finished call no longer needs.
// Context is the context of the guest call in progress, or nil between
// calls. Only the goroutine running the call may use it.
func (c *Call) Context() context.Context { return c.ctx }

func (c *Call) Done() {
	c.ctx = nil
	c.input = nil
}

// Output returns the bytes set with Extism output_set, valid until the next
// Reset. ok is false when the plugin set no output.
func (c *Call) Output() (out []byte, ok bool) {
	if !c.outSet {
		return nil, false
	}
	return c.arena[c.outOff : c.outOff+c.outLen], true
}

// Error returns the message set with Extism error_set.
func (c *Call) Error() (msg string, ok bool) { return c.errMsg, c.errSet }

// Fault returns why a host function failed the call, or nil.
func (c *Call) Fault() error { return c.fault }

// fail records err as the reason of the call's failure and traps.
func (c *Call) fail(format string, args ...any) {
	c.fault = fmt.Errorf(format, args...)
	panic(c.fault)
}

// checkDeadline fails the call when its context is done. Host functions that
// are not per-byte call it, so that a deadline is honoured at host crossings
// even where the runtime cannot interrupt the guest.
func (c *Call) checkDeadline() {
	if err := c.ctx.Err(); err != nil {
		c.fault = err
		panic(err)
	}
}

const blockHeader = 8

// alloc reserves n bytes of arena and returns their handle (never 0).
func (c *Call) alloc(n uint64) uint64 {
	start := (uint64(len(c.arena)) + 7) &^ 7
	end := start + blockHeader + n
	if n > uint64(c.sh.MaxArena) || end > uint64(c.sh.MaxArena) {
		c.fail("extism host memory limit of %d bytes per call exceeded (alloc of %d bytes)", c.sh.MaxArena, n)
	}
	if end > uint64(cap(c.arena)) {
		grown := make([]byte, end, max(end, 2*uint64(cap(c.arena)), 4096))
		copy(grown, c.arena)
		c.arena = grown
	} else {
		c.arena = c.arena[:end]
	}
	binary.LittleEndian.PutUint64(c.arena[start:], n)
	h := start + blockHeader
	c.last = h
	return h
}

// allocBytes stores b in a new block.
func (c *Call) allocBytes(b []byte) uint64 {
	h := c.alloc(uint64(len(b)))
	copy(c.arena[h:], b)
	return h
}

// length returns the length of the block h, or 0 and false if h is not the
// handle of a block inside the arena.
func (c *Call) length(h uint64) (uint64, bool) {
	if h < blockHeader || h > uint64(len(c.arena)) {
		return 0, false
	}
	n := binary.LittleEndian.Uint64(c.arena[h-blockHeader:])
	if n > uint64(len(c.arena))-h {
		return 0, false
	}
	return n, true
}

// block returns the bytes of block h, failing the call for a bad handle.
func (c *Call) block(h uint64, what string) []byte {
	n, ok := c.length(h)
	if !ok {
		c.fail("%s: invalid extism handle %d", what, h)
	}
	return c.arena[h : h+n]
}

func (c *Call) free(h uint64) {
	// Only the most recent block can be given back before the end of the
	// call; that covers the PDKs' alloc-use-free patterns inside loops.
	if h != 0 && h == c.last {
		c.arena = c.arena[:h-blockHeader]
		c.last = 0
	}
}

// Vars is a plugin's variable store: keys and values with a cap on their
// total size, safe for concurrent use by all the plugin's instances.
type Vars struct {
	mu    sync.RWMutex
	m     map[string][]byte
	size  int
	limit int
}

// NewVars returns an empty store holding at most limit bytes (keys plus
// values).
func NewVars(limit int) *Vars { return &Vars{m: map[string][]byte{}, limit: limit} }

// Get returns a copy of the value of key.
func (v *Vars) Get(key string) ([]byte, bool) {
	v.mu.RLock()
	defer v.mu.RUnlock()
	val, ok := v.m[key]
	return bytes.Clone(val), ok
}

// getInto calls f with the stored value while the lock is held, so that the
// value can be copied straight into guest or arena memory.
func (v *Vars) getInto(key []byte, f func([]byte)) bool {
	v.mu.RLock()
	defer v.mu.RUnlock()
	val, ok := v.m[string(key)]
	if ok {
		f(val)
	}
	return ok
}

// Set stores a copy of val; false (and nothing stored) when the store would
// exceed its limit.
func (v *Vars) Set(key string, val []byte) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	size := v.size + len(key) + len(val)
	if old, ok := v.m[key]; ok {
		size -= len(key) + len(old)
	}
	if size > v.limit {
		return false
	}
	v.m[key] = append([]byte(nil), val...)
	v.size = size
	return true
}

// Delete removes key.
func (v *Vars) Delete(key string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if old, ok := v.m[key]; ok {
		v.size -= len(key) + len(old)
		delete(v.m, key)
	}
}

// Size is the number of bytes held (keys plus values).
func (v *Vars) Size() int {
	v.mu.RLock()
	defer v.mu.RUnlock()
	return v.size
}
