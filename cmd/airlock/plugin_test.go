package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// airlock plugin build DIR -o FILE.wasm, as the README shows it.
func TestPluginBuild(t *testing.T) {
	out := filepath.Join(t.TempDir(), "secrets.wasm")
	var stdout, stderr bytes.Buffer
	app := newApp(strings.NewReader(""), &stdout, &stderr)
	if err := app.Run([]string{"airlock", "plugin", "build", "../../plugins/secrets", "-o", out, "--no-load"}); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if st, err := os.Stat(out); err != nil || st.Size() < 1<<20 {
		t.Fatalf("module: %v", err)
	}
	for _, s := range []string{"wrote " + out, "abi:          direct", "airlock_invoke", "extism:host/env: config_get"} {
		if !strings.Contains(stdout.String(), s) {
			t.Errorf("output lacks %q:\n%s", s, stdout.String())
		}
	}
	if !strings.Contains(stderr.String(), "building ../../plugins/secrets") {
		t.Errorf("no progress on stderr: %q", stderr.String())
	}
	if err := app.Run([]string{"airlock", "plugin", "build"}); err == nil || !strings.Contains(err.Error(), "takes one directory") {
		t.Errorf("no directory: %v", err)
	}
}
