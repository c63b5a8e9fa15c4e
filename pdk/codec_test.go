package pdk

import (
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/airlock-mcp/airlock/internal/jsonscan"
	"github.com/airlock-mcp/airlock/spec"
)

// The hand-written decoder of the invoke params must agree with
// encoding/json on spec.InvokeParams: same values when it accepts, an
// error when it does not.
var invokeInputs = []struct{ name, in string }{
	{"host form", `{"name":"a","event":"tools/call","phase":"request","payload":{"name":"x","arguments":{"k":[1,"v"]}}}`},
	{"host form, every member", `{"name":"a","event":"e/f","phase":"response","config":{"k":1},"timeoutMs":250,` +
		`"context":{"traceId":"t"},"_meta":{"m":true},"payload":[1, {"}":"{"}] }` + "\n"},
	{"host form, fast", `{"name":"secret-scan","event":"tools/call","phase":"request","config":{"k":[1]},"timeoutMs":250,` +
		`"context":{"traceId":"t","principal":{"type":"user","id":"u"}},"_meta":{"m":1},"payload":{"name":"x"}}`},
	{"host form, fast, unknown event", `{"name":"a","event":"other/event","phase":"response","payload":"x"}`},
	{"host form, fast, duplicate", `{"name":"a","name":"secret-scan","event":"e/f","phase":"request","payload":1}`},
	{"host form, fast, unknown name", `{"name":"zz","event":"e/f","phase":"request","payload":1}`},
	{"host form, fast, escaped name", `{"name":"n\u0061me","event":"e/f","phase":"request","payload":1}`},
	{"host form, fast, bad phase", `{"name":"a","event":"e/f","phase":"both","payload":1}`},
	{"host form, fast, null context", `{"name":"a","event":"e/f","phase":"request","context":null,"payload":1}`},
	{"host form, fast, big timeout", `{"name":"a","event":"e/f","phase":"request","timeoutMs":9223372036854775807,"payload":1}`},
	{"host form, fast, zero timeout", `{"name":"a","event":"e/f","phase":"request","timeoutMs":0,"payload":1}`},
	{"host form, fast, no payload value", `{"name":"a","event":"e/f","phase":"request","payload":}`},
	{"host form, fast, blank payload", `{"name":"a","event":"e/f","phase":"request","payload": }`},
	{"host form, fast, spaced payload", "{\"name\":\"a\",\"event\":\"e/f\",\"phase\":\"request\",\"payload\":[1]\n}"},
	{"host form, spaces", "{ \"payload\" :\t\"x\" \r\n}"},
	{"host form, empty value", `{"name":"a","payload": }`},
	{"host form, no brace", `{"name":"a","payload":{}`},
	{"every member", `{"name":"a","event":"e/f","phase":"response","payload":[1],"config":{"k":1},"timeoutMs":250,` +
		`"context":{"principal":{"type":"user","id":"ann","claims":{"r":["x"]}},"traceId":"t","spanId":"s","timestamp":"2025-01-01T00:00:00Z","sessionId":"q"},"_meta":{"m":true}}`},
	{"white space and order", " {\n \"payload\" : { \"a\" : 1 } ,\t\"phase\":\"request\" , \"name\" : \"a\", \"event\":\"x/y\" } \n"},
	{"escapes and unicode", `{"name":"n\u0061me \"q\" é 🚀","event":"\ud83d\ude00","phase":"request","payload":"\u00e9"}`},
	{"lone surrogate", `{"name":"\ud800x","payload":null}`},
	{"invalid utf-8", "{\"name\":\"a\xffb\",\"payload\":{}}"},
	{"keys fold case", `{"NAME":"a","Event":"b","PHASE":"request","Payload":{},"TIMEOUTMS":5,"ConText":{"TraceID":"t"}}`},
	{"escaped key", `{"n\u0061me":"a"}`},
	{"duplicates: last wins", `{"name":"a","name":"b","payload":1,"payload":[2]}`},
	{"null leaves strings alone", `{"name":"a","name":null,"timeoutMs":3,"timeoutMs":null}`},
	{"null payload is kept", `{"payload":null}`},
	{"duplicate contexts merge", `{"context":{"traceId":"a","principal":{"type":"user"}},"context":{"spanId":"b","principal":{"id":"x"}}}`},
	{"null context", `{"context":{"traceId":"a"},"context":null}`},
	{"unknown members ignored", `{"name":"a","extra":{"deep":[{"x":1}]},"zz":null}`},
	{"top-level null", `null`},
	{"empty object", `{}`},
	{"negative zero timeout", `{"timeoutMs":-0}`},
	{"fractional timeout", `{"timeoutMs":1.5}`},
	{"exponent timeout", `{"timeoutMs":1e3}`},
	{"huge timeout", `{"timeoutMs":92233720368547758070}`},
	{"string timeout", `{"timeoutMs":"5"}`},
	{"number name", `{"name":5}`},
	{"object phase", `{"phase":{}}`},
	{"array context", `{"context":[]}`},
	{"bad context member", `{"context":{"traceId":7}}`},
	{"bad principal", `{"context":{"principal":"me"}}`},
	{"bad claims", `{"context":{"principal":{"claims":[1]}}}`},
	{"array", `[1]`},
	{"string", `"x"`},
	{"truncated", `{"name":"a","payload":{"x":`},
	{"trailing data", `{"name":"a"} x`},
	{"bad payload", `{"payload":{"a":tru}}`},
	{"empty", ``},
}

