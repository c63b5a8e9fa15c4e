package spec

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Severity grades a validation verdict or message.
type Severity string

const (
	SeverityInfo  Severity = "info"
	SeverityWarn  Severity = "warn"
	SeverityError Severity = "error"
)

// Blocks reports whether a valid:false verdict with this severity blocks a
// chain: error, missing and unknown severities do; warn and info never do.
// Failing closed on unknown values keeps a typo from turning a block into a
// pass.
func (s Severity) Blocks() bool { return s != SeverityWarn && s != SeverityInfo }

// Message is one finding of a validator.
type Message struct {
	Path     string   `json:"path,omitempty"`
	Message  string   `json:"message"`
	Severity Severity `json:"severity,omitempty"`
}

// Suggestion proposes a value for a path of the payload.
type Suggestion struct {
	Path  string          `json:"path"`
	Value json.RawMessage `json:"value"`
}

// Result is one InterceptorResult: a flat object discriminated by Type. Only
// the fields of its kind are encoded; the others are ignored.
//
// Decoding is strict about the kind: an unknown type, a validation without
// "valid", a mutation without "modified" (or modified:true without
// "payload") and a sink without "recorded" are errors, so a Result that
// decoded is well-formed. A mutation with modified:false may leave out the
// payload: it then stands for the input unchanged.
type Result struct {
	Interceptor string          `json:"interceptor"`
	Type        Type            `json:"type"`
	Phase       Phase           `json:"phase"`
	DurationMs  float64         `json:"durationMs,omitempty"`
	Info        json.RawMessage `json:"info,omitempty"`

	// Validation.
	Valid       bool         `json:"valid"`
	Severity    Severity     `json:"severity,omitempty"`
	Messages    []Message    `json:"messages,omitempty"`
	Suggestions []Suggestion `json:"suggestions,omitempty"`

	// Mutation.
	Modified bool            `json:"modified"`
	Payload  json.RawMessage `json:"payload,omitempty"`

	// Sink.
	Recorded bool               `json:"recorded"`
	Metrics  map[string]float64 `json:"metrics,omitempty"`
}

type resultHead struct {
	Interceptor string          `json:"interceptor"`
	Type        Type            `json:"type"`
	Phase       Phase           `json:"phase"`
	DurationMs  float64         `json:"durationMs,omitempty"`
	Info        json.RawMessage `json:"info,omitempty"`
}

type validationWire struct {
	resultHead
	Valid       bool         `json:"valid"`
	Severity    Severity     `json:"severity,omitempty"`
	Messages    []Message    `json:"messages,omitempty"`
	Suggestions []Suggestion `json:"suggestions,omitempty"`
}

type mutationWire struct {
	resultHead
	Modified bool            `json:"modified"`
	Payload  json.RawMessage `json:"payload,omitempty"`
}

type sinkWire struct {
	resultHead
	Recorded bool               `json:"recorded"`
	Metrics  map[string]float64 `json:"metrics,omitempty"`
}

// MarshalJSON encodes the common fields and those of r.Type's kind.
func (r Result) MarshalJSON() ([]byte, error) {
	head := resultHead{r.Interceptor, r.Type, r.Phase, r.DurationMs, r.Info}
	switch r.Type {
	case TypeValidation:
		return json.Marshal(validationWire{head, r.Valid, r.Severity, r.Messages, r.Suggestions})
	case TypeMutation:
		return json.Marshal(mutationWire{head, r.Modified, r.Payload})
	case TypeSink:
		return json.Marshal(sinkWire{head, r.Recorded, r.Metrics})
	}
	return nil, fmt.Errorf("result of interceptor %q: type %q is not one of validation, mutation, sink", r.Interceptor, r.Type)
}

