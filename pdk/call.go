package pdk

import (
	"encoding/json"
	"fmt"

	"github.com/airlock-mcp/airlock/abi"
	"github.com/airlock-mcp/airlock/pdk/internal/hostapi"
	"github.com/airlock-mcp/airlock/spec"
)

// Call is one invocation of an interceptor: what it is called with, and the
// host services it may use. It is valid only during the handler call.
//
// # Notes
//
//   - The raw members (Payload, RawConfig, Meta) are views of the input
//     buffer, not copies: they are valid only until the handler returns, and
//     must not be modified. Copy what must outlive the call.
//   - Nothing is decoded before a handler asks for it: the typed accessors,
//     Decode, Config, Context and Params each decode on use.
type Call struct {
	inv  invocation
	typ  spec.Type
	host hostapi.Host
	p    *spec.InvokeParams // built on first use of Params, Context or Principal
}

// spec returns the spec form of the params, built once. A context that does
// not decode fails the call.
func (c *Call) spec() *spec.InvokeParams {
	if c.p == nil {
		p, err := c.inv.params()
		if err != nil {
			c.Fail(err)
		}
		c.p = p
	}
	return c.p
}

// Name is the interceptor's name.
func (c *Call) Name() string { return c.inv.name }

// Event is the governed method ("tools/call", ...).
func (c *Call) Event() string { return c.inv.event }

// Phase is Request or Response.
func (c *Call) Phase() Phase { return c.inv.phase }

// Payload is the raw payload: the governed request's params in the request
// phase, its result in the response phase. Do not modify it, and copy it to
// keep it past the call.
func (c *Call) Payload() json.RawMessage { return c.inv.payload }

// Params are the whole interceptor/invoke params. Do not modify them.
func (c *Call) Params() *spec.InvokeParams { return c.spec() }

// TimeoutMs is the call's own deadline in milliseconds, 0 when none was
// given (the host's limit still applies).
func (c *Call) TimeoutMs() int64 { return c.inv.timeoutMs }

// Meta is the call's _meta object, or nil.
func (c *Call) Meta() json.RawMessage { return c.inv.meta }

// Context is the call's context (principal, trace and span ids, timestamp,
// session); the zero Context when the caller gave none.
func (c *Call) Context() spec.Context {
	if p := c.spec(); p.Context != nil {
		return *p.Context
	}
	return spec.Context{}
}

// Principal is the caller, or an anonymous principal when none was given.
func (c *Call) Principal() spec.Principal {
	p := c.spec()
	if p.Context == nil || p.Context.Principal == nil {
		return spec.Principal{Type: spec.PrincipalAnonymous}
	}
	return *p.Context.Principal
}

// PrincipalKey is a stable string for the caller: "type:id", or "anonymous".
// Handy as part of a variable key or for per-principal rules.
func (c *Call) PrincipalKey() string {
	p := c.Principal()
	if p.Type == "" {
		p.Type = spec.PrincipalAnonymous
	}
	if p.ID == "" {
		return string(p.Type)
	}
	return string(p.Type) + ":" + p.ID
}

// Decode decodes the payload into v.
func (c *Call) Decode(v any) error {
	if err := json.Unmarshal(c.inv.payload, v); err != nil {
		return fmt.Errorf("%s %s payload: %w", c.inv.event, c.inv.phase, err)
	}
	return nil
}

// Fail ends the handler: the invocation fails with err as its reason. A
// failure is reported by the host as a JSON-RPC error (and by a chain as a
// failure of this interceptor, fail-closed unless failOpen), never as a
// verdict.
func (c *Call) Fail(err error) {
	panic(failure{fmt.Sprintf("interceptor %q failed: %v", c.inv.name, err)})
}

// Failf is Fail with a formatted message.
func (c *Call) Failf(format string, args ...any) {
	c.Fail(fmt.Errorf(format, args...))
}

// failure is the panic value of Fail.
type failure struct{ msg string }

// Logging, to the host's structured log, tagged by the host with the
// plugin's name. Records over 8 KiB are truncated by the host.

// Log writes one record at level (abi.LogTrace ... abi.LogError).
func (c *Call) Log(level int32, msg string) { c.host.Log(level, msg) }

// Debugf logs at debug level.
func (c *Call) Debugf(format string, args ...any) {
	c.host.Log(abi.LogDebug, fmt.Sprintf(format, args...))
}

// Infof logs at info level.
func (c *Call) Infof(format string, args ...any) {
	c.host.Log(abi.LogInfo, fmt.Sprintf(format, args...))
}

// Warnf logs at warn level.
func (c *Call) Warnf(format string, args ...any) {
	c.host.Log(abi.LogWarn, fmt.Sprintf(format, args...))
}

// Errorf logs at error level. It does not fail the call; see [Call.Fail].
func (c *Call) Errorf(format string, args ...any) {
	c.host.Log(abi.LogError, fmt.Sprintf(format, args...))
}

// Vars are the plugin's variables: a key-value store kept by the host, shared
// by all instances of the plugin and surviving the loss of any of them.
func (c *Call) Vars() Vars { return Vars{c.host} }

// Vars is the plugin's variable store; see [Call.Vars].
//
// # Notes
//
//   - Each operation is atomic, a sequence of them is not: two instances of
//     the plugin serving calls at once may interleave a Get and a Set.
//   - The store is bounded (1 MiB by default, keys plus values); Set reports
//     when it is full.
type Vars struct{ h hostapi.Host }

// Get returns a copy of the value of key.
func (v Vars) Get(key string) ([]byte, bool) { return v.h.VarGet(key) }

// Set stores a copy of val under key. It returns an error when the store
// would exceed its limit (nothing is then stored).
func (v Vars) Set(key string, val []byte) error {
	if !v.h.VarSet(key, val) {
		return fmt.Errorf("pdk: plugin variable store is full (setting %q, %d bytes)", key, len(val))
	}
	return nil
}

// Delete removes key.
func (v Vars) Delete(key string) { v.h.VarDelete(key) }

// GetJSON decodes the value of key into out; false when it is not set.
func (v Vars) GetJSON(key string, out any) (bool, error) {
	b, ok := v.h.VarGet(key)
	if !ok {
		return false, nil
	}
	if err := json.Unmarshal(b, out); err != nil {
		return true, fmt.Errorf("pdk: variable %q: %w", key, err)
	}
	return true, nil
}

// SetJSON stores the JSON encoding of val under key.
func (v Vars) SetJSON(key string, val any) error {
	b, err := json.Marshal(val)
	if err != nil {
		return fmt.Errorf("pdk: variable %q: %w", key, err)
	}
	return v.Set(key, b)
}
