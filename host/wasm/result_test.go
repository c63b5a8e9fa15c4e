package wasm

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unsafe"

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

// canonicalValidation is the output of the PDK for a typical denial.
const canonicalValidation = `{"interceptor":"secret-scan","type":"validation","phase":"request","valid":false,"severity":"error",` +
	`"messages":[{"path":"/arguments","message":"looks like a secret","severity":"error"}]}`

// checkLikePlain fails unless decodeResult decides on out as a plain
// spec.Result decode does, and returns the plain decode's error.
func checkLikePlain(t *testing.T, out []byte, params *spec.InvokeParams) error {
	t.Helper()
	var scratch []byte
	got, err := decodeResult(out, params, &scratch)
	var want spec.Result
	wantErr := want.UnmarshalJSON(out)
	if (err == nil) != (wantErr == nil) {
		t.Fatalf("decodeResult error %v, plain decode error %v\nout %.200q", err, wantErr, out)
	}
	if err != nil {
		if err.Error() != wantErr.Error() {
			t.Fatalf("decodeResult error %q, plain decode error %q", err, wantErr)
		}
		return wantErr
	}
	if !reflect.DeepEqual(*got, want) {
		t.Fatalf("decodeResult\n got %#v\nwant %#v", *got, want)
	}
	return nil
}

