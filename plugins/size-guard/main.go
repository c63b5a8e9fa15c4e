// Command size-guard is a validator that limits the size of what flows
// through: request payloads (tool arguments, prompts), response payloads
// (tool results, resource contents), single strings and nesting depth.
//
// Build: airlock plugin build plugins/size-guard -o size-guard.wasm
package main

import (
	"encoding/json"

	"github.com/airlock-mcp/airlock/pdk"
)

func main() {}

// Config is the plugin's configuration. A limit of 0 is off.
type Config struct {
	// MaxRequestBytes caps a request payload (for tools/call: the params,
	// arguments included). Default 1 MiB.
	MaxRequestBytes int `json:"maxRequestBytes"`
	// MaxResponseBytes caps a response payload. Default 4 MiB.
	MaxResponseBytes int `json:"maxResponseBytes"`
	// MaxStringBytes caps any single string value. Default off.
	MaxStringBytes int `json:"maxStringBytes"`
	// MaxDepth caps the nesting of objects and arrays. Default 64.
	MaxDepth int `json:"maxDepth"`
}

func init() {
	pdk.Validator(pdk.Descriptor{
		Name: "size-guard", Version: "1.0.0",
		Description: "Limits payload sizes, string lengths and nesting depth.",
		Events:      []string{"*"}, Phase: pdk.Both,
		ConfigSchema: json.RawMessage(`{"type":"object","properties":{"maxRequestBytes":{"type":"integer","minimum":0},` +
			`"maxResponseBytes":{"type":"integer","minimum":0},"maxStringBytes":{"type":"integer","minimum":0},"maxDepth":{"type":"integer","minimum":0}}}`),
	}, guard)
}

func guard(c *pdk.Call) pdk.Verdict {
	cfg := Config{MaxRequestBytes: 1 << 20, MaxResponseBytes: 4 << 20, MaxDepth: 64}
	if err := c.Config(&cfg); err != nil {
		c.Fail(err)
	}
	var v pdk.Verdict
	n := len(c.Payload())
	max, what := cfg.MaxRequestBytes, "request"
	if c.Phase() == pdk.Response {
		max, what = cfg.MaxResponseBytes, "response"
	}
	if max > 0 && n > max {
		v.Error("", "%s %s payload is %d bytes, over the limit of %d", c.Event(), what, n, max)
	}
	if cfg.MaxDepth > 0 {
		if d, at := depth(c.Payload()); d > cfg.MaxDepth {
			v.Error("", "payload nests %d levels deep (at byte %d), over the limit of %d", d, at, cfg.MaxDepth)
		}
	}
	if cfg.MaxStringBytes > 0 {
		c.WalkStrings(func(p pdk.Path, s string) {
			if len(s) > cfg.MaxStringBytes {
				v.Error(p.String(), "string of %d bytes, over the limit of %d", len(s), cfg.MaxStringBytes)
			}
		})
	}
	info := map[string]int{"bytes": n}
	v.SetInfo(info)
	return v
}

// depth returns the deepest nesting of b and where it is first reached.
func depth(b []byte) (int, int) {
	d, deepest, at := 0, 0, 0
	inStr := false
	for i := 0; i < len(b); i++ {
		switch ch := b[i]; {
		case inStr:
			if ch == '\\' {
				i++
			} else if ch == '"' {
				inStr = false
			}
		case ch == '"':
			inStr = true
		case ch == '{' || ch == '[':
			if d++; d > deepest {
				deepest, at = d, i
			}
		case ch == '}' || ch == ']':
			d--
		}
	}
	return deepest, at
}
