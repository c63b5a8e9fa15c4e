// Package e2e drives the airlock binary the way a user and an MCP client do:
// as a subprocess over stdio, as a streamable HTTP server on loopback, and
// from the command line, with a real WebAssembly plugin the tests build.
package e2e

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/airlock-mcp/airlock/host/remote"
	"github.com/airlock-mcp/airlock/internal/testbuild"
)

var (
	airlockBin string // the binary under test
	cacheDir   string // its compilation cache, shared by every test
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "airlock-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	airlockBin = filepath.Join(dir, "airlock")
	cacheDir = filepath.Join(dir, "cache")
	build := exec.Command("go", "build", "-o", airlockBin, "github.com/airlock-mcp/airlock/cmd/airlock")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building airlock: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// plugin returns the path of the test plugin, built once.
func plugin(t *testing.T) string {
	return testbuild.GoPlugin(t, "tests/e2e/testdata/plugin")
}

// result of one airlock run.
type result struct {
	stdout, stderr string
	code           int
}

// airlock runs the binary with args (and stdin) and waits for it.
func airlock(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, airlockBin, args...)
	cmd.Env = append(os.Environ(), "AIRLOCK_CACHE_DIR="+cacheDir)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("airlock %v: %v", args, err)
	}
	return r
}

// serveStdio starts `airlock serve` as a subprocess and connects to it over
// its stdin and stdout, as an MCP client would.
func serveStdio(t *testing.T, args ...string) *remote.Host {
	t.Helper()
	tr := remote.Command(airlockBin, append([]string{"serve", "--log-level", "warn"}, args...)...)
	tr.Command.Env = append(os.Environ(), "AIRLOCK_CACHE_DIR="+cacheDir)
	log := &lockedBuffer{}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("airlock serve stderr:\n%s", log.String())
		}
	})
	tr.Command.Stderr = log
	h, err := remote.Dial(context.Background(), "airlock serve (stdio)", tr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

// startHTTP starts `airlock COMMAND --http 127.0.0.1:0 ARGS...` and returns
// the URL it reports in its log.
func startHTTP(t *testing.T, command string, args ...string) string {
	t.Helper()
	cmd := exec.Command(airlockBin, append([]string{command, "--http", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(os.Environ(), "AIRLOCK_CACHE_DIR="+cacheDir)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	})
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if i := strings.Index(sc.Text(), "url=http://"); i >= 0 {
				urls <- strings.Fields(sc.Text()[i+len("url="):])[0]
			}
		}
		_, _ = io.Copy(io.Discard, stderr)
	}()
	select {
	case u := <-urls:
		return u
	case <-time.After(time.Minute):
		t.Fatalf("airlock %s --http did not report its URL", command)
	}
	return ""
}

// serveHTTP starts `airlock serve --http` and connects to it.
func serveHTTP(t *testing.T, args ...string) *remote.Host {
	t.Helper()
	url := startHTTP(t, "serve", args...)
	h, err := remote.Dial(context.Background(), url, remote.URL(url))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

// lockedBuffer collects a subprocess's log; exec copies into it from its own
// goroutine.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
