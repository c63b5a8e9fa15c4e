package spec

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Phase says which half of a governed exchange an interceptor sees.
type Phase string

const (
	PhaseRequest  Phase = "request"
	PhaseResponse Phase = "response"
	// PhaseBoth is authoring sugar for two hooks, one per phase. It is valid
	// in a plugin's own description (see [Interceptor.ExpandBoth]) and never
	// at execution time.
	PhaseBoth Phase = "both"
)

// Valid reports whether p is an execution-time phase (request or response).
func (p Phase) Valid() bool { return p == PhaseRequest || p == PhaseResponse }

// Type is the kind of an interceptor and of its results.
type Type string

const (
	TypeValidation Type = "validation"
	TypeMutation   Type = "mutation"
	TypeSink       Type = "sink"
)

// Valid reports whether t is one of the three kinds.
func (t Type) Valid() bool { return t == TypeValidation || t == TypeMutation || t == TypeSink }

// Mode says whether an interceptor's verdicts take effect. The zero value is
// [ModeActive].
type Mode string

const (
	ModeActive Mode = "active"
	// ModeAudit runs the interceptor and records its result without letting it
	// block or change anything.
	ModeAudit Mode = "audit"
)

// IsAudit reports whether m is audit mode; every other value is active.
func (m Mode) IsAudit() bool { return m == ModeAudit }

// UnmarshalJSON reads "active" and "enforce" (an earlier draft's name) as
// active, and "audit" as audit. Anything else is an error, since a typo in a
// mode must not silently turn enforcement on or off.
func (m *Mode) UnmarshalJSON(data []byte) error {
	var s *string
	if err := json.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("mode must be a string: %w", err)
	}
	if s == nil {
		*m = ""
		return nil
	}
	switch *s {
	case "", "active", "enforce":
		*m = ModeActive
	case "audit":
		*m = ModeAudit
	default:
		return fmt.Errorf("mode %q is not one of \"active\", \"audit\" (or \"enforce\", read as active)", *s)
	}
	return nil
}

// Hook selects the events and the phase an interceptor runs on.
type Hook struct {
	Events []string `json:"events"`
	Phase  Phase    `json:"phase"`
}

// Matches reports whether the hook selects (event, phase).
func (h Hook) Matches(event string, phase Phase) bool {
	if h.Phase != phase {
		return false
	}
	for _, p := range h.Events {
		if MatchEvent(p, event) {
			return true
		}
	}
	return false
}

// Compat bounds the protocol versions an interceptor was written for.
type Compat struct {
	MinProtocol string `json:"minProtocol"`
	MaxProtocol string `json:"maxProtocol,omitempty"`
}

// Interceptor is the descriptor an interceptor host lists.
type Interceptor struct {
	Name         string          `json:"name"`
	Version      string          `json:"version,omitempty"`
	Description  string          `json:"description,omitempty"`
	Type         Type            `json:"type"`
	Hooks        []Hook          `json:"hooks"`
	Mode         Mode            `json:"mode,omitempty"`
	FailOpen     bool            `json:"failOpen,omitempty"`
	PriorityHint PriorityHint    `json:"priorityHint,omitzero"`
	Compat       *Compat         `json:"compat,omitempty"`
	ConfigSchema json.RawMessage `json:"configSchema,omitempty"`
	Meta         json.RawMessage `json:"_meta,omitempty"`
}

// MarshalJSON omits defaults: active mode, failOpen false and a zero
// priorityHint leave no trace on the wire.
func (d Interceptor) MarshalJSON() ([]byte, error) {
	type plain Interceptor
	p := plain(d)
	if !p.Mode.IsAudit() {
		p.Mode = ""
	}
	if p.Hooks == nil {
		p.Hooks = []Hook{}
	}
	return json.Marshal(p)
}

// Matches reports whether one of the descriptor's hooks selects (event, phase).
func (d *Interceptor) Matches(event string, phase Phase) bool {
	for _, h := range d.Hooks {
		if h.Matches(event, phase) {
			return true
		}
	}
	return false
}

// Events returns the distinct event patterns of all hooks, in first-seen order.
func (d *Interceptor) Events() []string {
	var out []string
	seen := map[string]bool{}
	for _, h := range d.Hooks {
		for _, e := range h.Events {
			if !seen[e] {
				seen[e] = true
				out = append(out, e)
			}
		}
	}
	return out
}

// ExpandBoth returns a copy of d in which every hook with phase "both" is
// replaced by a request hook and a response hook. Hosts call it on what a
// plugin describes, before [Interceptor.Validate].
func (d Interceptor) ExpandBoth() Interceptor {
	n := 0
	for _, h := range d.Hooks {
		if h.Phase == PhaseBoth {
			n++
		}
	}
	if n == 0 {
		return d
	}
	hooks := make([]Hook, 0, len(d.Hooks)+n)
	for _, h := range d.Hooks {
		if h.Phase == PhaseBoth {
			hooks = append(hooks,
				Hook{Events: h.Events, Phase: PhaseRequest},
				Hook{Events: h.Events, Phase: PhaseResponse})
			continue
		}
		hooks = append(hooks, h)
	}
	d.Hooks = hooks
	return d
}

// FieldError says which field of a descriptor is wrong and why.
type FieldError struct {
	Field  string // a JSON path such as "hooks[1].events[0]"
	Reason string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Reason }

// Validate checks that d can run: a name, a known type, at least one hook, and
// every hook with an execution-time phase and valid event patterns. The error
// is a *[FieldError] naming the first bad field.
func (d *Interceptor) Validate() error {
	switch {
	case d.Name == "":
		return &FieldError{"name", "is required"}
	case strings.TrimSpace(d.Name) != d.Name:
		return &FieldError{"name", fmt.Sprintf("%q has leading or trailing space", d.Name)}
	case !d.Type.Valid():
		return &FieldError{"type", fmt.Sprintf("%q is not one of validation, mutation, sink", d.Type)}
	case len(d.Hooks) == 0:
		return &FieldError{"hooks", "needs at least one hook"}
	}
	if d.Mode != "" && d.Mode != ModeActive && d.Mode != ModeAudit {
		return &FieldError{"mode", fmt.Sprintf("%q is not one of active, audit", d.Mode)}
	}
	for i, h := range d.Hooks {
		if err := h.validate(fmt.Sprintf("hooks[%d]", i)); err != nil {
			return err
		}
	}
	if d.Compat != nil && d.Compat.MinProtocol == "" {
		return &FieldError{"compat.minProtocol", "is required when compat is set"}
	}
	if len(d.ConfigSchema) > 0 && !isJSONObject(d.ConfigSchema) {
		return &FieldError{"configSchema", "must be a JSON Schema object"}
	}
	return nil
}

func (h Hook) validate(path string) error {
	switch {
	case h.Phase == PhaseBoth:
		return &FieldError{path + ".phase", `"both" is authoring sugar: expand it into a request and a response hook before execution`}
	case !h.Phase.Valid():
		return &FieldError{path + ".phase", fmt.Sprintf("%q is not one of request, response", h.Phase)}
	case len(h.Events) == 0:
		return &FieldError{path + ".events", "needs at least one event"}
	}
	for j, e := range h.Events {
		if !validEventPattern(e) {
			return &FieldError{fmt.Sprintf("%s.events[%d]", path, j),
				fmt.Sprintf("%q is not an interceptable event, \"*\" or a namespace glob like \"tools/*\"", e)}
		}
	}
	return nil
}

func isJSONObject(b json.RawMessage) bool {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case '{':
			return json.Valid(b)
		}
		return false
	}
	return false
}
