// Command pii-redact is a mutator that redacts personal data — e-mail
// addresses, phone numbers, payment card numbers (Luhn-checked), IBANs
// (checksum-checked) and US social security numbers — from tool arguments and
// results, prompts, resources and LLM traffic, leaving everything else of the
// payload byte for byte as it was.
//
// Build: airlock plugin build plugins/pii-redact -o pii-redact.wasm
package main

import (
	"encoding/json"
	"math/big"
	"regexp"
	"slices"
	"strings"

	"github.com/airlock-mcp/airlock/pdk"
	"github.com/airlock-mcp/airlock/spec"
)

func main() {}

// Config is the plugin's configuration (plugin config keys or call config).
type Config struct {
	// Kinds to redact: email, phone, card, iban, ssn. Default: all.
	Kinds []string `json:"kinds"`
	// Replacement for each match; "{kind}" is replaced by the kind's name.
	// Default "[REDACTED:{kind}]".
	Replacement string `json:"replacement"`
	// SkipKeys are member names whose values are left alone (for example
	// "uri" or "name").
	SkipKeys []string `json:"skipKeys"`
}

const schema = `{"type":"object","properties":{
 "kinds":{"type":"array","items":{"enum":["email","phone","card","iban","ssn"]}},
 "replacement":{"type":"string"},
 "skipKeys":{"type":"array","items":{"type":"string"}}}}`

func init() {
	pdk.Mutator(pdk.Descriptor{
		Name: "pii-redact", Version: "1.0.0",
		Description: "Redacts e-mail addresses, phone numbers, card numbers, IBANs and US SSNs.",
		Events:      []string{"tools/call", "prompts/get", "sampling/createMessage", "llm/completion"},
		Phase:       pdk.Both,
		Hooks:       []spec.Hook{{Events: []string{"resources/read"}, Phase: pdk.Response}},
		// Redact before other mutators see the data.
		Priority:     spec.Priority(-100),
		ConfigSchema: json.RawMessage(schema),
	}, redact)
}

// A kind of personal data: a pattern that finds candidates and a check that
// confirms them. Kinds run in this order; an earlier kind's replacement text
// never matches a later one.
type kind struct {
	name  string
	re    *regexp.Regexp
	check func(m string) bool
	// maybe must accept a string for the pattern to run on it: a cheap
	// test every redacted match passes (regexps are slow inside
	// WebAssembly, and most strings hold no personal data).
	maybe func(s string) bool
}

var kinds = []kind{
	// 13-19 digits, or grouped 4-4-4-(1..7) or 4-6-4/5 (Amex, Diners).
	{"card", regexp.MustCompile(`\b(?:\d{13,19}|\d{4}(?:[ -]\d{4}){2}[ -]\d{1,7}|\d{4}[ -]\d{6}[ -]\d{4,5})\b`), luhn, atLeastDigits(13)},
	{"iban", regexp.MustCompile(`\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}\b`), ibanOK, atLeastDigits(2)},
	{"ssn", regexp.MustCompile(`\b\d{3}-\d{2}-\d{4}\b`), ssnOK, atLeastDigits(9)},
	{"email", regexp.MustCompile(`\b[A-Za-z0-9._%+-]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*\.[A-Za-z]{2,}\b`), nil,
		func(s string) bool { return strings.IndexByte(s, '@') >= 0 }},
	// International (+country ...) or North American (415) 555-2671,
	// 415-555-2671, 415.555.2671.
	{"phone", regexp.MustCompile(`(?:\+\d{1,3}[ .-]?(?:\(\d{1,4}\)[ .-]?)?\d{1,4}(?:[ .-]?\d{2,4}){1,4}|(?:\(\d{3}\) ?|\b\d{3}[.-])\d{3}[.-]\d{4})\b`), phoneOK, atLeastDigits(10)},
}

// atLeastDigits returns a test that s holds n ASCII digits or more (what
// \d matches): a card has 13, an SSN 9, a phone number phoneOK accepts 10.
func atLeastDigits(n int) func(string) bool {
	return func(s string) bool {
		need := n
		for i := 0; i < len(s) && need > 0; i++ {
			if s[i] >= '0' && s[i] <= '9' {
				need--
			}
		}
		return need == 0
	}
}

func redact(c *pdk.Call) pdk.Mutation {
	cfg := Config{Replacement: "[REDACTED:{kind}]"}
	if err := c.Config(&cfg); err != nil {
		c.Fail(err)
	}
	for _, k := range cfg.Kinds {
		if !slices.ContainsFunc(kinds, func(x kind) bool { return x.name == k }) {
			c.Failf("unknown kind %q (want email, phone, card, iban or ssn)", k)
		}
	}
	counts := map[string]int{}
	m := c.RewriteStrings(func(path pdk.Path, s string) (string, bool) {
		if len(s) < 6 || slices.Contains(cfg.SkipKeys, path.Last()) {
			return "", false
		}
		// tools/call params.name and content types are not personal data.
		if len(path) == 1 && path[0] == "name" || path.Last() == "type" || path.Last() == "mimeType" {
			return "", false
		}
		out, changed := s, false
		for _, k := range kinds {
			if len(cfg.Kinds) > 0 && !slices.Contains(cfg.Kinds, k.name) || !k.maybe(out) {
				continue
			}
			out = k.re.ReplaceAllStringFunc(out, func(m string) string {
				if k.check != nil && !k.check(m) {
					return m
				}
				counts[k.name]++
				changed = true
				return strings.ReplaceAll(cfg.Replacement, "{kind}", k.name)
			})
		}
		return out, changed
	})
	if m.Modified() {
		m = m.WithInfo(map[string]any{"redacted": counts})
	}
	return m
}

func digits(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// luhn accepts 13 to 19 digits with a valid Luhn check digit.
func luhn(m string) bool {
	d := digits(m)
	if len(d) < 13 || len(d) > 19 || strings.Count(d, d[:1]) == len(d) {
		return false
	}
	sum := 0
	for i := len(d) - 1; i >= 0; i-- {
		n := int(d[i] - '0')
		if (len(d)-1-i)%2 == 1 {
			n *= 2
			if n > 9 {
				n -= 9
			}
		}
		sum += n
	}
	return sum%10 == 0
}

// ibanOK checks the ISO 13616 mod-97 checksum.
func ibanOK(m string) bool {
	s := strings.ReplaceAll(m, " ", "")
	if len(s) < 15 || len(s) > 34 {
		return false
	}
	r := s[4:] + s[:4]
	var num strings.Builder
	for _, ch := range r {
		switch {
		case ch >= '0' && ch <= '9':
			num.WriteRune(ch)
		case ch >= 'A' && ch <= 'Z':
			num.WriteString(big.NewInt(int64(ch - 'A' + 10)).String())
		default:
			return false
		}
	}
	n, ok := new(big.Int).SetString(num.String(), 10)
	return ok && new(big.Int).Mod(n, big.NewInt(97)).Int64() == 1
}

// ssnOK refuses numbers the SSA never issues: area 000, 666 or 9xx, group
// 00, serial 0000.
func ssnOK(m string) bool {
	area, group, serial := m[:3], m[4:6], m[7:]
	return area != "000" && area != "666" && area[0] != '9' && group != "00" && serial != "0000"
}

// phoneOK wants 10 to 15 digits.
func phoneOK(m string) bool {
	d := digits(m)
	return len(d) >= 10 && len(d) <= 15
}
