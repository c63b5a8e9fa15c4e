package loader_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/airlock-mcp/airlock/host/chain"
	"github.com/airlock-mcp/airlock/host/config"
	"github.com/airlock-mcp/airlock/host/loader"
	"github.com/airlock-mcp/airlock/host/wasm"
	"github.com/airlock-mcp/airlock/internal/testbuild"
	"github.com/airlock-mcp/airlock/spec"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// gateModule is a direct-ABI plugin with one validator, "gate", that allows
// every tools/call and says which version it is in its info.
func gateModule(t *testing.T, version string) []byte {
	desc := `{"interceptors":[{"name":"gate","type":"validation","hooks":[{"events":["tools/call"],"phase":"request"}]}]}`
	out := fmt.Sprintf(`{"interceptor":"gate","type":"validation","phase":"request","valid":true,"info":{"version":"%s"}}`, version)
	q := func(s string) string { return strings.ReplaceAll(s, `"`, `\"`) }
	return testbuild.WAT(t, fmt.Sprintf(`(module
  (memory (export "memory") 1)
  (data (i32.const 1024) "%s")
  (data (i32.const 2048) "%s")
  (func (export "airlock_abi_version") (result i32) (i32.const 1))
  (func (export "airlock_alloc") (param i32) (result i32) (i32.const 8192))
  (func (export "airlock_describe") (result i64)
    (i64.or (i64.shl (i64.const 1024) (i64.const 32)) (i64.const %d)))
  (func (export "airlock_invoke") (param i32 i32) (result i64)
    (i64.or (i64.shl (i64.const 2048) (i64.const 32)) (i64.const %d))))`, q(desc), q(out), len(desc), len(out)))
}

