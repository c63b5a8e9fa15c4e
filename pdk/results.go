package pdk

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/airlock-mcp/airlock/internal/jsonscan"
	"github.com/airlock-mcp/airlock/spec"
)

// Verdict is what a validator returns. The zero Verdict allows.
//
// Findings decide the verdict: any error or warn finding makes it
// valid:false; its severity is the highest one found. A verdict with only
// info findings stays valid. So a chain blocks on an error finding and lets
// a warn finding through, recording it.
type Verdict struct {
	messages    []spec.Message
	suggestions []spec.Suggestion
	info        json.RawMessage
	err         error
}

// Allow returns a verdict that lets the payload through.
func Allow() Verdict { return Verdict{} }

// Deny returns a verdict with one error finding and no path.
func Deny(format string, args ...any) Verdict {
	var v Verdict
	v.Error("", format, args...)
	return v
}

// DenyAt returns a verdict with one error finding at path (a JSON Pointer
// into the payload, such as "/arguments/key").
func DenyAt(path, format string, args ...any) Verdict {
	var v Verdict
	v.Error(path, format, args...)
	return v
}

// Error adds an error finding at path ("" for none).
func (v *Verdict) Error(path, format string, args ...any) {
	v.Add(SeverityError, path, sprintf(format, args))
}

// Warn adds a warn finding at path.
func (v *Verdict) Warn(path, format string, args ...any) {
	v.Add(SeverityWarn, path, sprintf(format, args))
}

// Info adds an info finding at path.
func (v *Verdict) Info(path, format string, args ...any) {
	v.Add(SeverityInfo, path, sprintf(format, args))
}

// sprintf is fmt.Sprintf, with the result fmt would give for a format
// without verbs and no arguments (the format itself) found without
// fmt, which costs microseconds inside WebAssembly.
func sprintf(format string, args []any) string {
	if len(args) == 0 && strings.IndexByte(format, '%') < 0 {
		return format
	}
	return fmt.Sprintf(format, args...)
}

// Add adds a finding with the given severity. An unknown severity is kept
// as given (a chain treats it as error).
func (v *Verdict) Add(sev spec.Severity, path, msg string) {
	v.messages = append(v.messages, spec.Message{Path: path, Message: msg, Severity: sev})
}

// Suggest proposes value (encoded as JSON) for path.
func (v *Verdict) Suggest(path string, value any) {
	b, err := json.Marshal(value)
	if err != nil {
		v.err = fmt.Errorf("suggestion for %s: %w", path, err)
		return
	}
	v.suggestions = append(v.suggestions, spec.Suggestion{Path: path, Value: b})
}

// SetInfo attaches value (encoded as JSON) as the result's info.
func (v *Verdict) SetInfo(value any) { v.info, v.err = infoJSON(value, v.err) }

// Valid reports whether the verdict lets the payload through: no error or
// warn findings.
func (v Verdict) Valid() bool {
	for _, m := range v.messages {
		if m.Severity != SeverityInfo {
			return false
		}
	}
	return true
}

// Severity is the highest severity of the findings ("" when none).
func (v Verdict) Severity() spec.Severity {
	var s spec.Severity
	rank := func(x spec.Severity) int {
		switch x {
		case "":
			return 0
		case SeverityInfo:
			return 1
		case SeverityWarn:
			return 2
		}
		return 3 // error and unknown
	}
	for _, m := range v.messages {
		if rank(m.Severity) > rank(s) {
			s = m.Severity
		}
	}
	return s
}

// Messages are the findings so far.
func (v Verdict) Messages() []spec.Message { return v.messages }

// Merge adds o's findings and suggestions to v.
func (v *Verdict) Merge(o Verdict) {
	v.messages = append(v.messages, o.messages...)
	v.suggestions = append(v.suggestions, o.suggestions...)
}

func (v Verdict) fill(r *spec.Result) error {
	r.Valid, r.Severity = v.Valid(), v.Severity()
	r.Messages, r.Suggestions, r.Info = v.messages, v.suggestions, v.info
	return v.err
}

// Mutation is what a mutator returns. The zero Mutation leaves the payload
// unchanged. Build a changed one with [Call.Replace] or
// [Call.RewriteStrings], which set modified only when the payload really
// changed.
type Mutation struct {
	modified bool
	payload  json.RawMessage
	info     json.RawMessage
	err      error
}