// The fast path takes the canonical forms and gives up on everything else,
// and decodeResult decides as the plain decoder does either way.
func TestDecodeFast(t *testing.T) {
	small := `{"name":"t","arguments":{"text":"hi"}}`
	kib := `{"name":"t","arguments":{"text":"` + strings.Repeat("lorem ", 170) + `"}}`
	v := `"interceptor":"secret-scan","type":"validation","phase":"request"`
	m := `"interceptor":"secret-scan","type":"mutation","phase":"request"`
	s := `"interceptor":"secret-scan","type":"sink","phase":"response"`
	nested := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	cases := []struct {
		name    string
		out     string
		payload string // the input payload; small when empty
		fast    bool
	}{
		// Validation.
		{"canonical validation", canonicalValidation, "", true},
		{"valid", `{` + v + `,"valid":true}`, "", true},
		{"valid false, no severity", `{` + v + `,"valid":false}`, "", true},
		{"severity warn", `{` + v + `,"valid":false,"severity":"warn"}`, "", true},
		{"severity info", `{` + v + `,"valid":false,"severity":"info"}`, "", true},
		{"unknown severity", `{` + v + `,"valid":false,"severity":"fatal"}`, "", true},
		{"empty severity", `{` + v + `,"valid":false,"severity":""}`, "", true},
		{"durationMs and info", `{` + v + `,"durationMs":1.25,"info":{"a":[1,"x",null,true]},"valid":true}`, "", true},
		{"info null", `{` + v + `,"info":null,"valid":true}`, "", true},
		{"info string", `{` + v + `,"info":"note","valid":true}`, "", true},
		{"empty messages", `{` + v + `,"valid":true,"messages":[]}`, "", true},
		{"empty message", `{` + v + `,"valid":false,"messages":[{}]}`, "", true},
		{"message without path or severity", `{` + v + `,"valid":false,"messages":[{"message":"m"}]}`, "", true},
		{"message with unknown severity", `{` + v + `,"valid":false,"messages":[{"message":"m","severity":"boom"}]}`, "", true},
		{"many messages", `{` + v + `,"valid":false,"messages":[` + strings.Repeat(`{"path":"/a","message":"m","severity":"warn"},`, 9) + `{"message":"last"}]}`, "", true},
		{"escapes", `{` + v + `,"valid":false,"messages":[{"path":"/a\/b","message":"\"q\" \\ \n\t \u00e9 \ud83d\ude00 \u003cb\u003e"}]}`, "", true},
		{"lone surrogate", `{` + v + `,"valid":false,"messages":[{"message":"\ud800 x"}]}`, "", true},
		{"invalid utf-8", "{" + v + ",\"valid\":false,\"messages\":[{\"message\":\"a\xffb\xc3\"}]}", "", true},
		{"unicode", `{` + v + `,"valid":false,"messages":[{"message":"секрет 🔑"}]}`, "", true},
		{"suggestions", `{` + v + `,"valid":false,"suggestions":[{"path":"/a","value":{"b":[1,2]}},{"path":"/c","value":null},{"path":"/d"},{"value":"x"}]}`, "", true},
		{"many suggestions", `{` + v + `,"valid":false,"suggestions":[` + strings.Repeat(`{"path":"/a","value":1},`, 6) + `{"path":"/z","value":[]}]}`, "", true},
		{"empty suggestions", `{` + v + `,"valid":true,"suggestions":[]}`, "", true},
		{"longer interceptor", `{"interceptor":"secret-scanner","type":"validation","phase":"request","valid":true}`, "", true},
		{"head only", `{` + v + `}`, "", false},
		{"head, then garbage", `{` + v + ` x}`, "", false},
		{"head twice", `{` + v + `,` + v + `,"valid":true}`, "", false},
		{"other interceptor", `{"interceptor":"other","type":"validation","phase":"request","valid":true}`, "", true},
		{"escaped interceptor", `{"interceptor":"secret\u002dscan","type":"validation","phase":"request","valid":true}`, "", true},
		{"empty interceptor", `{"interceptor":"","type":"validation","phase":"request","valid":true}`, "", true},
		{"no interceptor or phase", `{"type":"validation","valid":true}`, "", true},
		{"other phase", `{"interceptor":"secret-scan","type":"validation","phase":"both","valid":true}`, "", true},
		{"escaped phase", `{"interceptor":"secret-scan","type":"validation","phase":"r\u0065quest","valid":true}`, "", true},
		{"white space", " \n{ \"type\" : \"validation\" ,\t\"valid\" :\rtrue , \"messages\" : [ { \"message\" : \"m\" } , {} ] } \n", "", true},
		{"type last", `{"valid":true,"phase":"request","interceptor":"secret-scan","type":"validation"}`, "", true},
		{"members of other kinds", `{` + v + `,"valid":true,"modified":true,"payload":{"x":1},"recorded":false,"metrics":{"a":1}}`, "", true},
		{"info nested 9999 deep", `{` + v + `,"valid":true,"info":` + nested(9999) + `}`, "", true},
		{"suggestion nested 9997 deep", `{` + v + `,"valid":true,"suggestions":[{"value":` + nested(9997) + `}]}`, "", true},

		// Mutation.
		{"unchanged", `{` + m + `,"modified":false}`, "", true},
		{"echo", `{` + m + `,"modified":false,"payload":` + small + `}`, "", true},
		{"echo 1 KiB", `{` + m + `,"modified":false,"payload":` + kib + `}`, kib, true},
		{"echo first", `{"payload":` + kib + ` ,` + m + `,"modified":false}`, kib, true},
		{"echo, modified true", `{` + m + `,"modified":true,"payload":` + small + `}`, "", true},
		{"changed", `{` + m + `,"modified":true,"payload":{"name":"u"}}`, "", true},
		{"differs, modified false", `{` + m + `,"modified":false,"payload":{"name":"u"}}`, "", true},
		{"payload null, modified false", `{` + m + `,"modified":false,"payload":null}`, "", true},
		{"echo prefix of a longer number", `{` + m + `,"modified":true,"payload":1234}`, "123", true},
		{"echo prefix, then garbage", `{` + m + `,"modified":true,"payload":123x}`, "123", false},
		{"input payload ending with white space", `{` + m + `,"modified":false,"payload":` + small + ` }`, small + " ", true},
		{"input payload ending with white space, slow", `{` + m + `,"x":1,"modified":false,"payload":` + kib + "\n}", kib + "\n", false},
		{"mutation with messages", `{` + m + `,"modified":false,"messages":[{"message":"m"}],"valid":false}`, "", true},

		// Sink.
		{"recorded", `{` + s + `,"recorded":true}`, "", true},
		{"not recorded", `{` + s + `,"recorded":false,"info":{"reason":"off"}}`, "", true},
		{"metrics", `{` + s + `,"durationMs":0.012,"recorded":true,"metrics":{"bytes":1024,"ratio":0.5,"neg":-3e-7,"big":1.5E+300,"zero":-0}}`, "", true},
		{"empty metrics", `{` + s + `,"recorded":true,"metrics":{}}`, "", true},
		{"many metrics", `{` + s + `,"recorded":true,"metrics":{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7}}`, "", true},
		{"metric given twice", `{` + s + `,"recorded":true,"metrics":{"a":1,"a":2}}`, "", true},
		{"escaped metric key", `{` + s + `,"recorded":true,"metrics":{"a\"b\u00e9":1,"Bytes":2}}`, "", true},
		{"long number", `{` + s + `,"recorded":true,"metrics":{"pi":3.14159265358979323846264338327950288419716939937510}}`, "", true},

		// Not handled: left to the slow path.
		{"key in another case", `{` + v + `,"Valid":true}`, "", false},
		{"escaped key", `{` + v + `,"v\u0061lid":true}`, "", false},
		{"unknown member", `{` + v + `,"valid":true,"extra":1}`, "", false},
		{"duplicate member", `{` + v + `,"valid":true,"valid":false}`, "", false},
		{"duplicate payload", `{` + m + `,"modified":false,"payload":` + small + `,"payload":` + small + `}`, "", false},
		{"duplicate message member", `{` + v + `,"valid":false,"messages":[{"message":"a","message":"b"}]}`, "", false},
		{"duplicate message severity", `{` + v + `,"valid":false,"messages":[{"message":"a","severity":"warn","severity":"error"}]}`, "", false},
		{"duplicate suggestion member", `{` + v + `,"valid":false,"suggestions":[{"value":1,"value":2}]}`, "", false},
		{"unknown message member", `{` + v + `,"valid":false,"messages":[{"message":"a","code":1}]}`, "", false},
		{"unknown suggestion member", `{` + v + `,"valid":false,"suggestions":[{"value":1,"why":"x"}]}`, "", false},
		{"valid null", `{` + v + `,"valid":null}`, "", false},
		{"interceptor null", `{"interceptor":null,"type":"validation","valid":true}`, "", false},
		{"messages null", `{` + v + `,"valid":true,"messages":null}`, "", false},
		{"message null", `{` + v + `,"valid":true,"messages":[null]}`, "", false},
		{"message string null", `{` + v + `,"valid":true,"messages":[{"message":null}]}`, "", false},
		{"metrics null", `{` + s + `,"recorded":true,"metrics":null}`, "", false},
		{"metric null", `{` + s + `,"recorded":true,"metrics":{"a":null}}`, "", false},
		{"durationMs null", `{` + v + `,"valid":true,"durationMs":null}`, "", false},
		{"durationMs string", `{` + v + `,"valid":true,"durationMs":"1"}`, "", false},
		{"durationMs out of range", `{` + v + `,"valid":true,"durationMs":1e400}`, "", false},
		{"metric out of range", `{` + s + `,"recorded":true,"metrics":{"a":-1e999}}`, "", false},
		{"valid as a number", `{` + v + `,"valid":1}`, "", false},
		{"messages as an object", `{` + v + `,"valid":true,"messages":{}}`, "", false},
		{"no type", `{"interceptor":"secret-scan","valid":true}`, "", false},
		{"unknown type", `{"interceptor":"secret-scan","type":"audit","valid":true}`, "", false},
		{"escaped type", `{"interceptor":"secret-scan","type":"v\u0061lidation","valid":true}`, "", false},
		{"no valid", `{` + v + `}`, "", false},
		{"no modified", `{` + m + `,"payload":{}}`, "", false},
		{"no recorded", `{` + s + `,"metrics":{"a":1}}`, "", false},
		{"modified without payload", `{` + m + `,"modified":true}`, "", false},
		{"modified with null payload", `{` + m + `,"modified":true,"payload":null}`, "", false},
		{"empty object", `{}`, "", false},
		{"array", `[]`, "", false},
		{"empty", ``, "", false},
		{"trailing comma", `{` + v + `,"valid":true,}`, "", false},
		{"trailing comma in messages", `{` + v + `,"valid":true,"messages":[{"message":"a"},]}`, "", false},
		{"data after", `{` + v + `,"valid":true} {}`, "", false},
		{"unclosed", `{` + v + `,"valid":true`, "", false},
		{"bad literal", `{` + v + `,"valid":tru}`, "", false},
		{"literal with tail", `{` + v + `,"valid":truex}`, "", false},
		{"missing colon", `{` + v + `,"valid" true}`, "", false},
		{"unterminated string", `{` + v + `,"valid":true,"severity":"err}`, "", false},
		{"control character", "{" + v + ",\"valid\":true,\"severity\":\"a\x01\"}", "", false},
		{"bad escape", `{` + v + `,"valid":true,"severity":"\x"}`, "", false},
		{"bad number", `{` + v + `,"valid":true,"durationMs":01}`, "", false},
		{"invalid info", `{` + v + `,"valid":true,"info":{"a":}}`, "", false},
		{"invalid payload", `{` + m + `,"modified":true,"payload":[1,]}`, "", false},
		{"invalid suggestion value", `{` + v + `,"valid":true,"suggestions":[{"value":nul}]}`, "", false},
		{"info nested 10000 deep", `{` + v + `,"valid":true,"info":` + nested(10000) + `}`, "", false},
		{"suggestion nested 9998 deep", `{` + v + `,"valid":true,"suggestions":[{"value":` + nested(9998) + `}]}`, "", false},
		{"info with many brackets", `{` + v + `,"valid":true,"info":[` + strings.Repeat("[],", 10000) + `[]]}`, "", false},
		{"echo nested 10000 deep", `{` + m + `,"modified":false,"payload":` + nested(10000) + `}`, nested(10000), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			payload := c.payload
			if payload == "" {
				payload = small
			}
			params := &spec.InvokeParams{Name: "secret-scan", Event: "tools/call", Phase: spec.PhaseRequest, Payload: json.RawMessage(payload)}
			plainErr := checkLikePlain(t, []byte(c.out), params)
			var scratch []byte
			r, ok := decodeFast([]byte(c.out), params, &scratch)
			if ok != c.fast {
				t.Fatalf("fast path taken: %v, want %v (plain decode error: %v)", ok, c.fast, plainErr)
			}
			if ok {
				var want spec.Result
				if err := want.UnmarshalJSON([]byte(c.out)); err != nil || !reflect.DeepEqual(*r, want) {
					t.Fatalf("fast path\n got %#v\nwant %#v (%v)", *r, want, err)
				}
			}
		})
	}
}

