// Package e2eplugin registers the interceptors of the PDK's end-to-end test
// plugin. The plugin (testdata/e2e) imports it for WebAssembly; the PDK's
// tests import it to run the same handlers in-process, so one table of cases
// checks both.
package e2eplugin

import (
	"encoding/binary"
	"strings"

	"github.com/airlock-mcp/airlock/pdk"
	"github.com/airlock-mcp/airlock/spec"
)

// Config of e2e-validate: plugin config gives defaults, call config wins.
type Config struct {
	Deny     []string `json:"deny"`
	Severity string   `json:"severity"`
}

func init() {
	pdk.Validator(pdk.Descriptor{Name: "e2e-validate", Version: "1.0.0",
		Description: "flags denied words anywhere in tools/call arguments",
		Events:      []string{"tools/call"}, Phase: pdk.Request,
		ConfigSchema: []byte(`{"type":"object","properties":{"deny":{"type":"array"},"severity":{"type":"string"}}}`),
	}, validate)

	pdk.Mutator(pdk.Descriptor{Name: "e2e-mutate", Events: []string{"tools/call"}, Phase: pdk.Response,
		Priority: spec.Priority(5)}, mutate)

	pdk.Mutator(pdk.Descriptor{Name: "e2e-typed", Events: []string{"tools/list", "llm/completion"}, Phase: pdk.Response}, typed)

	pdk.Sink(pdk.Descriptor{Name: "e2e-sink", Events: []string{"*"}, Phase: pdk.Both, Mode: spec.ModeAudit}, sink)

	pdk.Validator(pdk.Descriptor{Name: "e2e-context", Events: []string{"prompts/get"}, Phase: pdk.Request, FailOpen: true}, context)
}

func validate(c *pdk.Call) pdk.Verdict {
	call, err := c.ToolCall()
	if err != nil {
		c.Fail(err)
	}
	var args map[string]any
	if err := call.Args(&args); err != nil {
		c.Fail(err)
	}
	if _, ok := args["panic"]; ok {
		var m map[string]int
		m["boom"]++ // a real runtime panic: assignment to a nil map
	}
	if why, ok := args["fail"].(string); ok {
		c.Failf("asked to fail: %s", why)
	}
	cfg := Config{Deny: []string{"forbidden"}, Severity: "error"}
	if err := c.Config(&cfg); err != nil {
		c.Fail(err)
	}
	var v pdk.Verdict
	c.WalkStrings(func(p pdk.Path, s string) {
		for _, w := range cfg.Deny {
			if strings.Contains(s, w) {
				v.Add(spec.Severity(cfg.Severity), p.String(), "contains the denied word "+w)
				v.Suggest(p.String(), strings.ReplaceAll(s, w, "[removed]"))
			}
		}
	})
	if len(args) == 0 {
		v.Info("/arguments", "no arguments")
	}
	return v
}

func mutate(c *pdk.Call) pdk.Mutation {
	n := 0
	m := c.RewriteStrings(func(p pdk.Path, s string) (string, bool) {
		if !strings.Contains(s, "secret") {
			return "", false
		}
		n++
		return strings.ReplaceAll(s, "secret", "******"), true
	})
	if n > 0 {
		m = m.WithInfo(map[string]int{"redacted": n})
	}
	return m
}

func typed(c *pdk.Call) pdk.Mutation {
	switch c.Event() {
	case "tools/list":
		list, err := c.ToolList()
		if err != nil {
			c.Fail(err)
		}
		hide, _ := c.PluginConfig("hide")
		kept := list.Tools[:0]
		for _, t := range list.Tools {
			if t.Name != hide {
				kept = append(kept, t)
			}
		}
		list.Tools = kept
		return c.Replace(list) // unchanged when nothing was hidden
	default:
		r, err := c.LLMResponse()
		if err != nil {
			c.Fail(err)
		}
		if t := r.Message.Text(); strings.Contains(t, "TODO") {
			r.Message.SetText(strings.ReplaceAll(t, "TODO", "done"))
		}
		return c.Replace(r)
	}
}

func sink(c *pdk.Call) pdk.Record {
	key := "count/" + c.PrincipalKey()
	var n uint64
	if b, ok := c.Vars().Get(key); ok && len(b) == 8 {
		n = binary.LittleEndian.Uint64(b)
	}
	n++
	if err := c.Vars().Set(key, binary.LittleEndian.AppendUint64(nil, n)); err != nil {
		return pdk.NotRecorded(err.Error())
	}
	c.Infof("e2e-sink %s %s principal=%s trace=%s n=%d", c.Event(), c.Phase(), c.PrincipalKey(), c.Context().TraceID, n)
	return pdk.Recorded(map[string]float64{"count": float64(n), "bytes": float64(len(c.Payload()))})
}

func context(c *pdk.Call) pdk.Verdict {
	g, ok := c.PluginConfig("greeting")
	get, err := c.PromptGet()
	if err != nil {
		c.Fail(err)
	}
	v := pdk.Allow()
	v.SetInfo(map[string]any{
		"greeting": g, "hasGreeting": ok, "principal": c.PrincipalKey(),
		"traceId": c.Context().TraceID, "sessionId": c.Context().SessionID,
		"timeoutMs": c.TimeoutMs(), "meta": c.Meta(), "prompt": get.Name, "args": get.Arguments,
		"rawConfig": c.RawConfig(),
	})
	return v
}
