package wasm_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/airlock-mcp/airlock/host/wasm"
	"github.com/airlock-mcp/airlock/internal/testbuild"
	"github.com/airlock-mcp/airlock/spec"
)

// stopSlack is how long after its deadline a runaway guest may still run:
// the bound issue 9 sets for the default deadline mode.
const stopSlack = 50 * time.Millisecond

// hostile builds testdata/hostile/spin.<lang> with the language's toolchain
// (the ones plugins/examples uses) and returns the module. Each exports the
// direct ABI with a "spin" validator that never returns.
func hostile(t *testing.T, lang string) []byte {
	t.Helper()
	src, err := filepath.Abs("testdata/hostile")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "spin.wasm")
	var cmd *exec.Cmd
	switch lang {
	case "c":
		clang := testbuild.Tool(t, "clang", "clang")
		testbuild.Tool(t, "wasm-ld", "lld")
		cmd = exec.Command(clang, "--target=wasm32-wasi", "-O2", "-mexec-model=reactor", "-o", out, "spin.c")
	case "rust":
		rustc := "/usr/bin/rustc" // Debian's, with the wasm32 targets
		if _, err := os.Stat("/usr/lib/rustlib/wasm32-unknown-unknown"); err != nil {
			skipOrFail(t, "the Rust standard library for wasm32 (Debian packages rustc, libstd-rust-dev-wasm32)")
		}
		cmd = exec.Command(rustc, "--edition", "2021", "--crate-type", "cdylib", "-O", "-C", "panic=abort",
			"--target", "wasm32-unknown-unknown", "-o", out, "spin.rs")
	case "assemblyscript":
		asc := filepath.Join(testbuild.ModuleRoot(t), "plugins", "node_modules", ".bin", "asc")
		if _, err := os.Stat(asc); err != nil {
			skipOrFail(t, "AssemblyScript (npm ci in plugins/)")
		}
		cmd = exec.Command(asc, "spin.ts", "-O3", "--runtime", "stub", "--use", "abort=", "-o", out)
	default:
		t.Fatalf("no toolchain for %s", lang)
	}
	cmd.Dir = src
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %v\n%s", cmd.Args, err, msg)
	}
	bin, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

func skipOrFail(t *testing.T, what string) {
	t.Helper()
	if os.Getenv(testbuild.SkipEnv) == "1" {
		t.Skip(what + " is missing")
	}
	t.Fatal(what + " is missing (scripts/install-deps); set " + testbuild.SkipEnv + "=1 to skip")
}

// spinWAT is a direct-ABI module in WAT whose invoke never returns: it calls
// a function that loops, and the loop's body fills memory (a bulk operation
// the fuel charges by length).
const spinWAT = `(module
  (memory (export "memory") 2)
  (data (i32.const 0) "{\"interceptors\":[{\"name\":\"spin\",\"type\":\"validation\",\"hooks\":[{\"events\":[\"test/misbehave\"],\"phase\":\"request\"}]}]}")
  (func (export "airlock_abi_version") (result i32) (i32.const 1))
  (func (export "airlock_alloc") (param i32) (result i32) (i32.const 65536))
  (func (export "airlock_describe") (result i64) (i64.const 112))
  (func $spin (param $n i32)
    (loop $again
      (memory.fill (i32.const 4096) (local.get $n) (i32.const 60000))
      (local.set $n (i32.add (local.get $n) (i32.const 1)))
      (br $again)))
  (func (export "airlock_invoke") (param i32 i32) (result i64)
    (call $spin (i32.const 0))
    (i64.const 0)))`

// TestInterruptStopsLoops runs a guest that never returns, in every language
// Airlock builds plugins in, under the default deadline mode, and asserts
// that the call ends as a timeout within stopSlack of its deadline and that
// the instance is replaced.
func TestInterruptStopsLoops(t *testing.T) {
	const budget = 100 * time.Millisecond
	cases := []struct {
		lang, interceptor, config string
		bin                       func(t *testing.T) []byte
	}{
		{"go-extism", "misbehave", `{"do":"loop"}`, func(t *testing.T) []byte { return goPlugin(t, "extism") }},
		{"go-direct", "misbehave", `{"do":"loop"}`, func(t *testing.T) []byte { return goPlugin(t, "direct") }},
		{"go-pdk", "spin", "", func(t *testing.T) []byte { return goPlugin(t, "pdk") }},
		{"c", "spin", "", func(t *testing.T) []byte { return hostile(t, "c") }},
		{"rust", "spin", "", func(t *testing.T) []byte { return hostile(t, "rust") }},
		{"assemblyscript", "spin", "", func(t *testing.T) []byte { return hostile(t, "assemblyscript") }},
		{"wat", "spin", "", func(t *testing.T) []byte { return watModule(t, spinWAT) }},
	}
	for _, c := range cases {
		t.Run(c.lang, func(t *testing.T) {
			p := load(t, c.bin(t), wasm.Options{Name: c.lang, Limits: wasm.Limits{MaxInstances: 1, Timeout: 30 * time.Second}})
			if p.Limits().Deadlines != wasm.DeadlineInterrupt {
				t.Fatalf("default mode = %v", p.Limits().Deadlines)
			}
			params := &spec.InvokeParams{Name: c.interceptor, Event: "test/misbehave", Phase: spec.PhaseRequest,
				Payload: json.RawMessage(`{}`), TimeoutMs: budget.Milliseconds()}
			if c.config != "" {
				params.Config = json.RawMessage(c.config)
			}
			for i := range 2 { // the second call runs in the replacement instance
				start := time.Now()
				_, err := p.Invoke(context.Background(), params)
				el := time.Since(start)
				wantFailure(t, err, c.interceptor, "^timeout$")
				t.Logf("call %d: stopped %v after its %v deadline", i+1, (el - budget).Round(time.Microsecond), budget)
				if el > budget+stopSlack {
					t.Errorf("call %d: the loop ran %v, more than %v past its %v deadline", i+1, el, stopSlack, budget)
				}
			}
			if s := p.Stats(); s.Discarded != 2 {
				t.Fatalf("stats = %+v, want 2 discarded", s)
			}
		})
	}
}

// TestInterruptWithEveryThreadBusy stops a runaway guest on a host with one
// thread for Go code, which the guest holds: no timer or other goroutine can
// run until it yields. The fuel tick runs on the guest's own goroutine and
// reads the clock itself, so it needs neither.
func TestInterruptWithEveryThreadBusy(t *testing.T) {
	p := load(t, goPlugin(t, "direct"), wasm.Options{Limits: wasm.Limits{MaxInstances: 1}})
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	start := time.Now()
	_, err := p.Invoke(context.Background(), &spec.InvokeParams{Name: "misbehave", Event: "test/misbehave",
		Phase: spec.PhaseRequest, Payload: json.RawMessage(`{}`), Config: json.RawMessage(`{"do":"loop"}`), TimeoutMs: 100})
	wantFailure(t, err, "misbehave", "^timeout$")
	if el := time.Since(start); el > 100*time.Millisecond+stopSlack {
		t.Errorf("stopped after %v", el)
	}
}
