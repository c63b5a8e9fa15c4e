package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/airlock-mcp/airlock/host/chain"
	"github.com/airlock-mcp/airlock/host/config"
	"github.com/airlock-mcp/airlock/host/loader"
	"github.com/airlock-mcp/airlock/host/metrics"
	"github.com/airlock-mcp/airlock/host/wasm"
	"github.com/airlock-mcp/airlock/spec"
)

// configFileFlag names the config file flag. invoke calls it --config-file,
// since its --config is the per-call config of the protocol.
const configFileFlag = "config"

// sourceFlags name where interceptors come from; every command that runs
// interceptors takes them.
func sourceFlags() []cli.Flag {
	return append(sourceFlagsWithout(), &cli.StringFlag{Name: configFileFlag, Aliases: []string{"c"}, Usage: configFileUsage})
}

const configFileUsage = "read plugins, remote hosts and overrides from `FILE` (airlock.yaml); flags add to it"

// sourceFlagsWithout are the source flags but the config file's.
func sourceFlagsWithout() []cli.Flag {
	return append(globalFlags(),
		&cli.StringSliceFlag{Name: "plugin", Aliases: []string{"p"}, Usage: "load the WebAssembly plugin `FILE` (repeatable)"},
		&cli.StringSliceFlag{Name: "remote", Usage: "use the interceptor host started by `COMMAND` over stdio, e.g. \"airlock serve --plugin x.wasm\" (repeatable)"},
		&cli.StringSliceFlag{Name: "remote-url", Usage: "use the interceptor host at the streamable HTTP `URL` (repeatable)"},
		&cli.StringSliceFlag{Name: "interceptor", Aliases: []string{"i"}, Usage: "only run the interceptor `NAME` (repeatable; replaces the config's list)"},
	)
}

// watchFlag is for the long-running commands.
var watchFlag = &cli.BoolFlag{Name: "watch", Usage: "reload when the config file or a plugin file changes (SIGHUP always reloads)"}

// readConfig reads --config (if any) and adds what the flags name: plugins
// and remote hosts are added after the file's; --interceptor replaces the
// file's list; --log-* and --http override the file.
func readConfig(c *cli.Context) (*config.File, error) {
	cfg := &config.File{}
	if path := configPath(c); path != "" {
		f, err := config.Load(path)
		if err != nil {
			return nil, err
		}
		cfg = f
	}
	for _, p := range c.StringSlice("plugin") {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, err
		}
		cfg.Plugins = append(cfg.Plugins, config.Plugin{Path: abs})
	}
	for _, cmdline := range c.StringSlice("remote") {
		words, err := config.SplitCommand(cmdline)
		if err != nil {
			return nil, fmt.Errorf("--remote: %w", err)
		}
		cfg.Remotes = append(cfg.Remotes, config.Remote{Command: words, Name: cmdline})
	}
	for _, u := range c.StringSlice("remote-url") {
		cfg.Remotes = append(cfg.Remotes, config.Remote{URL: u})
	}
	if c.IsSet("interceptor") {
		cfg.Interceptors.Enabled = c.StringSlice("interceptor")
	}
	if c.IsSet("log-level") || cfg.Logging.Level == "" {
		cfg.Logging.Level = c.String("log-level")
	}
	if c.IsSet("log-format") || cfg.Logging.Format == "" {
		cfg.Logging.Format = c.String("log-format")
	}
	if c.IsSet("http") {
		cfg.Listen.HTTP = c.String("http")
	}
	return cfg, nil
}

// session is what a command runs with: the config, the logger, the loaded
// sources, and how to let them go.
type session struct {
	cfg     *config.File
	logger  *slog.Logger
	loader  *loader.Loader
	engine  *wasm.Engine
	metrics *metrics.Metrics
}

