package main

import (
	"bytes"
	"github.com/urfave/cli/v2"
	"strings"
	"testing"
)

func TestVersionAndHelp(t *testing.T) {
	var out, errb bytes.Buffer
	app := newApp(strings.NewReader(""), &out, &errb)
	if err := app.Run([]string{"airlock", "version"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "io.modelcontextprotocol/interceptors") {
		t.Fatalf("version output %q", out.String())
	}
	out.Reset()
	if err := app.Run([]string{"airlock", "--help"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "sandboxed WebAssembly") {
		t.Fatalf("help output %q", out.String())
	}
	if err := app.Run([]string{"airlock", "no-such-command"}); err == nil {
		t.Fatal("an unknown command must fail")
	}
}

// Every command's flags must build: a duplicate flag name panics only when
// the command runs.
func TestEveryCommandParses(t *testing.T) {
	var out, errb bytes.Buffer
	app := newApp(strings.NewReader(""), &out, &errb)
	var walk func(prefix []string, cmds []*cli.Command)
	walk = func(prefix []string, cmds []*cli.Command) {
		for _, c := range cmds {
			args := append(append([]string{}, prefix...), c.Name)
			if len(c.Subcommands) > 0 {
				walk(args, c.Subcommands)
				continue
			}
			t.Run(strings.Join(args[1:], " "), func(t *testing.T) {
				if err := app.Run(append(args, "--help")); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
	walk([]string{"airlock"}, app.Commands)
}
