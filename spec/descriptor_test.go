package spec

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestInterceptorJSON(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string // re-encoded form
	}{
		{"defaults omitted",
			`{"name":"a","type":"validation","hooks":[{"events":["tools/call"],"phase":"request"}],"mode":"active","failOpen":false}`,
			`{"name":"a","type":"validation","hooks":[{"events":["tools/call"],"phase":"request"}]}`},
		{"enforce read as active and omitted",
			`{"name":"a","type":"sink","hooks":[],"mode":"enforce"}`,
			`{"name":"a","type":"sink","hooks":[]}`},
		{"audit kept",
			`{"name":"a","type":"mutation","hooks":[],"mode":"audit","failOpen":true}`,
			`{"name":"a","type":"mutation","hooks":[],"mode":"audit","failOpen":true}`},
		{"scalar priority kept",
			`{"name":"a","type":"mutation","hooks":[],"priorityHint":7}`,
			`{"name":"a","type":"mutation","hooks":[],"priorityHint":7}`},
		{"scalar zero is the default",
			`{"name":"a","type":"mutation","hooks":[],"priorityHint":0}`,
			`{"name":"a","type":"mutation","hooks":[]}`},
		{"object priority stays an object even when equal",
			`{"name":"a","type":"mutation","hooks":[],"priorityHint":{"request":5,"response":5}}`,
			`{"name":"a","type":"mutation","hooks":[],"priorityHint":{"request":5,"response":5}}`},
		{"object priority keeps only the keys it had, drops unknown ones",
			`{"name":"a","type":"mutation","hooks":[],"priorityHint":{"response":-3,"weight":9}}`,
			`{"name":"a","type":"mutation","hooks":[],"priorityHint":{"response":-3}}`},
		{"null priority is unset",
			`{"name":"a","type":"mutation","hooks":[],"priorityHint":null}`,
			`{"name":"a","type":"mutation","hooks":[]}`},
		{"unknown fields ignored, optional fields kept",
			`{"name":"a","version":"1.2.0","description":"d","type":"validation","hooks":[],"future":{"x":1},"compat":{"minProtocol":"2025-06-18"},"configSchema":{"type":"object"},"_meta":{"k":"v"}}`,
			`{"name":"a","version":"1.2.0","description":"d","type":"validation","hooks":[],"compat":{"minProtocol":"2025-06-18"},"configSchema":{"type":"object"},"_meta":{"k":"v"}}`},
		{"missing hooks encode as an empty array",
			`{"name":"a","type":"sink"}`,
			`{"name":"a","type":"sink","hooks":[]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var d Interceptor
			if err := json.Unmarshal([]byte(tt.in), &d); err != nil {
				t.Fatalf("decode: %v", err)
			}
			got, err := json.Marshal(d)
			if err != nil {
				t.Fatalf("encode: %v", err)
			}
			if string(got) != tt.want {
				t.Fatalf("got  %s\nwant %s", got, tt.want)
			}
			// A second round trip is stable.
			var d2 Interceptor
			if err := json.Unmarshal(got, &d2); err != nil {
				t.Fatal(err)
			}
			again, _ := json.Marshal(d2)
			if string(again) != string(got) {
				t.Fatalf("second round trip changed: %s", again)
			}
		})
	}
}

func TestInterceptorDecodeErrors(t *testing.T) {
	tests := []struct {
		name, in, wantErr string
	}{
		{"priority string", `{"name":"a","type":"mutation","hooks":[],"priorityHint":"high"}`, "number or an object"},
		{"priority bool", `{"name":"a","type":"mutation","hooks":[],"priorityHint":true}`, "number or an object"},
		{"priority array", `{"name":"a","type":"mutation","hooks":[],"priorityHint":[1]}`, "number or an object"},
		{"priority fraction", `{"name":"a","type":"mutation","hooks":[],"priorityHint":1.5}`, "int32"},
		{"priority too large", `{"name":"a","type":"mutation","hooks":[],"priorityHint":4294967296}`, "int32"},
		{"priority object string", `{"name":"a","type":"mutation","hooks":[],"priorityHint":{"request":"1"}}`, "priorityHint"},
		{"priority object fraction", `{"name":"a","type":"mutation","hooks":[],"priorityHint":{"response":0.5}}`, "priorityHint.response"},
		{"unknown mode", `{"name":"a","type":"mutation","hooks":[],"mode":"shadow"}`, `mode "shadow"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var d Interceptor
			err := json.Unmarshal([]byte(tt.in), &d)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("got error %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestPriorityHintFor(t *testing.T) {
	i := func(v int32) *int32 { return &v }
	tests := []struct {
		name     string
		h        PriorityHint
		req, res int32
	}{
		{"unset", PriorityHint{}, 0, 0},
		{"scalar", Priority(-4), -4, -4},
		{"object both", PhasePriority(i(1), i(9)), 1, 9},
		{"object request only", PhasePriority(i(3), nil), 3, 0},
		{"object response only", PhasePriority(nil, i(-2)), 0, -2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.h.For(PhaseRequest); got != tt.req {
				t.Errorf("request: got %d want %d", got, tt.req)
			}
			if got := tt.h.For(PhaseResponse); got != tt.res {
				t.Errorf("response: got %d want %d", got, tt.res)
			}
		})
	}
}

func TestInterceptorValidate(t *testing.T) {
	ok := func() Interceptor {
		return Interceptor{Name: "x", Type: TypeValidation,
			Hooks: []Hook{{Events: []string{"tools/call", "tools/*", "*", "acme/scan"}, Phase: PhaseRequest}}}
	}
	tests := []struct {
		name      string
		mutate    func(*Interceptor)
		wantField string
	}{
		{"valid", func(*Interceptor) {}, ""},
		{"no name", func(d *Interceptor) { d.Name = "" }, "name"},
		{"spaced name", func(d *Interceptor) { d.Name = " x" }, "name"},
		{"bad type", func(d *Interceptor) { d.Type = "validator" }, "type"},
		{"no hooks", func(d *Interceptor) { d.Hooks = nil }, "hooks"},
		{"both phase", func(d *Interceptor) { d.Hooks[0].Phase = PhaseBoth }, "hooks[0].phase"},
		{"bad phase", func(d *Interceptor) { d.Hooks[0].Phase = "pre" }, "hooks[0].phase"},
		{"no events", func(d *Interceptor) { d.Hooks[0].Events = nil }, "hooks[0].events"},
		{"empty event", func(d *Interceptor) { d.Hooks[0].Events = []string{"tools/call", ""} }, "hooks[0].events[1]"},
		{"bare word", func(d *Interceptor) { d.Hooks[0].Events = []string{"tools"} }, "hooks[0].events[0]"},
		{"initialize", func(d *Interceptor) { d.Hooks[0].Events = []string{"initialize"} }, "hooks[0].events[0]"},
		{"notification", func(d *Interceptor) {
			d.Hooks = append(d.Hooks, Hook{Events: []string{"notifications/progress"}, Phase: PhaseResponse})
		}, "hooks[1].events[0]"},
		{"inner star", func(d *Interceptor) { d.Hooks[0].Events = []string{"to*ls/call"} }, "hooks[0].events[0]"},
		{"compat without min", func(d *Interceptor) { d.Compat = &Compat{} }, "compat.minProtocol"},
		{"schema not object", func(d *Interceptor) { d.ConfigSchema = json.RawMessage(`true`) }, "configSchema"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := ok()
			tt.mutate(&d)
			err := d.Validate()
			if tt.wantField == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("got %v, want a *FieldError", err)
			}
			if fe.Field != tt.wantField {
				t.Fatalf("field %q (%v), want %q", fe.Field, err, tt.wantField)
			}
		})
	}
}