// open reads the config, makes the logger and loads every source. check may
// veto the chain (server.Check for commands that serve).
func open(ctx context.Context, c *cli.Context, check func(*chain.Chain) error) (*session, error) {
	cfg, err := readConfig(c)
	if err != nil {
		return nil, err
	}
	logger, err := newLogger(c.App.ErrWriter, cfg.Logging)
	if err != nil {
		return nil, err
	}
	s := &session{cfg: cfg, logger: logger}
	s.metrics = metrics.New(s.poolStats)
	if len(cfg.Plugins) > 0 {
		if s.engine, err = wasm.NewEngine(wasm.EngineOptions{CacheDir: c.String("cache-dir"), Logger: logger}); err != nil {
			return nil, err
		}
	}
	s.loader, err = loader.Open(ctx, cfg, loader.Options{Engine: s.engine, Logger: logger, Stderr: c.App.ErrWriter,
		Check: check, Observer: s.metrics})
	if err != nil {
		s.closeEngine()
		return nil, err
	}
	return s, nil
}

func (s *session) Close() {
	s.loader.Close()
	s.closeEngine()
}

func (s *session) closeEngine() {
	if s.engine != nil {
		_ = s.engine.Close(context.Background())
	}
}

// poolStats reads the instance pools of the current plugins, for /metrics.
func (s *session) poolStats() []metrics.PoolStat {
	if s.loader == nil {
		return nil
	}
	var out []metrics.PoolStat
	for name, p := range s.loader.Plugins() {
		st := p.Stats()
		out = append(out, metrics.PoolStat{Plugin: name, Size: st.Size, Idle: st.Idle, Created: st.Created, Discarded: st.Discarded})
	}
	return out
}

// chain returns the chain a one-shot command runs.
func (s *session) chain() *chain.Chain { return s.loader.Live().Current() }

// reloadOnChange keeps the sources current until ctx is done: with --watch
// it follows the files; SIGHUP always reloads.
func (s *session) reloadOnChange(ctx context.Context, c *cli.Context) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	trigger := make(chan struct{}, 1)
	go func() {
		defer signal.Stop(hup)
		for {
			select {
			case <-ctx.Done():
				return
			case <-hup:
				s.logger.Info("SIGHUP: reloading")
				select {
				case trigger <- struct{}{}:
				default:
				}
			}
		}
	}()
	load := func() (*config.File, error) { return readConfig(c) }
	if c.Bool("watch") {
		var files []string
		if p := configPath(c); p != "" {
			files = append(files, p)
		}
		go func() {
			_ = s.loader.Watch(ctx, loader.WatchOptions{Load: load, Files: files, Trigger: trigger, OnReload: s.metrics.Reload})
		}()
		return
	}
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-trigger:
				cfg, err := load()
				if err == nil {
					err = s.loader.Reload(ctx, cfg)
				}
				s.metrics.Reload(err)
				if err != nil {
					s.logger.Error("reload failed; the last good interceptors keep serving", "err", err)
				}
			}
		}
	}()
}

// configPath is the config file the command was given, if any.
func configPath(c *cli.Context) string {
	if c.Command.Name == "invoke" {
		return c.String("config-file")
	}
	return c.String(configFileFlag)
}

// readJSON reads a JSON value given as text, @FILE, or - (standard input).
func readJSON(flag, v string, stdin io.Reader) (json.RawMessage, error) {
	var b []byte
	var err error
	switch {
	case v == "-":
		b, err = io.ReadAll(stdin)
	case strings.HasPrefix(v, "@"):
		b, err = os.ReadFile(v[1:])
	default:
		b = []byte(v)
	}
	if err != nil {
		return nil, fmt.Errorf("--%s: %w", flag, err)
	}
	b = []byte(strings.TrimSpace(string(b)))
	if !json.Valid(b) {
		return nil, fmt.Errorf("--%s is not valid JSON (give JSON text, @FILE or - for standard input)", flag)
	}
	return b, nil
}

// parsePhase reads --phase.
func parsePhase(v string) (spec.Phase, error) {
	p := spec.Phase(v)
	if !p.Valid() {
		return "", fmt.Errorf("--phase %q: use request or response", v)
	}
	return p, nil
}

// isConfigError reports whether err lists config problems, which print one
// per line.
func isConfigError(err error) bool {
	var ce *config.Error
	return errors.As(err, &ce)
}
