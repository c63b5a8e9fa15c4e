// Command secrets is a validator that blocks credentials — cloud keys, API
// tokens, private keys, JWTs and high-entropy values assigned to secret-like
// names — in tool arguments and results, prompts, resources and LLM traffic.
// Its messages carry the JSON path of each finding and never the secret
// itself.
//
// Build: airlock plugin build plugins/secrets -o secrets.wasm
package main

import (
	"encoding/base64"
	"encoding/json"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/airlock-mcp/airlock/pdk"
	"github.com/airlock-mcp/airlock/spec"
)

func main() {}

// Config is the plugin's configuration (plugin config keys or call config).
type Config struct {
	// Allow lists values that are never findings (exact match of the
	// secret), such as documented example keys.
	Allow []string `json:"allow"`
	// AllowPatterns are regular expressions; a secret matching one is not a
	// finding.
	AllowPatterns []string `json:"allowPatterns"`
	// Detectors, when set, enables only these detectors (ids below).
	Detectors []string `json:"detectors"`
	// Disable turns detectors off.
	Disable []string `json:"disable"`
	// MinEntropy is the Shannon entropy (bits per character) a value
	// assigned to a secret-like name needs to count as a secret. Default 3.5.
	MinEntropy float64 `json:"minEntropy"`
	// Severity of findings: "error" (blocks, the default) or "warn".
	Severity string `json:"severity"`
}

const schema = `{"type":"object","properties":{
 "allow":{"type":"array","items":{"type":"string"}},
 "allowPatterns":{"type":"array","items":{"type":"string"}},
 "detectors":{"type":"array","items":{"type":"string"}},
 "disable":{"type":"array","items":{"type":"string"}},
 "minEntropy":{"type":"number","minimum":0},
 "severity":{"enum":["error","warn"]}}}`

func init() {
	pdk.Validator(pdk.Descriptor{
		Name: "secrets", Version: "1.0.0",
		Description:  "Blocks API keys, tokens and private keys in tool arguments, tool results, prompts, resources and LLM traffic.",
		Events:       []string{"tools/call", "prompts/get", "sampling/createMessage", "llm/completion"},
		Phase:        pdk.Both,
		Hooks:        []spec.Hook{{Events: []string{"resources/read"}, Phase: pdk.Response}},
		ConfigSchema: json.RawMessage(schema),
	}, validate)
}

// detector finds one kind of secret.
type detector struct {
	id    string
	label string
	// hints: the regexp runs only on strings that contain one of them,
	// followed by at least follow bytes of class when follow is set (what
	// the regexp needs right after the hint).
	hints  []string
	follow int
	class  func(c byte) bool
	// maybe, when set, must accept a string for the regexp to run on it: a
	// cheap test the regexp's matches always pass (regexps are slow inside
	// WebAssembly, and most strings are not secrets).
	maybe func(s string) bool
	re    *regexp.Regexp
	// group is the submatch that is the secret (0: the whole match).
	group int
	// check, when set, must accept the secret.
	check func(secret string, cfg *Config) bool
}

