package spec

import (
	"encoding/json"
	"testing"
)

func TestCheckPayload(t *testing.T) {
	tests := []struct {
		event   string
		phase   Phase
		payload string
		ok      bool
	}{
		{"tools/call", PhaseRequest, `{"name":"echo","arguments":{"x":1}}`, true},
		{"tools/call", PhaseRequest, `{"name":"echo"}`, true},
		{"tools/call", PhaseRequest, `{"arguments":{}}`, false},
		{"tools/call", PhaseRequest, `{"name":3}`, false},
		{"tools/call", PhaseRequest, `{"name":"x","arguments":"a"}`, false},
		{"tools/call", PhaseRequest, `[1]`, false},
		{"tools/call", PhaseRequest, `null`, false},
		{"tools/call", PhaseResponse, `{"content":[{"type":"text","text":"hi"}]}`, true},
		{"tools/call", PhaseResponse, `{"content":"hi"}`, false},
		{"tools/list", PhaseRequest, `{}`, true},
		{"tools/list", PhaseResponse, `{"tools":[]}`, true},
		{"tools/list", PhaseResponse, `{}`, false},
		{"resources/read", PhaseRequest, `{"uri":"file:///a"}`, true},
		{"resources/read", PhaseRequest, `{}`, false},
		{"llm/completion", PhaseRequest, `{"messages":[{"role":"user","content":"hi"}]}`, true},
		{"llm/completion", PhaseResponse, `{"message":{"role":"assistant","content":"hi"}}`, true},
		{"llm/completion", PhaseResponse, `{"message":"hi"}`, false},
		{"acme/custom", PhaseRequest, `{"anything":true}`, true},
		{"acme/custom", PhaseRequest, `"text"`, false},
		{"tools/call", PhaseRequest, `{"name":"x"`, false},
	}
	for _, tt := range tests {
		err := CheckPayload(tt.event, tt.phase, json.RawMessage(tt.payload))
		if (err == nil) != tt.ok {
			t.Errorf("CheckPayload(%s, %s, %s) = %v, want ok=%v", tt.event, tt.phase, tt.payload, err, tt.ok)
		}
	}
}

func TestJSONEqual(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{`{"a":1}`, `{"a":1}`, true},
		{`{"a":1,"b":2}`, `{ "b": 2, "a": 1 }`, true},
		{`{"a":1}`, `{"a":1.0}`, false},
		{`[1,2]`, `[2,1]`, false},
		{`{"a":1}`, `{"a":1`, false},
	}
	for _, tt := range tests {
		if got := JSONEqual(json.RawMessage(tt.a), json.RawMessage(tt.b)); got != tt.want {
			t.Errorf("JSONEqual(%s, %s) = %v", tt.a, tt.b, got)
		}
	}
}

func TestInvokeParamsJSON(t *testing.T) {
	in := `{"name":"a","event":"tools/call","phase":"request","payload":{"name":"echo"},"config":{"k":1},"timeoutMs":100,"context":{"principal":{"type":"user","id":"u1","claims":{"role":"admin"}},"traceId":"t","spanId":"s","timestamp":"2026-11-29T00:00:00Z","sessionId":"x"},"_meta":{"m":1}}`
	var p InvokeParams
	if err := json.Unmarshal([]byte(in), &p); err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(p)
	if !JSONEqual(out, json.RawMessage(in)) {
		t.Fatalf("round trip changed:\n%s\n%s", in, out)
	}
	min, _ := json.Marshal(InvokeParams{Name: "a", Event: "tools/list", Phase: PhaseRequest, Payload: json.RawMessage(`{}`)})
	if string(min) != `{"name":"a","event":"tools/list","phase":"request","payload":{}}` {
		t.Fatalf("optional fields not omitted: %s", min)
	}
	lr, _ := json.Marshal(ListResult{})
	if string(lr) != `{"interceptors":[]}` {
		t.Fatalf("empty list: %s", lr)
	}
}

func TestCheckPayloadTricky(t *testing.T) {
	tests := []struct {
		payload string
		ok      bool
	}{
		{`{"arguments":{"name":3},"name":"x"}`, true},         // nested key does not count
		{`{"arguments":{"name":"x"}}`, false},                 // only nested: missing
		{`{"a":"}\"{","name":"x"}`, true},                     // braces and quotes inside strings
		{`{"a":[{"b":"]"}],"name":"x","arguments":{}}`, true}, // nested arrays
		{`{"n\u0061me":"x"}`, true},                           // escaped key
		{` { "name" : "x" , "arguments" : { } } `, true},      // white space everywhere
		{`{"name":"x","arguments":null}`, false},              // wrong kind
		{`{"name":"x","arguments":{}, "x": 1e10, "y": true, "z":null}`, true},
	}
	for _, tt := range tests {
		err := CheckPayload("tools/call", PhaseRequest, json.RawMessage(tt.payload))
		if (err == nil) != tt.ok {
			t.Errorf("CheckPayload(%s) = %v, want ok=%v", tt.payload, err, tt.ok)
		}
	}
	allocs := testing.AllocsPerRun(100, func() {
		_ = CheckPayload("tools/call", PhaseRequest, json.RawMessage(`{"name":"echo","arguments":{"text":"hi"}}`))
	})
	if allocs > 0 {
		t.Errorf("CheckPayload allocates %v times on a valid payload", allocs)
	}
}

func TestLLMPayloads(t *testing.T) {
	temp := 0.2
	req := LLMRequest{Model: "m", Messages: []LLMMessage{TextMessage("user", "hi")}, MaxTokens: 10, Temperature: &temp}
	b, _ := json.Marshal(req)
	if string(b) != `{"model":"m","messages":[{"role":"user","content":"hi"}],"maxTokens":10,"temperature":0.2}` {
		t.Fatalf("request %s", b)
	}
	if err := CheckPayload(EventLLMCompletion, PhaseRequest, b); err != nil {
		t.Fatal(err)
	}
	res := LLMResponse{Message: TextMessage("assistant", "hello"), StopReason: "end", Usage: &LLMUsage{InputTokens: 1, OutputTokens: 2}}
	b, _ = json.Marshal(res)
	if err := CheckPayload(EventLLMCompletion, PhaseResponse, b); err != nil {
		t.Fatal(err)
	}
	var back LLMResponse
	if err := json.Unmarshal(b, &back); err != nil || back.Message.Text() != "hello" || back.Usage.OutputTokens != 2 {
		t.Fatalf("round trip %+v %v", back, err)
	}
}
