package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/airlock-mcp/airlock/spec"
)

func chainCommand() *cli.Command {
	return &cli.Command{
		Name:  "chain",
		Usage: "run every selected interceptor on one message, in chain order, and print the chain result",
		Description: "Exit status: 0 when the chain succeeded, 1 when it blocked (validation_failed,\n" +
			"mutation_failed or timeout), 2 on usage or load errors.",
		Flags: append(sourceFlags(),
			&cli.StringFlag{Name: "event", Aliases: []string{"e"}, Required: true, Usage: "the `EVENT`, e.g. tools/call"},
			&cli.StringFlag{Name: "phase", Required: true, Usage: "`PHASE`: request or response"},
			&cli.StringFlag{Name: "payload", Required: true, Usage: "the payload: `JSON` text, @FILE, or - for stdin"},
			&cli.StringFlag{Name: "direction", Usage: "`DIR`: sending or receiving (default: a gateway's — request is sending, response is receiving)"},
			&cli.Int64Flag{Name: "timeout-ms", Usage: "bound the whole chain to `N` milliseconds"},
		),
		Action: func(c *cli.Context) error {
			phase, err := parsePhase(c.String("phase"))
			if err != nil {
				return err
			}
			p := &spec.ChainParams{Event: c.String("event"), Phase: phase, TimeoutMs: c.Int64("timeout-ms"),
				Direction: spec.GatewayDirection(phase)}
			if d := c.String("direction"); d != "" {
				p.Direction = spec.Direction(d)
				if !p.Direction.Valid() {
					return fmt.Errorf("--direction %q: use sending or receiving", d)
				}
			}
			if p.Payload, err = readJSON("payload", c.String("payload"), c.App.Reader); err != nil {
				return err
			}
			s, err := open(c.Context, c, nil)
			if err != nil {
				return err
			}
			defer s.Close()
			res, err := s.chain().Run(c.Context, p)
			if err != nil {
				return err
			}
			if err := printJSON(c, res); err != nil {
				return err
			}
			if res.Blocked() {
				return cli.Exit("", exitBlocked)
			}
			return nil
		},
	}
}