// The fast path must take what the PDK and spec.Result.MarshalJSON write.
func TestDecodeFastTakesEncodedResults(t *testing.T) {
	params := &spec.InvokeParams{Name: "x", Event: "tools/call", Phase: spec.PhaseResponse, Payload: json.RawMessage(`{"content":[]}`)}
	results := []spec.Result{
		{Interceptor: "x", Type: spec.TypeValidation, Phase: spec.PhaseResponse, Valid: true},
		{Interceptor: "x", Type: spec.TypeValidation, Phase: spec.PhaseResponse, DurationMs: 0.5, Severity: spec.SeverityWarn,
			Messages:    []spec.Message{{Path: "/content/0", Message: "<script> & \"more\"", Severity: spec.SeverityWarn}, {Message: "m"}},
			Suggestions: []spec.Suggestion{{Path: "/content", Value: json.RawMessage(`[]`)}}},
		{Interceptor: "x", Type: spec.TypeMutation, Phase: spec.PhaseResponse, Modified: false, Payload: params.Payload},
		{Interceptor: "x", Type: spec.TypeMutation, Phase: spec.PhaseResponse, Modified: true, Payload: json.RawMessage(`{"content":[{"type":"text","text":"[redacted]"}]}`)},
		{Interceptor: "x", Type: spec.TypeSink, Phase: spec.PhaseResponse, Recorded: true, Info: json.RawMessage(`{"to":"audit"}`),
			Metrics: map[string]float64{"bytes": 812, "latencyMs": 0.031, "tiny": 1e-9, "huge": 3e21}},
	}
	for _, res := range results {
		out, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		if checkLikePlain(t, out, params) != nil {
			t.Fatalf("%s does not decode", out)
		}
		var scratch []byte
		if _, ok := decodeFast(out, params, &scratch); !ok {
			t.Errorf("fast path not taken for %s", out)
		}
	}
}

