package main

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/airlock-mcp/airlock/internal/plugintest"
	"github.com/airlock-mcp/airlock/spec"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func text(s string) string { return `{"content":[{"type":"text","text":"` + s + `"}]}` }

func TestPIIRedact(t *testing.T) {
	rq, rs := spec.PhaseRequest, spec.PhaseResponse
	cases := []plugintest.Case{
		// True positives.
		{Name: "email in a result", Phase: rs, Payload: text("mail ann.lee+x@example.co.uk now"), Modified: true,
			Want: text("mail [REDACTED:email] now")},
		{Name: "visa with spaces", Phase: rs, Payload: text("card 4111 1111 1111 1111 ok"), Modified: true,
			Want: text("card [REDACTED:card] ok")},
		{Name: "amex with dashes", Phase: rs, Payload: text("3782-822463-10005"), Modified: true, Contains: []string{"[REDACTED:card]"}},
		{Name: "iban", Phase: rs, Payload: text("pay to GB82 WEST 1234 5698 7654 32 today"), Modified: true,
			Want: text("pay to [REDACTED:iban] today")},
		{Name: "compact iban", Phase: rs, Payload: text("DE89370400440532013000"), Modified: true, Contains: []string{"[REDACTED:iban]"}},
		{Name: "ssn", Phase: rs, Payload: text("SSN 123-45-6789."), Modified: true, Want: text("SSN [REDACTED:ssn].")},
		{Name: "international phone", Phase: rs, Payload: text("call +44 20 7946 0958"), Modified: true, Want: text("call [REDACTED:phone]")},
		{Name: "us phone", Phase: rs, Payload: text("(415) 555-2671 or 415.555.2671"), Modified: true,
			Contains: []string{"[REDACTED:phone]"}, NotContains: []string{"555-2671"}},
		{Name: "arguments, nested, and the rest kept", Phase: rq,
			Payload:  `{"name":"send_mail","arguments":{"to":["bob@corp.example"],"body":"hi","n":1}}`,
			Modified: true, Want: `{"name":"send_mail","arguments":{"to":["[REDACTED:email]"],"body":"hi","n":1}}`},
		{Name: "several kinds in one string", Phase: rs, Payload: text("a@b.io 4111111111111111 123-45-6789"), Modified: true,
			Want: text("[REDACTED:email] [REDACTED:card] [REDACTED:ssn]"),
			Check: func(t *testing.T, r *spec.Result) {
				if string(r.Info) != `{"redacted":{"card":1,"email":1,"ssn":1}}` {
					t.Errorf("info = %s", r.Info)
				}
			}},
		{Name: "custom replacement and kinds", Phase: rs, Config: `{"kinds":["email"],"replacement":"<{kind}>"}`,
			Payload: text("a@b.io 123-45-6789"), Modified: true, Want: text("<email> 123-45-6789")},

		// False positives that must stay.
		{Name: "nothing personal", Phase: rs, Payload: text("build 42 passed in 3.2s"), Modified: false},
		{Name: "card number failing luhn", Phase: rs, Payload: text("order 4111 1111 1111 1112"), Modified: false},
		{Name: "iban with a bad checksum", Phase: rs, Payload: text("GB82 WEST 1234 5698 7654 33"), Modified: false},
		{Name: "invalid ssn areas", Phase: rs, Payload: text("000-12-3456 666-12-3456 912-12-3456 123-00-4567"), Modified: false},
		{Name: "dates, versions, ids", Phase: rs, Payload: text("2024-01-15 12:30:45 v1.2.3.4567 id 1700000000123 ts 20240115123045"), Modified: false},
		{Name: "short numbers", Phase: rs, Payload: text("room 555-1234, tel ext 12"), Modified: false},
		{Name: "tool name and uri kept", Phase: rq, Config: `{"skipKeys":["uri"]}`,
			Payload: `{"name":"a@b.io","arguments":{"uri":"mailto:x@y.io"}}`, Modified: false},
		{Name: "unknown kind fails", Phase: rs, Config: `{"kinds":["dna"]}`, Payload: text("x"), Err: `unknown kind "dna"`},
	}
	for i := range cases {
		cases[i].Interceptor, cases[i].Event = "pii-redact", "tools/call"
	}
	plugintest.Run(t, plugintest.Targets(t, "plugins/pii-redact", nil), spec.TypeMutation, cases)
}

func TestPIIRedactPluginConfig(t *testing.T) {
	targets := plugintest.Targets(t, "plugins/pii-redact", map[string]string{"replacement": "***", "kinds": `["ssn","card"]`})
	plugintest.Run(t, targets, spec.TypeMutation, []plugintest.Case{
		{Name: "plugin config applies", Interceptor: "pii-redact", Event: "resources/read", Phase: spec.PhaseResponse,
			Payload:  `{"contents":[{"uri":"file:///a","text":"x@y.io 123-45-6789"}]}`,
			Modified: true, Want: `{"contents":[{"uri":"file:///a","text":"x@y.io ***"}]}`},
		{Name: "llm completion", Interceptor: "pii-redact", Event: "llm/completion", Phase: spec.PhaseResponse,
			Payload:  `{"message":{"role":"assistant","content":"card 5555555555554444"}}`,
			Modified: true, Want: `{"message":{"role":"assistant","content":"card ***"}}`},
	})
}

// A kind's prefilter may skip only strings with nothing it would redact,
// and must skip strings without enough digits (or no @ for e-mail).
func TestPrefiltersNeverHideAMatch(t *testing.T) {
	for _, s := range []string{
		"mail ann.lee+x@example.co.uk now", "card 4111 1111 1111 1111 ok", "3782-822463-10005",
		"pay to GB82 WEST 1234 5698 7654 32 today", "DE89370400440532013000", "SSN 123-45-6789.",
		"call +44 20 7946 0958", "(415) 555-2671 or 415.555.2671", "a@b.io 4111111111111111 123-45-6789",
		"build 42 passed in 3.2s", "room 555-1234, tel ext 12", "+1 22 33", "x@y",
	} {
		for _, k := range kinds {
			redacts := false
			for _, m := range k.re.FindAllString(s, -1) {
				redacts = redacts || k.check == nil || k.check(m)
			}
			if redacts && !k.maybe(s) {
				t.Errorf("%s in %q: the prefilter skips a match", k.name, s)
			}
		}
	}
	for _, k := range kinds {
		if k.maybe("build 42 passed in 3.2s, x") && k.name != "iban" {
			t.Errorf("%s: the prefilter lets a string with two digits and no @ through", k.name)
		}
	}
}
