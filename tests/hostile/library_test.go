package hostile_test

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/airlock-mcp/airlock/host/wasm"
	"github.com/airlock-mcp/airlock/spec"
)

// heapSlack is how much more heap may be in use after a hostile case than
// before it, the plugin closed.
const heapSlack = 32 * mib

// loadLib loads bin through the library, bounded by a context so that a
// loader that hangs fails the test instead of the suite.
func loadLib(t *testing.T, name string, bin []byte, limits wasm.Limits) *wasm.Plugin {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p, err := engine.Load(ctx, bin, wasm.Options{Name: name, Limits: limits})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func closeLib(t *testing.T, p *wasm.Plugin) {
	t.Helper()
	if err := p.Close(context.Background()); err != nil {
		t.Error(err)
	}
}

// goodAnswers asserts that the well-behaved interceptor still answers.
func goodAnswers(t *testing.T, invoke func(context.Context, *spec.InvokeParams) (*spec.Result, error)) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r, err := invoke(ctx, call{interceptor: goodName}.params())
	if err != nil {
		t.Fatalf("the well-behaved interceptor failed after a hostile call: %v", err)
	}
	if r.Interceptor != goodName || !r.Valid {
		t.Fatalf("the well-behaved interceptor answered %+v", r)
	}
}

// poolRefilled waits until every slot of p's pool holds an idle instance
// again: each discarded instance was replaced.
func poolRefilled(t *testing.T, p *wasm.Plugin) wasm.Stats {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		s := p.Stats()
		if s.Idle == s.Size && s.Created-s.Discarded == int64(s.Size) {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("the pool was not refilled: %+v", s)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestLibrary runs every hostile invocation through host/wasm directly, each
// on a freshly loaded plugin, and checks the error, the deadline, that the
// failing instance is replaced, that a well-behaved plugin still answers,
// and that the heap returns to where it was once the plugin is closed.
func TestLibrary(t *testing.T) {
	mods := runtimeModules(t)
	good := loadLib(t, goodName, mods[goodName], wasm.Limits{})
	defer closeLib(t, good)
	for _, c := range append(runtimeCalls(), sandboxCalls(t)...) {
		if c.interceptor == "" {
			c.interceptor = c.module
		}
		t.Run(c.name, func(t *testing.T) {
			base := heapInUse()
			p := loadLib(t, c.module, mods[c.module], wasm.Limits{MaxInstances: 2})
			before := p.Stats()
			start := time.Now()
			_, err := p.Invoke(context.Background(), c.params())
			elapsed := time.Since(start)
			if c.reason == "" && !c.timeout {
				if err != nil {
					t.Fatalf("a module that should load and serve failed: %v", err)
				}
			} else {
				checkFailure(t, c, err)
			}
			goodAnswers(t, good.Invoke)
			s := poolRefilled(t, p)
			want := int64(0)
			if c.discard {
				want = 1
			}
			if d := s.Discarded - before.Discarded; d != want {
				t.Errorf("discarded %d instances, want %d", d, want)
			}
			closeLib(t, p)
			after := heapInUse()
			t.Logf("%v; heap in use %d -> %d KiB; stats %+v", elapsed.Round(time.Millisecond), base>>10, after>>10, s)
			if after > base+heapSlack {
				t.Errorf("heap in use grew from %d to %d MiB", base/mib, after/mib)
			}
			checkBound(t, c, elapsed) // last: it may skip
		})
	}
}

// TestLibraryLoad loads every module that must be refused and checks the
// error (clear, naming the plugin), the bound on the time a loop at load may
// take, and the heap.
func TestLibraryLoad(t *testing.T) {
	for _, c := range loadCases() {
		t.Run(c.name, func(t *testing.T) {
			bin := c.bin(t)
			base := heapInUse()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			start := time.Now()
			p, err := engine.Load(ctx, bin, wasm.Options{Name: "hostile.wasm"})
			elapsed := time.Since(start)
			if err == nil {
				closeLib(t, p)
				t.Fatal("loaded")
			}
			msg := err.Error()
			t.Logf("%v: %s", elapsed.Round(time.Millisecond), msg)
			if !strings.Contains(msg, `"hostile.wasm"`) {
				t.Errorf("the error does not name the plugin: %s", msg)
			}
			if !regexp.MustCompile(c.reason).MatchString(msg) {
				t.Errorf("error %q does not match %q", msg, c.reason)
			}
			if strings.Contains(msg, "\n") {
				t.Errorf("the error spans lines: %q", msg)
			}
			if ctx.Err() != nil {
				t.Errorf("Load ran into the test's own one-minute bound: it has no deadline of its own")
			}
			if bound := startTimeout + slack; elapsed > bound {
				t.Errorf("Load took %v, more than %v", elapsed, bound)
			}
			if after := heapInUse(); after > base+heapSlack {
				t.Errorf("heap in use grew from %d to %d MiB", base/mib, after/mib)
			}
		})
	}
}

// startTimeout is the host's bound on an instance's start-up and on
// describe (host/wasm: startTimeout, and describe's max(Timeout, startTimeout)).
const startTimeout = 10 * time.Second