// Any name the call has is reused when the result names it the same.
func TestDecodeFastNames(t *testing.T) {
	for _, name := range []string{"", "x", "ключ 🔑", `a"b`, `a\b`, "tab\there", "a\xffb", "a\u2028b"} {
		params := &spec.InvokeParams{Name: name, Phase: spec.PhaseRequest, Payload: json.RawMessage(`{}`)}
		out, err := json.Marshal(spec.Result{Interceptor: name, Type: spec.TypeSink, Phase: spec.PhaseRequest, Recorded: true})
		if err != nil {
			t.Fatal(err)
		}
		if checkLikePlain(t, out, params) != nil {
			t.Fatalf("%s does not decode", out)
		}
		var scratch []byte
		r, ok := decodeFast(out, params, &scratch)
		if !ok {
			t.Fatalf("fast path not taken for %s", out)
		}
		// json.Marshal escapes some (", \, control characters, U+2028) and
		// replaces invalid UTF-8: those are decoded, the others reused.
		reused := len(name) > 0 && unsafe.StringData(r.Interceptor) == unsafe.StringData(name)
		if want := len(name) > 0 && !strings.ContainsAny(name, "\"\\\t\u2028\xff"); reused != want {
			t.Errorf("name %q: reused %v, want %v", name, reused, want)
		}
	}
}

