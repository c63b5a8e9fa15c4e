// Command rate-limit is a validator that limits how many tools/call requests
// each principal may make per tool in a time window, counting in plugin
// variables so that every instance of the plugin shares the count.
//
// Build: airlock plugin build plugins/rate-limit -o rate-limit.wasm
package main

import (
	"encoding/binary"
	"encoding/json"
	"path"
	"time"

	"github.com/airlock-mcp/airlock/pdk"
)

func main() {}

// Config is the plugin's configuration.
type Config struct {
	// Limit is the number of calls a principal may make to one tool per
	// window. Default 60.
	Limit int `json:"limit"`
	// WindowSeconds is the length of the fixed window. Default 60.
	WindowSeconds int `json:"windowSeconds"`
	// PerTool overrides Limit for tools matching a name or path.Match glob
	// (exact names win over globs). 0 forbids the tool; -1 exempts it.
	PerTool map[string]int `json:"perTool"`
	// PerPrincipal overrides Limit for a principal ("user:alice",
	// "service:ci", "anonymous"); it wins over PerTool.
	PerPrincipal map[string]int `json:"perPrincipal"`
}

func init() {
	pdk.Validator(pdk.Descriptor{
		Name: "rate-limit", Version: "1.0.0",
		Description: "Limits tools/call requests per principal and tool in a fixed time window.",
		Events:      []string{"tools/call"}, Phase: pdk.Request,
		ConfigSchema: json.RawMessage(`{"type":"object","properties":{"limit":{"type":"integer","minimum":0},` +
			`"windowSeconds":{"type":"integer","minimum":1},"perTool":{"type":"object"},"perPrincipal":{"type":"object"}}}`),
	}, limit)
}

// now is replaced by tests.
var now = time.Now

func limit(c *pdk.Call) pdk.Verdict {
	cfg := Config{Limit: 60, WindowSeconds: 60}
	if err := c.Config(&cfg); err != nil {
		c.Fail(err)
	}
	if cfg.WindowSeconds <= 0 {
		c.Failf("windowSeconds must be positive")
	}
	tool, who := c.ToolName(), c.PrincipalKey()
	max := cfg.Limit
	if n, ok := cfg.PerTool[tool]; ok {
		max = n
	} else {
		for g, n := range cfg.PerTool {
			if ok, _ := path.Match(g, tool); ok {
				max = n
				break
			}
		}
	}
	if n, ok := cfg.PerPrincipal[who]; ok {
		max = n
	}
	if max < 0 {
		return pdk.Allow()
	}
	t := now().Unix()
	window := t / int64(cfg.WindowSeconds)
	reset := (window+1)*int64(cfg.WindowSeconds) - t

	// One key per principal and tool holds (window, count): a new window
	// overwrites the old count, so keys never pile up per window.
	key := "rl/" + who + "/" + tool
	var count int64
	if b, ok := c.Vars().Get(key); ok && len(b) == 16 && int64(binary.LittleEndian.Uint64(b)) == window {
		count = int64(binary.LittleEndian.Uint64(b[8:]))
	}
	if count >= int64(max) {
		v := pdk.DenyAt("/name", "rate limit: %s may call %q %d times per %ds; try again in %ds",
			who, tool, max, cfg.WindowSeconds, reset)
		v.SetInfo(map[string]any{"limit": max, "remaining": 0, "resetSeconds": reset})
		return v
	}
	count++
	b := binary.LittleEndian.AppendUint64(nil, uint64(window))
	b = binary.LittleEndian.AppendUint64(b, uint64(count))
	if err := c.Vars().Set(key, b); err != nil {
		// Fail closed: an uncountable call is not let through silently.
		c.Failf("cannot record the call: %v", err)
	}
	v := pdk.Allow()
	v.SetInfo(map[string]any{"limit": max, "remaining": int64(max) - count, "resetSeconds": reset})
	return v
}
