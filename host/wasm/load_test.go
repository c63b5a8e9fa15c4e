package wasm_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/airlock-mcp/airlock/host/wasm"
	"github.com/airlock-mcp/airlock/spec"
)

// loadErr loads bin and returns the error, failing the test if it loaded.
func loadErr(t *testing.T, bin []byte, opts wasm.Options) error {
	t.Helper()
	p, err := testEngine.Load(context.Background(), bin, opts)
	if err == nil {
		_ = p.Close(context.Background())
		t.Fatal("loaded; want an error")
	}
	return err
}

func wantContains(t *testing.T, err error, parts ...string) {
	t.Helper()
	for _, s := range parts {
		if !strings.Contains(err.Error(), s) {
			t.Fatalf("error %q does not contain %q", err, s)
		}
	}
}

func TestLoadRefusesNonWasm(t *testing.T) {
	err := loadErr(t, []byte("#!/bin/sh\necho hi\n"), wasm.Options{Name: "script.sh"})
	if !errors.Is(err, wasm.ErrNotWasm) {
		t.Fatalf("err = %v, want ErrNotWasm", err)
	}
	wantContains(t, err, `load plugin "script.sh"`, `does not start with \0asm`, "GOOS=wasip1")

	err = loadErr(t, []byte("(module)"), wasm.Options{})
	wantContains(t, err, "WebAssembly text", "wat2wasm")

	err = loadErr(t, []byte("\x00asm\x01\x00\x00\x00\xff"), wasm.Options{Name: "truncated"})
	if !errors.Is(err, wasm.ErrNotWasm) {
		t.Fatalf("err = %v, want ErrNotWasm", err)
	}

	_, err = testEngine.LoadFile(context.Background(), filepath.Join(t.TempDir(), "missing.wasm"), wasm.Options{})
	if !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
	wantContains(t, err, `load plugin "missing.wasm"`)
}

func TestLoadRefusesUndeclaredImports(t *testing.T) {
	src := `(module
  (import "env" "now" (func (result i64)))
  (import "wasi_snapshot_preview1" "sock_accept" (func (param i32 i32 i32) (result i32)))
  (import "extism:host/env" "teleport" (func))
  (import "extism:host/env" "alloc" (func (param i32) (result i32)))
  (import "env" "memory" (memory 1))
  (import "env" "table" (table 1 funcref))
  (import "env" "g" (global i32))
  (func (export "describe") (result i32) (i32.const 0))
  (func (export "invoke") (result i32) (i32.const 0)))`
	err := loadErr(t, watModule(t, src), wasm.Options{Name: "imports"})
	wantContains(t, err,
		"env.now",
		"extism:host/env.teleport (no such function)",
		"extism:host/env.alloc (imported as (i32)->(i32), provided as (i64)->(i64))",
		"env.memory (memory",
		"env.table (table",
		"env.g (global",
		"may import only extism:host/env, airlock:host/v1 and wasi_snapshot_preview1")
	if strings.Contains(err.Error(), "sock_accept") {
		t.Fatalf("a WASI import was refused: %v", err)
	}
}

func TestLoadRefusesUnknownConventions(t *testing.T) {
	cases := []struct {
		name, src string
		want      []string
	}{
		{"neither", `(module (memory (export "memory") 1) (func (export "run")))`,
			[]string{"exports neither the direct ABI", "nor the Extism convention"}},
		{"incomplete direct", `(module (func (export "airlock_abi_version") (result i32) (i32.const 1))
			(func (export "airlock_invoke") (param i32) (result i64) (i64.const 0)))`,
			[]string{"does not follow the direct ABI", "airlock_alloc is missing", "airlock_describe is missing",
				"airlock_invoke has signature (i32)->(i64)", `memory "memory" is not exported`}},
		{"extism without invoke", `(module (func (export "describe") (result i32) (i32.const 0)))`,
			[]string{"does not follow the Extism convention", "invoke is missing"}},
		{"extism wrong signature", `(module (func (export "describe") (result i32) (i32.const 0))
			(func (export "invoke") (param i32) (result i32) (i32.const 0)))`,
			[]string{"invoke has signature (i32)->(i32)"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wantContains(t, loadErr(t, watModule(t, c.src), wasm.Options{Name: c.name}), c.want...)
		})
	}
}

func TestLoadRefusesBadDescriptors(t *testing.T) {
	bin := goPlugin(t, "extism")
	cases := []struct {
		mode string
		want []string
	}{
		{"bad", []string{`load plugin "descs"`, `interceptor "broken"`, `hooks[1].events[1]`, `"not an event"`}},
		{"notjson", []string{`load plugin "descs"`, "describe output is not an interceptors/list result"}},
		{"fail", []string{`load plugin "descs"`, "describe failed: describe refused on purpose"}},
	}
	for _, c := range cases {
		t.Run(c.mode, func(t *testing.T) {
			err := loadErr(t, bin, wasm.Options{Name: "descs", Config: map[string]string{"describe": c.mode}})
			wantContains(t, err, c.want...)
		})
	}
}

func TestCommandModules(t *testing.T) {
	// A command whose _start exits cannot serve a second call.
	exits := `(module
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (memory (export "memory") 1)
  (func (export "_start") (call $exit (i32.const 0)))
  (func (export "describe") (result i32) (i32.const 0))
  (func (export "invoke") (result i32) (i32.const 0)))`
	err := loadErr(t, watModule(t, exits), wasm.Options{Name: "cmd"})
	wantContains(t, err, `load plugin "cmd"`, "WASI command whose _start exits", "reactor", "-buildmode=c-shared")

	// A command whose _start returns is served like a reactor.
	returns := strings.Replace(directWAT(1, `(i64.or (i64.shl (i64.const 2048) (i64.const 32)) (i64.const 70))`),
		"(memory", `(global $started (mut i32) (i32.const 0))
  (func (export "_start") (global.set $started (i32.const 1)))
  (memory`, 1)
	p := load(t, watModule(t, returns), wasm.Options{Name: "cmd-ok"})
	mustInvoke(t, p, "t", "tools/call", spec.PhaseRequest, `{}`, "")
}

func TestCompilationCacheOnDisk(t *testing.T) {
	dir := t.TempDir()
	e, err := wasm.NewEngine(wasm.EngineOptions{CacheDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(context.Background())
	if e.CacheDir() != dir {
		t.Fatalf("CacheDir = %q", e.CacheDir())
	}
	p, err := e.Load(context.Background(), watModule(t, readmeWAT(t)), wasm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	var files int
	_ = filepath.WalkDir(dir, func(_ string, d os.DirEntry, _ error) error {
		if d != nil && !d.IsDir() {
			files++
		}
		return nil
	})
	if files == 0 {
		t.Fatal("no compiled code written to the cache directory")
	}
}