// The result must not share memory with out (the guest's) and should share
// the interceptor's name with the call's.
func TestDecodeFastOwnership(t *testing.T) {
	params := &spec.InvokeParams{Name: "secret-scan", Phase: spec.PhaseRequest, Payload: json.RawMessage(`{"a":1}`)}
	out := []byte(`{"interceptor":"secret-scan","type":"validation","phase":"request","info":{"i":1},"valid":false,` +
		`"messages":[{"path":"/p","message":"m"}],"suggestions":[{"path":"/q","value":[2]}]}`)
	var scratch []byte
	r, ok := decodeFast(out, params, &scratch)
	if !ok {
		t.Fatal("fast path not taken")
	}
	if unsafe.StringData(r.Interceptor) != unsafe.StringData(params.Name) {
		t.Error("the interceptor's name was copied")
	}
	if r.Phase != spec.PhaseRequest || unsafe.StringData(string(r.Phase)) != unsafe.StringData(string(spec.PhaseRequest)) {
		t.Error("the phase was copied")
	}
	want := *r
	want.Info = append(json.RawMessage(nil), r.Info...)
	want.Messages = append([]spec.Message(nil), r.Messages...)
	want.Suggestions = []spec.Suggestion{{Path: r.Suggestions[0].Path, Value: append(json.RawMessage(nil), r.Suggestions[0].Value...)}}
	for i := range out {
		out[i] = 'X'
	}
	clear(scratch[:cap(scratch)])
	if !reflect.DeepEqual(*r, want) {
		t.Errorf("the result changed with the buffers: %#v", *r)
	}
	// Raw members do not overlap: appending to one leaves the next alone.
	r.Info = append(r.Info, '!')
	if string(r.Suggestions[0].Value) != `[2]` {
		t.Errorf("appending to info changed a suggestion: %s", r.Suggestions[0].Value)
	}
}

func TestDecodeResultAllocs(t *testing.T) {
	params := &spec.InvokeParams{Name: "secret-scan", Phase: spec.PhaseRequest, Payload: json.RawMessage(`{"name":"t","arguments":{}}`)}
	cases := []struct {
		name, out string
		max       float64
	}{
		// The Result with its one message, and one block for the strings
		// (the name, phase and severities are not copied). The goal was 3.
		{"validation", canonicalValidation, 2},
		{"valid", `{"interceptor":"secret-scan","type":"validation","phase":"request","valid":true}`, 1},
		{"echo", `{"interceptor":"secret-scan","type":"mutation","phase":"request","modified":false,"payload":{"name":"t","arguments":{}}}`, 1},
		// The Result, the map (two allocations) and the keys' block.
		{"sink", `{"interceptor":"secret-scan","type":"sink","phase":"request","durationMs":0.25,"recorded":true,"metrics":{"bytes":1024,"ms":0.5}}`, 4},
	}
	for _, c := range cases {
		out := []byte(c.out)
		var scratch []byte
		if _, err := decodeResult(out, params, &scratch); err != nil {
			t.Fatal(err)
		}
		n := testing.AllocsPerRun(100, func() {
			if _, err := decodeResult(out, params, &scratch); err != nil {
				t.Fatal(err)
			}
		})
		if n > c.max {
			t.Errorf("%s: %v allocations, want at most %v", c.name, n, c.max)
		}
	}
}

