package e2e

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/airlock-mcp/airlock/internal/testbuild"
	"github.com/airlock-mcp/airlock/spec"
)

func TestCLIList(t *testing.T) {
	p := plugin(t)
	r := airlock(t, "", "list", "--plugin", p)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 10 || !strings.HasPrefix(lines[0], "NAME") || !strings.Contains(lines[6], `tag-c`) || !strings.Contains(lines[6], `{"request":5}`) {
		t.Fatalf("table:\n%s", r.stdout)
	}
	r = airlock(t, "", "list", "--plugin", p, "--event", "tools/list", "--json")
	var res spec.ListResult
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || r.code != 0 {
		t.Fatalf("--json: %v exit %d\n%s", err, r.code, r.stdout)
	}
	if got := names(res.Interceptors); !slices.Equal(got, []string{"redact-email", "audit"}) {
		t.Fatalf("--event tools/list: %v", got)
	}
}

func TestCLIInvoke(t *testing.T) {
	p := plugin(t)
	r := airlock(t, "", "invoke", "--plugin", p, "--name", "no-aws-keys", "--event", "tools/call", "--phase", "request",
		"--payload", `{"name":"s3","arguments":{"key":"AKIAIOSFODNN7EXAMPLE"}}`)
	var res spec.Result
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || r.code != 0 || res.Valid || res.Type != spec.TypeValidation {
		t.Fatalf("exit %d %v\n%s%s", r.code, err, r.stdout, r.stderr)
	}
	// The payload from standard input and the config from a file.
	cfg := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(cfg, []byte(`{"prefix":"SECRET"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	r = airlock(t, `{"name":"s3","arguments":{"key":"AKIA...","other":"SECRET"}}`, "invoke", "--plugin", p, "--name", "no-aws-keys",
		"--event", "tools/call", "--phase", "request", "--payload", "-", "--config", "@"+cfg)
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || r.code != 0 || res.Valid {
		t.Fatalf("stdin payload, file config: exit %d %v\n%s%s", r.code, err, r.stdout, r.stderr)
	}
	// A failure prints the JSON-RPC error and exits 1.
	r = airlock(t, "", "invoke", "--plugin", p, "--name", "spin", "--event", "acme/spin", "--phase", "request", "--payload", "{}", "--timeout-ms", "100")
	var failed struct{ Error spec.Error }
	if err := json.Unmarshal([]byte(r.stdout), &failed); err != nil || r.code != 1 || failed.Error.Code != -32603 || !failed.Error.IsTimeout() {
		t.Fatalf("timeout: exit %d %v\n%s", r.code, err, r.stdout)
	}
}

func TestCLIChain(t *testing.T) {
	p := plugin(t)
	run := func(stdin string, args ...string) (spec.ChainResult, result) {
		t.Helper()
		r := airlock(t, stdin, append([]string{"chain", "--plugin", p}, args...)...)
		var res spec.ChainResult
		if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
			t.Fatalf("exit %d: %v\n%s\n%s", r.code, err, r.stdout, r.stderr)
		}
		return res, r
	}
	res, r := run("", "--event", "tools/call", "--phase", "request", "--payload", `{"name":"s3","arguments":{"key":"AKIAIOSFODNN7EXAMPLE"}}`)
	if r.code != 1 || res.Status != spec.StatusValidationFailed || res.AbortedAt.Interceptor != "no-aws-keys" || res.FinalPayload != nil {
		t.Fatalf("blocked chain: exit %d %+v", r.code, res)
	}
	// The default direction for a response is receiving: validators, sinks, then mutators.
	res, r = run(`{"content":[{"type":"text","text":"write to ada@example.com"}]}`, "--event", "tools/call", "--phase", "response", "--payload", "-")
	var order []string
	for _, x := range res.Results {
		order = append(order, x.Interceptor)
	}
	if r.code != 0 || res.Status != spec.StatusSuccess || !slices.Equal(order, []string{"audit", "redact-email"}) ||
		!strings.Contains(string(res.FinalPayload), "[email]") {
		t.Fatalf("response chain: exit %d order %v %s", r.code, order, res.FinalPayload)
	}
	// Priorities order the mutators: tag-a (-5), tag-b (0), tag-c ({"request":5}).
	res, _ = run("", "--event", "acme/tag", "--phase", "request", "--payload", `{}`)
	if !spec.JSONEqual(res.FinalPayload, json.RawMessage(`{"trail":["tag-a","tag-b","tag-c"]}`)) {
		t.Fatalf("priority order: %s", res.FinalPayload)
	}
	// A whole-chain timeout.
	res, r = run("", "--event", "acme/spin", "--phase", "request", "--payload", `{}`, "--timeout-ms", "100")
	if r.code != 1 || res.Status != spec.StatusTimeout || res.AbortedAt.Type != spec.AbortTimeout {
		t.Fatalf("chain timeout: exit %d %+v", r.code, res)
	}
}

// A local plugin and a remote interceptor host (a second airlock serve over
// stdio) form one chain in one global priority order: the remote host's
// interceptors interleave with the local ones instead of running after them.
func TestCLIChainMixesLocalAndRemote(t *testing.T) {
	p := plugin(t)
	remote := fmt.Sprintf("%s serve --plugin %s --interceptor tag-a --interceptor tag-c --log-level warn", airlockBin, p)
	r := airlock(t, "", "chain", "--plugin", p, "--remote", remote,
		"--interceptor", "tag-a", "--interceptor", "tag-b", "--interceptor", "tag-c",
		"--event", "acme/tag", "--phase", "request", "--payload", `{}`)
	var res spec.ChainResult
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || r.code != 0 {
		t.Fatalf("exit %d %v\n%s\n%s", r.code, err, r.stdout, r.stderr)
	}
	// Equal names run in source order: the local plugin first, then the remote host.
	want := `{"trail":["tag-a","tag-a","tag-b","tag-c","tag-c"]}`
	if !spec.JSONEqual(res.FinalPayload, json.RawMessage(want)) {
		t.Fatalf("trail %s, want %s", res.FinalPayload, want)
	}
}

// Mistakes get one clear line on stderr and exit 2; never a stack trace.
func TestCLIErrorsForPeople(t *testing.T) {
	p := plugin(t)
	dir := t.TempDir()
	notWasm := filepath.Join(dir, "notes.wasm")
	if err := os.WriteFile(notWasm, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	badDesc := filepath.Join(dir, "bad.wasm")
	if err := os.WriteFile(badDesc, badDescriptorModule(t), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"missing file", []string{"list", "--plugin", filepath.Join(dir, "nope.wasm")}, "no such file"},
		{"not WebAssembly", []string{"list", "--plugin", notWasm}, "not a WebAssembly module"},
		{"bad descriptor", []string{"list", "--plugin", badDesc}, "hooks[0].events[0]"},
		{"unknown interceptor in a filter", []string{"chain", "--plugin", p, "--interceptor", "nope", "--event", "tools/call", "--phase", "request", "--payload", "{}"}, `"nope"`},
		{"unknown interceptor to invoke", []string{"invoke", "--plugin", p, "--name", "nope", "--event", "tools/call", "--phase", "request", "--payload", "{}"}, `unknown interceptor "nope"`},
		{"payload not JSON", []string{"chain", "--plugin", p, "--event", "tools/call", "--phase", "request", "--payload", "{oops"}, "--payload is not valid JSON"},
		{"bad phase", []string{"chain", "--plugin", p, "--event", "tools/call", "--phase", "both", "--payload", "{}"}, "use request or response"},
		{"no sources", []string{"list"}, "--plugin FILE"},
		{"unknown command", []string{"frobnicate"}, `unknown command "frobnicate"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := airlock(t, "", tt.args...)
			lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
			last := lines[len(lines)-1]
			if r.code != 2 || !strings.HasPrefix(last, "airlock: ") || !strings.Contains(last, tt.want) || strings.Contains(r.stderr, "goroutine ") {
				t.Fatalf("exit %d, stderr:\n%s\nwant one line containing %q", r.code, r.stderr, tt.want)
			}
		})
	}
}

