package intercept

import (
	"bytes"
	"encoding/json"
	"sort"
	"testing"
)

// FuzzPayloadRoundTrip decodes arbitrary JSON into the typed params and
// result of every intercepted method (the go-sdk types the engine handles),
// encodes it as the engine encodes a chain payload, decodes that back as the
// engine decodes a mutation's final payload, and encodes it again. The
// engine must be able to read back what it wrote, and the second encoding
// must equal the first: a payload that changes on every round trip would
// make an unmodified chain look like a mutation, or a mutation drift.
func FuzzPayloadRoundTrip(f *testing.F) {
	for _, seed := range []string{
		`{}`,
		`{"name":"deploy","arguments":{"key":"AKIA","n":[1,2.5,null,true]},"_meta":{"progressToken":7}}`,
		`{"content":[{"type":"text","text":"hi"},{"type":"image","data":"aGk=","mimeType":"image/png"}],"isError":true,"structuredContent":{"a":1}}`,
		`{"tools":[{"name":"t","inputSchema":{"type":"object","properties":{"x":{"type":"string"}}},"annotations":{"readOnlyHint":true}}],"nextCursor":"c"}`,
		`{"cursor":"abc"}`,
		`{"uri":"file:///etc/passwd"}`,
		`{"contents":[{"uri":"file:///a","text":"x"},{"uri":"file:///b","blob":"AAE="}]}`,
		`{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":10,"tools":[{"name":"t","inputSchema":{"type":"object"}}]}`,
		`{"role":"assistant","content":{"type":"text","text":"ok"},"model":"m","stopReason":"endTurn"}`,
		`{"message":"Name?","requestedSchema":{"type":"object","properties":{"n":{"type":"string"}}}}`,
		`{"action":"accept","content":{"n":"Ada"}}`,
		`{"roots":[{"uri":"file:///srv","name":"srv"}]}`,
		`{"prompts":[{"name":"p","arguments":[{"name":"a","required":true}]}]}`,
		`{"description":"d","messages":[{"role":"user","content":{"type":"resource","resource":{"uri":"x:y","text":"t"}}}]}`,
		`{"name":"p","arguments":{"a":"b"}}`,
		`{"resourceTemplates":[{"uriTemplate":"file:///{path}","name":"f"}]}`,
		`{"name":"\u00e9\ud83d\ude00","arguments":{"big":1e400}}`,
		`{"_meta":{"a":{"b":[{}]}},"name":""}`,
	} {
		f.Add([]byte(seed))
	}
	names := make([]string, 0, len(methods))
	for name := range methods {
		names = append(names, name)
	}
	sort.Strings(names)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, name := range names {
			m := methods[name]
			if m.request {
				roundTrip(t, name+" request", data, func() any { return m.newParams() })
			}
			if m.response {
				roundTrip(t, name+" response", data, func() any { return m.newResult() })
			}
		}
	})
}

// roundTrip checks one typed value; data that does not decode into it is
// skipped (the engine never holds such a value).
func roundTrip(t *testing.T, what string, data []byte, zero func() any) {
	v := zero()
	if json.Unmarshal(data, v) != nil {
		return
	}
	first, err := encode(v)
	if err != nil {
		// A value the go-sdk decoded but cannot encode is something the
		// engine reports as an internal error; not a crash.
		return
	}
	back := newLike(v, zero)
	if err := json.Unmarshal(first, back); err != nil {
		t.Fatalf("%s: the engine cannot decode its own payload %s: %v", what, first, err)
	}
	second, err := encode(back)
	if err != nil {
		t.Fatalf("%s: %s decodes but no longer encodes: %v", what, first, err)
	}
	if !bytes.Equal(first, second) {
		t.Fatalf("%s: the payload is not stable:\nfirst  %s\nsecond %s", what, first, second)
	}
}
