package main

import (
	"bytes"
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
