package native_test

import (
	"context"
	"strings"
	"testing"

	"github.com/airlock-mcp/airlock/host/native"
	"github.com/airlock-mcp/airlock/spec"
)

func TestNativeSourceErrors(t *testing.T) {
	src := native.New()
	d := spec.Interceptor{Name: "p", Type: spec.TypeSink, Hooks: []spec.Hook{{Events: []string{"tools/call"}, Phase: spec.PhaseRequest}}}
	src.MustAdd(d, func(context.Context, *spec.InvokeParams) (*spec.Result, error) { panic("kaboom") })
	if err := src.Add(d, nil); err == nil {
		t.Fatal("duplicate name accepted")
	}
	tests := []struct {
		p    spec.InvokeParams
		code int64
		want string
	}{
		{spec.InvokeParams{Name: "nope", Event: "tools/call", Phase: spec.PhaseRequest}, spec.CodeInvalidParams, "unknown interceptor"},
		{spec.InvokeParams{Name: "p", Event: "tools/list", Phase: spec.PhaseRequest}, spec.CodeInvalidParams, "does not hook"},
		{spec.InvokeParams{Name: "p", Event: "tools/call", Phase: spec.PhaseResponse}, spec.CodeInvalidParams, "does not hook"},
		{spec.InvokeParams{Name: "p", Event: "tools/call", Phase: spec.PhaseRequest}, spec.CodeInternalError, "panic: kaboom"},
	}
	for _, tt := range tests {
		_, err := src.Invoke(context.Background(), &tt.p)
		se, ok := err.(*spec.Error)
		if !ok || se.Code != tt.code || !strings.Contains(se.Message, tt.want) {
			t.Errorf("Invoke(%+v) = %v, want code %d containing %q", tt.p, err, tt.code, tt.want)
		}
	}
}

func TestNativeSourceBothAndValidation(t *testing.T) {
	src := native.New()
	h := func(context.Context, *spec.InvokeParams) (*spec.Result, error) { return nil, nil }
	if err := src.Add(spec.Interceptor{Name: "b", Type: spec.TypeSink, Hooks: []spec.Hook{{Events: []string{"tools/call"}, Phase: spec.PhaseBoth}}}, h); err != nil {
		t.Fatal(err)
	}
	ds, _ := src.Interceptors(context.Background())
	if len(ds) != 1 || len(ds[0].Hooks) != 2 {
		t.Fatalf("both not expanded: %+v", ds)
	}
	if err := src.Add(spec.Interceptor{Name: "bad", Type: "filter", Hooks: ds[0].Hooks}, h); err == nil || !strings.Contains(err.Error(), "type") {
		t.Fatalf("invalid descriptor accepted: %v", err)
	}
}
