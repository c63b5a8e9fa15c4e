package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/airlock-mcp/airlock/host/remote"
	"github.com/airlock-mcp/airlock/spec"
)

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

func TestConfigCheck(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	writeFile(t, good, "plugins:\n  - path: x.wasm\n    limits: {memory: 64MiB, timeout: 250ms}\ninterceptors:\n  overrides:\n    x: {mode: audit}\n")
	r := airlock(t, "", "config", "check", good)
	if r.code != 0 || !strings.Contains(r.stdout, "ok (1 plugins, 0 remote hosts, 1 overrides)") {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	bad := filepath.Join(dir, "bad.yaml")
	writeFile(t, bad, "plugins:\n  - path: x.wasm\n    limits:\n      memory: 64MB\ninterceptors:\n  overrides:\n    x: {mode: shadow}\n")
	r = airlock(t, "", "config", "check", bad)
	want := []string{
		"airlock: " + bad + ":4:7: plugins[0].limits.memory: \"64MB\": a size is a whole number and B, KiB, MiB or GiB, e.g. 64MiB",
		"airlock: " + bad + ":7:9: interceptors.overrides.x.mode: value must be one of 'active', 'audit', 'enforce'",
	}
	if got := strings.Split(strings.TrimSpace(r.stderr), "\n"); r.code != 2 || !slices.Equal(got, want) {
		t.Fatalf("exit %d, stderr:\n%s\nwant:\n%s", r.code, r.stderr, strings.Join(want, "\n"))
	}
	// The same file refuses to start a command.
	if r := airlock(t, "", "chain", "--config", bad, "--event", "tools/call", "--phase", "request", "--payload", "{}"); r.code != 2 || !strings.Contains(r.stderr, ":4:7:") {
		t.Fatalf("chain with a bad config: exit %d\n%s", r.code, r.stderr)
	}
}

func TestChainWithConfig(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "airlock.yaml")
	// Plugin paths are relative to the config file.
	if err := os.Symlink(plugin(t), filepath.Join(dir, "p.wasm")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, cfg, `plugins:
  - path: p.wasm
    limits: {memory: 32MiB, timeout: 2s, instances: 2}
interceptors:
  enabled: [no-aws-keys, tag-a, tag-b, tag-c]
  overrides:
    no-aws-keys: {mode: audit}
    tag-a: {priorityHint: 100}
`)
	r := airlock(t, "", "chain", "--config", cfg, "--event", "tools/call", "--phase", "request", "--payload", `{"name":"s3","arguments":{"k":"AKIAIOSFODNN7EXAMPLE"}}`)
	var res spec.ChainResult
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || r.code != 0 || res.Status != spec.StatusSuccess || res.ValidationSummary.Errors != 1 {
		t.Fatalf("audit override: exit %d %v %s", r.code, err, r.stdout)
	}
	r = airlock(t, "", "chain", "--config", cfg, "--event", "acme/tag", "--phase", "request", "--payload", `{}`)
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || !spec.JSONEqual(res.FinalPayload, json.RawMessage(`{"trail":["tag-b","tag-c","tag-a"]}`)) {
		t.Fatalf("priority override: %v %s", err, r.stdout)
	}
	// --interceptor replaces the file's list.
	r = airlock(t, "", "chain", "--config", cfg, "--interceptor", "tag-c", "--event", "acme/tag", "--phase", "request", "--payload", `{}`)
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || !spec.JSONEqual(res.FinalPayload, json.RawMessage(`{"trail":["tag-c"]}`)) {
		t.Fatalf("--interceptor: %v %s %s", err, r.stdout, r.stderr)
	}
}

// A running server sees config and plugin changes at once with --watch, and
// on SIGHUP without it; a broken change leaves the last good set serving.
func TestServeReloads(t *testing.T) {
	for _, mode := range []string{"watch", "sighup"} {
		t.Run(mode, func(t *testing.T) {
			dir := t.TempDir()
			cfg := filepath.Join(dir, "airlock.yaml")
			p := filepath.Join(dir, "p.wasm")
			bin, err := os.ReadFile(plugin(t))
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, p, string(bin))
			writeFile(t, cfg, "plugins:\n  - path: p.wasm\ninterceptors:\n  enabled: [tag-a]\n")
			args := []string{"--config", cfg}
			if mode == "watch" {
				args = append(args, "--watch")
			}
			h, proc := serveStdioProc(t, args...)
			ctx := context.Background()
			reload := func() {
				if mode == "sighup" {
					if err := proc.Signal(syscall.SIGHUP); err != nil {
						t.Fatal(err)
					}
				}
			}
			waitList := func(want ...string) {
				t.Helper()
				deadline := time.Now().Add(time.Minute)
				var got []string
				for time.Now().Before(deadline) {
					ds, err := h.Interceptors(ctx)
					if err != nil {
						t.Fatal(err)
					}
					if got = names(ds); slices.Equal(got, want) {
						return
					}
					time.Sleep(20 * time.Millisecond)
				}
				t.Fatalf("interceptors/list %v, want %v", got, want)
			}
			waitList("tag-a")

			writeFile(t, cfg, "plugins:\n  - path: p.wasm\ninterceptors:\n  enabled: [tag-a, tag-b]\n")
			reload()
			waitList("tag-a", "tag-b")

			// A broken plugin build: the last good one keeps serving.
			writeFile(t, p, "not wasm at all")
			reload()
			time.Sleep(500 * time.Millisecond)
			waitList("tag-a", "tag-b")
			r, err := h.Invoke(ctx, call("tag-b", "acme/tag", spec.PhaseRequest, `{}`))
			if err != nil || !r.Modified {
				t.Fatalf("after a broken build: %+v %v", r, err)
			}
			// A bad config: refused the same way.
			writeFile(t, cfg, "plugins:\n  - path: p.wasm\n    limits: {memory: lots}\n")
			reload()
			time.Sleep(500 * time.Millisecond)
			waitList("tag-a", "tag-b")
		})
	}
}

// serveStdioProc is serveStdio that also returns the server's process.
func serveStdioProc(t *testing.T, args ...string) (*remote.Host, *os.Process) {
	t.Helper()
	tr := remote.Command(airlockBin, append([]string{"serve", "--log-level", "warn"}, args...)...)
	tr.Command.Env = append(os.Environ(), "AIRLOCK_CACHE_DIR="+cacheDir)
	log := &lockedBuffer{}
	tr.Command.Stderr = log
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("airlock serve stderr:\n%s", log.String())
		}
	})
	h, err := remote.Dial(context.Background(), "airlock serve", tr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h, tr.Command.Process
}
