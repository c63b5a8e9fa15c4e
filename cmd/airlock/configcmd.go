package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/airlock-mcp/airlock/host/config"
)

func configCommand() *cli.Command {
	return &cli.Command{
		Name:  "config",
		Usage: "work with airlock.yaml",
		Subcommands: []*cli.Command{
			{
				Name:      "check",
				Usage:     "validate a config file against the schema, without loading anything",
				ArgsUsage: "FILE",
				Action: func(c *cli.Context) error {
					if c.NArg() != 1 {
						return fmt.Errorf("config check takes one FILE")
					}
					f, err := config.Load(c.Args().First())
					if err != nil {
						return err
					}
					fmt.Fprintf(c.App.Writer, "%s: ok (%d plugins, %d remote hosts, %d overrides)\n",
						c.Args().First(), len(f.Plugins), len(f.Remotes), len(f.Interceptors.Overrides))
					return nil
				},
			},
			{
				Name:  "schema",
				Usage: "print the JSON Schema of airlock.yaml",
				Action: func(c *cli.Context) error {
					_, err := c.App.Writer.Write(config.Schema)
					return err
				},
			},
		},
	}
}
