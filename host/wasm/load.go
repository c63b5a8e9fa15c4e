package wasm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"github.com/airlock-mcp/airlock/abi"
	"github.com/airlock-mcp/airlock/host/wasm/internal/deadline"
	"github.com/airlock-mcp/airlock/host/wasm/internal/hostenv"
	"github.com/airlock-mcp/airlock/host/wasm/internal/pool"
	"github.com/airlock-mcp/airlock/internal/wasmbin"
	"github.com/airlock-mcp/airlock/spec"
)

// Convention is the calling convention a plugin follows.
type Convention string

const (
	// ConventionExtism is the Extism-compatible convention (describe and
	// invoke exports, extism:host/env imports).
	ConventionExtism Convention = "extism"
	// ConventionDirect is Airlock's direct ABI (airlock_* exports).
	ConventionDirect Convention = "direct"
)

// ErrNotWasm is returned (wrapped) by Load for bytes that are not a
// WebAssembly binary module.
var ErrNotWasm = errors.New("not a WebAssembly module")

var wasmMagic = []byte{0x00, 'a', 's', 'm'}

// Load compiles (or finds in the cache) the module bin, checks it, reads its
// descriptors and returns the plugin with a pre-warmed pool of instances.
// Every error names the plugin and says what to do.
func (e *Engine) Load(ctx context.Context, bin []byte, opts Options) (_ *Plugin, err error) {
	if opts.Name == "" {
		opts.Name = "plugin"
	}
	name := opts.Name
	defer func() {
		if err != nil {
			err = fmt.Errorf("load plugin %q: %w", name, err)
		}
	}()
	if !bytes.HasPrefix(bin, wasmMagic) {
		if bytes.HasPrefix(bytes.TrimSpace(bin), []byte("(module")) {
			return nil, fmt.Errorf("%w: this is WebAssembly text; compile it with wat2wasm first", ErrNotWasm)
		}
		return nil, fmt.Errorf("%w: it does not start with \\0asm; build the plugin for a wasm target (Go: GOOS=wasip1 GOARCH=wasm -buildmode=c-shared)", ErrNotWasm)
	}
	limits := opts.Limits.withDefaults()
	logger := opts.Logger
	if logger == nil {
		logger = e.logger
	}

	// The module is rewritten (or not) for the deadline mode before it is
	// compiled, so that the compilation cache keys on the code that runs.
	code, mode, perr := limits.Deadlines.internal().Prepare(bin)
	cfg := mode.Configure(
		wazero.NewRuntimeConfig().
			WithCompilationCache(e.cache).
			WithMemoryLimitPages(limits.MemoryPages))
	rt := wazero.NewRuntimeWithConfig(ctx, cfg)
	defer func() {
		if err != nil {
			_ = rt.Close(ctx)
		}
	}()
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, rt); err != nil {
		return nil, fmt.Errorf("instantiate WASI: %w", err)
	}
	if err := hostenv.Instantiate(ctx, rt); err != nil {
		return nil, err
	}
	if mode == deadline.Interrupt {
		if err := deadline.Instantiate(ctx, rt); err != nil {
			return nil, err
		}
	}
	// A Go plugin is a few MB of code: compile its functions on every core
	// (only a cache miss pays for it).
	// A cold compile of a Go plugin takes about a second: say so while it
	// happens (a cache hit finishes long before the timer).
	slow := time.AfterFunc(500*time.Millisecond, func() {
		logger.Info("compiling plugin (only its first load is slow; later loads use the compilation cache)",
			"plugin", name, "bytes", len(code))
	})
	compiled, err := rt.CompileModule(experimental.WithCompilationWorkers(ctx, runtime.GOMAXPROCS(0)), code)
	slow.Stop()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotWasm, err)
	}
	defer func() {
		if err != nil {
			_ = compiled.Close(ctx) // see Plugin.Close
		}
	}()
	if err := checkImports(rt, compiled, bin, mode == deadline.Interrupt); err != nil {
		return nil, err
	}
	if perr != nil {
		logger.Warn("deadlines fall back to close-on-context-done, which makes calls several times slower: "+
			"the module cannot be instrumented", "plugin", name, "reason", perr.Error())
	}
	conv, err := detectConvention(compiled)
	if err != nil {
		return nil, err
	}

	p := &Plugin{
		name: name, conv: conv, rt: rt, compiled: compiled, limits: limits, logger: logger,
		start: startFunctions(compiled),
		shared: &hostenv.Shared{
			Plugin: name, Logger: logger,
			Config:       cloneMap(opts.Config),
			AllowedHosts: slices.Clone(opts.AllowedHosts),
			HTTPClient:   hostenv.NewHTTPClient(opts.AllowedHosts),
			Vars:         hostenv.NewVars(limits.MaxVarBytes),
			MaxArena:     int(limits.MemoryPages) * 65536,
			MaxLogBytes:  8 << 10,
			MaxHTTPBody:  limits.MaxOutputBytes,
		},
	}
	p.pool = pool.New(limits.MaxInstances, p.newInstance, (*instance).close, func(err error) {
		logger.Error("replacing a plugin instance failed", "plugin", name, "error", err)
	})
	defer func() {
		if err != nil {
			p.pool.Close()
		}
	}()

	// The first instance answers describe (and, on the direct ABI, its
	// version), then joins the pool.
	in, err := p.pool.Get(ctx)
	if err != nil {
		return nil, err
	}
	if conv == ConventionDirect {
		if err := in.checkVersion(ctx); err != nil {
			in.close()
			return nil, err
		}
	}
	descs, err := p.describe(ctx, in)
	if err != nil {
		in.close()
		return nil, err
	}
	p.pool.Put(in)
	p.descs = descs
	if err := p.pool.Prewarm(ctx); err != nil {
		return nil, fmt.Errorf("pre-warm %d instances: %w", limits.MaxInstances, err)
	}
	return p, nil
}

