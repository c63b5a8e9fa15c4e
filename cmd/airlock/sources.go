package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/airlock-mcp/airlock/host/chain"
	"github.com/airlock-mcp/airlock/host/remote"
	"github.com/airlock-mcp/airlock/host/wasm"
	"github.com/airlock-mcp/airlock/spec"
)

// sourceFlags name where interceptors come from; every command that runs
// interceptors takes them.
func sourceFlags() []cli.Flag {
	return append(globalFlags(),
		&cli.StringSliceFlag{Name: "plugin", Aliases: []string{"p"}, Usage: "load the WebAssembly plugin `FILE` (repeatable)"},
		&cli.StringSliceFlag{Name: "remote", Usage: "use the interceptor host started by `COMMAND` over stdio, e.g. \"airlock serve --plugin x.wasm\" (repeatable)"},
		&cli.StringSliceFlag{Name: "remote-url", Usage: "use the interceptor host at the streamable HTTP `URL` (repeatable)"},
		&cli.StringSliceFlag{Name: "interceptor", Aliases: []string{"i"}, Usage: "only run the interceptor `NAME` (repeatable; default: all)"},
	)
}

// loaded is the set of sources a command runs with, and how to let them go.
type loaded struct {
	chain   *chain.Chain
	closers []func()
}

func (l *loaded) Close() {
	for i := len(l.closers) - 1; i >= 0; i-- {
		l.closers[i]()
	}
}

// loadSources loads every plugin and connects every remote host named by the
// flags, then builds their chain. On error, everything loaded so far is
// released.
func loadSources(ctx context.Context, c *cli.Context, logger *slog.Logger) (_ *loaded, err error) {
	l := &loaded{}
	defer func() {
		if err != nil {
			l.Close()
		}
	}()
	var sources []chain.Source
	plugins := c.StringSlice("plugin")
	if len(plugins) > 0 {
		eng, err := wasm.NewEngine(wasm.EngineOptions{CacheDir: c.String("cache-dir"), Logger: logger})
		if err != nil {
			return nil, err
		}
		l.closers = append(l.closers, func() { _ = eng.Close(context.Background()) })
		for _, path := range plugins {
			if _, err := os.Stat(path); err != nil {
				return nil, fmt.Errorf("plugin %s: %w", path, unwrapPathError(err))
			}
			p, err := eng.LoadFile(ctx, path, wasm.Options{Logger: logger})
			if err != nil {
				return nil, err
			}
			l.closers = append(l.closers, func() { _ = p.Close(context.Background()) })
			sources = append(sources, p)
		}
	}
	for _, cmdline := range c.StringSlice("remote") {
		args, err := splitCommand(cmdline)
		if err != nil {
			return nil, fmt.Errorf("--remote %q: %w", cmdline, err)
		}
		t := remote.Command(args[0], args[1:]...)
		t.Command.Stderr = c.App.ErrWriter
		h, err := remote.Dial(ctx, cmdline, t)
		if err != nil {
			return nil, err
		}
		l.closers = append(l.closers, func() { _ = h.Close() })
		sources = append(sources, h)
	}
	for _, u := range c.StringSlice("remote-url") {
		h, err := remote.Dial(ctx, u, remote.URL(u))
		if err != nil {
			return nil, err
		}
		l.closers = append(l.closers, func() { _ = h.Close() })
		sources = append(sources, h)
	}
	if len(sources) == 0 {
		return nil, errors.New("no interceptors: name a plugin with --plugin FILE, or a host with --remote COMMAND or --remote-url URL")
	}
	l.chain, err = chain.New(ctx, sources, chain.Options{Interceptors: c.StringSlice("interceptor")})
	if err != nil {
		return nil, err
	}
	return l, nil
}

func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
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

// splitCommand splits a command line into words, honouring single and double
// quotes and backslash escapes the way a POSIX shell does for plain words.
func splitCommand(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	var quote rune
	escaped := false
	for _, r := range s {
		switch {
		case escaped:
			cur.WriteRune(r)
			escaped = false
		case r == '\\' && quote != '\'':
			escaped, inWord = true, true
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 || escaped {
		return nil, errors.New("unterminated quote or escape")
	}
	if inWord {
		words = append(words, cur.String())
	}
	if len(words) == 0 {
		return nil, errors.New("empty command")
	}
	return words, nil
}
