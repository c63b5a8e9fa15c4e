package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/airlock-mcp/airlock/internal/plugintest"
	"github.com/airlock-mcp/airlock/pdk/pdktest"
	"github.com/airlock-mcp/airlock/spec"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func remaining(n float64) func(*testing.T, *spec.Result) {
	return func(t *testing.T, r *spec.Result) {
		var info struct{ Remaining float64 }
		if err := json.Unmarshal(r.Info, &info); err != nil || info.Remaining != n {
			t.Errorf("info %s, want remaining %v", r.Info, n)
		}
	}
}

// The cases run in order against one plugin (one variable store): they are
// a script. A year-long window keeps the script inside one window.
func TestRateLimit(t *testing.T) {
	config := map[string]string{"limit": "2", "windowSeconds": "31536000",
		"perTool": `{"delete_*":0,"ping":-1}`, "perPrincipal": `{"service:ci":5}`}
	call := func(name, who string, valid bool, left float64) plugintest.Case {
		c := plugintest.Case{Name: who + " " + name, Interceptor: "rate-limit", Event: "tools/call", Phase: spec.PhaseRequest,
			Payload: `{"name":"` + name + `"}`, Principal: who, Valid: valid}
		if valid {
			c.Check = remaining(left)
		} else {
			c.Severity, c.Paths, c.MessageHas = spec.SeverityError, []string{"/name"}, "rate limit"
		}
		return c
	}
	cases := []plugintest.Case{
		call("search", "user:ann", true, 1),
		call("search", "user:ann", true, 0),
		call("search", "user:ann", false, 0),
		call("search", "user:bob", true, 1), // another principal has its own count
		call("fetch", "user:ann", true, 1),  // and another tool
		call("delete_repo", "user:ann", false, 0),
		call("ping", "user:ann", true, 0), call("ping", "user:ann", true, 0), call("ping", "user:ann", true, 0),
		call("search", "service:ci", true, 4),
		call("search", "", true, 1), // anonymous is a principal too
	}
	// -1 exempts: remaining reports the raw check only for limited tools.
	for i := range cases {
		if cases[i].Payload == `{"name":"ping"}` {
			cases[i].Check = nil
		}
	}
	targets := plugintest.Targets(t, "plugins/rate-limit", config)
	plugintest.Run(t, targets, spec.TypeValidation, cases)
	for _, tg := range targets {
		if p, ok := tg.Target.(interface{ Vars(string) ([]byte, bool) }); ok {
			if v, ok := p.Vars("rl/user:ann/search"); !ok || len(v) != 16 || v[8] != 2 {
				t.Errorf("%s: variable = %v %v", tg.Name, v, ok)
			}
		}
	}
}

func TestRateLimitWindowRolls(t *testing.T) {
	// In-process: the clock is the handler's.
	clock := time.Unix(1_000_000, 0)
	defer func(f func() time.Time) { now = f }(now)
	now = func() time.Time { return clock }
	env := pdktest.New(t).WithConfig(map[string]string{"limit": "1", "windowSeconds": "10"})
	try := func() bool {
		r := env.MustInvoke("rate-limit", "tools/call", spec.PhaseRequest, `{"name":"x"}`)
		return r.Valid
	}
	if !try() || try() {
		t.Fatal("limit 1 did not allow one call and refuse the next")
	}
	clock = clock.Add(10 * time.Second)
	if !try() {
		t.Fatal("the next window did not reset the count")
	}
	r := env.MustInvoke("rate-limit", "tools/call", spec.PhaseRequest, `{"name":"x"}`)
	if r.Valid || !strings.Contains(r.Messages[0].Message, "try again in 10s") {
		t.Errorf("result %+v", r)
	}
}