// checkImports refuses every import the host does not provide, listing all
// of them at once so that one rebuild fixes them. bin is the module as the
// plugin's author built it; compiled may be its rewrite, which imports the
// deadline module when instrumented is set.
func checkImports(rt wazero.Runtime, compiled wazero.CompiledModule, bin []byte, instrumented bool) error {
	var bad []string
	for _, f := range compiled.ImportedFunctions() {
		mod, name, _ := f.Import()
		switch {
		case mod == deadline.ImportModule && instrumented:
			continue // added by the rewrite, which refuses a module that imports it itself
		case mod == abi.ExtismModule, mod == abi.HostModule, mod == abi.WASIModule:
		default:
			bad = append(bad, mod+"."+name)
			continue
		}
		def, ok := rt.Module(mod).ExportedFunctionDefinitions()[name]
		switch {
		case !ok:
			bad = append(bad, mod+"."+name+" (no such function)")
		case !slices.Equal(def.ParamTypes(), f.ParamTypes()) || !slices.Equal(def.ResultTypes(), f.ResultTypes()):
			bad = append(bad, fmt.Sprintf("%s.%s (imported as %s, provided as %s)",
				mod, name, signature(f), signature(def)))
		}
	}
	// wazero lists imported functions and memories, not tables and globals:
	// read those from the binary (it compiled, so it parses).
	imports, err := wasmbin.Imports(bin)
	if err != nil {
		return fmt.Errorf("%w: import section: %w", ErrNotWasm, err)
	}
	for _, im := range imports {
		if im.Kind != wasmbin.KindFunc {
			bad = append(bad, fmt.Sprintf("%s.%s (%s: a plugin must define its own)", im.Module, im.Name, wasmbin.KindName(im.Kind)))
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("module has imports the host does not provide: %s; a plugin may import only %s, %s and %s (see abi/README.md)",
			strings.Join(bad, ", "), abi.ExtismModule, abi.HostModule, abi.WASIModule)
	}
	return nil
}

func signature(f api.FunctionDefinition) string {
	names := func(ts []api.ValueType) string {
		s := make([]string, len(ts))
		for i, t := range ts {
			s[i] = api.ValueTypeName(t)
		}
		return strings.Join(s, ",")
	}
	return "(" + names(f.ParamTypes()) + ")->(" + names(f.ResultTypes()) + ")"
}

// detectConvention picks the convention from the exports, checking that the
// chosen one is complete and well-typed.
func detectConvention(compiled wazero.CompiledModule) (Convention, error) {
	exports := compiled.ExportedFunctions()
	want := func(name string, params, results []api.ValueType) string {
		f, ok := exports[name]
		if !ok {
			return name + " is missing"
		}
		if !slices.Equal(f.ParamTypes(), params) || !slices.Equal(f.ResultTypes(), results) {
			return fmt.Sprintf("%s has signature %s", name, signature(f))
		}
		return ""
	}
	i32, i64 := api.ValueTypeI32, api.ValueTypeI64
	var problems []string
	add := func(s string) {
		if s != "" {
			problems = append(problems, s)
		}
	}
	if _, ok := exports[abi.ExportVersion]; ok {
		add(want(abi.ExportVersion, nil, []api.ValueType{i32}))
		add(want(abi.ExportAlloc, []api.ValueType{i32}, []api.ValueType{i32}))
		add(want(abi.ExportDescribe, nil, []api.ValueType{i64}))
		add(want(abi.ExportInvoke, []api.ValueType{i32, i32}, []api.ValueType{i64}))
		if _, ok := compiled.ExportedMemories()[abi.ExportMemory]; !ok {
			problems = append(problems, `memory "memory" is not exported`)
		}
		if len(problems) > 0 {
			return "", fmt.Errorf("module exports %s but does not follow the direct ABI: %s (see abi/README.md section 4)",
				abi.ExportVersion, strings.Join(problems, "; "))
		}
		return ConventionDirect, nil
	}
	_, hasDescribe := exports[abi.ExtismDescribe]
	_, hasInvoke := exports[abi.ExtismInvoke]
	if hasDescribe || hasInvoke {
		add(want(abi.ExtismDescribe, nil, []api.ValueType{i32}))
		add(want(abi.ExtismInvoke, nil, []api.ValueType{i32}))
		if len(problems) > 0 {
			return "", fmt.Errorf("module does not follow the Extism convention: %s; both must be () -> i32 (see abi/README.md section 5)",
				strings.Join(problems, "; "))
		}
		return ConventionExtism, nil
	}
	return "", errors.New("module exports neither the direct ABI (airlock_abi_version, airlock_alloc, airlock_describe, airlock_invoke) " +
		"nor the Extism convention (describe, invoke); export one of them (see abi/README.md)")
}

// startFunctions is what runs once per instance before any call: a reactor's
// _initialize, else a command's _start (whose instance must survive it).
func startFunctions(compiled wazero.CompiledModule) []string {
	exports := compiled.ExportedFunctions()
	if _, ok := exports["_initialize"]; ok {
		return []string{"_initialize"}
	}
	if _, ok := exports["_start"]; ok {
		return []string{"_start"}
	}
	return nil
}

// parseDescriptors decodes describe's output, expands "both" hooks and
// validates every descriptor, naming the bad one and its field.
func parseDescriptors(out []byte) ([]spec.Interceptor, error) {
	var list spec.ListResult
	dec := json.NewDecoder(bytes.NewReader(out))
	if err := dec.Decode(&list); err != nil {
		return nil, fmt.Errorf(`describe output is not an interceptors/list result ({"interceptors":[...]}): %w`, err)
	}
	if list.Interceptors == nil {
		return nil, errors.New(`describe output has no "interceptors" array`)
	}
	if len(list.Interceptors) == 0 {
		return nil, errors.New("describe lists no interceptors")
	}
	seen := make(map[string]bool, len(list.Interceptors))
	descs := make([]spec.Interceptor, len(list.Interceptors))
	for i, d := range list.Interceptors {
		d = d.ExpandBoth()
		if err := d.Validate(); err != nil {
			label := fmt.Sprintf("interceptors[%d]", i)
			if d.Name != "" {
				label = fmt.Sprintf("interceptor %q", d.Name)
			}
			return nil, fmt.Errorf("describe: %s: %w", label, err)
		}
		if seen[d.Name] {
			return nil, fmt.Errorf("describe: interceptor %q is listed twice; names must be unique", d.Name)
		}
		seen[d.Name] = true
		descs[i] = d
	}
	return descs, nil
}

func cloneMap(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
