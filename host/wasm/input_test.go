package wasm

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/airlock-mcp/airlock/internal/jsonscan"

	"github.com/airlock-mcp/airlock/spec"
)

func TestInputEncoding(t *testing.T) {
	cases := []struct {
		name string
		p    spec.InvokeParams
		ctx  string
	}{
		{"minimal", spec.InvokeParams{Name: "a", Event: "tools/call", Phase: spec.PhaseRequest, Payload: json.RawMessage(`{}`)}, ""},
		{"no payload", spec.InvokeParams{Name: "a", Event: "tools/list", Phase: spec.PhaseResponse}, ""},
		{"everything", spec.InvokeParams{Name: "x", Event: "tools/call", Phase: spec.PhaseResponse,
			Payload: json.RawMessage(`{ "a" : [1, 2] }`), Config: json.RawMessage(`{"k": true}`), TimeoutMs: 250,
			Meta: json.RawMessage(`{"m":1}`)}, `{"traceId":"t"}`},
		{"escapes", spec.InvokeParams{Name: "q\"\\\n\r\t\x01\x1f<&>", Event: "ns/é\u2028\u2029😀", Phase: "re\xffq",
			Payload: json.RawMessage(`null`), TimeoutMs: -5}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := appendInput(nil, &c.p, []byte(c.ctx))
			if n := inputSize(&c.p, []byte(c.ctx)); n != len(got) {
				t.Fatalf("inputSize = %d, appendInput wrote %d bytes: %s", n, len(got), got)
			}
			var back struct {
				Name, Event, Phase string
				Payload, Config    json.RawMessage
				TimeoutMs          int64
				Context            json.RawMessage
				Meta               json.RawMessage `json:"_meta"`
			}
			if err := json.Unmarshal(got, &back); err != nil {
				t.Fatalf("not JSON: %v: %s", err, got)
			}
			want, _ := json.Marshal(c.p.Name)
			var wantName string
			_ = json.Unmarshal(want, &wantName)
			if back.Name != wantName || back.TimeoutMs != c.p.TimeoutMs {
				t.Fatalf("decoded %+v from %s", back, got)
			}
			// Raw parts go through byte for byte: no re-encoding.
			wantPayload := string(c.p.Payload)
			if wantPayload == "" {
				wantPayload = "null"
			}
			if string(back.Payload) != wantPayload || string(back.Config) != string(c.p.Config) || string(back.Meta) != string(c.p.Meta) {
				t.Fatalf("raw parts changed: %s", got)
			}
		})
	}
}

func TestAppendStringMatchesEncodingJSON(t *testing.T) {
	for _, s := range []string{"", "plain", "q\"b\\", "\x00\x07\x1f\x7f", "é😀", "\u2028\u2029", "bad\xffutf8\xc3"} {
		got := jsonscan.AppendString(nil, s)
		var back string
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		std, _ := json.Marshal(s)
		var stdBack string
		_ = json.Unmarshal(std, &stdBack)
		if !reflect.DeepEqual(back, stdBack) {
			t.Fatalf("%q decodes to %q, encoding/json's to %q", s, back, stdBack)
		}
		if stringSize(s) != len(got) {
			t.Fatalf("%q: stringSize %d, appendString %d", s, stringSize(s), len(got))
		}
	}
}
