// Package pluginbuild builds a Go interceptor plugin into a WebAssembly
// module (GOOS=wasip1 GOARCH=wasm, -buildmode=c-shared, the WASI reactor the
// host needs), then inspects what came out: size, exports, imports, the
// calling convention, and — by loading it in a sandbox — the interceptors it
// describes. It is what `airlock plugin build` runs.
package pluginbuild

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/airlock-mcp/airlock/abi"
	"github.com/airlock-mcp/airlock/host/wasm"
	"github.com/airlock-mcp/airlock/internal/wasmbin"
	"github.com/airlock-mcp/airlock/spec"
)

// Options say what to build.
type Options struct {
	// Dir is the plugin's main package directory.
	Dir string
	// Out is the .wasm file to write. Default: DIR's base name + ".wasm"
	// in the current directory.
	Out string
	// Go is the go command. Default: "go" from PATH.
	Go string
	// Progress receives one line per step and a heartbeat while the
	// compiler runs. Nil: quiet.
	Progress io.Writer
	// NoLoad skips loading the module to list its interceptors.
	NoLoad bool
	// CacheDir is the compilation cache used to load it. Default: the
	// host's (wasm.EngineOptions).
	CacheDir string
}

// Result describes the built module.
type Result struct {
	Out      string
	Size     int64
	Duration time.Duration
	// Convention is "direct", "extism" or "" (neither: the host refuses it).
	Convention string
	Exports    []string
	Imports    []string // "module.name"
	// Interceptors are what the module describes (nil with NoLoad).
	Interceptors []spec.Interceptor
}

// Build compiles the plugin and inspects it. A compiler error is returned
// with the compiler's output.
func Build(ctx context.Context, opts Options) (*Result, error) {
	if opts.Dir == "" {
		return nil, errors.New("no plugin directory given")
	}
	dir, err := filepath.Abs(opts.Dir)
	if err != nil {
		return nil, err
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", opts.Dir)
	}
	out := opts.Out
	if out == "" {
		out = filepath.Base(dir) + ".wasm"
	}
	if out, err = filepath.Abs(out); err != nil {
		return nil, err
	}
	goCmd := opts.Go
	if goCmd == "" {
		goCmd = "go"
	}
	progress := opts.Progress
	if progress == nil {
		progress = io.Discard
	}

	start := time.Now()
	fmt.Fprintf(progress, "building %s (GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared)\n", opts.Dir)
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return nil, err
	}
	tmp := out + ".tmp"
	cmd := exec.CommandContext(ctx, goCmd, "build", "-buildmode=c-shared", "-trimpath", "-o", tmp, ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("run %s: %w (is Go installed?)", goCmd, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	tick := time.NewTicker(2 * time.Second)
	defer tick.Stop()
wait:
	for {
		select {
		case err = <-done:
			break wait
		case <-tick.C:
			fmt.Fprintf(progress, "  compiling... %s\n", time.Since(start).Round(time.Second))
		}
	}
	if err != nil {
		os.Remove(tmp)
		msg := strings.TrimSpace(stderr.String())
		if strings.Contains(msg, "-buildmode=c-shared requires exactly one main package") || strings.Contains(msg, "is not a main package") {
			msg += "\n(a plugin is a main package with an empty func main() that registers its interceptors in init)"
		}
		return nil, fmt.Errorf("go build failed: %w\n%s", err, msg)
	}
	if err := os.Rename(tmp, out); err != nil {
		return nil, err
	}
	bin, err := os.ReadFile(out)
	if err != nil {
		return nil, err
	}
	res := &Result{Out: out, Size: int64(len(bin))}
	fmt.Fprintf(progress, "compiled in %s; inspecting %s\n", time.Since(start).Round(10*time.Millisecond), filepath.Base(out))
	mod, err := Inspect(bin)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", out, err)
	}
	res.Exports, res.Imports, res.Convention = mod.Exports, mod.Imports, mod.Convention
	if !opts.NoLoad {
		fmt.Fprintf(progress, "loading it in the sandbox to read its interceptors\n")
		descs, err := Describe(ctx, bin, filepath.Base(out), opts.CacheDir)
		if err != nil {
			return res, err
		}
		res.Interceptors = descs
	}
	res.Duration = time.Since(start)
	return res, nil
}

// Describe loads bin in the sandbox (with one instance) and returns the
// interceptors it describes, validated as the host validates them.
func Describe(ctx context.Context, bin []byte, name, cacheDir string) ([]spec.Interceptor, error) {
	eng, err := wasm.NewEngine(wasm.EngineOptions{CacheDir: cacheDir})
	if err != nil {
		// No user cache directory: compile in memory.
		if eng, err = wasm.NewEngine(wasm.EngineOptions{MemoryCacheOnly: true}); err != nil {
			return nil, err
		}
	}
	defer eng.Close(ctx)
	p, err := eng.Load(ctx, bin, wasm.Options{Name: name, Limits: wasm.Limits{MaxInstances: 1}})
	if err != nil {
		return nil, err
	}
	defer p.Close(ctx)
	return p.Interceptors(ctx)
}

// Module is what Inspect reads from a module's binary.
type Module struct {
	Exports    []string
	Imports    []string
	Convention string
}

// Inspect reads a WebAssembly binary's imports and exports (without
// compiling it) and names its calling convention.
func Inspect(bin []byte) (*Module, error) {
	if len(bin) < 8 || !bytes.Equal(bin[:4], []byte("\x00asm")) {
		return nil, errors.New("not a WebAssembly binary module")
	}
	imports, err := wasmbin.Imports(bin)
	if err != nil {
		return nil, err
	}
	exports, err := wasmbin.Exports(bin)
	if err != nil {
		return nil, err
	}
	m := &Module{Exports: exports}
	for _, im := range imports {
		m.Imports = append(m.Imports, im.Module+"."+im.Name)
	}
	has := func(s string) bool {
		for _, e := range m.Exports {
			if e == s {
				return true
			}
		}
		return false
	}
	switch {
	case has(abi.ExportVersion):
		m.Convention = string(wasm.ConventionDirect)
	case has(abi.ExtismDescribe) && has(abi.ExtismInvoke):
		m.Convention = string(wasm.ConventionExtism)
	}
	return m, nil
}