// BenchmarkDecodeResult compares the fast path (decodeResult on canonical
// results) with the slow one (decodeSlow: spec.Result's decoder, with the
// echo shortcut) on a denial with one message, a mutation echoing a 1 KiB
// payload and a sink with metrics.
func BenchmarkDecodeResult(b *testing.B) {
	kib := `{"name":"t","arguments":{"text":"` + strings.Repeat("lorem ", 165) + `"}}`
	cases := []struct{ name, out, payload string }{
		{"validation", canonicalValidation, `{"name":"t","arguments":{}}`},
		{"mutation-echo-1KiB", `{"interceptor":"secret-scan","type":"mutation","phase":"request","modified":false,"payload":` + kib + `}`, kib},
		{"sink-metrics", `{"interceptor":"secret-scan","type":"sink","phase":"request","durationMs":0.25,"recorded":true,` +
			`"metrics":{"bytes":1024,"latencyMs":0.031,"score":0.5}}`, `{"name":"t","arguments":{}}`},
	}
	paths := []struct {
		name   string
		decode func([]byte, *spec.InvokeParams, *[]byte) (*spec.Result, error)
	}{{"fast", decodeResult}, {"slow", decodeSlow}}
	for _, c := range cases {
		params := &spec.InvokeParams{Name: "secret-scan", Phase: spec.PhaseRequest, Payload: json.RawMessage(c.payload)}
		out := []byte(c.out)
		var scratch []byte
		if _, ok := decodeFast(out, params, &scratch); !ok {
			b.Fatalf("%s: fast path not taken", c.name)
		}
		for _, p := range paths {
			b.Run(c.name+"/"+p.name, func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(out)))
				for b.Loop() {
					if _, err := p.decode(out, params, &scratch); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// decimal's shortcut must give what strconv.ParseFloat gives, to the bit.
func TestDecimalMatchesParseFloat(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	lits := []string{"0", "-0", "0.0", "-0.000", "1", "-1", "0.1", "0.3", "0.031", "1024", "123456789012345",
		"999999999999999", "0.000000000000001", "9007199254740.993", "4503599627370.497", "1.7976931348623", "3.14159"}
	for range 200000 {
		digits := 1 + rng.IntN(15)
		var b []byte
		if rng.IntN(2) == 0 {
			b = append(b, '-')
		}
		point := rng.IntN(digits + 1)
		for k := range digits {
			if k == point && k > 0 {
				b = append(b, '.')
			}
			c := byte('0' + rng.IntN(10))
			if k == 0 && c == '0' && point != 1 {
				c = '1'
			}
			b = append(b, c)
		}
		lits = append(lits, string(b))
	}
	for _, lit := range lits {
		d := fastDecoder{b: []byte(lit + ",")}
		got, end, ok := d.decimal(0)
		if !ok {
			if len(lit) < 16 && !strings.Contains(lit, "e") {
				t.Errorf("decimal(%s) not handled", lit)
			}
			continue
		}
		want, err := strconv.ParseFloat(lit, 64)
		if err != nil || math.Float64bits(got) != math.Float64bits(want) || end != len(lit) {
			t.Fatalf("decimal(%s) = %v (end %d), ParseFloat = %v (%v)", lit, got, end, want, err)
		}
	}
	for _, lit := range []string{"", "-", "1.", ".5", "-.5", "1e5", "1E5", "1234567890123456", "0.1234567890123456", "+1", "x"} {
		d := fastDecoder{b: []byte(lit + ",")}
		if _, _, ok := d.decimal(0); ok {
			t.Errorf("decimal(%q) handled", lit)
		}
	}
}
