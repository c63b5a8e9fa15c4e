// Command prompt-guard is a validator that flags text likely to be a prompt
// injection — instructions aimed at the model hidden in tool results,
// resource contents and prompts: "ignore previous instructions", fake
// system or chat-template markers, exfiltration requests, invisible Unicode.
// Its severity is configurable: warn (report, the default) or error (block).
//
// Build: airlock plugin build plugins/prompt-guard -o prompt-guard.wasm
package main

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"

	"github.com/airlock-mcp/airlock/pdk"
	"github.com/airlock-mcp/airlock/spec"
)

func main() {}

// Config is the plugin's configuration.
type Config struct {
	// Severity of findings: "warn" (default) or "error".
	Severity string `json:"severity"`
	// Disable turns rules off by id.
	Disable []string `json:"disable"`
	// ExtraPatterns are more regular expressions to flag (case-insensitive).
	ExtraPatterns []string `json:"extraPatterns"`
}

type rule struct {
	id, what string
	re       *regexp.Regexp
}

var rules = []rule{
	{"ignore-instructions", "asks the model to ignore its instructions",
		regexp.MustCompile(`(?i)\b(?:ignore|disregard|forget|override|bypass)\s+(?:all\s+|any\s+|the\s+|your\s+|these\s+)*(?:previous|prior|above|earlier|preceding|system|original)?\s*(?:instructions|prompts?|rules|directions|guidelines|context)\b`)},
	{"new-instructions", "announces new instructions for the model",
		regexp.MustCompile(`(?i)\b(?:new|updated|real|actual)\s+(?:system\s+)?instructions\s*:|\bfrom now on,?\s+you\s+(?:are|will|must)\b`)},
	{"role-override", "tries to change the model's role",
		regexp.MustCompile(`(?i)\byou\s+are\s+now\s+(?:a|an|the|in)\b|\bact\s+as\s+(?:an?\s+)?(?:unrestricted|jailbroken|DAN)\b|\bdeveloper\s+mode\b`)},
	{"template-markers", "contains chat-template or system markers",
		regexp.MustCompile(`(?im)<\|(?:im_start|im_end|system|endoftext)\|>|\[/?INST\]|<<SYS>>|^\s*#{2,}\s*(?:system|instruction)s?\b|</?system>`)},
	{"exfiltration", "asks to send data somewhere",
		regexp.MustCompile(`(?i)\b(?:send|post|upload|forward|exfiltrate|leak)\s+(?:all\s+|the\s+|your\s+|any\s+)*(?:data|conversation|secrets?|credentials|api\s+keys?|tokens?|files?|history|contents?)\s+(?:to|at)\s+(?:https?://|\S+@)`)},
	{"concealment", "asks the model to hide something from the user",
		regexp.MustCompile(`(?i)\b(?:do\s+not|don't|never)\s+(?:tell|inform|mention|reveal|show)\s+(?:this\s+)?(?:to\s+)?the\s+user\b`)},
	{"invisible-text", "contains invisible Unicode (tag characters or long zero-width runs)",
		regexp.MustCompile(`[\x{E0000}-\x{E007F}]|[\x{200B}\x{200C}\x{200D}\x{2060}\x{FEFF}]{3,}`)},
}

func init() {
	pdk.Validator(pdk.Descriptor{
		Name: "prompt-guard", Version: "1.0.0",
		Description: "Flags likely prompt-injection text in tool results, resource contents and prompts.",
		Events:      []string{"tools/call", "resources/read", "prompts/get"}, Phase: pdk.Response,
		Hooks:        []spec.Hook{{Events: []string{"sampling/createMessage"}, Phase: pdk.Request}},
		ConfigSchema: json.RawMessage(`{"type":"object","properties":{"severity":{"enum":["warn","error"]},"disable":{"type":"array"},"extraPatterns":{"type":"array","items":{"type":"string"}}}}`),
	}, guard)
}

func guard(c *pdk.Call) pdk.Verdict {
	cfg := Config{Severity: "warn"}
	if err := c.Config(&cfg); err != nil {
		c.Fail(err)
	}
	if cfg.Severity != "warn" && cfg.Severity != "error" {
		c.Failf("severity must be warn or error, not %q", cfg.Severity)
	}
	active := make([]rule, 0, len(rules)+len(cfg.ExtraPatterns))
	for _, r := range rules {
		if !slices.Contains(cfg.Disable, r.id) {
			active = append(active, r)
		}
	}
	for i, p := range cfg.ExtraPatterns {
		re, err := regexp.Compile("(?i)" + p)
		if err != nil {
			c.Failf("extraPatterns[%d]: %v", i, err)
		}
		active = append(active, rule{"extra", "matches a configured pattern", re})
	}
	var v pdk.Verdict
	c.WalkStrings(func(p pdk.Path, s string) {
		if len(s) < 8 || p.Last() == "uri" || p.Last() == "mimeType" || p.Last() == "blob" || p.Last() == "data" {
			return
		}
		for _, r := range active {
			if loc := r.re.FindStringIndex(s); loc != nil {
				v.Add(spec.Severity(cfg.Severity), p.String(), "likely prompt injection: "+r.what+": "+excerpt(s, loc)+" ["+r.id+"]")
			}
		}
	})
	return v
}

// excerpt quotes the match, shortened, with invisible characters shown.
func excerpt(s string, loc []int) string {
	m := s[loc[0]:loc[1]]
	if len(m) > 60 {
		m = m[:57] + "..."
	}
	var b strings.Builder
	for _, r := range m {
		if r >= 0xE0000 && r <= 0xE007F || r == 0x200B || r == 0x200C || r == 0x200D || r == 0x2060 || r == 0xFEFF {
			b.WriteString("�")
			continue
		}
		b.WriteRune(r)
	}
	q, _ := json.Marshal(b.String())
	return string(q)
}
