// Package examples tests the example plugins in C, Rust, AssemblyScript and
// WAT: each is built with its own toolchain and run through the real host.
// A missing toolchain fails the test naming what to install (or skips it
// when AIRLOCK_SKIP_MISSING_TOOLCHAINS=1).
package examples

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"

	"github.com/airlock-mcp/airlock/host/wasm"
	"github.com/airlock-mcp/airlock/internal/plugintest"
	"github.com/airlock-mcp/airlock/internal/testbuild"
	"github.com/airlock-mcp/airlock/spec"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// missing fails (or skips) the test: the toolchain is not installed.
func missing(t *testing.T, what, install string) {
	t.Helper()
	msg := what + " not found: install " + install + " (or run scripts/install-deps)"
	if os.Getenv(testbuild.SkipEnv) == "1" {
		t.Skip(msg)
	}
	t.Fatal(msg + "; set " + testbuild.SkipEnv + "=1 to skip instead")
}

func run(t *testing.T, dir string, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
}

// load loads a built module with the real host.
func load(t *testing.T, path string) *wasm.Plugin {
	t.Helper()
	ctx := context.Background()
	eng, err := wasm.NewEngine(wasm.EngineOptions{MemoryCacheOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	p, err := eng.LoadFile(ctx, path, wasm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = p.Close(ctx)
		_ = eng.Close(ctx)
	})
	return p
}

func checkDescribe(t *testing.T, p *wasm.Plugin, conv wasm.Convention, name string, typ spec.Type) {
	t.Helper()
	if p.Convention() != conv {
		t.Errorf("convention = %s, want %s", p.Convention(), conv)
	}
	ds, _ := p.Interceptors(context.Background())
	if len(ds) != 1 || ds[0].Name != name || ds[0].Type != typ {
		t.Fatalf("describe = %+v", ds)
	}
}

func TestC(t *testing.T) {
	clang := testbuild.Tool(t, "clang", "clang")
	testbuild.Tool(t, "wasm-ld", "lld")
	if _, err := os.Stat("/usr/lib/wasm32-wasi/libc.a"); err != nil {
		missing(t, "wasi-libc (/usr/lib/wasm32-wasi/libc.a)", "the Debian package wasi-libc")
	}
	if m, _ := filepath.Glob("/usr/lib/llvm-*/lib/clang/*/lib/wasi/libclang_rt.builtins-wasm32.a"); len(m) == 0 {
		missing(t, "the wasm32 compiler runtime (libclang_rt.builtins-wasm32.a)", "the Debian package libclang-rt-14-dev-wasm32")
	}
	src, _ := filepath.Abs("c")
	out := filepath.Join(t.TempDir(), "shell_guard.wasm")
	run(t, src, clang, "--target=wasm32-wasi", "-O2", "-mexec-model=reactor", "-Wl,--strip-all", "-o", out, "shell_guard.c")
	p := load(t, out)
	checkDescribe(t, p, wasm.ConventionDirect, "c-shell-guard", spec.TypeValidation)
	cases := []plugintest.Case{
		{Name: "harmless", Payload: `{"name":"sh","arguments":{"cmd":"ls -la"}}`, Valid: true},
		{Name: "rm -rf", Payload: `{"name":"sh","arguments":{"cmd":"sudo rm -rf /"}}`, Severity: "error",
			Paths: []string{"/arguments"}, MessageHas: `"rm -rf"`},
		{Name: "mkfs", Payload: `{"name":"sh","arguments":{"cmd":"mkfs.ext4 /dev/sda"}}`, MessageHas: "mkfs"},
		{Name: "rm without -rf", Payload: `{"name":"sh","arguments":{"cmd":"rm file.txt"}}`, Valid: true},
	}
	for i := range cases {
		cases[i].Interceptor, cases[i].Event, cases[i].Phase = "c-shell-guard", "tools/call", spec.PhaseRequest
	}
	plugintest.Run(t, []plugintest.Named{{Name: "wasm", Target: p}}, spec.TypeValidation, cases)
}

func TestRust(t *testing.T) {
	// The Debian rustc, by path: a rustup rustc earlier on PATH may lack
	// the wasm targets.
	rustc := "/usr/bin/rustc"
	if _, err := os.Stat(rustc); err != nil {
		missing(t, rustc, "the Debian packages rustc and libstd-rust-dev-wasm32")
	}
	if _, err := os.Stat("/usr/lib/rustlib/wasm32-unknown-unknown"); err != nil {
		missing(t, "the Rust standard library for wasm32", "the Debian package libstd-rust-dev-wasm32")
	}
	src, _ := filepath.Abs("rust")
	out := filepath.Join(t.TempDir(), "count.wasm")
	run(t, src, rustc, "--edition", "2021", "--crate-type", "cdylib", "-O", "-C", "panic=abort", "-C", "strip=symbols",
		"--target", "wasm32-unknown-unknown", "-o", out, "count.rs")
	p := load(t, out)
	checkDescribe(t, p, wasm.ConventionExtism, "rust-count", spec.TypeSink)
	var cases []plugintest.Case
	for i, ev := range []string{"tools/call", "resources/read", "custom/op"} {
		n := float64(i + 1)
		cases = append(cases, plugintest.Case{Name: ev, Interceptor: "rust-count", Event: ev, Phase: spec.PhaseRequest,
			Payload: `{"name":"x","uri":"file:///a"}`, Recorded: true, Metrics: map[string]float64{"count": n}})
	}
	plugintest.Run(t, []plugintest.Named{{Name: "wasm", Target: p}}, spec.TypeSink, cases)
	if v, ok := p.Vars("count"); !ok || len(v) != 8 || v[0] != 3 {
		t.Errorf("variable count = %v %v", v, ok)
	}
}

func TestAssemblyScript(t *testing.T) {
	root := testbuild.ModuleRoot(t)
	asc := filepath.Join(root, "plugins", "node_modules", ".bin", "asc")
	if _, err := os.Stat(asc); err != nil {
		testbuild.Tool(t, "node", "nodejs")
		missing(t, "AssemblyScript (plugins/node_modules/.bin/asc)", "it with `npm ci` in plugins/ (package.json pins assemblyscript)")
	}
	out := filepath.Join(t.TempDir(), "no_eval.wasm")
	run(t, filepath.Join(root, "plugins", "examples", "assemblyscript"), asc, "no_eval.ts", "-O3", "--runtime", "stub", "--use", "abort=", "-o", out)
	p := load(t, out)
	checkDescribe(t, p, wasm.ConventionDirect, "as-no-eval", spec.TypeValidation)
	big := make([]byte, 200<<10) // inputs larger than one page grow the buffer
	for i := range big {
		big[i] = 'a'
	}
	bigArgs, _ := json.Marshal(map[string]any{"name": "py", "arguments": map[string]string{"pad": string(big), "code": "exec(x)"}})
	cases := []plugintest.Case{
		{Name: "plain", Payload: `{"name":"py","arguments":{"code":"print(1)"}}`, Valid: true},
		{Name: "eval", Payload: `{"name":"py","arguments":{"code":"eval(input())"}}`, Severity: "error", MessageHas: "eval/exec"},
		{Name: "exec after a large argument", Payload: string(bigArgs), Severity: "error"},
		{Name: "plain again after growth", Payload: `{"name":"py","arguments":{"code":"evaluate()"}}`, Valid: true},
	}
	for i := range cases {
		cases[i].Interceptor, cases[i].Event, cases[i].Phase = "as-no-eval", "tools/call", spec.PhaseRequest
	}
	plugintest.Run(t, []plugintest.Named{{Name: "wasm", Target: p}}, spec.TypeValidation, cases)
}

func TestWAT(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("wat", "count.wat"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "count.wasm")
	if err := os.WriteFile(path, testbuild.WAT(t, string(src)), 0o644); err != nil {
		t.Fatal(err)
	}
	p := load(t, path)
	checkDescribe(t, p, wasm.ConventionDirect, "wat-count", spec.TypeSink)
	var cases []plugintest.Case
	for i := 1; i <= 12; i++ { // past 9: two digits
		cases = append(cases, plugintest.Case{Name: "call", Interceptor: "wat-count", Event: "tools/list", Phase: spec.PhaseResponse,
			Payload: `{"tools":[]}`, Recorded: true, Metrics: map[string]float64{"n": float64(i)}})
	}
	plugintest.Run(t, []plugintest.Named{{Name: "wasm", Target: p}}, spec.TypeSink, cases)
}