func decodeBoth(in []byte, mode decodeMode) (fast *spec.InvokeParams, fastErr error, std *spec.InvokeParams, stdErr error) {
	inv, err := decodeInvokeMode(in, mode)
	if err == nil {
		fast, err = inv.params()
	}
	std = new(spec.InvokeParams)
	if stdErr = json.Unmarshal(in, std); stdErr != nil {
		std = nil
	}
	return fast, err, std, stdErr
}

// checkDecode checks every mode of the decoder against encoding/json. The
// strict mode must agree exactly. The trusted mode must agree whenever
// encoding/json accepts the input; it may accept more only when the input
// is not valid JSON at all (it delimits raw members without validating
// them), never when encoding/json refuses valid JSON. The host-order mode
// (the ABI's) must agree like the trusted mode on every input that keeps
// the direct ABI's promise: valid JSON whose payload is the last member and
// appears once.
func checkDecode(t *testing.T, in []byte) {
	t.Helper()
	checkDecodeFast(t, in)
	for _, mode := range []decodeMode{strict, trusted, hostOrder} {
		if mode == hostOrder && !payloadLastOnce(in) {
			// Still never a crash.
			_, _ = decodeInvokeMode(in, mode)
			continue
		}
		fast, fastErr, std, stdErr := decodeBoth(in, mode)
		if stdErr != nil && fastErr != nil {
			continue
		}
		if stdErr != nil && mode != strict && !json.Valid(in) {
			continue // leniency about raw members' syntax, by design
		}
		if (fastErr == nil) != (stdErr == nil) {
			t.Fatalf("%q (mode %v): fast error %v, encoding/json error %v", in, mode, fastErr, stdErr)
		}
		compareParams(t, in, fast, std)
	}
}

// fastEntries are the interceptors the decoder's fast path can find while
// checkDecodeFast runs.
var fastEntries = func() []*entry {
	var es []*entry
	for _, name := range []string{"a", "secret-scan", "n\u0061me"} {
		desc := spec.Interceptor{Name: name, Type: spec.TypeValidation,
			Hooks: []spec.Hook{{Events: []string{"tools/call", "e/f"}, Phase: Request}}}
		es = append(es, &entry{desc: desc})
	}
	return es
}()

// checkDecodeFast checks that the fast path, whenever it answers, gives
// what the general decoder gives for the input as a host writes it, and
// finds the interceptor it names.
func checkDecodeFast(t *testing.T, in []byte) {
	t.Helper()
	saveE, saveB := entries, byName
	defer func() { entries, byName = saveE, saveB }()
	entries, byName = fastEntries, map[string]*entry{}
	for _, e := range entries {
		byName[e.desc.Name] = e
	}
	inv, e, ok := decodeFast(in)
	if !ok {
		return
	}
	want, err := decodeInvokeMode(in, hostOrder)
	if err != nil {
		t.Fatalf("%q: the fast path accepted what the general decoder refuses: %v", in, err)
	}
	if e != byName[want.name] {
		t.Fatalf("%q: the fast path found %q, the call is for %q", in, e.desc.Name, want.name)
	}
	got, err1 := inv.params()
	exp, err2 := want.params()
	if (err1 == nil) != (err2 == nil) || !reflect.DeepEqual(got, exp) {
		t.Fatalf("%q:\nfast    %+v %v\ngeneral %+v %v", in, got, err1, exp, err2)
	}
}