// UnmarshalJSON decodes by the "type" discriminator; see [Result].
func (r *Result) UnmarshalJSON(data []byte) error {
	var w struct {
		resultHead
		Valid       *bool              `json:"valid"`
		Severity    Severity           `json:"severity"`
		Messages    []Message          `json:"messages"`
		Suggestions []Suggestion       `json:"suggestions"`
		Modified    *bool              `json:"modified"`
		Payload     json.RawMessage    `json:"payload"`
		Recorded    *bool              `json:"recorded"`
		Metrics     map[string]float64 `json:"metrics"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return fmt.Errorf("interceptor result: %w", err)
	}
	out := Result{Interceptor: w.Interceptor, Type: w.Type, Phase: w.Phase, DurationMs: w.DurationMs, Info: w.Info}
	switch w.Type {
	case TypeValidation:
		if w.Valid == nil {
			return errors.New(`validation result: "valid" is required`)
		}
		out.Valid, out.Severity, out.Messages, out.Suggestions = *w.Valid, w.Severity, w.Messages, w.Suggestions
	case TypeMutation:
		if w.Modified == nil {
			return errors.New(`mutation result: "modified" is required`)
		}
		if *w.Modified && (len(w.Payload) == 0 || string(w.Payload) == "null") {
			return errors.New(`mutation result: modified:true needs a "payload"`)
		}
		out.Modified, out.Payload = *w.Modified, w.Payload
	case TypeSink:
		if w.Recorded == nil {
			return errors.New(`sink result: "recorded" is required`)
		}
		out.Recorded, out.Metrics = *w.Recorded, w.Metrics
	case "":
		return errors.New(`interceptor result: "type" is required`)
	default:
		return fmt.Errorf("interceptor result: type %q is not one of validation, mutation, sink", w.Type)
	}
	*r = out
	return nil
}

// CheckEcho returns an error unless the result names the interceptor, type and
// phase of the call that produced it. Hosts treat a mismatch as an invocation
// failure: a plugin answering for another interceptor must not be believed.
func (r *Result) CheckEcho(name string, typ Type, phase Phase) error {
	switch {
	case r.Interceptor != name:
		return fmt.Errorf("result names interceptor %q, the call was for %q", r.Interceptor, name)
	case r.Type != typ:
		return fmt.Errorf("result has type %q, interceptor %q is a %s interceptor", r.Type, name, typ)
	case r.Phase != phase:
		return fmt.Errorf("result has phase %q, the call was for phase %q", r.Phase, phase)
	}
	return nil
}

// CheckMutation returns an error when a mutation result claims modified:false
// but carries a payload that differs from the input.
func (r *Result) CheckMutation(input json.RawMessage) error {
	if r.Type != TypeMutation || r.Modified || len(r.Payload) == 0 {
		return nil
	}
	if !JSONEqual(r.Payload, input) {
		return errors.New("mutation result claims modified:false but its payload differs from the input")
	}
	return nil
}

// Blocks reports whether this validation result, from an active interceptor,
// blocks a chain: valid:false with severity error, missing or unknown.
func (r *Result) Blocks() bool {
	return r.Type == TypeValidation && !r.Valid && r.Severity.Blocks()
}

// CheckResult returns an error unless res is an acceptable answer to p from an
// interceptor of type typ: it echoes the call ([Result.CheckEcho]); a mutation
// is honest about "modified" ([Result.CheckMutation]); and a replacement
// payload is still a valid payload for the event and phase ([CheckPayload]).
// Every host applies it to what an interceptor returns.
func CheckResult(res *Result, p *InvokeParams, typ Type) error {
	if err := res.CheckEcho(p.Name, typ, p.Phase); err != nil {
		return fmt.Errorf("malformed result: %w", err)
	}
	if typ != TypeMutation {
		return nil
	}
	if err := res.CheckMutation(p.Payload); err != nil {
		return fmt.Errorf("malformed result: %w", err)
	}
	if res.Modified {
		if err := CheckPayload(p.Event, p.Phase, res.Payload); err != nil {
			return fmt.Errorf("invalid replacement payload: %w", err)
		}
	}
	return nil
}
