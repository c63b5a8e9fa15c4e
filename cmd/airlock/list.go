package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/airlock-mcp/airlock/spec"
)

func listCommand() *cli.Command {
	return &cli.Command{
		Name:  "list",
		Usage: "list the interceptors of plugins and hosts",
		Flags: append(sourceFlags(),
			&cli.StringFlag{Name: "event", Usage: "only interceptors that hook `EVENT` (either phase)"},
			&cli.BoolFlag{Name: "json", Usage: "print the interceptors/list result as JSON"},
		),
		Action: func(c *cli.Context) error {
			s, err := open(c.Context, c, nil)
			if err != nil {
				return err
			}
			defer s.Close()
			res := spec.ListResult{}
			var origin []int
			for _, it := range s.chain().Interceptors() {
				if ev := c.String("event"); ev == "" || it.Descriptor.MatchesAnyPhase(ev) {
					res.Interceptors = append(res.Interceptors, it.Descriptor)
					origin = append(origin, it.SourceIndex)
				}
			}
			if c.Bool("json") {
				enc := json.NewEncoder(c.App.Writer)
				enc.SetIndent("", "  ")
				return enc.Encode(res)
			}
			w := tabwriter.NewWriter(c.App.Writer, 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "NAME\tTYPE\tHOOKS\tMODE\tFAIL\tPRIORITY\tSOURCE")
			for i, d := range res.Interceptors {
				mode := "active"
				if d.Mode.IsAudit() {
					mode = "audit"
				}
				fail := "closed"
				if d.FailOpen {
					fail = "open"
				}
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%d\n", d.Name, d.Type, hooksText(d.Hooks), mode, fail, priorityText(d.PriorityHint), origin[i])
			}
			return w.Flush()
		},
	}
}

func hooksText(hs []spec.Hook) string {
	parts := make([]string, len(hs))
	for i, h := range hs {
		parts[i] = string(h.Phase) + ":" + strings.Join(h.Events, ",")
	}
	return strings.Join(parts, " ")
}

func priorityText(h spec.PriorityHint) string {
	if h.IsZero() {
		return "0"
	}
	b, _ := json.Marshal(h)
	return string(b)
}
