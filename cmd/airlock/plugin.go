package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/airlock-mcp/airlock/internal/pluginbuild"
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
		}},
	}
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
