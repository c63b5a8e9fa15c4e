package main

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/airlock-mcp/airlock/internal/plugintest"
	"github.com/airlock-mcp/airlock/spec"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// policy is given as plugin configuration, as an operator would.
var policy = map[string]string{
	"default": "deny",
	"rules": `[
	 {"tools":["shell"],"principals":["user:root"],"action":"allow"},
	 {"tools":["shell","exec_*"],"action":"deny","reason":"no shell access"},
	 {"tools":["read_file","write_file"],"action":"allow",
	  "args":{"path":{"required":true,"prefix":["/workspace"]}}},
	 {"tools":["fetch"],"principals":["user","service:ci"],"action":"allow",
	  "args":{"url":{"schemes":["https"],"hosts":["*.example.com","example.com"]}}},
	 {"tools":["git"],"action":"allow","args":{"cmd":{"oneOf":["status","log","diff"]},"ref":{"pattern":"^[a-z0-9/_-]+$","maxLength":40}}},
	 {"tools":["search"],"action":"allow","args":{"q":{"deny":["DROP TABLE"]}}}
	]`,
}

func call(name, args string) string { return `{"name":"` + name + `","arguments":` + args + `}` }

func TestToolPolicyCalls(t *testing.T) {
	cases := []plugintest.Case{
		{Name: "unknown tool falls to default deny", Payload: call("mystery", `{}`), Paths: []string{"/name"}, MessageHas: `tool "mystery" is not allowed for anonymous`},
		{Name: "denied by glob with reason", Payload: call("exec_python", `{}`), MessageHas: "no shell access"},
		{Name: "principal-specific allow", Principal: "user:root", Payload: call("shell", `{"cmd":"ls"}`), Valid: true},
		{Name: "same tool, other principal", Principal: "user:bob", Payload: call("shell", `{"cmd":"ls"}`), MessageHas: "for user:bob"},
		{Name: "path inside prefix", Payload: call("read_file", `{"path":"/workspace/src/main.go"}`), Valid: true},
		{Name: "path traversal", Payload: call("read_file", `{"path":"/workspace/../etc/passwd"}`),
			Paths: []string{"/arguments/path"}, MessageHas: `path "/etc/passwd" is outside`},
		{Name: "prefix is not a string prefix", Payload: call("write_file", `{"path":"/workspace-evil/x"}`), Paths: []string{"/arguments/path"}},
		{Name: "relative path", Payload: call("read_file", `{"path":"src/x"}`), MessageHas: "absolute path"},
		{Name: "required argument missing", Payload: call("read_file", `{}`), MessageHas: "is required"},
		{Name: "url host allowed", Principal: "user:ann", Payload: call("fetch", `{"url":"https://api.example.com/v1"}`), Valid: true},
		{Name: "url apex host allowed", Principal: "service:ci", Payload: call("fetch", `{"url":"https://example.com/"}`), Valid: true},
		{Name: "url host denied", Principal: "user:ann", Payload: call("fetch", `{"url":"https://example.com.evil.io/x"}`), MessageHas: `has host "example.com.evil.io"`},
		{Name: "url scheme denied", Principal: "user:ann", Payload: call("fetch", `{"url":"http://api.example.com"}`), MessageHas: `scheme "http"`},
		{Name: "fetch for another service", Principal: "service:bot", Payload: call("fetch", `{"url":"https://example.com"}`), Paths: []string{"/name"}},
		{Name: "oneOf ok", Payload: call("git", `{"cmd":"status"}`), Valid: true},
		{Name: "oneOf broken", Payload: call("git", `{"cmd":"push"}`), MessageHas: "must be one of"},
		{Name: "pattern broken", Payload: call("git", `{"cmd":"log","ref":"main; rm -rf /"}`), Paths: []string{"/arguments/ref"}},
		{Name: "deny substring", Payload: call("search", `{"q":"x'; DROP TABLE users"}`), MessageHas: "DROP TABLE"},
		{Name: "call config replaces the policy", Config: `{"default":"allow","rules":[]}`, Payload: call("mystery", `{}`), Valid: true},
		{Name: "bad config fails", Config: `{"default":"maybe"}`, Payload: call("x", `{}`), Err: "default must be allow or deny"},
	}
	for i := range cases {
		cases[i].Interceptor, cases[i].Event, cases[i].Phase = "tool-policy", "tools/call", spec.PhaseRequest
		if !cases[i].Valid && cases[i].Err == "" {
			cases[i].Severity = spec.SeverityError
		}
	}
	plugintest.Run(t, plugintest.Targets(t, "plugins/tool-policy", policy), spec.TypeValidation, cases)
}

func TestToolPolicyList(t *testing.T) {
	list := `{"tools":[{"name":"shell","inputSchema":{"type":"object"}},{"name":"read_file","inputSchema":{"type":"object"},"x":1},` +
		`{"name":"fetch","inputSchema":{"type":"object"}},{"name":"mystery","inputSchema":{"type":"object"}}],"nextCursor":"n"}`
	cases := []plugintest.Case{
		{Name: "anonymous sees only unconditional allows", Payload: list, Modified: true,
			Want: `{"tools":[{"name":"read_file","inputSchema":{"type":"object"},"x":1}],"nextCursor":"n"}`,
			Check: func(t *testing.T, r *spec.Result) {
				if string(r.Info) != `{"removed":["shell","fetch","mystery"]}` {
					t.Errorf("info = %s", r.Info)
				}
			}},
		{Name: "root sees shell (and fetch, as a user)", Principal: "user:root", Payload: list, Modified: true,
			Contains: []string{`"shell"`, `"read_file"`, `"fetch"`}, NotContains: []string{`"mystery"`}},
		{Name: "user sees fetch", Principal: "user:ann", Payload: list, Modified: true,
			Contains: []string{`"fetch"`}, NotContains: []string{`"shell"`}},
		{Name: "nothing to remove", Payload: `{"tools":[{"name":"git","inputSchema":{"type":"object"}}]}`, Modified: false},
		{Name: "everything removed keeps an empty list", Payload: `{"tools":[{"name":"shell"}]}`, Modified: true, Want: `{"tools":[]}`},
	}
	for i := range cases {
		cases[i].Interceptor, cases[i].Event, cases[i].Phase = "tool-policy-list", "tools/list", spec.PhaseResponse
	}
	plugintest.Run(t, plugintest.Targets(t, "plugins/tool-policy", policy), spec.TypeMutation, cases)
}
