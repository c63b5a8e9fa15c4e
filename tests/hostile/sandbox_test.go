package hostile_test

import (
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// sandboxCalls are the rogue plugin's attempts on the file system and the
// network, against resources the test owns: a file holding a secret, a
// directory to write into, and an HTTP server that counts every connection.
// Each call's check asserts that nothing got through.
func sandboxCalls(t *testing.T) []call {
	t.Helper()
	dir := t.TempDir()
	secretFile := filepath.Join(dir, "secret.txt")
	if err := os.WriteFile(secretFile, []byte(secret), 0o644); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(dir, "pwned")

	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(secret))
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	addr := strings.TrimPrefix(srv.URL, "http://")

	noSecret := func(t *testing.T, reason string) {
		t.Helper()
		if strings.Contains(reason, secret) {
			t.Fatalf("the plugin read the secret: %q", reason)
		}
	}
	noConnection := func(t *testing.T, reason string) {
		t.Helper()
		noSecret(t, reason)
		if n := conns.Load(); n != 0 {
			t.Fatalf("the plugin opened %d connections to the host's server", n)
		}
	}
	return []call{
		{name: "file system read", module: "rogue", config: `{"do":"read","path":"` + secretFile + `"}`,
			reason: `^read denied: `, check: noSecret},
		{name: "file system write", module: "rogue", config: `{"do":"write","path":"` + target + `"}`,
			reason: `^write denied: `, check: func(t *testing.T, reason string) {
				if _, err := os.Stat(target); err == nil {
					t.Fatalf("the plugin wrote %s", target)
				}
			}},
		{name: "network http_request", module: "rogue", config: `{"do":"http","url":"` + srv.URL + `/steal"}`,
			reason: `http_request to .* denied`, discard: true, check: noConnection},
		{name: "network socket dial", module: "rogue", config: `{"do":"dial","url":"` + addr + `"}`,
			reason: `^dial denied: `, check: noConnection},
		{name: "environment secret", module: "rogue", config: `{"do":"env"}`, reason: `^env: `, check: noSecret},
	}
}
