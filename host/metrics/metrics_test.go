package metrics_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/airlock-mcp/airlock/host/chain"
	"github.com/airlock-mcp/airlock/host/metrics"
	"github.com/airlock-mcp/airlock/host/native"
	"github.com/airlock-mcp/airlock/spec"
)

func TestMetricsFromAChain(t *testing.T) {
	m := metrics.New(func() []metrics.PoolStat {
		return []metrics.PoolStat{{Plugin: "secrets.wasm", Size: 4, Idle: 3, Created: 5, Discarded: 1}}
	})
	src := native.New()
	hook := []spec.Hook{{Events: []string{"tools/call"}, Phase: spec.PhaseRequest}}
	src.MustAdd(spec.Interceptor{Name: "deny", Type: spec.TypeValidation, Hooks: hook},
		func(_ context.Context, p *spec.InvokeParams) (*spec.Result, error) {
			return &spec.Result{Interceptor: p.Name, Type: spec.TypeValidation, Phase: p.Phase, Valid: false}, nil
		})
	src.MustAdd(spec.Interceptor{Name: "broken", Type: spec.TypeSink, Hooks: hook},
		func(context.Context, *spec.InvokeParams) (*spec.Result, error) { return nil, errors.New("boom") })
	c, err := chain.New(context.Background(), []chain.Source{src}, chain.Options{Observer: m})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := c.Run(context.Background(), &spec.ChainParams{Event: "tools/call", Phase: spec.PhaseRequest,
			Direction: spec.DirectionSending, Payload: json.RawMessage(`{"name":"x"}`)}); err != nil {
			t.Fatal(err)
		}
	}
	m.Reload(nil)
	m.Reload(errors.New("bad"))
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	for _, want := range []string{
		`airlock_invocations_total{interceptor="deny",outcome="blocked",phase="request",type="validation"} 3`,
		`airlock_invocations_total{interceptor="broken",outcome="failed",phase="request",type="sink"} 3`,
		`airlock_chains_total{event="tools/call",phase="request",status="validation_failed"} 3`,
		`airlock_invocation_seconds_count{interceptor="deny",phase="request"} 3`,
		`airlock_pool_instances{plugin="secrets.wasm",state="busy"} 1`,
		`airlock_pool_instances_discarded_total{plugin="secrets.wasm"} 1`,
		`airlock_reloads_total{result="failed"} 1`,
		`airlock_reloads_total{result="ok"} 1`,
		`go_goroutines`,
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("missing %s", want)
		}
	}
	if t.Failed() {
		t.Logf("scrape:\n%s", body)
	}
}

func TestCustomEventsShareALabel(t *testing.T) {
	m := metrics.New(nil)
	m.ChainDone("acme/one", spec.PhaseRequest, spec.StatusSuccess, 0)
	m.ChainDone("acme/two", spec.PhaseRequest, spec.StatusSuccess, 0)
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if !strings.Contains(rec.Body.String(), `airlock_chains_total{event="custom",phase="request",status="success"} 2`) {
		t.Fatalf("custom events were not folded:\n%s", rec.Body.String())
	}
}
