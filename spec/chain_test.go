package spec

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestValidationSummary(t *testing.T) {
	var s ValidationSummary
	s.Add(&Result{Type: TypeValidation, Valid: false, Severity: SeverityError, Messages: []Message{
		{Message: "a", Severity: SeverityError}, {Message: "b", Severity: SeverityWarn}, {Message: "c"}}})
	s.Add(&Result{Type: TypeValidation, Valid: true, Severity: SeverityInfo, Messages: []Message{{Message: "d"}}})
	s.Add(&Result{Type: TypeValidation, Valid: false})                         // no messages: one error
	s.Add(&Result{Type: TypeValidation, Valid: false, Severity: SeverityWarn}) // no messages: one warning
	s.Add(&Result{Type: TypeValidation, Valid: true})                          // nothing to count
	s.Add(&Result{Type: TypeMutation, Modified: true})                         // not a validation
	want := ValidationSummary{Errors: 3, Warnings: 2, Infos: 1}
	if s != want {
		t.Fatalf("got %+v want %+v", s, want)
	}
}

func TestChainResultJSON(t *testing.T) {
	blocked := ChainResult{Status: StatusValidationFailed, Event: "tools/call", Phase: PhaseRequest,
		ValidationSummary: ValidationSummary{Errors: 1},
		AbortedAt:         &AbortedAt{Interceptor: "secrets", Reason: "AWS key", Type: AbortValidation, Phase: PhaseRequest}}
	b, _ := json.Marshal(blocked)
	want := `{"status":"validation_failed","event":"tools/call","phase":"request","results":[],"validationSummary":{"errors":1,"warnings":0,"infos":0},"totalDurationMs":0,"abortedAt":{"interceptor":"secrets","reason":"AWS key","type":"validation","phase":"request"}}`
	if string(b) != want {
		t.Fatalf("got  %s\nwant %s", b, want)
	}
	var back ChainResult
	if err := json.Unmarshal(b, &back); err != nil || !back.Blocked() || back.FinalPayload != nil {
		t.Fatalf("round trip: %v %+v", err, back)
	}
	ok := ChainResult{Status: StatusSuccess, Event: "tools/call", Phase: PhaseResponse, FinalPayload: json.RawMessage(`{"content":[]}`),
		Results: []Result{{Interceptor: "s", Type: TypeSink, Phase: PhaseResponse, Recorded: true}}}
	b, _ = json.Marshal(ok)
	if !strings.Contains(string(b), `"finalPayload":{"content":[]}`) || !strings.Contains(string(b), `"recorded":true`) || strings.Contains(string(b), "abortedAt") {
		t.Fatalf("got %s", b)
	}
	if err := json.Unmarshal(b, &back); err != nil || back.Blocked() || back.Results[0].Type != TypeSink {
		t.Fatalf("round trip: %v %+v", err, back)
	}
}

func TestChainParamsValidate(t *testing.T) {
	good := ChainParams{Event: "tools/call", Phase: PhaseRequest, Direction: DirectionSending, Payload: json.RawMessage(`{}`)}
	tests := []struct {
		name    string
		mutate  func(*ChainParams)
		wantErr string
	}{
		{"ok", func(*ChainParams) {}, ""},
		{"both", func(p *ChainParams) { p.Phase = PhaseBoth }, "authoring sugar"},
		{"bad phase", func(p *ChainParams) { p.Phase = "" }, "phase"},
		{"no direction", func(p *ChainParams) { p.Direction = "" }, "never guessed"},
		{"ping", func(p *ChainParams) { p.Event = "ping" }, "cannot be intercepted"},
		{"no payload", func(p *ChainParams) { p.Payload = nil }, "payload is required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := good
			tt.mutate(&p)
			err := p.Validate()
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("got %v want %q", err, tt.wantErr)
			}
		})
	}
}

func TestDirections(t *testing.T) {
	if GatewayDirection(PhaseRequest) != DirectionSending || GatewayDirection(PhaseResponse) != DirectionReceiving {
		t.Fatal("gateway direction")
	}
	if DirectionSending.Reverse() != DirectionReceiving || DirectionReceiving.Reverse() != DirectionSending {
		t.Fatal("reverse")
	}
}

func TestOverrideJSON(t *testing.T) {
	var o Override
	in := `{"mode":"enforce","failOpen":true,"priorityHint":{"request":2},"timeoutMs":50,"hooks":[{"events":["tools/call"],"phase":"request"}],"config":{"k":1}}`
	if err := json.Unmarshal([]byte(in), &o); err != nil {
		t.Fatal(err)
	}
	if o.Mode == nil || o.Mode.IsAudit() || o.FailOpen == nil || !*o.FailOpen || o.PriorityHint.For(PhaseRequest) != 2 || o.TimeoutMs != 50 || len(o.Hooks) != 1 {
		t.Fatalf("decoded %+v", o)
	}
}
