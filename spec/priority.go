package spec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// PriorityHint orders mutators: lower runs first. It keeps the form it was
// given on the wire: a scalar stays a scalar, an object stays an object with
// the keys it had. The zero value is "no hint" (priority 0 for both phases) and
// is omitted when encoded.
type PriorityHint struct {
	form                    hintForm
	scalar                  int32
	request, response       int32
	hasRequest, hasResponse bool
}

type hintForm uint8

const (
	hintNone hintForm = iota
	hintScalar
	hintObject
)

// Priority returns a scalar hint that applies to both phases.
func Priority(p int32) PriorityHint { return PriorityHint{form: hintScalar, scalar: p} }

// PhasePriority returns an object hint. A nil phase is left unset, which means 0.
func PhasePriority(request, response *int32) PriorityHint {
	h := PriorityHint{form: hintObject}
	if request != nil {
		h.request, h.hasRequest = *request, true
	}
	if response != nil {
		h.response, h.hasResponse = *response, true
	}
	return h
}

// For returns the effective priority for a phase: the scalar, or the object's
// value for that phase, or 0.
func (h PriorityHint) For(phase Phase) int32 {
	switch h.form {
	case hintScalar:
		return h.scalar
	case hintObject:
		switch phase {
		case PhaseRequest:
			return h.request
		case PhaseResponse:
			return h.response
		}
	}
	return 0
}

// IsZero reports whether the hint is the default: absent, or the scalar 0.
// encoding/json's omitzero uses it so that defaults stay off the wire.
func (h PriorityHint) IsZero() bool {
	return h.form == hintNone || (h.form == hintScalar && h.scalar == 0)
}

// IsObject reports whether the hint has the per-phase object form.
func (h PriorityHint) IsObject() bool { return h.form == hintObject }

// MarshalJSON encodes the hint in the form it was given.
func (h PriorityHint) MarshalJSON() ([]byte, error) {
	switch h.form {
	case hintScalar:
		return strconv.AppendInt(nil, int64(h.scalar), 10), nil
	case hintObject:
		b := []byte{'{'}
		if h.hasRequest {
			b = append(b, `"request":`...)
			b = strconv.AppendInt(b, int64(h.request), 10)
		}
		if h.hasResponse {
			if h.hasRequest {
				b = append(b, ',')
			}
			b = append(b, `"response":`...)
			b = strconv.AppendInt(b, int64(h.response), 10)
		}
		return append(b, '}'), nil
	}
	return []byte("0"), nil
}

// UnmarshalJSON accepts a number or an object with optional "request" and
// "response" numbers; unknown keys in the object are ignored. Numbers must be
// integers that fit in an int32. null leaves the hint unset, as encoding/json
// does for every other optional field.
func (h *PriorityHint) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return fmt.Errorf("priorityHint: empty value")
	}
	switch data[0] {
	case 'n':
		if string(data) != "null" {
			break
		}
		*h = PriorityHint{}
		return nil
	case '{':
		var obj struct {
			Request  json.RawMessage `json:"request"`
			Response json.RawMessage `json:"response"`
		}
		if err := json.Unmarshal(data, &obj); err != nil {
			return fmt.Errorf("priorityHint: %w", err)
		}
		out := PriorityHint{form: hintObject}
		var err error
		if obj.Request != nil && string(obj.Request) != "null" {
			if out.request, err = int32Of("priorityHint.request", obj.Request); err != nil {
				return err
			}
			out.hasRequest = true
		}
		if obj.Response != nil && string(obj.Response) != "null" {
			if out.response, err = int32Of("priorityHint.response", obj.Response); err != nil {
				return err
			}
			out.hasResponse = true
		}
		*h = out
		return nil
	default:
		if data[0] == '-' || (data[0] >= '0' && data[0] <= '9') {
			v, err := int32Of("priorityHint", data)
			if err != nil {
				return err
			}
			*h = PriorityHint{form: hintScalar, scalar: v}
			return nil
		}
	}
	return fmt.Errorf("priorityHint must be a number or an object {\"request\",\"response\"}, got %s", truncate(data, 40))
}

func int32Of(field string, n []byte) (int32, error) {
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil {
		return 0, fmt.Errorf("%s: %s is not a number", field, truncate(n, 40))
	}
	if f != math.Trunc(f) || f < math.MinInt32 || f > math.MaxInt32 {
		return 0, fmt.Errorf("%s: %s is not an integer in the int32 range", field, string(n))
	}
	return int32(f), nil
}

func truncate(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + "…"
}
