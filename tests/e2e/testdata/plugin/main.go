// Command plugin is the end-to-end tests' interceptor plugin. It follows the
// Extism convention with the plain github.com/extism/go-pdk, as a third-party
// author would, and hosts one interceptor of every kind plus a few that
// misbehave on purpose.
//
// Build: GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared
package main

import (
	"encoding/json"
	"strings"

	"github.com/extism/go-pdk"
)

func main() {}

const descriptors = `{"interceptors":[
 {"name":"no-aws-keys","type":"validation","hooks":[{"events":["tools/call"],"phase":"request"}],
  "configSchema":{"type":"object","properties":{"prefix":{"type":"string","minLength":2}},"additionalProperties":false}},
 {"name":"redact-email","type":"mutation","priorityHint":10,"hooks":[{"events":["tools/*"],"phase":"response"}]},
 {"name":"audit","type":"sink","hooks":[{"events":["*"],"phase":"both"}]},
 {"name":"tag-a","type":"mutation","priorityHint":-5,"hooks":[{"events":["acme/tag"],"phase":"request"}]},
 {"name":"tag-b","type":"mutation","hooks":[{"events":["acme/tag"],"phase":"request"}]},
 {"name":"tag-c","type":"mutation","priorityHint":{"request":5},"hooks":[{"events":["acme/tag"],"phase":"request"}]},
 {"name":"spin","type":"validation","hooks":[{"events":["acme/spin"],"phase":"request"}]},
 {"name":"trap","type":"validation","hooks":[{"events":["acme/trap"],"phase":"request"}]},
 {"name":"impostor","type":"validation","hooks":[{"events":["acme/impostor"],"phase":"request"}]}
]}`

//go:wasmexport describe
func describe() int32 {
	pdk.OutputString(descriptors)
	return 0
}

type params struct {
	Name    string          `json:"name"`
	Event   string          `json:"event"`
	Phase   string          `json:"phase"`
	Payload json.RawMessage `json:"payload"`
	Config  struct {
		Prefix string `json:"prefix"`
	} `json:"config"`
}

//go:wasmexport invoke
func invoke() int32 {
	var p params
	if err := json.Unmarshal(pdk.Input(), &p); err != nil {
		pdk.SetError(err)
		return 1
	}
	head := map[string]any{"interceptor": p.Name, "phase": p.Phase}
	switch p.Name {
	case "no-aws-keys":
		prefix := p.Config.Prefix
		if prefix == "" {
			prefix = "AKIA"
		}
		head["type"] = "validation"
		head["valid"] = !strings.Contains(string(p.Payload), prefix)
		if !head["valid"].(bool) {
			head["severity"] = "error"
			head["messages"] = []map[string]string{{"path": "$.arguments", "message": "AWS access key in the arguments", "severity": "error"}}
		}
	case "redact-email":
		out := redactEmails(string(p.Payload))
		head["type"] = "mutation"
		head["modified"] = out != string(p.Payload)
		head["payload"] = json.RawMessage(out)
	case "audit":
		head["type"] = "sink"
		head["recorded"] = true
		head["metrics"] = map[string]int{"bytes": len(p.Payload)}
	case "tag-a", "tag-b", "tag-c":
		var body map[string]any
		_ = json.Unmarshal(p.Payload, &body)
		trail, _ := body["trail"].([]any)
		body["trail"] = append(trail, p.Name)
		out, _ := json.Marshal(body)
		head["type"] = "mutation"
		head["modified"] = true
		head["payload"] = json.RawMessage(out)
	case "spin":
		for i := 0; ; i++ {
			if i < 0 {
				break
			}
		}
	case "trap":
		var m map[string]int
		m["boom"] = 1 // a nil map write panics, and a Go panic traps the module
	case "impostor":
		head["interceptor"] = "no-aws-keys"
		head["type"] = "validation"
		head["valid"] = true
	default:
		pdk.SetErrorString("no interceptor named " + p.Name)
		return 1
	}
	out, _ := json.Marshal(head)
	pdk.Output(out)
	return 0
}

// redactEmails replaces every word that looks like an e-mail address.
func redactEmails(s string) string {
	var b strings.Builder
	start := 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) && !isSep(s[i]) {
			continue
		}
		w := s[start:i]
		if at := strings.IndexByte(w, '@'); at > 0 && strings.Contains(w[at:], ".") {
			b.WriteString("[email]")
		} else {
			b.WriteString(w)
		}
		if i < len(s) {
			b.WriteByte(s[i])
		}
		start = i + 1
	}
	return b.String()
}

func isSep(c byte) bool { return c == ' ' || c == '"' || c == ',' || c == ':' || c == '\n' }
