package pluginbuild_test

import (
	"bytes"
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/airlock-mcp/airlock/internal/pluginbuild"
	"github.com/airlock-mcp/airlock/internal/testbuild"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestBuildBundledPlugin(t *testing.T) {
	root := testbuild.ModuleRoot(t)
	out := filepath.Join(t.TempDir(), "sg.wasm")
	var progress bytes.Buffer
	res, err := pluginbuild.Build(context.Background(), pluginbuild.Options{Dir: filepath.Join(root, "plugins", "size-guard"), Out: out,
		Progress: &progress, CacheDir: filepath.Join(testbuild.CacheDir(), "wazero")})
	if err != nil {
		t.Fatal(err)
	}
	if res.Out != out || res.Size < 1<<20 || res.Convention != "direct" {
		t.Errorf("result = %+v", res)
	}
	for _, e := range []string{"_initialize", "airlock_abi_version", "airlock_alloc", "airlock_describe", "airlock_invoke", "memory"} {
		if !slices.Contains(res.Exports, e) {
			t.Errorf("exports %v lack %s", res.Exports, e)
		}
	}
	if len(res.Interceptors) != 1 || res.Interceptors[0].Name != "size-guard" || len(res.Interceptors[0].Hooks) != 2 {
		t.Errorf("interceptors = %+v", res.Interceptors)
	}
	for _, step := range []string{"building", "compiled in", "loading it in the sandbox"} {
		if !strings.Contains(progress.String(), step) {
			t.Errorf("progress lacks %q:\n%s", step, progress.String())
		}
	}
}

func TestBuildErrors(t *testing.T) {
	root := testbuild.ModuleRoot(t)
	_, err := pluginbuild.Build(context.Background(), pluginbuild.Options{Dir: filepath.Join(root, "spec"), Out: filepath.Join(t.TempDir(), "x.wasm"), NoLoad: true})
	if err == nil || !strings.Contains(err.Error(), "a plugin is a main package") {
		t.Errorf("building a library: %v", err)
	}
	if _, err := pluginbuild.Build(context.Background(), pluginbuild.Options{Dir: filepath.Join(root, "no-such-dir")}); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("missing dir: %v", err)
	}
}

func TestInspect(t *testing.T) {
	cases := []struct {
		name, wat, conv string
		imports         []string
	}{
		{"direct", `(module (import "airlock:host/v1" "log" (func (param i32 i32 i32))) (memory (export "memory") 1)
		  (func (export "airlock_abi_version") (result i32) i32.const 1))`, "direct", []string{"airlock:host/v1.log"}},
		{"extism", `(module (import "extism:host/env" "output_set" (func (param i64 i64))) (memory 1)
		  (func (export "describe") (result i32) i32.const 0) (func (export "invoke") (result i32) i32.const 0))`, "extism", []string{"extism:host/env.output_set"}},
		{"neither", `(module (func (export "run")))`, "", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := pluginbuild.Inspect(testbuild.WAT(t, c.wat))
			if err != nil {
				t.Fatal(err)
			}
			if m.Convention != c.conv || !slices.Equal(m.Imports, c.imports) {
				t.Errorf("module = %+v", m)
			}
		})
	}
	for _, bad := range [][]byte{nil, []byte("(module)"), []byte("\x00asm\x01\x00\x00\x00\x07\x05\x01")} {
		if _, err := pluginbuild.Inspect(bad); err == nil {
			t.Errorf("pluginbuild.Inspect(%q) accepted", bad)
		}
	}
}

func TestCached(t *testing.T) {
	root := testbuild.ModuleRoot(t)
	cache := t.TempDir()
	dir := filepath.Join(root, "plugins", "size-guard")
	p1, built, err := pluginbuild.Cached(context.Background(), dir, cache, nil)
	if err != nil || !built {
		t.Fatalf("first: %s %v %v", p1, built, err)
	}
	p2, built, err := pluginbuild.Cached(context.Background(), dir, cache, nil)
	if err != nil || built || p2 != p1 {
		t.Fatalf("second: %s %v %v (first %s)", p2, built, err, p1)
	}
	h1, _ := pluginbuild.InputsHash(dir)
	h2, _ := pluginbuild.InputsHash(filepath.Join(root, "plugins", "secrets"))
	if h1 == "" || h1 == h2 {
		t.Fatalf("hashes %q %q", h1, h2)
	}
}
