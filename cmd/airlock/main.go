// Command airlock runs MCP interceptors as sandboxed WebAssembly plugins.
package main

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/urfave/cli/v2"

	"github.com/airlock-mcp/airlock/spec"
)

func main() {
	if err := newApp(os.Stdout, os.Stderr).Run(os.Args); err != nil {
		fmt.Fprintln(os.Stderr, "airlock:", err)
		os.Exit(exitCode(err))
	}
}

func newApp(stdout, stderr io.Writer) *cli.App {
	return &cli.App{
		Name:  "airlock",
		Usage: "run MCP interceptors (SEP-2624) as sandboxed WebAssembly plugins",
		Description: "Airlock loads interceptors — validators, mutators and sinks for MCP messages — from\n" +
			"WebAssembly modules, runs them with no file system, no network, bounded memory and\n" +
			"bounded time, and chains them in front of any MCP server.",
		Writer:    stdout,
		ErrWriter: stderr,
		Action: func(c *cli.Context) error {
			if c.Args().Present() {
				return fmt.Errorf("unknown command %q (see airlock --help)", c.Args().First())
			}
			return cli.ShowAppHelp(c)
		},
		Commands: []*cli.Command{
			{
				Name:  "version",
				Usage: "print the version and the protocol this build implements",
				Action: func(c *cli.Context) error {
					fmt.Fprintf(c.App.Writer, "airlock %s\ninterceptor extension %s\n", version(), spec.CapabilityKey)
					return nil
				},
			},
		},
	}
}

// version is the module version when installed with go install, else "devel".
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

// exitCode is 2 for usage and load errors; commands that report a verdict
// return a cli.ExitCoder with their own code.
func exitCode(err error) int {
	if ec, ok := err.(cli.ExitCoder); ok {
		return ec.ExitCode()
	}
	return 2
}
