package spec

import (
	"encoding/json"
	"testing"
)

func TestErrorJSON(t *testing.T) {
	hooks := []Hook{{Events: []string{"tools/call"}, Phase: PhaseRequest}}
	tests := []struct {
		name string
		err  *Error
		code int64
		data string
	}{
		{"method not found", MethodNotFound("interceptors/list"), -32601, ``},
		{"unknown name", UnknownInterceptor("nope"), -32602, `{"name":"nope"}`},
		{"hook not covered", HookNotCovered("a", "prompts/get", PhaseResponse, hooks), -32602,
			`{"name":"a","event":"prompts/get","phase":"response","advertisedHooks":[{"events":["tools/call"],"phase":"request"}]}`},
		{"hook not covered, no hooks", HookNotCovered("a", "tools/call", PhaseRequest, nil), -32602,
			`{"name":"a","event":"tools/call","phase":"request","advertisedHooks":[]}`},
		{"invalid params", InvalidParams("a", "config.limit: must be >= 1"), -32602, `{"name":"a","reason":"config.limit: must be >= 1"}`},
		{"failed", InvocationFailed("a", "wasm trap: unreachable"), -32603, `{"interceptor":"a","reason":"wasm trap: unreachable"}`},
		{"timeout", InvocationTimeout("a", 250, PhaseRequest), -32603, `{"interceptor":"a","reason":"timeout","timeoutMs":250,"phase":"request"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(tt.err)
			if err != nil {
				t.Fatal(err)
			}
			var w struct {
				Code    int64           `json:"code"`
				Message string          `json:"message"`
				Data    json.RawMessage `json:"data"`
			}
			if err := json.Unmarshal(b, &w); err != nil {
				t.Fatal(err)
			}
			if w.Code != tt.code || w.Message == "" || (tt.data == "") != (w.Data == nil) || (tt.data != "" && !JSONEqual(w.Data, json.RawMessage(tt.data))) {
				t.Fatalf("got %s", b)
			}
			// The same error decoded from another peer keeps its meaning.
			remote := &Error{}
			if err := json.Unmarshal(b, remote); err != nil || remote.Code != tt.code || (tt.data == "") != (remote.Data == nil) {
				t.Fatalf("decoded %+v %v", remote, err)
			}
			if remote.IsTimeout() != tt.err.IsTimeout() {
				t.Fatalf("IsTimeout differs after the wire: %v vs %v", remote.IsTimeout(), tt.err.IsTimeout())
			}
		})
	}
	if r := InvocationFailed("a", "boom").Reason(); r != "boom" {
		t.Fatalf("Reason() = %q", r)
	}
}
