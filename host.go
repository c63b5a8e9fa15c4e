package airlock

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/airlock-mcp/airlock/host/chain"
	"github.com/airlock-mcp/airlock/host/config"
	"github.com/airlock-mcp/airlock/host/loader"
	"github.com/airlock-mcp/airlock/host/wasm"
	"github.com/airlock-mcp/airlock/spec"
)

// Plugin is a WebAssembly plugin to load: its file, optional sha256 pin,
// configuration and limits (see docs/configuration.md).
type Plugin = config.Plugin

// Remote is a remote interceptor host: a command spoken to over stdio, or a
// streamable HTTP URL.
type Remote = config.Remote

// Options say where a Host's interceptors come from and how they run. At
// least one source is required.
type Options struct {
	Plugins []Plugin
	Remotes []Remote
	// Sources are in-process interceptor sources, such as host/native.
	Sources []chain.Source
	// Interceptors, when set, are the only interceptors that run.
	Interceptors []string
	// Overrides change how the named interceptors run (mode, failOpen,
	// priorityHint, timeoutMs, narrowed hooks, per-call config).
	Overrides map[string]spec.Override
	// CacheDir keeps compiled plugins across restarts. Default: the user
	// cache directory's "airlock".
	CacheDir string
	// Logger receives the plugins' logs and the host's reports. Nil
	// discards them.
	Logger *slog.Logger
}

// Host is a running set of interceptors. It is safe for concurrent use.
type Host struct {
	loader *loader.Loader
	engine *wasm.Engine
	logger *slog.Logger
}

// New loads every plugin, connects every remote host, and builds their
// chain. Nothing is left running on error.
func New(ctx context.Context, o Options) (*Host, error) {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	h := &Host{logger: o.Logger}
	if len(o.Plugins) > 0 {
		dir := o.CacheDir
		if dir == "" {
			base, err := os.UserCacheDir()
			if err != nil {
				return nil, errors.New("airlock: no user cache directory: set Options.CacheDir")
			}
			dir = filepath.Join(base, "airlock")
		}
		eng, err := wasm.NewEngine(wasm.EngineOptions{CacheDir: filepath.Join(dir, "wasm"), Logger: o.Logger})
		if err != nil {
			return nil, err
		}
		h.engine = eng
	}
	cfg := &config.File{Plugins: o.Plugins, Remotes: o.Remotes,
		Interceptors: config.Interceptors{Enabled: o.Interceptors, Overrides: o.Overrides}}
	l, err := loader.Open(ctx, cfg, loader.Options{Engine: h.engine, Logger: o.Logger, Sources: o.Sources})
	if err != nil {
		h.closeEngine()
		return nil, err
	}
	h.loader = l
	return h, nil
}

// Close stops every plugin and remote host, once the calls using them have
// finished.
func (h *Host) Close() error {
	h.loader.Close()
	h.closeEngine()
	return nil
}

func (h *Host) closeEngine() {
	if h.engine != nil {
		_ = h.engine.Close(context.Background())
	}
}

// Interceptors returns the interceptors the host runs, with the overrides
// applied, in source order.
func (h *Host) Interceptors() []spec.Interceptor {
	is := h.loader.Live().Current().Interceptors()
	out := make([]spec.Interceptor, len(is))
	for i, it := range is {
		out[i] = it.Descriptor
	}
	return out
}

// Chains is the chain provider, for host/gateway and host/server.
func (h *Host) Chains() chain.Provider { return h.loader.Live() }

// Run runs the chain for one message. A principal set with WithPrincipal on
// ctx is passed to the interceptors when p has no context of its own.
func (h *Host) Run(ctx context.Context, p *spec.ChainParams) (*spec.ChainResult, error) {
	if p.Context == nil {
		if pr := principalFrom(ctx); pr != nil {
			q := *p
			q.Context = &spec.Context{Principal: pr}
			p = &q
		}
	}
	c, release := h.loader.Live().Acquire()
	defer release()
	return c.Run(ctx, p)
}

type principalKey struct{}

// WithPrincipal returns a context that names the caller of the calls made
// with it: interceptors see it as context.principal.
func WithPrincipal(ctx context.Context, p *spec.Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

func principalFrom(ctx context.Context) *spec.Principal {
	p, _ := ctx.Value(principalKey{}).(*spec.Principal)
	return p
}
