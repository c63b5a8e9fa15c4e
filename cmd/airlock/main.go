// Command airlock runs MCP interceptors as sandboxed WebAssembly plugins.
package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime/debug"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/airlock-mcp/airlock/host/config"
	"github.com/airlock-mcp/airlock/spec"
)

func main() {
	app := newApp(os.Stdin, os.Stdout, os.Stderr)
	if err := app.Run(os.Args); err != nil {
		code := exitCode(err)
		switch msg := err.Error(); {
		case msg == "":
		case isConfigError(err):
			// One line per problem: each names file:line:column and field.
			for _, line := range strings.Split(msg, "\n") {
				fmt.Fprintln(os.Stderr, "airlock:", line)
			}
		default:
			fmt.Fprintln(os.Stderr, "airlock:", oneLine(msg))
		}
		os.Exit(code)
	}
}

func newApp(stdin io.Reader, stdout, stderr io.Writer) *cli.App {
	return &cli.App{
		Name:  "airlock",
		Usage: "run MCP interceptors (SEP-2624) as sandboxed WebAssembly plugins",
		Description: "Airlock loads interceptors — validators, mutators and sinks for MCP messages — from\n" +
			"WebAssembly modules, runs them with no file system, no network, bounded memory and\n" +
			"bounded time, and chains them in front of any MCP server.",
		Reader:    stdin,
		Writer:    stdout,
		ErrWriter: stderr,
		// --remote takes whole command lines, which may contain commas.
		DisableSliceFlagSeparator: true,
		// Exit codes are main's business, so that tests can run the app.
		ExitErrHandler: func(*cli.Context, error) {},
		Flags:          globalFlags(),
		Action: func(c *cli.Context) error {
			if c.Args().Present() {
				return fmt.Errorf("unknown command %q (see airlock --help)", c.Args().First())
			}
			return cli.ShowAppHelp(c)
		},
		Commands: []*cli.Command{
			demoCommand(),
			serveCommand(),
			gatewayCommand(),
			listCommand(),
			invokeCommand(),
			chainCommand(),
			configCommand(),
			pluginCommand(),
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

// globalFlags are accepted before the command and after it.
func globalFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "log-level", Value: "info", Usage: "log `LEVEL`: debug, info, warn or error (logs go to stderr)"},
		&cli.StringFlag{Name: "log-format", Value: "text", Usage: "log `FORMAT`: text or json"},
		&cli.StringFlag{Name: "cache-dir", EnvVars: []string{"AIRLOCK_CACHE_DIR"}, Usage: "keep compiled plugins in `DIR` (default: the user cache directory)"},
	}
}

// newLogger builds the structured logger. Logs go to stderr: stdout belongs
// to results (and, for serve, to the protocol).
func newLogger(w io.Writer, lc config.Logging) (*slog.Logger, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(lc.Level)); err != nil {
		return nil, fmt.Errorf("log level %q: use debug, info, warn or error", lc.Level)
	}
	opts := &slog.HandlerOptions{Level: level}
	switch lc.Format {
	case "text", "":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("log format %q: use text or json", lc.Format)
}

// version is the module version when installed with go install, else "devel".
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

// Exit codes: 0 success, 1 a verdict (a blocked chain, a failed
// invocation), 2 usage and load errors.
const (
	exitBlocked = 1
	exitUsage   = 2
)

// exitCode is 2 for usage and load errors; commands that report a verdict
// return a cli.ExitCoder with their own code.
func exitCode(err error) int {
	var ec cli.ExitCoder
	if errors.As(err, &ec) {
		return ec.ExitCode()
	}
	return exitUsage
}

// oneLine keeps an error to the single line a person reads first.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		rest := strings.TrimSpace(s[i+1:])
		s = s[:i]
		if rest != "" {
			s += " (" + strings.Join(strings.Fields(rest), " ") + ")"
		}
	}
	return s
}