var detectors = []detector{
	{id: "aws-access-key", label: "AWS access key ID", hints: []string{"AKIA", "ASIA", "ABIA", "ACCA"},
		re:     regexp.MustCompile(`\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b`),
		follow: 16, class: isUpperAlnum,
		// AWS documents its example keys with the suffix EXAMPLE.
		check: func(s string, _ *Config) bool { return !strings.HasSuffix(s, "EXAMPLE") }},
	{id: "aws-secret-key", label: "AWS secret access key", hints: []string{"ws_secret", "WS_SECRET", "wsSecret", "secretAccessKey", "SecretAccessKey"},
		re:    regexp.MustCompile(`(?i)aws_?secret_?(?:access_?)?key["']?\s*[:=]\s*["']?([A-Za-z0-9/+=]{40})\b`),
		group: 1},
	{id: "github-token", label: "GitHub token", hints: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"},
		re:     regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{36,251}|github_pat_[A-Za-z0-9_]{60,255})\b`),
		follow: 36, class: isWord},
	{id: "stripe-key", label: "Stripe secret key", hints: []string{"sk_live_", "sk_test_", "rk_live_", "rk_test_"},
		re:     regexp.MustCompile(`\b[sr]k_(?:live|test)_[A-Za-z0-9]{16,247}\b`),
		follow: 16, class: isAlnum},
	{id: "slack-token", label: "Slack token", hints: []string{"xox", "hooks.slack.com"},
		re: regexp.MustCompile(`\bxox[abposr]-[A-Za-z0-9-]{10,250}|https://hooks\.slack\.com/services/T[A-Z0-9]+/B[A-Z0-9]+/[A-Za-z0-9]+`)},
	{id: "private-key", label: "private key block", hints: []string{"PRIVATE KEY"},
		re: regexp.MustCompile(`-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----`)},
	{id: "jwt", label: "JSON Web Token", hints: []string{"eyJ"},
		re:     regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}`),
		follow: 8, class: isBase64URL, check: isJWT},
	{id: "generic-assignment", label: "high-entropy value assigned to a secret-like name",
		re:    regexp.MustCompile(`(?i)\b[a-z0-9_.-]*(?:secret|token|passw(?:or)?d|pwd|api[_-]?key|access[_-]?key|auth[_-]?key|credential|private[_-]?key)[a-z0-9_.-]*["']?\s*[:=]\s*["']?([A-Za-z0-9_\-+/=.~!@#$%^&*]{16,})`),
		group: 1, check: highEntropy, maybe: func(s string) bool { return strings.ContainsAny(s, ":=") && namesSecret(s) }},
}

// secretWords are what every name secretName and the generic-assignment
// detector match contains, in ASCII lower case.
var secretWords = []string{"secret", "token", "passw", "pwd", "key", "credential"}

// namesSecret reports whether s may contain a secret-like name: false only
// when s is ASCII and has none of secretWords in any case. (Beyond ASCII,
// case folding maps other letters onto them, such as K, the Kelvin sign.)
func namesSecret(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return true
		}
	}
	low := strings.ToLower(s)
	for _, w := range secretWords {
		if strings.Contains(low, w) {
			return true
		}
	}
	return false
}

// secretName matches a JSON member name that announces a secret.
var secretName = regexp.MustCompile(`(?i)(?:secret|token|passw(?:or)?d|^pwd$|api[_-]?key|access[_-]?key|auth[_-]?key|credential|private[_-]?key)`)

// valueOnly matches a whole string that is a plausible secret value.
var valueOnly = regexp.MustCompile(`^[A-Za-z0-9_\-+/=.~!@#$%^&*]{16,}$`)

func validate(c *pdk.Call) pdk.Verdict {
	cfg := Config{MinEntropy: 3.5, Severity: "error"}
	if err := c.Config(&cfg); err != nil {
		c.Fail(err)
	}
	allowRE := make([]*regexp.Regexp, 0, len(cfg.AllowPatterns))
	for _, p := range cfg.AllowPatterns {
		re, err := regexp.Compile(p)
		if err != nil {
			c.Failf("allowPatterns: %v", err)
		}
		allowRE = append(allowRE, re)
	}
	allowed := func(s string) bool {
		if slices.Contains(cfg.Allow, s) {
			return true
		}
		for _, re := range allowRE {
			if re.MatchString(s) {
				return true
			}
		}
		return false
	}
	enabled := func(id string) bool {
		if slices.Contains(cfg.Disable, id) {
			return false
		}
		return len(cfg.Detectors) == 0 || slices.Contains(cfg.Detectors, id)
	}

	var v pdk.Verdict
	where := c.Event() + " " + string(c.Phase())
	c.WalkStrings(func(path pdk.Path, s string) {
		if len(s) < 16 {
			return
		}
		found := false
		candidates := hinted(s)
		for i := range detectors {
			d := &detectors[i]
			if candidates&(1<<i) == 0 || !enabled(d.id) || d.maybe != nil && !d.maybe(s) {
				continue
			}
			for _, m := range d.re.FindAllStringSubmatch(s, -1) {
				secret := m[d.group]
				if allowed(secret) || (d.check != nil && !d.check(secret, &cfg)) {
					continue
				}
				found = true
				shown := " (" + mask(secret) + ")"
				if d.id == "private-key" {
					shown = "" // the header is not the secret
				}
				v.Add(spec.Severity(cfg.Severity), path.String(), d.label+shown+" in "+where+" ["+d.id+"]")
			}
		}
		// A bare value under a secret-like member name: {"api_key": "..."}.
		if !found && enabled("generic-assignment") && namesSecret(path.Last()) && secretName.MatchString(path.Last()) &&
			valueOnly.MatchString(s) && highEntropy(s, &cfg) && !allowed(s) {
			v.Add(spec.Severity(cfg.Severity), path.String(), "high-entropy value in the secret-like field "+
				quote(path.Last())+" ("+mask(s)+") [generic-assignment]")
		}
	})
	return v
}

