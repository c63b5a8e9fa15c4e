package main

import (
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/airlock-mcp/airlock/internal/plugintest"
	"github.com/airlock-mcp/airlock/spec"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestSizeGuard(t *testing.T) {
	big := strings.Repeat("x", 300)
	nested := strings.Repeat(`{"a":`, 10) + "1" + strings.Repeat("}", 10)
	cases := []plugintest.Case{
		{Name: "small request", Event: "tools/call", Phase: spec.PhaseRequest, Payload: `{"name":"a","arguments":{"q":"hi"}}`, Valid: true},
		{Name: "request over the limit", Event: "tools/call", Phase: spec.PhaseRequest,
			Payload: `{"name":"a","arguments":{"q":"` + big + `"}}`, Severity: "error", MessageHas: "over the limit of 256"},
		{Name: "response under its own limit", Event: "tools/call", Phase: spec.PhaseResponse,
			Payload: `{"content":[{"type":"text","text":"` + big + `"}]}`, Valid: true},
		{Name: "long string", Event: "tools/call", Phase: spec.PhaseResponse, Config: `{"maxStringBytes":100}`,
			Payload: `{"content":[{"type":"text","text":"` + big + `"}]}`, Paths: []string{"/content/0/text"}, Severity: "error"},
		{Name: "deep nesting", Event: "custom/op", Phase: spec.PhaseRequest, Payload: nested, MessageHas: "nests 10 levels"},
		{Name: "brackets inside strings do not count", Event: "custom/op", Phase: spec.PhaseRequest,
			Payload: `{"a":"[[[[[[[[[[[[{{{{{{{{{\"["}`, Valid: true},
		{Name: "call config lifts the limit", Event: "tools/call", Phase: spec.PhaseRequest, Config: `{"maxRequestBytes":0}`,
			Payload: `{"name":"a","arguments":{"q":"` + big + `"}}`, Valid: true,
			Check: func(t *testing.T, r *spec.Result) {
				if string(r.Info) != `{"bytes":333}` {
					t.Errorf("info = %s", r.Info)
				}
			}},
	}
	for i := range cases {
		cases[i].Interceptor = "size-guard"
	}
	targets := plugintest.Targets(t, "plugins/size-guard", map[string]string{"maxRequestBytes": "256", "maxResponseBytes": "1024", "maxDepth": "8"})
	plugintest.Run(t, targets, spec.TypeValidation, cases)
}
