package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/airlock-mcp/airlock/host/wasm"
	"github.com/airlock-mcp/airlock/internal/plugintest"
	"github.com/airlock-mcp/airlock/pdk/pdktest"
	"github.com/airlock-mcp/airlock/spec"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type lockedBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func entry(t *testing.T, r *spec.Result) Entry {
	t.Helper()
	var e Entry
	if err := json.Unmarshal(r.Info, &e); err != nil {
		t.Fatalf("info %s: %v", r.Info, err)
	}
	return e
}

func TestAuditLog(t *testing.T) {
	const secretArgs = `{"name":"deploy","arguments":{"token":"hunter2-very-secret"}}`
	var logs lockedBuf
	env := pdktest.New(t)
	targets := []plugintest.Named{{Name: "host", Target: env}}
	if !testing.Short() {
		logger := slog.New(slog.NewJSONHandler(&logs, nil))
		targets = append(targets, plugintest.Named{Name: "wasm", Target: plugintest.LoadWith(t, "plugins/audit-log", wasm.Options{Logger: logger})})
	}
	cases := []plugintest.Case{
		{Name: "tools/call request", Event: "tools/call", Phase: spec.PhaseRequest, Principal: "user:ann", Payload: secretArgs,
			Recorded: true, Metrics: map[string]float64{"bytes": float64(len(secretArgs)), "seq": 1},
			Check: func(t *testing.T, r *spec.Result) {
				e := entry(t, r)
				sum := sha256.Sum256([]byte(secretArgs))
				if e.Tool != "deploy" || e.Principal != "user:ann" || e.Payload != "" || e.SHA256 != hex.EncodeToString(sum[:]) {
					t.Errorf("entry = %+v", e)
				}
				if strings.Contains(string(r.Info), "hunter2") {
					t.Error("the payload leaked into the record")
				}
			}},
		{Name: "tools/call response error", Event: "tools/call", Phase: spec.PhaseResponse, Payload: `{"content":[],"isError":true}`,
			Recorded: true, Metrics: map[string]float64{"seq": 2},
			Check: func(t *testing.T, r *spec.Result) {
				if e := entry(t, r); !e.IsError || e.Principal != "anonymous" {
					t.Errorf("entry = %+v", e)
				}
			}},
		{Name: "resource read", Event: "resources/read", Phase: spec.PhaseRequest, Payload: `{"uri":"file:///etc/motd"}`,
			Recorded: true, Check: func(t *testing.T, r *spec.Result) {
				if e := entry(t, r); e.Resource != "file:///etc/motd" {
					t.Errorf("entry = %+v", e)
				}
			}},
		{Name: "prompt get", Event: "prompts/get", Phase: spec.PhaseRequest, Payload: `{"arguments":{"n":"x"},"Name":"gr\u0065et"}`,
			Recorded: true, Check: func(t *testing.T, r *spec.Result) {
				if e := entry(t, r); e.Prompt != "greet" {
					t.Errorf("entry = %+v", e)
				}
			}},
		{Name: "payload included and truncated on request", Event: "custom/op", Phase: spec.PhaseRequest,
			Config: `{"includePayload":true,"maxPayloadBytes":10}`, Payload: `{"abcdefghijklmnop":1}`, Recorded: true,
			Check: func(t *testing.T, r *spec.Result) {
				if e := entry(t, r); e.Payload != `{"abcdefgh` || !e.Truncated {
					t.Errorf("entry = %+v", e)
				}
			}},
	}
	for i := range cases {
		cases[i].Interceptor = "audit-log"
	}
	plugintest.Run(t, targets, spec.TypeSink, cases)

	if got := env.LogText(); strings.Count(got, "audit {") != 5 || strings.Contains(got, "hunter2") {
		t.Errorf("host log:\n%s", got)
	}
	if !testing.Short() {
		got := logs.String()
		if strings.Count(got, `audit {`) != 5 || !strings.Contains(got, `\"tool\":\"deploy\"`) || strings.Contains(got, "hunter2") {
			t.Errorf("wasm log:\n%s", got)
		}
	}
}
