package config

import (
	"errors"
	"testing"
)

// FuzzParse feeds arbitrary bytes to the config parser: it must never panic,
// and a file it refuses must come with at least one problem that names the
// file.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"plugins:\n  - path: a.wasm\n    limits: {memory: 64MiB, timeout: 1s}\n",
		"interceptors:\n  overrides:\n    x: {mode: audit, priorityHint: {request: 1}, hooks: [{events: [tools/call], phase: both}]}\n",
		"remotes:\n  - command: 'airlock serve --plugin \"a b.wasm\"'\n  - url: http://h/mcp\n",
		"backend: {command: [node, s.js]}\nlisten: {http: ':8080'}\n",
		"plugins: [\n", "- a\n- b\n", "a: &x 1\nb: *x\n", "\t", "{}", "",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse("fuzz.yaml", data)
		if err == nil {
			if file == nil {
				t.Fatal("no file and no error")
			}
			return
		}
		var ce *Error
		if !errors.As(err, &ce) {
			t.Fatalf("Parse returned %T (%v), want *Error listing problems", err, err)
		}
		if len(ce.Problems) == 0 {
			t.Fatalf("an *Error with no problems for %q", data)
		}
		for _, p := range ce.Problems {
			if p.File != "fuzz.yaml" || p.Message == "" {
				t.Fatalf("problem %+v does not name the file or say what is wrong", p)
			}
		}
	})
}
