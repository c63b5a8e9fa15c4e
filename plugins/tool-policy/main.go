// Command tool-policy decides which tools each caller may use, and with
// which arguments. Its validator refuses a tools/call the policy denies; its
// mutator removes the same tools from tools/list results, so that a denied
// tool is neither listed nor callable.
//
// Build: airlock plugin build plugins/tool-policy -o tool-policy.wasm
package main

import (
	"encoding/json"
	"fmt"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/airlock-mcp/airlock/pdk"
)

func main() {}

// Config is the policy. Both interceptors read the same keys, from the
// plugin configuration or the call's config.
type Config struct {
	// Default is the decision when no rule matches: "allow" (the default)
	// or "deny".
	Default string `json:"default"`
	// Rules are tried in order; the first whose tools and principals match
	// decides.
	Rules []Rule `json:"rules"`
}

// Rule is one policy rule.
type Rule struct {
	// Tools are tool names or path.Match globs ("fs_*"); empty matches all.
	Tools []string `json:"tools"`
	// Principals are "type:id" globs ("user:alice", "service:*",
	// "anonymous"); empty matches every caller.
	Principals []string `json:"principals"`
	// Action is "allow" or "deny".
	Action string `json:"action"`
	// Reason is shown in the denial message.
	Reason string `json:"reason"`
	// Args constrain the arguments of an allowed call, by argument name.
	Args map[string]Constraint `json:"args"`
}

// Constraint limits one argument. All set fields must hold.
type Constraint struct {
	Required bool `json:"required"`
	// Prefix: the (cleaned) path must lie under one of these.
	Prefix []string `json:"prefix"`
	// Hosts: the URL's host must match one of these (path.Match globs).
	Hosts []string `json:"hosts"`
	// Schemes: the URL's scheme must be one of these.
	Schemes []string `json:"schemes"`
	// Pattern: the value must match this regular expression.
	Pattern string `json:"pattern"`
	// Deny: the value must not contain any of these substrings.
	Deny []string `json:"deny"`
	// OneOf: the value must be one of these.
	OneOf []string `json:"oneOf"`
	// MaxLength caps the value's length in bytes.
	MaxLength int `json:"maxLength"`
}

func init() {
	pdk.Validator(pdk.Descriptor{
		Name: "tool-policy", Version: "1.0.0",
		Description: "Allows or denies tools by name, glob and principal, with argument constraints.",
		Events:      []string{"tools/call"}, Phase: pdk.Request,
	}, validate)
	pdk.Mutator(pdk.Descriptor{
		Name: "tool-policy-list", Version: "1.0.0",
		Description: "Removes the tools tool-policy denies from tools/list results.",
		Events:      []string{"tools/list"}, Phase: pdk.Response,
	}, filterList)
}

func loadConfig(c *pdk.Call) Config {
	cfg := Config{Default: "allow"}
	if err := c.Config(&cfg); err != nil {
		c.Fail(err)
	}
	if cfg.Default != "allow" && cfg.Default != "deny" {
		c.Failf("default must be allow or deny, not %q", cfg.Default)
	}
	for i, r := range cfg.Rules {
		if r.Action != "allow" && r.Action != "deny" {
			c.Failf("rules[%d].action must be allow or deny, not %q", i, r.Action)
		}
	}
	return cfg
}

// decide returns the first matching rule (nil for the default) and whether
// the tool is allowed at all for this principal.
func decide(cfg *Config, tool, principal string) (*Rule, bool) {
	for i := range cfg.Rules {
		r := &cfg.Rules[i]
		if matchAny(r.Tools, tool) && matchAny(r.Principals, principal) {
			return r, r.Action == "allow"
		}
	}
	return nil, cfg.Default == "allow"
}

func matchAny(globs []string, s string) bool {
	if len(globs) == 0 {
		return true
	}
	for _, g := range globs {
		if ok, _ := path.Match(g, s); ok || g == s {
			return true
		}
		// "user" matches "user:alice".
		if !strings.Contains(g, ":") && strings.HasPrefix(s, g+":") {
			return true
		}
	}
	return false
}

