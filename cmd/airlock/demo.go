package main

import (
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/airlock-mcp/airlock/internal/demo"
)

func demoCommand() *cli.Command {
	return &cli.Command{
		Name:  "demo",
		Usage: "put the gateway and bundled interceptors in front of an embedded MCP server and play a short session",
		Description: "Builds the secrets, pii-redact and audit-log plugins (once; later runs reuse them),\n" +
			"starts an embedded customer-support MCP server, puts the gateway in front of it, and\n" +
			"shows a clean call, a call blocked for a secret, a redacted result, the audit trail and\n" +
			"the per-call overhead. Run it from a clone of the Airlock repository.",
		Flags: append(globalFlags(),
			&cli.BoolFlag{Name: "keep", Usage: "leave the gateway serving streamable HTTP afterwards, for your own MCP client"},
			&cli.StringFlag{Name: "http", Value: "127.0.0.1:8080", Usage: "with --keep, listen on `ADDR`"},
			&cli.IntFlag{Name: "calls", Value: 300, Usage: "calls each way when measuring the overhead"},
		),
		Action: func(c *cli.Context) error {
			ctx, stop := signal.NotifyContext(c.Context, syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			cache := c.String("cache-dir")
			if cache == "" {
				base, err := os.UserCacheDir()
				if err != nil {
					base = os.TempDir()
				}
				cache = filepath.Join(base, "airlock")
			}
			o := demo.Options{Out: c.App.Writer, Progress: c.App.ErrWriter, CacheDir: filepath.Join(cache, "demo"), Calls: c.Int("calls")}
			if c.Bool("keep") {
				o.Keep = c.String("http")
			}
			return demo.Run(ctx, o)
		},
	}
}
