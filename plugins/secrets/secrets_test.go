package main

import (
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/airlock-mcp/airlock/internal/plugintest"
	"github.com/airlock-mcp/airlock/spec"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const (
	awsKey    = "AKIAZ7VRSQ5TJRWXYZ12"
	awsSecret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq8h3kLm9Q"
	ghToken   = "ghp_R2d2C3poL7kQ9xW4vB8nM1zT6yH5jF0gA3sE"
	ghAllowed = "ghp_000000000000000000000000000000000000"
	stripe    = "sk_live_51HxQ2eL8kT3vR9wZ4mN7pB2c"
	slack     = "xoxb-2816412345-1234567890123-AbCdEfGhIjKlMnOpQrStUv"
	jwt       = "eyJhbGciOiAiSFMyNTYiLCAidHlwIjogIkpXVCJ9.eyJzdWIiOiAiMTIzNDU2Nzg5MCIsICJuYW1lIjogIkFubiJ9.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)

func args(json string) string { return `{"name":"run","arguments":` + json + `}` }

func result(text string) string {
	return `{"content":[{"type":"text","text":` + quote(text) + `}]}`
}

func TestSecrets(t *testing.T) {
	rq, rs := spec.PhaseRequest, spec.PhaseResponse
	noLeak := func(secret string) func(*testing.T, *spec.Result) {
		return func(t *testing.T, r *spec.Result) {
			for _, m := range r.Messages {
				if strings.Contains(m.Message, secret) {
					t.Errorf("message leaks the secret: %q", m.Message)
				}
			}
		}
	}
	cases := []plugintest.Case{
		// True positives.
		{Name: "aws access key in env", Phase: rq, Payload: args(`{"env":{"AWS_ACCESS_KEY_ID":"` + awsKey + `"}}`),
			Severity: "error", Paths: []string{"/arguments/env/AWS_ACCESS_KEY_ID"}, MessageHas: "AWS access key ID (AKIA…12)",
			Check: noLeak(awsKey)},
		{Name: "aws secret key assignment", Phase: rq, Payload: args(`{"script":"export aws_secret_access_key=` + awsSecret + `"}`),
			Paths: []string{"/arguments/script"}, MessageHas: "[aws-secret-key]", Check: noLeak(awsSecret)},
		{Name: "github token in a list", Phase: rq, Payload: args(`{"headers":["Accept: json","Authorization: token ` + ghToken + `"]}`),
			Paths: []string{"/arguments/headers/1"}, MessageHas: "GitHub token"},
		{Name: "stripe live key", Phase: rq, Payload: args(`{"cfg":"STRIPE=` + stripe + `"}`), MessageHas: "Stripe secret key"},
		{Name: "slack token", Phase: rq, Payload: args(`{"t":"` + slack + `"}`), MessageHas: "Slack token"},
		{Name: "private key in a result", Phase: rs, Payload: result("here:\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----"),
			Paths: []string{"/content/0/text"}, MessageHas: "private key block in tools/call response"},
		{Name: "jwt in a result", Phase: rs, Payload: result("Bearer " + jwt), MessageHas: "JSON Web Token"},
		{Name: "password assignment", Phase: rq, Payload: args(`{"cmd":"DB_PASSWORD='Zq8#kL2!vR9@xT4$mN7p' ./run"}`),
			MessageHas: "[generic-assignment]"},
		{Name: "bare value under a secret-like name", Phase: rq, Payload: args(`{"api_key":"f9K2mQ7xL4pV8nR3tW6yB1zC"}`),
			Paths: []string{"/arguments/api_key"}, MessageHas: `field "api_key"`},
		{Name: "two findings, two paths", Phase: rq, Payload: args(`{"a":"` + awsKey + `","b":{"c":"` + ghToken + `"}}`),
			Paths: []string{"/arguments/a", "/arguments/b/c"}},
		{Name: "severity warn does not block", Phase: rq, Config: `{"severity":"warn"}`, Payload: args(`{"k":"` + awsKey + `"}`),
			Severity: "warn"},
		{Name: "call allow-list replaces the plugin's", Phase: rq, Config: `{"allow":[]}`, Payload: args(`{"k":"` + ghAllowed + `"}`),
			MessageHas: "GitHub token"},

		// False positives that must pass.
		{Name: "clean call", Phase: rq, Payload: args(`{"path":"/tmp/x","text":"hello world, nothing to see here"}`), Valid: true},
		{Name: "aws documented example key", Phase: rq, Payload: args(`{"k":"AKIAIOSFODNN7EXAMPLE"}`), Valid: true},
		{Name: "plugin allow-list", Phase: rq, Payload: args(`{"k":"` + ghAllowed + `"}`), Valid: true},
		{Name: "call allow pattern", Phase: rq, Config: `{"allowPatterns":["^sk_live_51HxQ"]}`, Payload: args(`{"k":"` + stripe + `"}`), Valid: true},
		{Name: "detector disabled", Phase: rq, Config: `{"disable":["aws-access-key"]}`, Payload: args(`{"k":"` + awsKey + `"}`), Valid: true},
		{Name: "only other detectors enabled", Phase: rq, Config: `{"detectors":["jwt"]}`, Payload: args(`{"k":"` + awsKey + `"}`), Valid: true},
		{Name: "short github-like string", Phase: rq, Payload: args(`{"k":"ghp_abc and more text here"}`), Valid: true},
		{Name: "jwt-shaped but not a jwt", Phase: rq, Payload: args(`{"k":"eyJhbGxxxxxxxxxxxxx.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abcdefghijklmnopqrstu"}`), Valid: true},
		{Name: "placeholder password", Phase: rq, Payload: args(`{"cmd":"password=changeme_changeme_123"}`), Valid: true},
		{Name: "low-entropy token", Phase: rq, Payload: args(`{"cmd":"token=aaaaaaaaaaaaaaaaaaaaaaaa"}`), Valid: true},
		{Name: "placeholder under api_key", Phase: rq, Payload: args(`{"api_key":"<your-api-key-here>"}`), Valid: true},
		{Name: "prose about secrets", Phase: rs, Payload: result("The secret to good code is tests; rotate every token often."), Valid: true},
		{Name: "publishable stripe key", Phase: rq, Payload: args(`{"k":"pk_live_51HxQ2eL8kT3vR9wZ4mN7pB2c"}`), Valid: true},
		{Name: "git sha and uuid", Phase: rs, Payload: result("commit 9fceb02d0ae598e95dc970b74767f19372d61af8 id 123e4567-e89b-12d3-a456-426614174000"), Valid: true},
	}
	for i := range cases {
		cases[i].Interceptor, cases[i].Event = "secrets", "tools/call"
		if cases[i].Name != "" && !cases[i].Valid && cases[i].Severity == "" {
			cases[i].Severity = spec.SeverityError
		}
	}
	targets := plugintest.Targets(t, "plugins/secrets", map[string]string{"allow": `["` + ghAllowed + `"]`})
	plugintest.Run(t, targets, spec.TypeValidation, cases)
}

func TestSecretsOtherEvents(t *testing.T) {
	targets := plugintest.Targets(t, "plugins/secrets", nil)
	plugintest.Run(t, targets, spec.TypeValidation, []plugintest.Case{
		{Name: "resource contents", Interceptor: "secrets", Event: "resources/read", Phase: spec.PhaseResponse,
			Payload: `{"contents":[{"uri":"file:///.env","text":"STRIPE=` + stripe + `"}]}`,
			Paths:   []string{"/contents/0/text"}, Severity: "error"},
		{Name: "llm prompt", Interceptor: "secrets", Event: "llm/completion", Phase: spec.PhaseRequest,
			Payload: `{"messages":[{"role":"user","content":"my key is ` + awsKey + `"}]}`,
			Paths:   []string{"/messages/0/content"}, Severity: "error"},
		{Name: "clean prompt", Interceptor: "secrets", Event: "prompts/get", Phase: spec.PhaseRequest,
			Payload: `{"name":"summarise","arguments":{"text":"quarterly numbers"}}`, Valid: true},
	})
}

// The prefilters may only skip strings the regexps would not match.
func TestPrefiltersNeverHideAMatch(t *testing.T) {
	generic := detectors[len(detectors)-1]
	if generic.id != "generic-assignment" {
		t.Fatal("generic-assignment is not the last detector")
	}
	words := []string{"secret", "TOKEN", "Passwd", "password", "pwd", "api_key", "accessKey", "auth-key",
		"Credential", "private_key", "\u212aey", "\u017fecret", "name", "text", "kee", "passd"}
	seps := []string{"=", ": ", "\":\"", " ", ""}
	values := []string{"Zx9vQ2mL8kR4tW7yB3nC", "short", "hello world"}
	for _, w := range words {
		for _, sep := range seps {
			for _, v := range values {
				s := "my_" + w + sep + v
				if generic.re.MatchString(s) && !generic.maybe(s) {
					t.Errorf("%q: the regexp matches, the prefilter skips it", s)
				}
			}
		}
		if secretName.MatchString(w) && !namesSecret(w) {
			t.Errorf("%q: secretName matches, namesSecret says no", w)
		}
	}
	if generic.maybe("lorem ipsum dolor sit amet") || namesSecret("text") {
		t.Error("the prefilter lets plain text through")
	}

	// Hints with what must follow them.
	pat := "github_pat_" + strings.Repeat("A1_b", 16)
	for _, secret := range []string{awsKey, "ASIA" + awsKey[4:], ghToken, pat, stripe, slack, jwt,
		"https://hooks.slack.com/services/T0001/B0001/abc", "-----BEGIN RSA PRIVATE KEY-----"} {
		for _, s := range []string{secret, "x " + secret + " y", "AKIA ghp_ eyJ. " + secret, "\"" + secret + "\","} {
			for i := range detectors {
				d := &detectors[i]
				if d.re.MatchString(s) && hinted(s)&(1<<i) == 0 {
					t.Errorf("%s: %q matches, the hint test skips it", d.id, s)
				}
			}
		}
	}
	for _, s := range []string{"AKIA is not enough", "ghp_short", "eyJhbG.", "sk_live_x"} {
		for i := range detectors {
			if d := &detectors[i]; d.follow > 0 && hinted(s)&(1<<i) != 0 {
				t.Errorf("%s: %q passes the hint test", d.id, s)
			}
		}
	}
}