func TestExpandBoth(t *testing.T) {
	d := Interceptor{Name: "x", Type: TypeSink, Hooks: []Hook{
		{Events: []string{"tools/call"}, Phase: PhaseBoth},
		{Events: []string{"prompts/get"}, Phase: PhaseResponse},
	}}
	e := d.ExpandBoth()
	if err := e.Validate(); err != nil {
		t.Fatal(err)
	}
	if len(e.Hooks) != 3 || e.Hooks[0].Phase != PhaseRequest || e.Hooks[1].Phase != PhaseResponse || e.Hooks[2].Events[0] != "prompts/get" {
		t.Fatalf("unexpected hooks %+v", e.Hooks)
	}
	if d.Hooks[0].Phase != PhaseBoth {
		t.Fatal("ExpandBoth changed its receiver")
	}
	if err := d.Validate(); err == nil {
		t.Fatal(`a "both" hook must not validate`)
	}
}

func TestSupportedEvents(t *testing.T) {
	ds := []Interceptor{
		{Hooks: []Hook{{Events: []string{"tools/call", "prompts/get"}}}},
		{Hooks: []Hook{{Events: []string{"*"}}, {Events: []string{"tools/call"}}}},
	}
	got, _ := json.Marshal(SupportedEvents(ds))
	if string(got) != `["*","prompts/get","tools/call"]` {
		t.Fatalf("got %s", got)
	}
	if got, _ := json.Marshal(Capability{SupportedEvents: SupportedEvents(nil)}); string(got) != `{"supportedEvents":[]}` {
		t.Fatalf("empty capability: %s", got)
	}
}
