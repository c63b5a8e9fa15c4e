package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/airlock-mcp/airlock/spec"
)

// File is one airlock.yaml.
type File struct {
	// Path is the file it was read from ("" when parsed from bytes).
	Path string `json:"-"`

	Plugins      []Plugin     `json:"plugins,omitempty"`
	Remotes      []Remote     `json:"remotes,omitempty"`
	Interceptors Interceptors `json:"interceptors,omitzero"`
	Backend      *Backend     `json:"backend,omitempty"`
	Listen       Listen       `json:"listen,omitzero"`
	Logging      Logging      `json:"logging,omitzero"`
	Metrics      Metrics      `json:"metrics,omitzero"`
	Gateway      Gateway      `json:"gateway,omitzero"`
}

// Gateway holds the gateway's own settings; each has a flag of the same
// meaning that overrides it.
type Gateway struct {
	// ExposeMessages copies interceptor messages into block answers.
	ExposeMessages bool `json:"exposeMessages,omitempty"`
	// ExposeInterceptors also serves the interceptor protocol to clients.
	ExposeInterceptors bool `json:"exposeInterceptors,omitempty"`
	// ChainTimeout bounds each chain run.
	ChainTimeout Duration `json:"chainTimeout,omitempty"`
	// PrincipalHeader names the HTTP header that carries the caller's user id.
	PrincipalHeader string `json:"principalHeader,omitempty"`
	// ServerName replaces the backend's serverInfo name.
	ServerName string `json:"serverName,omitempty"`
}

// Plugin is a WebAssembly plugin to load.
type Plugin struct {
	// Path is the .wasm file. Relative paths are relative to the config
	// file's folder; [File.Resolve] makes them absolute.
	Path         string       `json:"path"`
	Name         string       `json:"name,omitempty"`
	SHA256       string       `json:"sha256,omitempty"`
	Config       PluginConfig `json:"config,omitempty"`
	AllowedHosts []string     `json:"allowedHosts,omitempty"`
	Limits       Limits       `json:"limits,omitzero"`
}

// PluginConfig is a plugin's configuration: the string values a plugin reads
// with Extism config_get. In YAML a value may be any value: a string is
// passed as it is, anything else (a list of rules, a number) as its JSON,
// which is how the Go PDK reads structured settings.
type PluginConfig map[string]string

// UnmarshalJSON accepts an object of any values.
func (c *PluginConfig) UnmarshalJSON(b []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return errors.New("plugin config is a mapping of names to values")
	}
	out := make(PluginConfig, len(raw))
	for k, v := range raw {
		var s string
		if json.Unmarshal(v, &s) == nil {
			out[k] = s
			continue
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, v); err != nil {
			return err
		}
		out[k] = compact.String()
	}
	*c = out
	return nil
}

// Limits bound a plugin. Zero values take the host's defaults.
type Limits struct {
	Memory    Size     `json:"memory,omitempty"`
	Timeout   Duration `json:"timeout,omitempty"`
	MaxOutput Size     `json:"maxOutput,omitempty"`
	MaxVars   Size     `json:"maxVars,omitempty"`
	Instances int      `json:"instances,omitempty"`
	// Deadlines is "interrupt" (default) or "at-host-calls".
	Deadlines string `json:"deadlines,omitempty"`
}

// Remote is a remote interceptor host: a command (stdio) or a URL.
type Remote struct {
	Command Command `json:"command,omitempty"`
	URL     string  `json:"url,omitempty"`
	Name    string  `json:"name,omitempty"`
}

// Label names the remote in logs and errors.
func (r Remote) Label() string {
	switch {
	case r.Name != "":
		return r.Name
	case r.URL != "":
		return r.URL
	}
	return strings.Join(r.Command, " ")
}

// Interceptors selects and adjusts interceptors.
type Interceptors struct {
	Enabled   []string                 `json:"enabled,omitempty"`
	Overrides map[string]spec.Override `json:"overrides,omitempty"`
}

