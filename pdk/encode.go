package pdk

// Hand-written encoding of results: encoding/json's reflection is most of a
// small call's cost inside WebAssembly. The output is the JSON of
// spec.Result.MarshalJSON, member for member; two differences in form only:
// strings are not HTML-escaped, and raw members (payload, info, suggestion
// values) are written as they are instead of compacted. A test checks that
// both decode to the same result.

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/airlock-mcp/airlock/spec"
)

// appendResult appends the JSON of r to dst.
func appendResult(dst []byte, r *spec.Result) ([]byte, error) {
	return appendResultBody(appendResultHead(dst, r), r)
}

// appendResultHead appends the opening of r's JSON: the members that echo
// the call. An interceptor's heads are computed once (entry.head).
func appendResultHead(dst []byte, r *spec.Result) []byte {
	dst = append(dst, `{"interceptor":`...)
	dst = appendJSONString(dst, r.Interceptor)
	dst = append(dst, `,"type":`...)
	dst = appendJSONString(dst, string(r.Type))
	dst = append(dst, `,"phase":`...)
	return appendJSONString(dst, string(r.Phase))
}

// appendResultBody appends the rest of r's JSON after its head.
func appendResultBody(dst []byte, r *spec.Result) ([]byte, error) {
	if r.DurationMs != 0 {
		dst = append(dst, `,"durationMs":`...)
		var err error
		if dst, err = appendFloat(dst, r.DurationMs); err != nil {
			return nil, err
		}
	}
	if len(r.Info) > 0 {
		dst = append(dst, `,"info":`...)
		dst = append(dst, r.Info...)
	}
	switch r.Type {
	case spec.TypeValidation:
		dst = append(dst, `,"valid":`...)
		dst = strconv.AppendBool(dst, r.Valid)
		if r.Severity != "" {
			dst = append(dst, `,"severity":`...)
			dst = appendJSONString(dst, string(r.Severity))
		}
		if len(r.Messages) > 0 {
			dst = append(dst, `,"messages":[`...)
			for i, m := range r.Messages {
				if i > 0 {
					dst = append(dst, ',')
				}
				dst = append(dst, '{')
				if m.Path != "" {
					dst = append(dst, `"path":`...)
					dst = appendJSONString(dst, m.Path)
					dst = append(dst, ',')
				}
				dst = append(dst, `"message":`...)
				dst = appendJSONString(dst, m.Message)
				if m.Severity != "" {
					dst = append(dst, `,"severity":`...)
					dst = appendJSONString(dst, string(m.Severity))
				}
				dst = append(dst, '}')
			}
			dst = append(dst, ']')
		}
		if len(r.Suggestions) > 0 {
			dst = append(dst, `,"suggestions":[`...)
			for i, s := range r.Suggestions {
				if i > 0 {
					dst = append(dst, ',')
				}
				dst = append(dst, `{"path":`...)
				dst = appendJSONString(dst, s.Path)
				dst = append(dst, `,"value":`...)
				if len(s.Value) == 0 {
					dst = append(dst, "null"...)
				} else {
					dst = append(dst, s.Value...)
				}
				dst = append(dst, '}')
			}
			dst = append(dst, ']')
		}
	case spec.TypeMutation:
		dst = append(dst, `,"modified":`...)
		dst = strconv.AppendBool(dst, r.Modified)
		if len(r.Payload) > 0 {
			dst = append(dst, `,"payload":`...)
			dst = append(dst, r.Payload...)
		}
	case spec.TypeSink:
		dst = append(dst, `,"recorded":`...)
		dst = strconv.AppendBool(dst, r.Recorded)
		if len(r.Metrics) > 0 {
			dst = append(dst, `,"metrics":{`...)
			// A plain loop and sort: the iterator form is a function call
			// per key, which shows inside WebAssembly.
			keys := make([]string, 0, 8)
			for k := range r.Metrics {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for i, k := range keys {
				if i > 0 {
					dst = append(dst, ',')
				}
				dst = appendJSONString(dst, k)
				dst = append(dst, ':')
				var err error
				if dst, err = appendFloat(dst, r.Metrics[k]); err != nil {
					return nil, fmt.Errorf("metric %q: %w", k, err)
				}
			}
			dst = append(dst, '}')
		}
	default:
		return nil, fmt.Errorf("result of interceptor %q: type %q is not one of validation, mutation, sink", r.Interceptor, r.Type)
	}
	return append(dst, '}'), nil
}

var errNotFinite = errors.New("json: unsupported value: NaN or infinity")

// appendFloat formats f as encoding/json does (the shortest representation;
// exponent form below 1e-6 and from 1e21).
func appendFloat(dst []byte, f float64) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, errNotFinite
	}
	format := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		// e-07 -> e-7, as JavaScript writes it.
		if n := len(dst); n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst, nil
}