// Unchanged returns a mutation that leaves the payload as it is.
func Unchanged() Mutation { return Mutation{} }

// Modified reports whether the mutation changes the payload.
func (m Mutation) Modified() bool { return m.modified }

// Payload is the replacement payload (nil when unchanged).
func (m Mutation) Payload() json.RawMessage { return m.payload }

// WithInfo returns m with value (encoded as JSON) as the result's info.
func (m Mutation) WithInfo(value any) Mutation {
	m.info, m.err = infoJSON(value, m.err)
	return m
}

func (m Mutation) fill(r *spec.Result) error {
	r.Modified, r.Payload, r.Info = m.modified, m.payload, m.info
	return m.err
}

// Replace returns a mutation whose payload is v: a json.RawMessage or []byte
// of JSON as it is, anything else encoded with encoding/json. If the result
// equals the input payload as JSON (white space and key order aside), the
// mutation is Unchanged: "modified" is never claimed for a payload that did
// not change. An unencodable v fails the call.
func (c *Call) Replace(v any) Mutation {
	var raw []byte
	switch x := v.(type) {
	case json.RawMessage:
		raw = x
	case []byte:
		raw = x
	default:
		b, err := json.Marshal(v)
		if err != nil {
			c.Failf("encoding the replacement payload: %v", err)
		}
		raw = b
	}
	if !json.Valid(raw) {
		c.Failf("the replacement payload is not valid JSON")
	}
	if bytes.Equal(raw, c.inv.payload) || spec.JSONEqual(raw, c.inv.payload) {
		return Mutation{}
	}
	return Mutation{modified: true, payload: raw}
}

// RewriteStrings returns a mutation of the payload in which every string
// value (not object keys) goes through fn; see [RewriteStrings]. Only the
// strings fn changes are re-encoded; all other bytes stay as they were.
func (c *Call) RewriteStrings(fn func(path Path, s string) (string, bool)) Mutation {
	out, changed, err := RewriteStrings(c.inv.payload, fn)
	if err != nil {
		c.Fail(err)
	}
	if !changed {
		return Mutation{}
	}
	return Mutation{modified: true, payload: out}
}

// WalkStrings calls fn for every string value of the payload with its JSON
// Pointer; see [WalkStrings].
func (c *Call) WalkStrings(fn func(path Path, s string)) {
	if err := WalkStrings(c.inv.payload, fn); err != nil {
		c.Fail(err)
	}
}

// Record is what a sink returns.
type Record struct {
	recorded bool
	metrics  map[string]float64
	info     json.RawMessage
	err      error
}

// Recorded returns a record that says the call was recorded, with optional
// metrics (nil for none).
func Recorded(metrics map[string]float64) Record {
	return Record{recorded: true, metrics: metrics}
}

// NotRecorded returns a record that says nothing was recorded; reason, if not
// empty, goes into info.
func NotRecorded(reason string) Record {
	r := Record{}
	if reason != "" {
		r = r.WithInfo(map[string]string{"reason": reason})
	}
	return r
}

// WithInfo returns r with value (encoded as JSON) as the result's info.
func (r Record) WithInfo(value any) Record {
	r.info, r.err = infoJSON(value, r.err)
	return r
}

// IsRecorded reports whether the record says the call was recorded.
func (r Record) IsRecorded() bool { return r.recorded }

// Metrics are the record's metrics.
func (r Record) Metrics() map[string]float64 { return r.metrics }

func (r Record) fill(res *spec.Result) error {
	res.Recorded, res.Metrics, res.Info = r.recorded, r.metrics, r.info
	return r.err
}

func infoJSON(v any, prev error) (json.RawMessage, error) {
	if raw, ok := v.(json.RawMessage); ok && len(raw) > 0 {
		// Already JSON: checked, not re-encoded (encoding/json would only
		// compact it, at a cost that shows inside WebAssembly).
		if !jsonscan.Valid(raw) {
			return nil, errors.New("info: the json.RawMessage is not valid JSON")
		}
		return raw, prev
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("info: %w", err)
	}
	return b, prev
}