// Backend is the MCP server the gateway fronts.
type Backend struct {
	Command Command `json:"command,omitempty"`
	URL     string  `json:"url,omitempty"`
}

// Listen holds listen addresses.
type Listen struct {
	HTTP string `json:"http,omitempty"`
}

// Logging configures the structured log on stderr.
type Logging struct {
	Level  string `json:"level,omitempty"`
	Format string `json:"format,omitempty"`
}

// Metrics configures the Prometheus endpoint.
type Metrics struct {
	// Enabled serves /metrics on the HTTP listener; unset means on.
	Enabled *bool `json:"enabled,omitempty"`
}

// On reports whether metrics are served (the default).
func (m Metrics) On() bool { return m.Enabled == nil || *m.Enabled }

// Command is a command line: in YAML a string (split as a shell splits plain
// words, with quotes and backslashes) or a list of words.
type Command []string

// UnmarshalJSON accepts a string or an array of strings.
func (c *Command) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		words, err := SplitCommand(s)
		if err != nil {
			return err
		}
		*c = words
		return nil
	}
	var words []string
	if err := json.Unmarshal(b, &words); err != nil {
		return errors.New("a command is a string or a list of strings")
	}
	*c = words
	return nil
}

// Duration is a time.Duration written as "500ms", "2s".
type Duration time.Duration

// UnmarshalJSON parses a Go duration string.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return errors.New(`a duration is a string such as "500ms"`)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	*d = Duration(v)
	return nil
}

// MarshalJSON writes the duration string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// Size is a byte count written as "64MiB", "512KiB", "100B".
type Size int64

// UnmarshalJSON parses a size with a binary unit.
func (s *Size) UnmarshalJSON(b []byte) error {
	var str string
	if err := json.Unmarshal(b, &str); err != nil {
		return errors.New(`a size is a string such as "64MiB"`)
	}
	v, err := ParseSize(str)
	if err != nil {
		return err
	}
	*s = Size(v)
	return nil
}

// MarshalJSON writes the size in the largest exact unit.
func (s Size) MarshalJSON() ([]byte, error) {
	n := int64(s)
	for _, u := range []struct {
		name string
		f    int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n != 0 && n%u.f == 0 {
			return json.Marshal(strconv.FormatInt(n/u.f, 10) + u.name)
		}
	}
	return json.Marshal(strconv.FormatInt(n, 10) + "B")
}

// ParseSize parses "64MiB", "512KiB", "1GiB" or "100B".
func ParseSize(s string) (int64, error) {
	units := []struct {
		suffix string
		f      int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"B", 1}}
	for _, u := range units {
		if num, ok := strings.CutSuffix(s, u.suffix); ok {
			n, err := strconv.ParseInt(num, 10, 64)
			if err != nil || n < 0 || n > (1<<62)/u.f {
				return 0, fmt.Errorf("size %q: the number is not a whole count", s)
			}
			return n * u.f, nil
		}
	}
	return 0, fmt.Errorf("size %q: use B, KiB, MiB or GiB", s)
}

// Resolve makes plugin paths absolute, relative to the config file's folder.
func (f *File) Resolve() {
	if f.Path == "" {
		return
	}
	dir := filepath.Dir(f.Path)
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	for i := range f.Plugins {
		if p := f.Plugins[i].Path; p != "" && !filepath.IsAbs(p) {
			f.Plugins[i].Path = filepath.Join(dir, p)
		}
	}
}

// SplitCommand splits a command line into words, honouring single and double
// quotes and backslash escapes the way a POSIX shell does for plain words
// (no variables, globs or other expansions).
func SplitCommand(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	var quote rune
	escaped := false
	for _, r := range s {
		switch {
		case escaped:
			cur.WriteRune(r)
			escaped = false
		case r == '\\' && quote != '\'':
			escaped, inWord = true, true
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 || escaped {
		return nil, fmt.Errorf("command %q: unterminated quote or escape", s)
	}
	if inWord {
		words = append(words, cur.String())
	}
	if len(words) == 0 {
		return nil, errors.New("empty command")
	}
	return words, nil
}
