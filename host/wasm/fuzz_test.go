package wasm

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/airlock-mcp/airlock/spec"
)

// Plugin outputs are untrusted bytes. These fuzz targets check that the
// host's decoders of them never panic and decide as the plain decoders do.

// FuzzDecodeResult checks the result decoder (its fast path, and its slow,
// echo-aware one) against a plain spec.Result decode: the same result, or
// the same error, for any output and any valid input payload (the host
// only sends valid ones).
func FuzzDecodeResult(f *testing.F) {
	big := `{"name":"t","arguments":{"text":"` + strings.Repeat("lorem ipsum ", 60) + `"}}`
	for _, c := range []struct{ out, payload string }{
		{`{"interceptor":"x","type":"mutation","phase":"request","modified":false,"payload":` + big + `}`, big},
		{`{"interceptor":"x","type":"mutation","phase":"request","payload":` + big + `,"modified":false}`, big},
		{`{"interceptor":"x","type":"mutation","phase":"request","modified":true,"payload":` + big + `,"payload":{}}`, big},
		{`{"interceptor":"x","type":"mutation","phase":"request","modified":false,"payload":` + big + ` ,"info":{"a":1}}`, big},
		{`{"interceptor":"x","type":"mutation","phase":"request","modified":false,"payload":` + big + `x}`, big},
		{`{"interceptor":"x","type":"validation","phase":"request","valid":false,"severity":"error","messages":[{"message":"m"}]}`, `{}`},
		{`{"interceptor":"x","type":"sink","phase":"response","recorded":true,"metrics":{"a":1.5}}`, `{}`},
		{`{"interceptor":"x","type":"mutation","phase":"request","modified":true}`, `{}`},
		{`{"type":"other"}`, `{}`},
		{`[]`, `{}`},
		{``, `{}`},
		// The fast path's shapes, and inputs it leaves to the slow one.
		{`{"interceptor":"x","type":"validation","phase":"request","valid":false,"severity":"error","messages":[{"path":"/arguments","message":"looks like a secret","severity":"error"}]}`, `{}`},
		{`{"interceptor":"x","type":"validation","phase":"request","durationMs":0.5,"info":{"a":[1]},"valid":false,"severity":"warn",` +
			`"messages":[{"message":"a \"b\" \u00e9 \ud83d\ude00"},{}],"suggestions":[{"path":"/a","value":{"b":2}},{"path":"/c","value":null},{"path":"/d"}]}`, `{}`},
		{"{\"interceptor\":\"x\",\"type\":\"validation\",\"phase\":\"request\",\"valid\":false,\"messages\":[{\"message\":\"\xff\\ud800\"}]}", `{}`},
		{`{"interceptor":"x","type":"validation","phase":"request","valid":true,"messages":[],"suggestions":[]}`, `{}`},
		{`{"interceptor":"x","type":"mutation","phase":"request","modified":false,"payload":{"a":1}}`, `{"a":1}`},
		{`{"interceptor":"x","type":"mutation","phase":"request","modified":true,"payload":12345}`, `1234`},
		{`{"interceptor":"x","type":"mutation","phase":"request","modified":false,"payload":null}`, `{}`},
		{`{"interceptor":"x","type":"mutation","phase":"request","modified":false,"payload":{"a":1} }`, `{"a":1} `},
		{`{"interceptor":"x","type":"mutation","phase":"request","extra":0,"modified":false,"payload":` + big + ` }`, big + ` `},
		{`{"interceptor":"x","type":"sink","phase":"response","durationMs":0.012,"recorded":true,"metrics":{"bytes":1024,"ms":-0.031,"e":1.5e-7,"a\"":0,"bytes":2}}`, `{}`},
		{`{"interceptor":"x","type":"sink","phase":"response","recorded":true,"metrics":{}}`, `{}`},
		{`{"interceptor":"x","type":"sink","phase":"response","recorded":true,"metrics":{"a":1e999}}`, `{}`},
		{` { "type" : "validation" , "Valid" : true } `, `{}`},
		{`{"type":"validation","valid":true,"valid":false}`, `{}`},
		{`{"type":"validation","valid":null,"messages":[null]}`, `{}`},
		{`{"type":"validation","valid":true,"extra":1}`, `{}`},
		{`{"type":"v\u0061lidation","valid":true}`, `{}`},
		{`{"type":"mutation","modified":true,"payload":null}`, `{}`},
		{`{"type":"validation","valid":true,"durationMs":01}`, `{}`},
		{`{"type":"validation","valid":true,"info":[[[[[]]]]]}`, `{}`},
	} {
		f.Add([]byte(c.out), []byte(c.payload))
	}
	f.Fuzz(func(t *testing.T, out, payload []byte) {
		if !json.Valid(payload) {
			return
		}
		p := &spec.InvokeParams{Name: "x", Event: "tools/call", Phase: spec.PhaseRequest, Payload: payload}
		var scratch []byte
		got, err := decodeResult(out, p, &scratch)
		var want spec.Result
		wantErr := want.UnmarshalJSON(out)
		if (err == nil) != (wantErr == nil) {
			t.Fatalf("decodeResult error %v, plain decode error %v\nout %q", err, wantErr, out)
		}
		if err != nil {
			if err.Error() != wantErr.Error() {
				t.Fatalf("decodeResult error %q, plain decode error %q", err, wantErr)
			}
			return
		}
		if !reflect.DeepEqual(*got, want) {
			t.Fatalf("decodeResult\n got %+v\nwant %+v", *got, want)
		}
		// The slow path on its own decides the same.
		if slow, err := decodeSlow(out, p, &scratch); err != nil || !reflect.DeepEqual(*slow, want) {
			t.Fatalf("decodeSlow\n got %+v (%v)\nwant %+v", slow, err, want)
		}
		// What the host then checks must not panic either.
		_ = spec.CheckResult(got, p, got.Type)
	})
}

// FuzzParseDescriptors feeds describe outputs to the host's parser: no
// panic, and whatever it accepts is a list of valid, uniquely named
// descriptors with no "both" hook left.
func FuzzParseDescriptors(f *testing.F) {
	for _, s := range []string{
		`{"interceptors":[{"name":"a","type":"validation","hooks":[{"events":["tools/call"],"phase":"both"}]}]}`,
		`{"interceptors":[{"name":"a","type":"mutation","hooks":[{"events":["*"],"phase":"request"}],"priorityHint":{"request":5}},` +
			`{"name":"b","type":"sink","mode":"audit","failOpen":true,"hooks":[{"events":["tools/*"],"phase":"response"}]}]}`,
		`{"interceptors":[{"name":"a","type":"validation","hooks":[]},{"name":"a","type":"validation","hooks":[]}]}`,
		`{"interceptors":[]}`,
		`{"interceptors":null}`,
		`{"interceptors":[{"name":"","type":"x"}]}`,
		`{"interceptors":[{"name":"a","type":"validation","hooks":[{"events":["not an event"],"phase":"request"}]}]} trailing`,
		`[`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, out []byte) {
		descs, err := parseDescriptors(out)
		if err != nil {
			return
		}
		if len(descs) == 0 {
			t.Fatal("accepted an empty list")
		}
		seen := map[string]bool{}
		for _, d := range descs {
			if err := d.Validate(); err != nil {
				t.Fatalf("accepted an invalid descriptor %+v: %v", d, err)
			}
			for _, h := range d.Hooks {
				if h.Phase == spec.PhaseBoth {
					t.Fatalf("a both hook was not expanded: %+v", d)
				}
			}
			if seen[d.Name] {
				t.Fatalf("accepted the name %q twice", d.Name)
			}
			seen[d.Name] = true
		}
	})
}
