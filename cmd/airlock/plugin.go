package main

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/airlock-mcp/airlock/internal/pluginbuild"
	"github.com/airlock-mcp/airlock/spec"
)

// pluginCommand is `airlock plugin ...`: tools for plugin authors.
func pluginCommand() *cli.Command {
	return &cli.Command{
		Name:  "plugin",
		Usage: "build and inspect interceptor plugins",
		Subcommands: []*cli.Command{{
			Name:      "build",
			Usage:     "build a Go plugin (a main package using github.com/airlock-mcp/airlock/pdk) into a .wasm module",
			ArgsUsage: "DIR",
			Description: "Runs GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared in DIR, then reports the\n" +
				"module's size, exports, calling convention and the interceptors it describes.",
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "o", Aliases: []string{"output"}, Usage: "write the module to `FILE` (default: DIR's name + .wasm)"},
				&cli.BoolFlag{Name: "no-load", Usage: "do not load the module to list its interceptors"},
			},
			Action: func(c *cli.Context) error {
				// The usage puts flags after DIR, which the flag parser
				// leaves in the arguments: read them here.
				dir, out, noLoad := "", c.String("o"), c.Bool("no-load")
				args := c.Args().Slice()
				for i := 0; i < len(args); i++ {
					switch a := args[i]; {
					case a == "-o" || a == "--o" || a == "--output" || a == "-output":
						if i+1 == len(args) {
							return fmt.Errorf("%s needs a file name", a)
						}
						out = args[i+1]
						i++
					case strings.HasPrefix(a, "-o=") || strings.HasPrefix(a, "--output="):
						out = a[strings.IndexByte(a, '=')+1:]
					case a == "--no-load" || a == "-no-load":
						noLoad = true
					case dir == "" && !strings.HasPrefix(a, "-"):
						dir = a
					default:
						return fmt.Errorf("unexpected argument %q (airlock plugin build DIR -o FILE.wasm)", a)
					}
				}
				if dir == "" {
					return fmt.Errorf("plugin build takes one directory (airlock plugin build DIR -o FILE.wasm)")
				}
				res, err := pluginbuild.Build(c.Context, pluginbuild.Options{
					Dir: dir, Out: out, Progress: c.App.ErrWriter, NoLoad: noLoad,
				})
				if err != nil {
					return err
				}
				w := c.App.Writer
				fmt.Fprintf(w, "wrote %s (%s) in %s\n", relPath(res.Out), sizeText(res.Size), res.Duration.Round(10e6))
				abi := res.Convention
				if abi == "" {
					abi = "none (exports neither the direct ABI nor the Extism convention: the host will refuse it)"
				}
				fmt.Fprintf(w, "abi:          %s\n", abi)
				fmt.Fprintf(w, "exports:      %s\n", strings.Join(res.Exports, ", "))
				fmt.Fprintf(w, "imports:      %s\n", importsText(res.Imports))
				for i, d := range res.Interceptors {
					label := "interceptors:"
					if i > 0 {
						label = ""
					}
					fmt.Fprintf(w, "%-13s %s (%s) %s\n", label, d.Name, d.Type, hooksText(d.Hooks))
				}
				return nil
			},
		}, inspectCommand()},
	}
}

// inspectCommand is `airlock plugin inspect FILE`.
func inspectCommand() *cli.Command {
	return &cli.Command{
		Name:      "inspect",
		Usage:     "show a .wasm plugin's ABI, imports, exports, interceptors, size and sha256",
		ArgsUsage: "FILE",
		Flags:     []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print JSON"}},
		Action: func(c *cli.Context) error {
			// Flags may follow FILE, where the flag parser leaves them.
			asJSON, path := c.Bool("json"), ""
			for _, a := range c.Args().Slice() {
				switch {
				case a == "--json" || a == "-json":
					asJSON = true
				case path == "" && !strings.HasPrefix(a, "-"):
					path = a
				default:
					return fmt.Errorf("unexpected argument %q (airlock plugin inspect FILE [--json])", a)
				}
			}
			if path == "" {
				return fmt.Errorf("plugin inspect takes one FILE")
			}
			bin, err := os.ReadFile(path)
			if err != nil {
				return fmt.Errorf("plugin %s: %w", path, unwrapPathError(err))
			}
			m, err := pluginbuild.Inspect(bin)
			if err != nil {
				return fmt.Errorf("plugin %s: %w", path, err)
			}
			sum := sha256.Sum256(bin)
			info := struct {
				File         string             `json:"file"`
				Size         int                `json:"size"`
				SHA256       string             `json:"sha256"`
				ABI          string             `json:"abi"`
				Exports      []string           `json:"exports"`
				Imports      []string           `json:"imports"`
				Interceptors []spec.Interceptor `json:"interceptors"`
			}{path, len(bin), hex.EncodeToString(sum[:]), m.Convention, m.Exports, m.Imports, nil}
			if info.Interceptors, err = pluginbuild.Describe(c.Context, bin, filepath.Base(path), c.String("cache-dir")); err != nil {
				return err
			}
			if asJSON {
				return printJSON(c, info)
			}
			w := c.App.Writer
			fmt.Fprintf(w, "file:         %s (%s)\nsha256:       %s\nabi:          %s\nexports:      %s\nimports:      %s\n",
				path, sizeText(int64(len(bin))), info.SHA256, info.ABI, strings.Join(m.Exports, ", "), importsText(m.Imports))
			for i, d := range info.Interceptors {
				label := "interceptors:"
				if i > 0 {
					label = ""
				}
				fmt.Fprintf(w, "%-13s %s (%s) %s\n", label, d.Name, d.Type, hooksText(d.Hooks))
			}
			return nil
		},
	}
}

func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func relPath(p string) string {
	if r, err := filepath.Rel(".", p); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return p
}

func sizeText(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// importsText groups "module.name" imports by module, without repeats:
// "wasi_snapshot_preview1 (14 functions); extism:host/env: alloc, config_get".
func importsText(imports []string) string {
	var mods []string
	names := map[string][]string{}
	for _, imp := range imports {
		i := strings.LastIndexByte(imp, '.')
		mod, name := imp[:i], imp[i+1:]
		if _, ok := names[mod]; !ok {
			mods = append(mods, mod)
		}
		if !slices.Contains(names[mod], name) {
			names[mod] = append(names[mod], name)
		}
	}
	parts := make([]string, 0, len(mods))
	for _, m := range mods {
		if m == "wasi_snapshot_preview1" {
			parts = append(parts, fmt.Sprintf("%s (%d functions)", m, len(names[m])))
			continue
		}
		parts = append(parts, m+": "+strings.Join(names[m], ", "))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, "; ")
}
