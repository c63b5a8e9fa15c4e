package wasm

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/airlock-mcp/airlock/spec"
)

func TestPayloadSpan(t *testing.T) {
	cases := []struct {
		in   string
		echo string
		want string // "" when ok must be false
	}{
		{`{"payload":{"a":1}}`, ``, `{"a":1}`},
		{` { "x" : "payload" , "payload" : [1, "]\"}", {"b":[]}] , "y":null } `, ``, `[1, "]\"}", {"b":[]}]`},
		{`{"info":{"payload":1},"payload":"s"}`, ``, `"s"`},
		{`{"payload":123.5e3,"z":true}`, ``, `123.5e3`},
		{`{"payload":1,"payload":2}`, ``, ""},
		{`{"a":1}`, ``, ""},
		{`[{"payload":1}]`, ``, ""},
		{`{"payload":{"a":1}`, ``, ""},
		{`{"payload":"unterminated}`, ``, ""},
		{`{payload:1}`, ``, ""},
		{`{"payload"1}`, ``, ""},
		{``, ``, ""},
		// The echo shortcut: taken only when the value ends right after it.
		{`{"payload":{"a":1},"b":2}`, `{"a":1}`, `{"a":1}`},
		{`{"payload":1234}`, `123`, `1234`},
		{`{"payload":"abc" }`, `"abc"`, `"abc"`},
		{`{"payload":{"a":1}x}`, `{"a":1}`, ""},
		{`{"info":"{\"a\":1}","payload":2}`, `{"a":1}`, `2`},
	}
	for _, c := range cases {
		s, e, ok := payloadSpan([]byte(c.in), []byte(c.echo))
		if ok != (c.want != "") || (ok && c.in[s:e] != c.want) {
			t.Errorf("payloadSpan(%s) = %q, %v; want %q", c.in, c.in[s:e], ok, c.want)
		}
	}
}

// The echo fast path must decide exactly as the plain decoder does.
func TestDecodeResultMatchesPlainDecoding(t *testing.T) {
	payload := `{"name":"t","arguments":{"text":"` + strings.Repeat("lorem ", 200) + `"}}`
	params := &spec.InvokeParams{Name: "m", Event: "tools/call", Phase: spec.PhaseRequest, Payload: json.RawMessage(payload)}
	head := `"interceptor":"m","type":"mutation","phase":"request"`
	cases := map[string]string{
		"echo":                 `{` + head + `,"modified":false,"payload":` + payload + `}`,
		"echo with spaces":     "{ " + head + " ,\n\"modified\" : false , \"payload\" :\t" + payload + " }",
		"echo first":           `{"payload":` + payload + `,` + head + `,"modified":false}`,
		"echo, modified true":  `{` + head + `,"modified":true,"payload":` + payload + `}`,
		"changed":              `{` + head + `,"modified":true,"payload":{"name":"u"}}`,
		"echo twice":           `{` + head + `,"modified":false,"payload":` + payload + `,"payload":` + payload + `}`,
		"broken after echo":    `{` + head + `,"modified":false,"payload":` + payload + `,}`,
		"broken before echo":   `{` + head + `,"modified":fals,"payload":` + payload + `}`,
		"validation with echo": `{"interceptor":"m","type":"validation","phase":"request","valid":true,"payload":` + payload + `}`,
		"missing modified":     `{"interceptor":"m","type":"mutation","phase":"request","payload":` + payload + `}`,
	}
	for name, out := range cases {
		t.Run(name, func(t *testing.T) {
			var scratch []byte
			fast, fastErr := decodeResult([]byte(out), params, &scratch)
			var plain spec.Result
			plainErr := json.Unmarshal([]byte(out), &plain)
			if (fastErr == nil) != (plainErr == nil) {
				t.Fatalf("fast error %v, plain error %v", fastErr, plainErr)
			}
			if fastErr != nil {
				return
			}
			if !reflect.DeepEqual(*fast, plain) {
				t.Fatalf("fast %+v\nplain %+v", fast, plain)
			}
		})
	}
}
