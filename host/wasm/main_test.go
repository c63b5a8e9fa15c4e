package wasm_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/airlock-mcp/airlock/host/wasm"
	"github.com/airlock-mcp/airlock/internal/testbuild"
	"github.com/airlock-mcp/airlock/spec"
)

// The tests build their own plugins: Go ones with the standard toolchain
// (GOOS=wasip1, -buildmode=c-shared) and WAT ones with wat2wasm, through
// internal/testbuild. All tests share one engine, whose compilation cache is
// in a directory removed at the end.
var (
	buildDir   string
	testEngine *wasm.Engine
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	flag.Parse()
	var err error
	buildDir, err = os.MkdirTemp("", "airlock-wasm-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(buildDir)
	// The host's own reports (discarded instances) are expected in these
	// tests; keep them out of the output unless -v.
	logger := slog.New(slog.DiscardHandler)
	if testing.Verbose() {
		logger = slog.Default()
	}
	testEngine, err = wasm.NewEngine(wasm.EngineOptions{CacheDir: filepath.Join(buildDir, "cache"), Logger: logger})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	code := m.Run()
	if err := testEngine.Close(context.Background()); err != nil {
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

// goPlugin builds ./testdata/<name> as a WASI reactor (once, cached on disk
// by its inputs) and returns the module.
func goPlugin(tb testing.TB, name string) []byte {
	tb.Helper()
	bin, err := os.ReadFile(testbuild.GoPlugin(tb, "host/wasm/testdata/"+name))
	if err != nil {
		tb.Fatal(err)
	}
	return bin
}

// watModule compiles WebAssembly text with wat2wasm (Debian package wabt).
func watModule(tb testing.TB, src string) []byte {
	tb.Helper()
	return testbuild.WAT(tb, src)
}

// load loads bin and closes the plugin when the test ends.
func load(tb testing.TB, bin []byte, opts wasm.Options) *wasm.Plugin {
	tb.Helper()
	p, err := testEngine.Load(context.Background(), bin, opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := p.Close(context.Background()); err != nil {
			tb.Error(err)
		}
	})
	return p
}

func invoke(tb testing.TB, p *wasm.Plugin, name, event string, phase spec.Phase, payload, config string) (*spec.Result, error) {
	tb.Helper()
	params := &spec.InvokeParams{Name: name, Event: event, Phase: phase, Payload: json.RawMessage(payload)}
	if config != "" {
		params.Config = json.RawMessage(config)
	}
	return p.Invoke(context.Background(), params)
}

func mustInvoke(tb testing.TB, p *wasm.Plugin, name, event string, phase spec.Phase, payload, config string) *spec.Result {
	tb.Helper()
	r, err := invoke(tb, p, name, event, phase, payload, config)
	if err != nil {
		tb.Fatalf("invoke %s: %v", name, err)
	}
	return r
}

// wantFailure asserts err is the -32603 invocation failure of interceptor
// whose reason matches the regular expression.
func wantFailure(tb testing.TB, err error, interceptor, reason string) *spec.Error {
	tb.Helper()
	var se *spec.Error
	if !errors.As(err, &se) {
		tb.Fatalf("error %v (%T) is not a *spec.Error", err, err)
	}
	if se.Code != spec.CodeInternalError {
		tb.Fatalf("code = %d, want %d (%v)", se.Code, spec.CodeInternalError, se)
	}
	fd, ok := se.Data.(*spec.FailureData)
	if !ok || fd.Interceptor != interceptor {
		tb.Fatalf("data = %#v, want FailureData for %q", se.Data, interceptor)
	}
	if !regexp.MustCompile(reason).MatchString(fd.Reason) {
		tb.Fatalf("reason %q does not match %q", fd.Reason, reason)
	}
	return se
}

// logRecorder is a slog.Handler that keeps records for assertions.
type logRecorder struct {
	level slog.Level
	mu    sync.Mutex
	recs  []logRec
}

type logRec struct {
	Level slog.Level
	Msg   string
	Attrs map[string]string
}

func (h *logRecorder) Enabled(_ context.Context, l slog.Level) bool { return l >= h.level }
func (h *logRecorder) Handle(_ context.Context, r slog.Record) error {
	rec := logRec{Level: r.Level, Msg: r.Message, Attrs: map[string]string{}}
	r.Attrs(func(a slog.Attr) bool {
		rec.Attrs[a.Key] = a.Value.String()
		return true
	})
	h.mu.Lock()
	h.recs = append(h.recs, rec)
	h.mu.Unlock()
	return nil
}
func (h *logRecorder) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *logRecorder) WithGroup(string) slog.Handler      { return h }

func (h *logRecorder) records() []logRec {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]logRec(nil), h.recs...)
}
