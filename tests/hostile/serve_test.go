package hostile_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/airlock-mcp/airlock/host/remote"
	"github.com/airlock-mcp/airlock/spec"
)

// serve starts `airlock serve` on stdio with the plugins at paths and
// connects to it as an MCP client does. It returns the client and the
// server's process id.
func serve(t *testing.T, paths ...string) (*remote.Host, int) {
	t.Helper()
	args := []string{"serve", "--log-level", "error"}
	for _, p := range paths {
		args = append(args, "--plugin", p)
	}
	tr := remote.Command(airlockBin, args...)
	tr.Command.Env = append(os.Environ(), "AIRLOCK_CACHE_DIR="+cacheDir)
	log := &lockedBuffer{}
	tr.Command.Stderr = log
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("airlock serve stderr:\n%s", log.String())
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	h, err := remote.Dial(ctx, "airlock serve", tr)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	t.Cleanup(func() { h.Close() })
	return h, tr.Command.Process.Pid
}

// vmRSS is the resident set size of process pid, from /proc.
func vmRSS(t *testing.T, pid int) uint64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^VmRSS:\s+(\d+) kB$`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("no VmRSS in /proc/%d/status", pid)
	}
	kb, _ := strconv.ParseUint(string(m[1]), 10, 64)
	return kb << 10
}

// Bounds on the server's resident memory, over its size once loaded. A
// memory bomb makes the Go heap of the server grow for a while (two
// instances of 64 MiB per bombing plugin, and the collector's headroom):
// rssPeak bounds that; once ordinary calls have run, the memory must come
// back to within rssSettled of the start.
const (
	rssPeak    = 768 * mib
	rssSettled = 192 * mib
)

// TestServe runs every hostile invocation against one `airlock serve` that
// hosts all the hostile plugins and the well-behaved one, and after each
// checks the error as a client sees it, the deadline, and that the
// well-behaved interceptor still answers. Then the memory bombs again, and
// rapid calls, against the server's resident memory.
func TestServe(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for name, bin := range runtimeModules(t) {
		p := filepath.Join(dir, name+".wasm")
		if err := os.WriteFile(p, bin, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	sort.Strings(paths)
	h, pid := serve(t, paths...)
	ctx := context.Background()
	descs, err := h.Interceptors(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(descs) != len(paths) {
		t.Fatalf("serving %d interceptors, want %d", len(descs), len(paths))
	}
	goodAnswers(t, h.Invoke)
	rss0 := vmRSS(t, pid)

	calls := append(runtimeCalls(), sandboxCalls(t)...)
	for _, c := range calls {
		if c.interceptor == "" {
			c.interceptor = c.module
		}
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			_, err := h.Invoke(ctx, c.params())
			elapsed := time.Since(start)
			if c.reason == "" && !c.timeout {
				if err != nil {
					t.Fatalf("a module that should load and serve failed: %v", err)
				}
			} else {
				checkFailure(t, c, err)
			}
			goodAnswers(t, h.Invoke)
			checkBound(t, c, elapsed)
		})
	}
	rss1 := vmRSS(t, pid)

	// The memory bombs, ten more times each: what a failed instance held
	// must not accumulate.
	t.Run("memory bombs repeated", func(t *testing.T) {
		for range 10 {
			for _, c := range calls {
				if !strings.HasPrefix(c.name, "memory bomb") {
					continue
				}
				if c.interceptor == "" {
					c.interceptor = c.module
				}
				_, err := h.Invoke(ctx, c.params())
				checkFailure(t, c, err)
			}
		}
		goodAnswers(t, h.Invoke)
	})
	rss2 := vmRSS(t, pid)

	t.Run("rapid calls", func(t *testing.T) {
		n := 10000
		if testing.Short() {
			n = 1000
		}
		start := time.Now()
		rapid(t, n, h.Invoke)
		t.Logf("%d calls over stdio in %v (%v per call)", n, time.Since(start).Round(time.Millisecond),
			(time.Since(start) / time.Duration(n)).Round(time.Microsecond))
	})
	rss3 := vmRSS(t, pid)
	t.Logf("server RSS: %d MiB after load, %d MiB after the cases, %d MiB after repeated bombs, %d MiB after rapid calls",
		rss0/mib, rss1/mib, rss2/mib, rss3/mib)
	for _, r := range []uint64{rss1, rss2} {
		if r > rss0+rssPeak {
			t.Errorf("the server's RSS grew from %d to %d MiB", rss0/mib, r/mib)
		}
	}
	if rss3 > rss0+rssSettled {
		t.Errorf("the server's RSS was %d MiB after load and is still %d MiB after ordinary calls", rss0/mib, rss3/mib)
	}
}

// rapid makes n calls from four goroutines: every tenth to the trapping
// interceptor, which must fail, the others to the well-behaved one, which
// must answer.
func rapid(t *testing.T, n int, invoke func(context.Context, *spec.InvokeParams) (*spec.Result, error)) {
	t.Helper()
	const workers = 4
	trap := call{name: "trap", interceptor: "h-trap", reason: `unreachable`}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var errs []string
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += workers {
				c := call{interceptor: goodName}
				if i%10 == 0 {
					c = trap
				}
				r, err := invoke(context.Background(), c.params())
				var bad string
				switch {
				case c.interceptor == goodName && (err != nil || !r.Valid):
					bad = fmt.Sprintf("call %d: %v %+v", i, err, r)
				case c.interceptor != goodName && err == nil:
					bad = fmt.Sprintf("call %d: the trap succeeded", i)
				}
				if bad != "" {
					mu.Lock()
					errs = append(errs, bad)
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if len(errs) > 0 {
		t.Fatalf("%d of %d calls went wrong; first: %s", len(errs), n, errs[0])
	}
}

// TestServeLoad starts `airlock serve` with each module that must be
// refused: it must exit 2 with one clear line on stderr, within a bound.
func TestServeLoad(t *testing.T) {
	dir := t.TempDir()
	for _, c := range loadCases() {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-")+".wasm")
			if err := os.WriteFile(path, c.bin(t), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, airlockBin, "serve", "--plugin", path)
			cmd.Env = append(os.Environ(), "AIRLOCK_CACHE_DIR="+cacheDir)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			start := time.Now()
			err := cmd.Run()
			elapsed := time.Since(start)
			code := -1
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err == nil {
				code = 0
			}
			msg := strings.TrimSpace(stderr.String())
			t.Logf("exit %d after %v: %s", code, elapsed.Round(time.Millisecond), msg)
			if code != 2 {
				t.Fatalf("exit code %d, want 2; stderr:\n%s", code, msg)
			}
			if strings.Count(msg, "\n") != 0 {
				t.Errorf("stderr has more than one line:\n%s", msg)
			}
			if !strings.Contains(msg, filepath.Base(path)) {
				t.Errorf("stderr does not name the plugin %s: %s", filepath.Base(path), msg)
			}
			if !regexp.MustCompile(c.reason).MatchString(msg) {
				t.Errorf("stderr %q does not match %q", msg, c.reason)
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout is not empty: %q", stdout.String())
			}
			// Parallel runs share two cores: a load-time loop gets the
			// host's start-up deadline, and more slack than a call.
			if c.slow {
				if bound := startTimeout + 2*slack; elapsed > bound {
					t.Errorf("serve took %v to give up, more than %v", elapsed, bound)
				}
			}
		})
	}
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