// The fast path must answer for what the host writes, without allocating.
func TestDecodeFastTakesTheHostForm(t *testing.T) {
	saveE, saveB := entries, byName
	defer func() { entries, byName = saveE, saveB }()
	entries, byName = fastEntries, map[string]*entry{}
	for _, e := range entries {
		byName[e.desc.Name] = e
	}
	for _, c := range invokeInputs {
		if !strings.HasPrefix(c.name, "host form, fast") {
			continue
		}
		_, _, ok := decodeFast([]byte(c.in))
		want := c.name == "host form, fast" || c.name == "host form, fast, unknown event"
		if ok != want {
			t.Errorf("%s: fast path taken %v, want %v", c.name, ok, want)
		}
	}
	in := []byte(invokeInputs[slices.IndexFunc(invokeInputs, func(c struct{ name, in string }) bool {
		return c.name == "host form, fast"
	})].in)
	if n := testing.AllocsPerRun(100, func() { decodeFast(in) }); n != 0 {
		t.Errorf("decodeFast allocates %v times per call", n)
	}
}

// payloadLastOnce reports whether in is a valid JSON object whose last
// member, and only that one, is named payload (as encoding/json matches
// names).
func payloadLastOnce(in []byte) bool {
	n, last := 0, false
	err := jsonscan.Members(in, func(key, _ []byte) error {
		last = jsonscan.Key(key, "payload")
		if last {
			n++
		}
		return nil
	})
	return err == nil && last && n == 1
}

func compareParams(t *testing.T, in []byte, fast, std *spec.InvokeParams) {
	t.Helper()
	// RawMessage members are compared as bytes: both keep them verbatim.
	if !reflect.DeepEqual(fast, std) {
		a, _ := json.Marshal(fast)
		b, _ := json.Marshal(std)
		t.Fatalf("%q:\nfast %s %+v\n std %s %+v", in, a, fast, b, std)
	}
}

func TestDecodeInvokeAgreesWithEncodingJSON(t *testing.T) {
	for _, c := range invokeInputs {
		t.Run(c.name, func(t *testing.T) { checkDecode(t, []byte(c.in)) })
	}
}

func TestDecodeInvokeIsZeroCopy(t *testing.T) {
	in := []byte(`{"name":"a","config":{},"_meta":{},"payload":{"big":"x"}}`)
	inv, err := decodeInvoke(in)
	if err != nil {
		t.Fatal(err)
	}
	// Each raw member ends where the input's memory ends: a view, not a copy.
	for _, raw := range [][]byte{inv.payload, inv.config, inv.meta} {
		if full := raw[:cap(raw)]; &full[len(full)-1] != &in[len(in)-1] {
			t.Errorf("%s is not a view of the input", raw)
		}
	}
}

func FuzzDecodeInvoke(f *testing.F) {
	for _, c := range invokeInputs {
		f.Add([]byte(c.in))
	}
	f.Fuzz(func(t *testing.T, in []byte) { checkDecode(t, in) })
}

// The hand-written encoder must produce JSON that decodes to the same
// result as encoding/json's encoding of it.
var resultCases = []spec.Result{
	{Interceptor: "v", Type: spec.TypeValidation, Phase: Request, Valid: true},
	{Interceptor: "v <&> \"q\" é\u2028", Type: spec.TypeValidation, Phase: Response, Info: json.RawMessage(`{"a":[1,2]}`),
		Severity: SeverityError, Messages: []spec.Message{{Path: "/a~1b", Message: "line\nbreak\t\x01", Severity: SeverityError},
			{Message: "no path"}},
		Suggestions: []spec.Suggestion{{Path: "/x", Value: json.RawMessage(`"y"`)}, {Path: "", Value: nil}}},
	{Interceptor: "m", Type: spec.TypeMutation, Phase: Request, Modified: true, Payload: json.RawMessage(`{"k":"v"}`)},
	{Interceptor: "m", Type: spec.TypeMutation, Phase: Request},
	{Interceptor: "s", Type: spec.TypeSink, Phase: Request, Recorded: true, DurationMs: 1.25,
		Metrics: map[string]float64{"b": 2, "a": 1e-7, "c": 1e21, "d": -0.5, "e": 123456789, "f": 0}},
	{Interceptor: "s", Type: spec.TypeSink, Phase: Response},
}

