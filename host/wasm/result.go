package wasm

import (
	"bytes"

	"github.com/airlock-mcp/airlock/internal/jsonscan"
	"github.com/airlock-mcp/airlock/spec"
)

// echoMin is the payload size from which decodeResult looks for an echoed
// payload; below it, the scan costs about what it saves.
const echoMin = 512

// decodeResult decodes a plugin's raw result for params. scratch is a
// buffer reused across calls.
//
// Results in the canonical form plugins write are decoded by decodeFast
// (result_fast.go), without encoding/json; anything else, errors included,
// by decodeSlow, with spec.Result's own decoder. Both decide exactly as
// json.Unmarshal into a spec.Result does.
//
// A result very often carries the input payload back unchanged (a mutation
// with modified:false, which is what most mutators return most of the time).
// Decoding it with encoding/json would scan it twice and copy it, which for
// a 64 KiB payload costs more than the whole guest call on the direct ABI.
// So when the result's top-level "payload" member is byte for byte the input
// payload, it is not scanned again (decodeSlow swaps it for a placeholder
// before decoding) and the input's bytes are used as the result's payload:
// they were valid JSON when they went in, and the rest of the result is
// still fully decoded and checked.
func decodeResult(out []byte, params *spec.InvokeParams, scratch *[]byte) (*spec.Result, error) {
	if r, ok := decodeFast(out, params, scratch); ok {
		return r, nil
	}
	return decodeSlow(out, params, scratch)
}

// decodeSlow is decodeResult with spec.Result's decoder: whatever the input,
// it decides as json.Unmarshal into a spec.Result does.
func decodeSlow(out []byte, params *spec.InvokeParams, scratch *[]byte) (*spec.Result, error) {
	var r spec.Result
	if len(params.Payload) >= echoMin {
		if s, e, ok := payloadSpan(out, params.Payload); ok && bytes.Equal(out[s:e], params.Payload) && echoable(params.Payload) {
			rest := append((*scratch)[:0], out[:s]...)
			rest = append(rest, "{}"...)
			rest = append(rest, out[e:]...)
			*scratch = rest
			if err := r.UnmarshalJSON(rest); err != nil {
				return nil, err
			}
			if r.Type == spec.TypeMutation {
				r.Payload = params.Payload
			}
			return &r, nil
		}
	}
	// UnmarshalJSON directly: json.Unmarshal would scan the output once more
	// before calling it.
	if err := r.UnmarshalJSON(out); err != nil {
		return nil, err
	}
	return &r, nil
}

// payloadSpan returns the bounds of the value of the top-level "payload"
// member of the JSON object b. ok is false when b is not an object this
// scanner can follow, or has no such member, or has it twice (encoding/json
// would take the last; the slow path decides such cases).
//
// When the member's value starts with the bytes of echo (the input payload,
// valid JSON) and the member ends right after them, the scanner jumps over
// them instead of walking them byte by byte: a complete JSON value followed
// by ',' or '}' can only end there.
func payloadSpan(b, echo []byte) (start, end int, ok bool) {
	i := jsonscan.Space(b, 0)
	if i >= len(b) || b[i] != '{' {
		return 0, 0, false
	}
	i++
	found := false
	for {
		i = jsonscan.Space(b, i)
		if i >= len(b) {
			return 0, 0, false
		}
		if b[i] == '}' {
			return start, end, found
		}
		if b[i] != '"' {
			return 0, 0, false
		}
		ks := i
		ke, err := jsonscan.SkipTrusted(b, i)
		if err != nil {
			return 0, 0, false
		}
		i = jsonscan.Space(b, ke)
		if i >= len(b) || b[i] != ':' {
			return 0, 0, false
		}
		vs := jsonscan.Space(b, i+1)
		isPayload := string(b[ks:ke]) == `"payload"`
		var ve int
		if j := jsonscan.Space(b, vs+len(echo)); isPayload && len(echo) > 0 && bytes.HasPrefix(b[vs:], echo) &&
			j < len(b) && (b[j] == ',' || b[j] == '}') {
			ve = vs + len(echo)
		} else if ve, err = jsonscan.SkipTrusted(b, vs); err != nil {
			return 0, 0, false
		}
		if isPayload {
			if found {
				return 0, 0, false
			}
			start, end, found = vs, ve, true
		}
		i = jsonscan.Space(b, ve)
		if i < len(b) && b[i] == ',' {
			i++
		}
	}
}