// badDescriptorModule is a direct-ABI module whose describe output has an
// event that is not one ("tools" for "tools/*").
func badDescriptorModule(t *testing.T) []byte {
	desc := `{"interceptors":[{"name":"typo","type":"validation","hooks":[{"events":["tools"],"phase":"request"}]}]}`
	quoted := strings.ReplaceAll(desc, `"`, `\"`)
	return testbuild.WAT(t, fmt.Sprintf(`(module
  (memory (export "memory") 1)
  (data (i32.const 1024) "%s")
  (func (export "airlock_abi_version") (result i32) (i32.const 1))
  (func (export "airlock_alloc") (param i32) (result i32) (i32.const 4096))
  (func (export "airlock_describe") (result i64)
    (i64.or (i64.shl (i64.const 1024) (i64.const 32)) (i64.const %d)))
  (func (export "airlock_invoke") (param i32 i32) (result i64) (i64.const 0)))`, quoted, len(desc)))
}

func TestCLIPluginInspect(t *testing.T) {
	p := plugin(t)
	r := airlock(t, "", "plugin", "inspect", p, "--json")
	var info struct {
		Size         int
		SHA256       string
		ABI          string
		Imports      []string
		Interceptors []spec.Interceptor
	}
	if err := json.Unmarshal([]byte(r.stdout), &info); err != nil || r.code != 0 {
		t.Fatalf("exit %d %v\n%s%s", r.code, err, r.stdout, r.stderr)
	}
	bin, _ := os.ReadFile(p)
	sum := sha256.Sum256(bin)
	if info.Size != len(bin) || info.SHA256 != hex.EncodeToString(sum[:]) || info.ABI != "extism" || len(info.Interceptors) != 9 ||
		!slices.Contains(info.Imports, "extism:host/env.output_set") {
		t.Fatalf("inspect: %+v", info)
	}
	r = airlock(t, "", "plugin", "inspect", p)
	if r.code != 0 || !strings.Contains(r.stdout, "sha256:       "+info.SHA256) || !strings.Contains(r.stdout, "no-aws-keys (validation)") {
		t.Fatalf("table:\n%s", r.stdout)
	}
}