// hintsAt lists, for each byte, the hints that start with it: one pass over
// a string finds every detector whose hint it holds. (A strings.Index per
// hint per string cost more than the rest of the plugin: regexps and
// searches are slow inside WebAssembly, and most strings hold no secret.)
var hintsAt = func() (t [256][]hintRef) {
	for i := range detectors {
		for _, h := range detectors[i].hints { // each at least two bytes long
			t[h[0]] = append(t[h[0]], hintRef{i, h})
		}
	}
	return t
}()

type hintRef struct {
	detector int
	hint     string
}

// hinted returns the set of detectors (bit i for detectors[i]) whose
// regexp may match s: those without hints, and those with a hint in s
// followed by what the regexp needs right after it.
func hinted(s string) uint64 {
	var set uint64
	for i := range detectors {
		if len(detectors[i].hints) == 0 {
			set |= 1 << i
		}
	}
	for i := 0; i < len(s); i++ {
		for _, r := range hintsAt[s[i]] {
			d := &detectors[r.detector]
			// The second byte first: a call to compare strings costs more.
			if set&(1<<r.detector) == 0 && len(s)-i >= len(r.hint) && s[i+1] == r.hint[1] && s[i:i+len(r.hint)] == r.hint &&
				(d.follow == 0 || runOf(s[i+len(r.hint):], d.class, d.follow)) {
				set |= 1 << r.detector
			}
		}
	}
	return set
}

// runOf reports whether s starts with at least n bytes of class.
func runOf(s string, class func(byte) bool, n int) bool {
	if len(s) < n {
		return false
	}
	for i := range n {
		if !class(s[i]) {
			return false
		}
	}
	return true
}

func isUpperAlnum(c byte) bool { return c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' }
func isAlnum(c byte) bool      { return isUpperAlnum(c) || c >= 'a' && c <= 'z' }
func isWord(c byte) bool       { return isAlnum(c) || c == '_' }
func isBase64URL(c byte) bool  { return isWord(c) || c == '-' }

// mask shows enough of a secret to find it, never enough to use it.
func mask(s string) string {
	if len(s) <= 12 {
		return strings.Repeat("*", len(s))
	}
	return s[:4] + "…" + s[len(s)-2:]
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

// isJWT checks that the token's header decodes to a JSON object with "alg".
func isJWT(tok string, _ *Config) bool {
	head, _, _ := strings.Cut(tok, ".")
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(head, "="))
	if err != nil {
		return false
	}
	var h map[string]any
	if json.Unmarshal(b, &h) != nil {
		return false
	}
	_, ok := h["alg"]
	return ok
}

// highEntropy says whether s looks random enough to be a secret and is not
// an obvious placeholder.
func highEntropy(s string, cfg *Config) bool {
	low := strings.ToLower(s)
	for _, p := range []string{"example", "placeholder", "changeme", "your_", "your-", "xxxx", "****", "<", "${", "{{", "redacted"} {
		if strings.Contains(low, p) {
			return false
		}
	}
	return entropy(s) >= cfg.MinEntropy
}

// entropy is the Shannon entropy of s in bits per byte.
func entropy(s string) float64 {
	var counts [256]int
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
	}
	var h float64
	n := float64(len(s))
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}