func checkEncode(t *testing.T, r spec.Result) {
	t.Helper()
	want, wantErr := json.Marshal(r)
	got, gotErr := appendResult(nil, &r)
	if (gotErr == nil) != (wantErr == nil) {
		t.Fatalf("%+v: error %v, encoding/json %v", r, gotErr, wantErr)
	}
	if wantErr != nil {
		return
	}
	if !json.Valid(got) {
		t.Fatalf("not JSON: %s", got)
	}
	if !spec.JSONEqual(got, want) {
		t.Fatalf("\n got %s\nwant %s", got, want)
	}
}

func TestAppendResultAgreesWithEncodingJSON(t *testing.T) {
	for _, r := range resultCases {
		t.Run(r.Interceptor+"/"+string(r.Type), func(t *testing.T) { checkEncode(t, r) })
	}
	// Byte for byte in the common case.
	r := spec.Result{Interceptor: "v", Type: spec.TypeValidation, Phase: Request, Valid: false, Severity: SeverityError,
		Messages: []spec.Message{{Path: "/p", Message: "m", Severity: SeverityError}}}
	got, _ := appendResult(nil, &r)
	if want, _ := json.Marshal(r); string(got) != string(want) {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
	for _, bad := range []spec.Result{
		{Interceptor: "s", Type: spec.TypeSink, Metrics: map[string]float64{"x": math.NaN()}},
		{Interceptor: "s", Type: spec.TypeSink, Metrics: map[string]float64{"x": math.Inf(-1)}},
		{Interceptor: "x", Type: "other"},
	} {
		if _, err := appendResult(nil, &bad); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}

func FuzzAppendResult(f *testing.F) {
	f.Add("name", "/path", "message <>&\u2028", 1.5, true)
	f.Add("", "", "\x00\xff", 1e-9, false)
	f.Add("\"", "~", "é🚀", 1e300, true)
	f.Fuzz(func(t *testing.T, name, path, msg string, x float64, flag bool) {
		info, _ := json.Marshal(map[string]string{path: msg})
		for _, r := range []spec.Result{
			{Interceptor: name, Type: spec.TypeValidation, Phase: Request, Valid: flag, Info: info, Severity: spec.Severity(msg),
				Messages:    []spec.Message{{Path: path, Message: msg, Severity: spec.Severity(name)}},
				Suggestions: []spec.Suggestion{{Path: path, Value: info}}},
			{Interceptor: name, Type: spec.TypeMutation, Phase: Response, Modified: flag, Payload: info, DurationMs: x},
			{Interceptor: name, Type: spec.TypeSink, Phase: Request, Recorded: flag, Metrics: map[string]float64{msg: x, path: -x}},
		} {
			checkEncode(t, r)
		}
	})
}

// Typed payloads decode one pass by hand and must agree with a plain
// encoding/json decode of the same struct, keeping the rest in Extra.
func TestTypedDecodeAgreesWithEncodingJSON(t *testing.T) {
	for _, in := range []string{
		`{"name":"t","arguments":{"a":[1,{"b":"\u00e9"}]},"_meta":{"p":1},"x-extra":[true],"y":"\"q\""}`,
		`{"NAME":"t","Arguments":null}`,
		`{"name":null}`,
		`null`,
	} {
		var got ToolCall
		err := got.UnmarshalJSON([]byte(in))
		type plain ToolCall
		var want plain
		wantErr := json.Unmarshal([]byte(in), &want)
		if (err == nil) != (wantErr == nil) {
			t.Fatalf("%s: %v vs %v", in, err, wantErr)
		}
		if got.Name != want.Name || string(got.Arguments) != string(want.Arguments) || string(got.Meta) != string(want.Meta) {
			t.Errorf("%s: got %+v, want %+v", in, got, want)
		}
		if strings.Contains(in, "x-extra") && (string(got.Extra["x-extra"]) != `[true]` || string(got.Extra["y"]) != `"\"q\""` || len(got.Extra) != 2) {
			t.Errorf("%s: extra = %v", in, got.Extra)
		}
	}
	for _, bad := range []string{`{"name":1}`, `[1]`, `{"name":"a"`, `{"tools":"x"}`} {
		var v ToolCall
		var l ToolList
		if v.UnmarshalJSON([]byte(bad)) == nil && l.UnmarshalJSON([]byte(bad)) == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}