func validate(c *pdk.Call) pdk.Verdict {
	cfg := loadConfig(c)
	call, err := c.ToolCall()
	if err != nil {
		c.Fail(err)
	}
	who := c.PrincipalKey()
	rule, ok := decide(&cfg, call.Name, who)
	if !ok {
		msg := fmt.Sprintf("tool %q is not allowed for %s", call.Name, who)
		if rule != nil && rule.Reason != "" {
			msg += ": " + rule.Reason
		}
		return pdk.DenyAt("/name", "%s", msg)
	}
	if rule == nil || len(rule.Args) == 0 {
		return pdk.Allow()
	}
	var args map[string]any
	if err := call.Args(&args); err != nil {
		return pdk.DenyAt("/arguments", "arguments are not an object: %v", err)
	}
	var v pdk.Verdict
	names := make([]string, 0, len(rule.Args))
	for n := range rule.Args {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, name := range names {
		con := rule.Args[name]
		p := "/arguments/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(name)
		raw, present := args[name]
		if !present {
			if con.Required {
				v.Error(p, "argument %q is required by the policy", name)
			}
			continue
		}
		s, isStr := raw.(string)
		if !isStr {
			b, _ := json.Marshal(raw)
			s = string(b)
		}
		if msg := con.check(s); msg != "" {
			v.Error(p, "argument %q %s", name, msg)
		}
	}
	return v
}

// check returns why s breaks the constraint, or "".
func (k *Constraint) check(s string) string {
	if k.MaxLength > 0 && len(s) > k.MaxLength {
		return fmt.Sprintf("is longer than %d bytes", k.MaxLength)
	}
	if len(k.OneOf) > 0 && !slices.Contains(k.OneOf, s) {
		return fmt.Sprintf("must be one of %q", k.OneOf)
	}
	for _, d := range k.Deny {
		if strings.Contains(s, d) {
			return fmt.Sprintf("contains the denied text %q", d)
		}
	}
	if k.Pattern != "" {
		re, err := regexp.Compile(k.Pattern)
		if err != nil {
			return "cannot be checked: bad pattern: " + err.Error()
		}
		if !re.MatchString(s) {
			return fmt.Sprintf("does not match %q", k.Pattern)
		}
	}
	if len(k.Prefix) > 0 {
		clean := path.Clean("/" + strings.TrimPrefix(s, "/"))
		if !strings.HasPrefix(s, "/") {
			return fmt.Sprintf("must be an absolute path under %q", k.Prefix)
		}
		ok := false
		for _, pre := range k.Prefix {
			pre = path.Clean(pre)
			ok = ok || clean == pre || strings.HasPrefix(clean, strings.TrimSuffix(pre, "/")+"/")
		}
		if !ok {
			return fmt.Sprintf("path %q is outside %q", clean, k.Prefix)
		}
	}
	if len(k.Hosts) > 0 || len(k.Schemes) > 0 {
		u, err := url.Parse(s)
		if err != nil || u.Host == "" {
			return "is not an absolute URL"
		}
		if len(k.Schemes) > 0 && !slices.Contains(k.Schemes, u.Scheme) {
			return fmt.Sprintf("has scheme %q, allowed: %q", u.Scheme, k.Schemes)
		}
		if len(k.Hosts) > 0 && !matchHost(k.Hosts, strings.ToLower(u.Hostname())) {
			return fmt.Sprintf("has host %q, allowed: %q", u.Hostname(), k.Hosts)
		}
	}
	return ""
}

func matchHost(globs []string, host string) bool {
	for _, g := range globs {
		if ok, _ := path.Match(strings.ToLower(g), host); ok {
			return true
		}
	}
	return false
}

func filterList(c *pdk.Call) pdk.Mutation {
	cfg := loadConfig(c)
	list, err := c.ToolList()
	if err != nil {
		c.Fail(err)
	}
	who := c.PrincipalKey()
	kept := list.Tools[:0]
	var removed []string
	for _, t := range list.Tools {
		if _, ok := decide(&cfg, t.Name, who); ok {
			kept = append(kept, t)
		} else {
			removed = append(removed, t.Name)
		}
	}
	if len(removed) == 0 {
		return pdk.Unchanged()
	}
	list.Tools = kept
	return c.Replace(list).WithInfo(map[string]any{"removed": removed})
}
