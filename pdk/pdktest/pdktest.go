// Package pdktest runs a plugin's interceptors on the host, with plain
// `go test` and no WebAssembly: the handlers registered with package pdk in
// the package under test are called in-process, through the same decoding
// and encoding as in a plugin, with an in-memory host (plugin
// configuration, variables, a recorded log).
//
//	func TestBlocksRm(t *testing.T) {
//		env := pdktest.New(t)
//		res := env.MustInvoke("no-rm", "tools/call", pdk.Request,
//			`{"name":"shell","arguments":{"cmd":"rm -rf /"}}`)
//		if res.Valid {
//			t.Fatal("rm -rf was allowed")
//		}
//	}
//
// An Env also satisfies the chain runner's source interface
// (Interceptors, Invoke), so handlers can be tested inside a chain.
package pdktest

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/airlock-mcp/airlock/pdk"
	"github.com/airlock-mcp/airlock/pdk/internal/hostapi"
	"github.com/airlock-mcp/airlock/spec"
)

// Env is an in-memory host for the registered interceptors. It is safe for
// concurrent use.
type Env struct {
	tb testing.TB

	mu       sync.Mutex
	config   map[string]string
	vars     map[string][]byte
	varBytes int
	// MaxVarBytes caps the variables (keys plus values), as the real host
	// does; default 1 MiB.
	MaxVarBytes int
	logs        []Log
}

// Log is one record a handler logged.
type Log struct {
	Level int32
	Msg   string
}

// New returns an empty host. tb may be nil (for benchmarks and examples that
// check errors themselves).
func New(tb testing.TB) *Env {
	return &Env{tb: tb, config: map[string]string{}, vars: map[string][]byte{}, MaxVarBytes: 1 << 20}
}

// WithConfig sets the plugin configuration (what wasm.Options.Config gives
// a real plugin) and returns e.
func (e *Env) WithConfig(cfg map[string]string) *Env {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.config = maps.Clone(cfg)
	return e
}

// Interceptors returns the registered descriptors, as describe would. The
// registration errors, if any, are returned as one error.
func (e *Env) Interceptors(context.Context) ([]spec.Interceptor, error) {
	descs, err := pdk.Registered()
	if err != nil {
		return nil, err
	}
	return descs, nil
}

// Invoke runs p through the PDK as the host would: refused with -32602 when
// the name or (event, phase) is not covered, -32603 when the handler fails
// or its result would not pass the host's checks (spec.CheckResult).
func (e *Env) Invoke(_ context.Context, p *spec.InvokeParams) (*spec.Result, error) {
	descs, err := pdk.Registered()
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(descs, func(d spec.Interceptor) bool { return d.Name == p.Name })
	if i < 0 {
		return nil, spec.UnknownInterceptor(p.Name)
	}
	d := descs[i]
	if !d.Matches(p.Event, p.Phase) {
		return nil, spec.HookNotCovered(p.Name, p.Event, p.Phase, d.Hooks)
	}
	if len(p.Payload) == 0 {
		p.Payload = json.RawMessage(`{}`)
	}
	in, err := json.Marshal(p)
	if err != nil {
		return nil, spec.InvalidParams(p.Name, err.Error())
	}
	out, err := hostapi.Invoke((*host)(e), in)
	if err != nil {
		return nil, spec.InvocationFailed(p.Name, err.Error())
	}
	var r spec.Result
	if err := json.Unmarshal(out, &r); err != nil {
		return nil, spec.InvocationFailed(p.Name, "malformed result: "+err.Error())
	}
	if err := spec.CheckResult(&r, p, d.Type); err != nil {
		return nil, spec.InvocationFailed(p.Name, err.Error())
	}
	return &r, nil
}

// Call is a shorthand for Invoke with a payload given as a JSON string.
func (e *Env) Call(name, event string, phase spec.Phase, payload string, opts ...Option) (*spec.Result, error) {
	p := &spec.InvokeParams{Name: name, Event: event, Phase: phase, Payload: json.RawMessage(payload)}
	for _, o := range opts {
		o(p)
	}
	return e.Invoke(context.Background(), p)
}

// MustInvoke is Call that fails the test on error.
func (e *Env) MustInvoke(name, event string, phase spec.Phase, payload string, opts ...Option) *spec.Result {
	if e.tb != nil {
		e.tb.Helper()
	}
	r, err := e.Call(name, event, phase, payload, opts...)
	if err != nil {
		if e.tb == nil {
			panic(err)
		}
		e.tb.Fatalf("invoke %s %s %s: %v", name, event, phase, err)
	}
	return r
}

// Option adjusts the params of [Env.Call].
type Option func(*spec.InvokeParams)

// WithCallConfig sets the call's own config (a JSON object).
func WithCallConfig(cfg string) Option {
	return func(p *spec.InvokeParams) { p.Config = json.RawMessage(cfg) }
}

// WithPrincipal sets the caller.
func WithPrincipal(typ spec.PrincipalType, id string) Option {
	return func(p *spec.InvokeParams) {
		if p.Context == nil {
			p.Context = &spec.Context{}
		}
		p.Context.Principal = &spec.Principal{Type: typ, ID: id}
	}
}

// WithContext sets the call's whole context.
func WithContext(c spec.Context) Option {
	return func(p *spec.InvokeParams) { p.Context = &c }
}

// Logs returns the records logged so far.
func (e *Env) Logs() []Log {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.logs)
}

// LogText is every record's message, one per line.
func (e *Env) LogText() string {
	var b strings.Builder
	for _, l := range e.Logs() {
		fmt.Fprintln(&b, l.Msg)
	}
	return b.String()
}

// Var returns a plugin variable.
func (e *Env) Var(key string) ([]byte, bool) { return (*host)(e).VarGet(key) }

// host is the hostapi.Host the handlers see.
type host Env

// Log records a log line.
func (e *host) Log(level int32, msg string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(msg) > 8<<10 {
		msg = msg[:8<<10]
	}
	e.logs = append(e.logs, Log{level, msg})
}

// VarGet returns a copy of a variable.
func (e *host) VarGet(key string) ([]byte, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	v, ok := e.vars[key]
	return slices.Clone(v), ok
}

// VarSet stores a copy of a variable; false past MaxVarBytes.
func (e *host) VarSet(key string, val []byte) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	size := e.varBytes + len(key) + len(val)
	if old, ok := e.vars[key]; ok {
		size -= len(key) + len(old)
	}
	if size > e.MaxVarBytes {
		return false
	}
	e.vars[key] = slices.Clone(val)
	e.varBytes = size
	return true
}

// VarDelete removes a variable.
func (e *host) VarDelete(key string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if old, ok := e.vars[key]; ok {
		e.varBytes -= len(key) + len(old)
		delete(e.vars, key)
	}
}

// Config returns a plugin configuration value.
func (e *host) Config(key string) (string, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	v, ok := e.config[key]
	return v, ok
}

var _ hostapi.Host = (*host)(nil)
