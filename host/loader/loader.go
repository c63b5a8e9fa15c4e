package loader

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/airlock-mcp/airlock/host/chain"
	"github.com/airlock-mcp/airlock/host/config"
	"github.com/airlock-mcp/airlock/host/remote"
	"github.com/airlock-mcp/airlock/host/wasm"
)

// Options configure a Loader.
type Options struct {
	// Engine compiles plugins; required when the config names plugins.
	Engine *wasm.Engine
	// Logger receives reload reports; nil discards them.
	Logger *slog.Logger
	// Stderr receives the log of remote hosts started as commands.
	Stderr io.Writer
	// Check may veto a new chain before it is swapped in (for example
	// server.Check, which needs unique names).
	Check func(*chain.Chain) error
	// Observer is given to every chain built (metrics).
	Observer chain.Observer
	// Sources are in-process sources (host/native, say) added after the
	// config's plugins and remote hosts. The loader neither reloads nor
	// closes them.
	Sources []chain.Source
}

// Loader owns the sources of one configuration and the chain over them.
type Loader struct {
	opts Options
	live *chain.Live

	mu  sync.Mutex // serialises Reload and Close
	cur *state
}

// state is one generation of loaded sources.
type state struct {
	plugins []*loadedPlugin // in config order
	remotes []*loadedRemote
	paths   []string // plugin files, for watching
}

type loadedPlugin struct {
	key    string // what the file and its options were; equal keys are reused
	name   string
	plugin *wasm.Plugin
}

type loadedRemote struct {
	key  string
	host *remote.Host
}

// Open loads every source cfg names and builds their chain. Nothing is kept
// on error.
func Open(ctx context.Context, cfg *config.File, opts Options) (*Loader, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	l := &Loader{opts: opts}
	st, c, err := l.build(ctx, cfg, &state{})
	if err != nil {
		return nil, err
	}
	l.cur = st
	l.live = chain.NewLive(c)
	return l, nil
}

// Live is the chain provider to serve from.
func (l *Loader) Live() *chain.Live { return l.live }

// Paths returns the plugin files of the current set (for a file watcher).
func (l *Loader) Paths() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.cur.paths...)
}

// Plugins returns the current plugins by name, for inspection and metrics.
func (l *Loader) Plugins() map[string]*wasm.Plugin {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := map[string]*wasm.Plugin{}
	if l.cur != nil {
		for _, p := range l.cur.plugins {
			out[p.name] = p.plugin
		}
	}
	return out
}

// Reload builds the sources of cfg, reusing every plugin whose file and
// options are unchanged and every remote host named the same way, and swaps
// their chain in. On error nothing changes: the last good set keeps serving.
func (l *Loader) Reload(ctx context.Context, cfg *config.File) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cur == nil {
		return errors.New("loader: closed")
	}
	next, c, err := l.build(ctx, cfg, l.cur)
	if err != nil {
		return err
	}
	old := l.cur
	l.cur = next
	kept := map[any]bool{}
	for _, p := range next.plugins {
		kept[p.plugin] = true
	}
	for _, r := range next.remotes {
		kept[r.host] = true
	}
	l.live.Swap(c, func() { old.close(kept) })
	l.opts.Logger.Info("interceptors reloaded", "plugins", len(next.plugins), "remotes", len(next.remotes),
		"interceptors", len(c.Interceptors()))
	return nil
}

// Close retires the current set; its sources close once the calls that use
// them have finished. Close waits for that.
func (l *Loader) Close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cur == nil {
		return
	}
	st := l.cur
	l.cur = nil
	<-l.live.Close(func() { st.close(nil) })
}

// close closes every source of s that is not in keep.
func (s *state) close(keep map[any]bool) {
	for _, p := range s.plugins {
		if !keep[p.plugin] {
			_ = p.plugin.Close(context.Background())
		}
	}
	for _, r := range s.remotes {
		if !keep[r.host] {
			_ = r.host.Close()
		}
	}
}

// build loads what cfg names, reusing what prev already has, and builds the
// chain. On error it closes what it loaded anew and leaves prev alone.
func (l *Loader) build(ctx context.Context, cfg *config.File, prev *state) (_ *state, _ *chain.Chain, err error) {
	next := &state{}
	var fresh []func()
	defer func() {
		if err != nil {
			for _, f := range fresh {
				f()
			}
		}
	}()
	var sources []chain.Source
	for i, pc := range cfg.Plugins {
		lp, reused, err := l.plugin(ctx, pc, prev)
		if err != nil {
			return nil, nil, fmt.Errorf("plugins[%d]: %w", i, err)
		}
		if !reused {
			fresh = append(fresh, func() { _ = lp.plugin.Close(context.Background()) })
		}
		next.plugins = append(next.plugins, lp)
		next.paths = append(next.paths, pc.Path)
		sources = append(sources, lp.plugin)
	}
	for i, rc := range cfg.Remotes {
		lr, reused, err := l.remote(ctx, rc, prev)
		if err != nil {
			return nil, nil, fmt.Errorf("remotes[%d]: %w", i, err)
		}
		if !reused {
			fresh = append(fresh, func() { _ = lr.host.Close() })
		}
		next.remotes = append(next.remotes, lr)
		sources = append(sources, lr.host)
	}
	sources = append(sources, l.opts.Sources...)
	if len(sources) == 0 {
		return nil, nil, errors.New("no interceptors: name a plugin (--plugin FILE) or a remote host (--remote COMMAND, --remote-url URL), or list them in the config file")
	}
	c, err := chain.New(ctx, sources, chain.Options{Interceptors: cfg.Interceptors.Enabled,
		Overrides: cfg.Interceptors.Overrides, Observer: l.opts.Observer})
	if err != nil {
		return nil, nil, err
	}
	if l.opts.Check != nil {
		if err := l.opts.Check(c); err != nil {
			return nil, nil, err
		}
	}
	return next, c, nil
}

