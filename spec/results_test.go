package spec

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestResultJSON(t *testing.T) {
	tests := []struct {
		name, in, want string
		check          func(*testing.T, Result)
	}{
		{"validation",
			`{"interceptor":"v","type":"validation","phase":"request","durationMs":1.5,"valid":false,"severity":"error","messages":[{"path":"$.arguments.key","message":"secret","severity":"error"}],"suggestions":[{"path":"$.arguments.key","value":"***"}],"modified":true,"recorded":true}`,
			`{"interceptor":"v","type":"validation","phase":"request","durationMs":1.5,"valid":false,"severity":"error","messages":[{"path":"$.arguments.key","message":"secret","severity":"error"}],"suggestions":[{"path":"$.arguments.key","value":"***"}]}`,
			func(t *testing.T, r Result) {
				if r.Valid || r.Modified || r.Recorded || !r.Blocks() {
					t.Fatalf("fields of other kinds leaked in: %+v", r)
				}
			}},
		{"validation valid true keeps valid",
			`{"interceptor":"v","type":"validation","phase":"response","valid":true}`,
			`{"interceptor":"v","type":"validation","phase":"response","valid":true}`, nil},
		{"mutation",
			`{"interceptor":"m","type":"mutation","phase":"response","modified":true,"payload":{"content":[]},"valid":true,"info":{"n":1}}`,
			`{"interceptor":"m","type":"mutation","phase":"response","info":{"n":1},"modified":true,"payload":{"content":[]}}`,
			func(t *testing.T, r Result) {
				if r.Valid {
					t.Fatal("valid leaked into a mutation")
				}
			}},
		{"mutation unmodified keeps modified false",
			`{"interceptor":"m","type":"mutation","phase":"request","modified":false,"payload":{"a":1}}`,
			`{"interceptor":"m","type":"mutation","phase":"request","modified":false,"payload":{"a":1}}`, nil},
		{"mutation unmodified without payload",
			`{"interceptor":"m","type":"mutation","phase":"request","modified":false}`,
			`{"interceptor":"m","type":"mutation","phase":"request","modified":false}`, nil},
		{"sink",
			`{"interceptor":"s","type":"sink","phase":"request","recorded":true,"metrics":{"bytes":12},"unknown":[1,2]}`,
			`{"interceptor":"s","type":"sink","phase":"request","recorded":true,"metrics":{"bytes":12}}`, nil},
		{"sink not recorded",
			`{"interceptor":"s","type":"sink","phase":"request","recorded":false}`,
			`{"interceptor":"s","type":"sink","phase":"request","recorded":false}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r Result
			if err := json.Unmarshal([]byte(tt.in), &r); err != nil {
				t.Fatalf("decode: %v", err)
			}
			got, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Fatalf("got  %s\nwant %s", got, tt.want)
			}
			if tt.check != nil {
				tt.check(t, r)
			}
		})
	}
}

func TestResultDecodeErrors(t *testing.T) {
	tests := []struct{ name, in, wantErr string }{
		{"no type", `{"interceptor":"x","phase":"request","valid":true}`, `"type" is required`},
		{"unknown type", `{"interceptor":"x","type":"verdict","phase":"request"}`, `"verdict"`},
		{"validation without valid", `{"interceptor":"x","type":"validation","phase":"request"}`, `"valid" is required`},
		{"mutation without modified", `{"interceptor":"x","type":"mutation","phase":"request","payload":{}}`, `"modified" is required`},
		{"modified without payload", `{"interceptor":"x","type":"mutation","phase":"request","modified":true}`, `needs a "payload"`},
		{"modified with null payload", `{"interceptor":"x","type":"mutation","phase":"request","modified":true,"payload":null}`, `needs a "payload"`},
		{"sink without recorded", `{"interceptor":"x","type":"sink","phase":"request"}`, `"recorded" is required`},
		{"valid of wrong type", `{"interceptor":"x","type":"validation","phase":"request","valid":"yes"}`, `interceptor result`},
		{"not an object", `[1]`, `interceptor result`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r Result
			err := json.Unmarshal([]byte(tt.in), &r)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("got %v, want error containing %q", err, tt.wantErr)
			}
		})
	}
	if _, err := json.Marshal(Result{Interceptor: "x", Type: "bogus"}); err == nil {
		t.Fatal("encoding a result of unknown type must fail")
	}
}

func TestSeverityBlocks(t *testing.T) {
	for sev, want := range map[Severity]bool{"": true, "error": true, "fatal": true, "warn": false, "info": false} {
		r := Result{Type: TypeValidation, Valid: false, Severity: sev}
		if r.Blocks() != want {
			t.Errorf("valid:false severity %q: Blocks()=%v want %v", sev, r.Blocks(), want)
		}
		r.Valid = true
		if r.Blocks() {
			t.Errorf("valid:true severity %q must never block", sev)
		}
	}
}

func TestCheckEcho(t *testing.T) {
	r := Result{Interceptor: "a", Type: TypeSink, Phase: PhaseRequest}
	tests := []struct {
		name  string
		iname string
		typ   Type
		phase Phase
		ok    bool
	}{
		{"echo", "a", TypeSink, PhaseRequest, true},
		{"other name", "b", TypeSink, PhaseRequest, false},
		{"other type", "a", TypeValidation, PhaseRequest, false},
		{"other phase", "a", TypeSink, PhaseResponse, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := r.CheckEcho(tt.iname, tt.typ, tt.phase); (err == nil) != tt.ok {
				t.Fatalf("CheckEcho err=%v, want ok=%v", err, tt.ok)
			}
		})
	}
}

func TestCheckMutation(t *testing.T) {
	in := json.RawMessage(`{"a":1,"b":[1,2]}`)
	tests := []struct {
		name string
		r    Result
		ok   bool
	}{
		{"unmodified same bytes", Result{Type: TypeMutation, Payload: in}, true},
		{"unmodified reordered and spaced", Result{Type: TypeMutation, Payload: json.RawMessage(`{ "b":[1,2], "a":1 }`)}, true},
		{"unmodified omitted", Result{Type: TypeMutation}, true},
		{"unmodified but changed", Result{Type: TypeMutation, Payload: json.RawMessage(`{"a":2,"b":[1,2]}`)}, false},
		{"unmodified number precision", Result{Type: TypeMutation, Payload: json.RawMessage(`{"a":1.0000000000000001,"b":[1,2]}`)}, false},
		{"modified may change", Result{Type: TypeMutation, Modified: true, Payload: json.RawMessage(`{}`)}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.r.CheckMutation(in); (err == nil) != tt.ok {
				t.Fatalf("err=%v want ok=%v", err, tt.ok)
			}
		})
	}
}
