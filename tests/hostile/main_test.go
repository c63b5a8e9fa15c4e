// Package hostile runs deliberately malicious and broken plugins against the
// host, through the library (host/wasm) and through `airlock serve` over
// stdio, and asserts that each ends in a clear error while the host keeps
// serving a well-behaved interceptor, gives its memory back and leaks no
// goroutine.
package hostile_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/airlock-mcp/airlock/host/wasm"
	"github.com/airlock-mcp/airlock/spec"
)

// secret is in the environment of the tests and of every airlock they
// start; no plugin may see it.
const secret = "s3cr3t-host-value"

var (
	airlockBin string       // the binary under test
	cacheDir   string       // its compilation cache
	engine     *wasm.Engine // the library's engine, shared by the library tests
)

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "airlock-hostile-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	os.Setenv("HOSTILE_SECRET", secret)
	airlockBin = filepath.Join(dir, "airlock")
	cacheDir = filepath.Join(dir, "cache")
	build := exec.Command("go", "build", "-o", airlockBin, "github.com/airlock-mcp/airlock/cmd/airlock")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building airlock: %v\n%s", err, out)
		return 1
	}
	engine, err = wasm.NewEngine(wasm.EngineOptions{CacheDir: filepath.Join(dir, "lib-cache"), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	code := m.Run()
	if err := engine.Close(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "close engine:", err)
		code = 1
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	return code
}

// failure is what a test needs of an invocation error, from either mode.
type failure struct {
	code        int64
	interceptor string
	reason      string
	timeout     bool
}

// asFailure reads err as a JSON-RPC error of the interceptor protocol: a
// *spec.Error with FailureData (library) or raw data (remote).
func asFailure(tb testing.TB, err error) failure {
	tb.Helper()
	var se *spec.Error
	if !errors.As(err, &se) {
		tb.Fatalf("error %v (%T) is not a *spec.Error", err, err)
	}
	f := failure{code: se.Code, reason: se.Reason(), timeout: se.IsTimeout()}
	switch d := se.Data.(type) {
	case *spec.FailureData:
		f.interceptor = d.Interceptor
	case json.RawMessage:
		var fd spec.FailureData
		if err := json.Unmarshal(d, &fd); err != nil {
			tb.Fatalf("error data %s: %v", d, err)
		}
		f.interceptor = fd.Interceptor
	default:
		tb.Fatalf("error data %#v is not a failure's", se.Data)
	}
	return f
}

// checkFailure asserts that err is the -32603 failure c expects.
func checkFailure(t *testing.T, c call, err error) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: the call succeeded", c.interceptor)
	}
	f := asFailure(t, err)
	if f.code != spec.CodeInternalError {
		t.Fatalf("code = %d, want %d (%v)", f.code, spec.CodeInternalError, err)
	}
	if f.interceptor != c.interceptor {
		t.Fatalf("failure attributed to %q, want %q (%v)", f.interceptor, c.interceptor, err)
	}
	if c.timeout {
		if !f.timeout || f.reason != spec.ReasonTimeout {
			t.Fatalf("reason %q (timeout=%v), want a timeout", f.reason, f.timeout)
		}
	} else if !regexp.MustCompile(c.reason).MatchString(f.reason) {
		t.Fatalf("reason %q does not match %q", f.reason, c.reason)
	}
	if c.check != nil {
		c.check(t, f.reason)
	}
}

// checkBound asserts that a call that must time out ended within slack of
// its deadline.
func checkBound(t *testing.T, c call, elapsed time.Duration) {
	t.Helper()
	if !c.timeout {
		return
	}
	bound := time.Duration(c.timeoutMs)*time.Millisecond + slack
	if elapsed <= bound {
		return
	}
	t.Errorf("the call ended after %v, more than %v", elapsed.Round(time.Millisecond), bound)
}

// slack is how far past its deadline a hostile call may end: generous, for
// -race on a loaded two-core machine.
const slack = 2 * time.Second

// params builds the invocation of c.
func (c call) params() *spec.InvokeParams {
	payload := c.payload
	if payload == "" {
		payload = `{"name":"probe","arguments":{"q":"hello"}}`
	}
	p := &spec.InvokeParams{Name: c.interceptor, Event: "tools/call", Phase: spec.PhaseRequest,
		Payload: json.RawMessage(payload), TimeoutMs: c.timeoutMs}
	if c.config != "" {
		p.Config = json.RawMessage(c.config)
	}
	return p
}

// heapInUse is the live heap after a full collection.
func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

const mib = 1 << 20