// writeAtomically replaces path the way build tools do: a new file renamed
// over the old one.
func writeAtomically(t *testing.T, path string, data []byte) {
	t.Helper()
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

func newEngine(t *testing.T) *wasm.Engine {
	e, err := wasm.NewEngine(wasm.EngineOptions{MemoryCacheOnly: true, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close(context.Background()) })
	return e
}

// version runs the chain once and returns the gate's version, or an error
// for anything but a clean pass.
func version(l *loader.Loader) (string, error) {
	c, release := l.Live().Acquire()
	defer release()
	res, err := c.Run(context.Background(), &spec.ChainParams{Event: "tools/call", Phase: spec.PhaseRequest,
		Direction: spec.DirectionSending, Payload: json.RawMessage(`{"name":"x"}`)})
	if err != nil {
		return "", err
	}
	if res.Status != spec.StatusSuccess || len(res.Results) != 1 {
		return "", fmt.Errorf("chain %s with %d results", res.Status, len(res.Results))
	}
	var info struct{ Version string }
	_ = json.Unmarshal(res.Results[0].Info, &info)
	return info.Version, nil
}

func TestHotSwapUnderLoad(t *testing.T) {
	dir := t.TempDir()
	plugin := filepath.Join(dir, "gate.wasm")
	cfgPath := filepath.Join(dir, "airlock.yaml")
	writeAtomically(t, plugin, gateModule(t, "v1"))
	writeAtomically(t, cfgPath, []byte("plugins:\n  - path: gate.wasm\n"))
	load := func() (*config.File, error) { return config.Load(cfgPath) }
	cfg, err := load()
	if err != nil {
		t.Fatal(err)
	}
	l, err := loader.Open(context.Background(), cfg, loader.Options{Engine: newEngine(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	reloads := make(chan error, 16)
	trigger := make(chan struct{}, 1)
	watchDone, watching := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(watchDone)
		_ = l.Watch(ctx, loader.WatchOptions{Load: load, Files: []string{cfgPath}, Trigger: trigger,
			Settle: 20 * time.Millisecond, MaxBackoff: 40 * time.Millisecond, OnReload: func(err error) { reloads <- err },
			OnWatching: func() { close(watching) }})
	}()
	<-watching

	// Eight callers run the chain without pause for the whole test.
	var calls, failed atomic.Int64
	var seen sync.Map
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				v, err := version(l)
				calls.Add(1)
				if err != nil {
					failed.Add(1)
					t.Error(err)
					return
				}
				seen.Store(v, true)
			}
		}()
	}
	waitReload := func(wantErr string) {
		t.Helper()
		select {
		case err := <-reloads:
			if (err == nil) != (wantErr == "") || (err != nil && !strings.Contains(err.Error(), wantErr)) {
				t.Fatalf("reload: %v, want error containing %q", err, wantErr)
			}
		case <-time.After(time.Minute):
			t.Fatal("no reload happened")
		}
	}
	waitVersion := func(want string) {
		t.Helper()
		deadline := time.Now().Add(time.Minute)
		for time.Now().Before(deadline) {
			if v, err := version(l); err == nil && v == want {
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
		t.Fatalf("version %s never served", want)
	}

	// A new build of the plugin is picked up.
	writeAtomically(t, plugin, gateModule(t, "v2"))
	waitReload("")
	waitVersion("v2")

	// A broken build is refused; v2 keeps serving.
	writeAtomically(t, plugin, []byte("this is not wasm"))
	waitReload("not a WebAssembly module")
	if v, err := version(l); err != nil || v != "v2" {
		t.Fatalf("after a broken build: %s %v", v, err)
	}

	// Fixed again, and pinned in the config: a pin mismatch is refused.
	v3 := gateModule(t, "v3")
	writeAtomically(t, plugin, v3)
	waitReload("")
	waitVersion("v3")
	writeAtomically(t, cfgPath, []byte("plugins:\n  - path: gate.wasm\n    sha256: \""+strings.Repeat("0", 64)+"\"\n"))
	waitReload("refusing it")
	if v, _ := version(l); v != "v3" {
		t.Fatalf("after a pin mismatch: %s", v)
	}
	// A SIGHUP-style trigger reloads too: fix the config, then trigger.
	writeAtomically(t, cfgPath, []byte("plugins:\n  - path: gate.wasm\n    limits: {instances: 1}\n"))
	waitReload("")
	trigger <- struct{}{}
	waitReload("")

	close(stop)
	wg.Wait()
	cancel()
	<-watchDone
	if failed.Load() != 0 {
		t.Fatalf("%d of %d calls failed during swaps", failed.Load(), calls.Load())
	}
	for _, v := range []string{"v1", "v2", "v3"} {
		if _, ok := seen.Load(v); !ok {
			t.Errorf("the callers never saw %s", v)
		}
	}
	t.Logf("%d calls, none failed, across 5 reloads", calls.Load())
}

func TestReuseUnchangedPlugins(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.wasm"), filepath.Join(dir, "b.wasm")
	writeAtomically(t, a, gateModule(t, "a"))
	writeAtomically(t, b, gateModule(t, "b"))
	eng := newEngine(t)
	cfg := &config.File{Plugins: []config.Plugin{{Path: a}}}
	l, err := loader.Open(context.Background(), cfg, loader.Options{Engine: eng})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	first := l.Live().Current().Interceptors()[0].Source

	// The same plugin with another source next to it: "gate" twice is fine
	// in a chain, but not for a server, whose Check vetoes it.
	if err := l.Reload(context.Background(), &config.File{Plugins: []config.Plugin{{Path: a}, {Path: b}}}); err != nil {
		t.Fatal(err)
	}
	is := l.Live().Current().Interceptors()
	if len(is) != 2 || is[0].Source != first {
		t.Fatalf("the unchanged plugin was not reused: %d interceptors", len(is))
	}
	// Changing a plugin's options loads it anew.
	if err := l.Reload(context.Background(), &config.File{Plugins: []config.Plugin{{Path: a, Config: map[string]string{"k": "v"}}}}); err != nil {
		t.Fatal(err)
	}
	if l.Live().Current().Interceptors()[0].Source == first {
		t.Fatal("a plugin with new options was reused")
	}
	// Interceptor selection and overrides come from the config too.
	audit := spec.ModeAudit
	err = l.Reload(context.Background(), &config.File{Plugins: []config.Plugin{{Path: a}},
		Interceptors: config.Interceptors{Overrides: map[string]spec.Override{"gate": {Mode: &audit}}}})
	if err != nil || !l.Live().Current().Interceptors()[0].Descriptor.Mode.IsAudit() {
		t.Fatalf("override not applied: %v", err)
	}
	if err := l.Reload(context.Background(), &config.File{Plugins: []config.Plugin{{Path: a}},
		Interceptors: config.Interceptors{Enabled: []string{"nope"}}}); err == nil {
		t.Fatal("a filter naming no interceptor was accepted")
	}
}

func TestOpenFailsCleanly(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.wasm")
	writeAtomically(t, good, gateModule(t, "x"))
	tests := []struct {
		name string
		cfg  config.File
		want string
	}{
		{"missing file", config.File{Plugins: []config.Plugin{{Path: good}, {Path: filepath.Join(dir, "nope.wasm")}}}, "plugins[1]: plugin nope.wasm"},
		{"pin mismatch", config.File{Plugins: []config.Plugin{{Path: good, SHA256: strings.Repeat("a", 64)}}}, "refusing it"},
		{"nothing", config.File{}, "no interceptors"},
		{"check veto", config.File{Plugins: []config.Plugin{{Path: good}, {Path: good, Name: "again"}}}, "vetoed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loader.Open(context.Background(), &tt.cfg, loader.Options{Engine: newEngine(t),
				Check: func(c *chain.Chain) error {
					if len(c.Interceptors()) > 1 {
						return fmt.Errorf("vetoed")
					}
					return nil
				}})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want %q", err, tt.want)
			}
		})
	}
}
