// Package hostapi is the seam between the PDK and whatever runs it: the real
// host (the wasip1 exports of package pdk) or the in-process test host of
// package pdktest. Nothing outside pdk/ can import it.
package hostapi

// Host is what a running interceptor may ask of its host. Every call of an
// interceptor gets one; the PDK never keeps it past the call.
type Host interface {
	// Log writes one record at level (abi.LogTrace ... abi.LogError).
	Log(level int32, msg string)
	// VarGet returns a copy of the plugin variable key.
	VarGet(key string) ([]byte, bool)
	// VarSet stores a copy of val; false when the store is full.
	VarSet(key string, val []byte) bool
	// VarDelete removes the key if set.
	VarDelete(key string)
	// Config returns the plugin-wide configuration value of key.
	Config(key string) (string, bool)
}

// FixedConfig is implemented by a host whose plugin configuration cannot
// change during the plugin's life (the real host): the PDK may then cache
// what it reads of it.
type FixedConfig interface{ FixedConfig() }

// Set by package pdk when it is initialised, so that pdktest can drive the
// PDK's registry without pdk exporting a dispatch function.
var (
	// Invoke runs one interceptor/invoke with input (the params JSON) and
	// returns the InterceptorResult JSON, or the failure message.
	Invoke func(h Host, input []byte) ([]byte, error)
	// Describe returns the interceptors/list result JSON.
	Describe func() ([]byte, error)
)