// plugin loads one plugin, or reuses prev's when the file and the options
// are the same.
func (l *Loader) plugin(ctx context.Context, pc config.Plugin, prev *state) (*loadedPlugin, bool, error) {
	name := pc.Name
	if name == "" {
		name = baseName(pc.Path)
	}
	bin, err := os.ReadFile(pc.Path)
	if err != nil {
		return nil, false, fmt.Errorf("plugin %s: %w", name, err)
	}
	sum := sha256.Sum256(bin)
	hexSum := hex.EncodeToString(sum[:])
	if pc.SHA256 != "" && !strings.EqualFold(pc.SHA256, hexSum) {
		return nil, false, fmt.Errorf("plugin %s: %s has sha256 %s, but the config pins %s: refusing it", name, pc.Path, hexSum, strings.ToLower(pc.SHA256))
	}
	opts, err := json.Marshal(pc)
	if err != nil {
		return nil, false, err
	}
	key := hexSum + "|" + string(opts)
	for _, p := range prev.plugins {
		if p.key == key {
			return p, true, nil
		}
	}
	if l.opts.Engine == nil {
		return nil, false, fmt.Errorf("plugin %s: no wasm engine to load it with", name)
	}
	wopts, err := wasmOptions(name, pc, l.opts.Logger)
	if err != nil {
		return nil, false, fmt.Errorf("plugin %s: %w", name, err)
	}
	start := time.Now()
	p, err := l.opts.Engine.Load(ctx, bin, wopts)
	if err != nil {
		return nil, false, err
	}
	// Loading from the compilation cache is quick and not worth a line; a
	// cold compile is a wait the user should be told about.
	level := slog.LevelDebug
	if took := time.Since(start); took > 300*time.Millisecond {
		level = slog.LevelInfo
	}
	l.opts.Logger.Log(ctx, level, "plugin loaded", "plugin", name, "sha256", hexSum[:12], "took", time.Since(start).Round(time.Millisecond))
	return &loadedPlugin{key: key, name: name, plugin: p}, false, nil
}

func wasmOptions(name string, pc config.Plugin, logger *slog.Logger) (wasm.Options, error) {
	lim := wasm.Limits{
		MemoryPages:    uint32(pc.Limits.Memory / (64 << 10)),
		Timeout:        time.Duration(pc.Limits.Timeout),
		MaxOutputBytes: int(pc.Limits.MaxOutput),
		MaxVarBytes:    int(pc.Limits.MaxVars),
		MaxInstances:   pc.Limits.Instances,
	}
	switch pc.Limits.Deadlines {
	case "", "interrupt":
		lim.Deadlines = wasm.DeadlineInterrupt
	case "at-host-calls":
		lim.Deadlines = wasm.DeadlineAtHostCalls
	case "close-on-context-done":
		lim.Deadlines = wasm.DeadlineCloseOnContextDone
	default:
		return wasm.Options{}, fmt.Errorf("limits.deadlines %q: use interrupt, at-host-calls or close-on-context-done", pc.Limits.Deadlines)
	}
	return wasm.Options{Name: name, Config: pc.Config, AllowedHosts: pc.AllowedHosts, Limits: lim, Logger: logger}, nil
}

func (l *Loader) remote(ctx context.Context, rc config.Remote, prev *state) (*loadedRemote, bool, error) {
	k, _ := json.Marshal(rc)
	key := string(k)
	for _, r := range prev.remotes {
		if r.key == key {
			return r, true, nil
		}
	}
	var h *remote.Host
	var err error
	if rc.URL != "" {
		h, err = remote.Dial(ctx, rc.Label(), remote.URL(rc.URL))
	} else {
		if len(rc.Command) == 0 {
			return nil, false, errors.New("a remote needs a command or a url")
		}
		t := remote.Command(rc.Command[0], rc.Command[1:]...)
		t.Command.Stderr = l.opts.Stderr
		h, err = remote.Dial(ctx, rc.Label(), t)
	}
	if err != nil {
		return nil, false, err
	}
	return &loadedRemote{key: key, host: h}, false, nil
}

func baseName(path string) string {
	if i := strings.LastIndexAny(path, `/\`); i >= 0 {
		return path[i+1:]
	}
	return path
}
