package main

import (
	"encoding/json"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/airlock-mcp/airlock/host/server"
	"github.com/airlock-mcp/airlock/spec"
)

func invokeCommand() *cli.Command {
	return &cli.Command{
		Name:  "invoke",
		Usage: "invoke one interceptor once and print its result (or its JSON-RPC error)",
		Flags: append(sourceFlagsWithout(),
			&cli.StringFlag{Name: "config-file", Usage: configFileUsage},
			&cli.StringFlag{Name: "name", Aliases: []string{"n"}, Required: true, Usage: "the interceptor `NAME`"},
			&cli.StringFlag{Name: "event", Aliases: []string{"e"}, Required: true, Usage: "the `EVENT`, e.g. tools/call"},
			&cli.StringFlag{Name: "phase", Required: true, Usage: "`PHASE`: request or response"},
			&cli.StringFlag{Name: "payload", Required: true, Usage: "the payload: `JSON` text, @FILE, or - for stdin"},
			&cli.StringFlag{Name: "config", Usage: "per-call config: `JSON` text, @FILE, or -"},
			&cli.Int64Flag{Name: "timeout-ms", Usage: "bound the invocation to `N` milliseconds"},
		),
		Action: func(c *cli.Context) error {
			phase, err := parsePhase(c.String("phase"))
			if err != nil {
				return err
			}
			p := spec.InvokeParams{Name: c.String("name"), Event: c.String("event"), Phase: phase, TimeoutMs: c.Int64("timeout-ms")}
			if p.Payload, err = readJSON("payload", c.String("payload"), c.App.Reader); err != nil {
				return err
			}
			if c.IsSet("config") {
				if p.Config, err = readJSON("config", c.String("config"), c.App.Reader); err != nil {
					return err
				}
			}
			s, err := open(c.Context, c, server.Check)
			if err != nil {
				return err
			}
			defer s.Close()
			// The same code path as interceptor/invoke over a transport, so the
			// CLI gives exactly the protocol's answers and errors.
			srv, err := server.New(s.loader.Live(), server.Options{Logger: s.logger})
			if err != nil {
				return err
			}
			raw, _ := json.Marshal(p)
			res, rpcErr := srv.Invoke(c.Context, raw)
			if rpcErr != nil {
				if rpcErr.Code == spec.CodeInvalidParams {
					return fmt.Errorf("%s", rpcErr.Message)
				}
				if err := printJSON(c, map[string]any{"error": rpcErr}); err != nil {
					return err
				}
				return cli.Exit("", exitBlocked)
			}
			return printJSON(c, res)
		},
	}
}

func printJSON(c *cli.Context, v any) error {
	enc := json.NewEncoder(c.App.Writer)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
