package spec

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// The decoders here see bytes from plugins and peers. Each fuzz target checks
// that decoding never panics and that whatever decodes re-encodes to
// something that decodes to the same value.

func FuzzInterceptorJSON(f *testing.F) {
	for _, s := range []string{
		`{"name":"a","type":"validation","hooks":[{"events":["tools/call"],"phase":"request"}]}`,
		`{"name":"a","type":"mutation","hooks":[],"mode":"enforce","failOpen":true,"priorityHint":{"request":5,"x":1}}`,
		`{"name":"a","type":"sink","hooks":[{"events":["*"],"phase":"both"}],"priorityHint":-7,"compat":{"minProtocol":"2025-06-18"},"configSchema":{"type":"object"},"_meta":{}}`,
		`{"priorityHint":1e3}`, `{"priorityHint":null}`, `{"mode":null}`, `[]`, `null`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var d Interceptor
		if json.Unmarshal(data, &d) != nil {
			return
		}
		_ = d.Validate()
		e := d.ExpandBoth()
		_ = e.Validate()
		out, err := json.Marshal(d)
		if err != nil {
			t.Fatalf("decoded %q but cannot encode: %v", data, err)
		}
		var again Interceptor
		if err := json.Unmarshal(out, &again); err != nil {
			t.Fatalf("re-encoded %q does not decode: %v", out, err)
		}
		out2, _ := json.Marshal(again)
		if !bytes.Equal(out, out2) {
			t.Fatalf("encoding is not stable:\n%s\n%s", out, out2)
		}
	})
}

func FuzzResultJSON(f *testing.F) {
	for _, s := range []string{
		`{"interceptor":"v","type":"validation","phase":"request","valid":false,"severity":"error","messages":[{"path":"$.a","message":"m","severity":"warn"}],"suggestions":[{"path":"$.a","value":1}]}`,
		`{"interceptor":"m","type":"mutation","phase":"response","modified":true,"payload":{"content":[]},"info":{"x":1},"durationMs":1.5}`,
		`{"interceptor":"m","type":"mutation","phase":"response","modified":false}`,
		`{"interceptor":"s","type":"sink","phase":"request","recorded":true,"metrics":{"n":1}}`,
		`{"type":"validation"}`, `{"type":"x"}`, `{}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var r Result
		if json.Unmarshal(data, &r) != nil {
			return
		}
		if !r.Type.Valid() {
			t.Fatalf("decoded a result of type %q", r.Type)
		}
		_ = r.CheckMutation(json.RawMessage(`{}`))
		_ = r.Blocks()
		out, err := json.Marshal(r)
		if err != nil {
			t.Fatalf("decoded %q but cannot encode: %v", data, err)
		}
		var again Result
		if err := json.Unmarshal(out, &again); err != nil {
			t.Fatalf("re-encoded %q does not decode: %v", out, err)
		}
		out2, _ := json.Marshal(again)
		if !bytes.Equal(out, out2) {
			t.Fatalf("encoding is not stable:\n%s\n%s", out, out2)
		}
	})
}

func FuzzInvokeParamsJSON(f *testing.F) {
	f.Add([]byte(`{"name":"a","event":"tools/call","phase":"request","payload":{"name":"x"},"config":{"k":1},"timeoutMs":5,"context":{"principal":{"type":"user","id":"u","claims":{"r":1}},"traceId":"t"},"_meta":{"m":1}}`))
	f.Add([]byte(`{"name":"a","payload":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var p InvokeParams
		if json.Unmarshal(data, &p) != nil {
			return
		}
		out, err := json.Marshal(p)
		if err != nil {
			t.Fatalf("decoded %q but cannot encode: %v", data, err)
		}
		var again InvokeParams
		if err := json.Unmarshal(out, &again); err != nil {
			t.Fatalf("re-encoded %q does not decode: %v", out, err)
		}
	})
}

// FuzzCheckPayload compares the in-place scanner with a plain decode into a
// map, which is obviously right and 10x slower.
func FuzzCheckPayload(f *testing.F) {
	for _, s := range []string{
		`{"name":"x","arguments":{"name":3}}`, `{"a":"}\"{","name":"x"}`, `{"n\u0061me":"x"}`,
		` { "name" : "x" , "arguments" : null } `, `{"name":"x","name":3}`, `[]`, `{"name":`, `{}`,
	} {
		f.Add(s, "tools/call", true)
		f.Add(s, "tools/list", false)
	}
	f.Fuzz(func(t *testing.T, payload, event string, request bool) {
		phase := PhaseResponse
		if request {
			phase = PhaseRequest
		}
		got := CheckPayload(event, phase, json.RawMessage(payload)) == nil
		want := referenceCheck(event, phase, []byte(payload))
		if got != want {
			t.Fatalf("CheckPayload(%s, %s, %q) = %v, reference says %v", event, phase, payload, got, want)
		}
	})
}

func referenceCheck(event string, phase Phase, payload []byte) bool {
	if !json.Valid(payload) {
		return false
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(payload, &obj) != nil || obj == nil {
		return false
	}
	need := requestShape[event]
	if phase == PhaseResponse {
		need = responseShape[event]
	}
	// encoding/json keeps the last of duplicate keys; the scanner checks
	// every occurrence, so a duplicate key with a bad value fails it. Treat
	// duplicates as the scanner does: every occurrence must be right.
	dups := duplicateKeys(payload)
	for _, f := range need {
		v, ok := obj[f.name]
		if !ok {
			if f.optional {
				continue
			}
			return false
		}
		if !f.kind.is(v) {
			return false
		}
		for _, dv := range dups[f.name] {
			if !f.kind.is(dv) {
				return false
			}
		}
	}
	return true
}

// duplicateKeys returns, for each top-level key, every value it was given.
func duplicateKeys(payload []byte) map[string][]json.RawMessage {
	out := map[string][]json.RawMessage{}
	dec := json.NewDecoder(bytes.NewReader(payload))
	if tok, err := dec.Token(); err != nil || !reflect.DeepEqual(tok, json.Delim('{')) {
		return out
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return out
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			return out
		}
		out[key] = append(out[key], v)
	}
	return out
}
