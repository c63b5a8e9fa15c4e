package hostile_test

import (
	"context"
	"fmt"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/airlock-mcp/airlock/host/wasm"
	"github.com/airlock-mcp/airlock/internal/testbuild"
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

// TestLibraryRapidCalls makes 10,000 calls from four goroutines, every tenth
// to an interceptor that traps, and checks that every other call succeeds,
// that each trapped instance was replaced, and that heap and goroutines come
// back to where they were.
func TestLibraryRapidCalls(t *testing.T) {
	good := testbuildGood(t)
	trap := runtimeWAT()["h-trap"]
	base, goroutines := heapInUse(), runtime.NumGoroutine()
	pg := loadLib(t, goodName, good, wasm.Limits{})
	pt := loadLib(t, "h-trap", testbuild.WAT(t, trap.wat()), wasm.Limits{})
	invoke := func(ctx context.Context, p *spec.InvokeParams) (*spec.Result, error) {
		if p.Name == goodName {
			return pg.Invoke(ctx, p)
		}
		return pt.Invoke(ctx, p)
	}
	const n = 10000
	start := time.Now()
	rapid(t, n, invoke)
	elapsed := time.Since(start)
	mid := heapInUse()
	s := poolRefilled(t, pt)
	if s.Discarded != n/10 {
		t.Errorf("the trapping plugin discarded %d instances, want %d", s.Discarded, n/10)
	}
	if s := pg.Stats(); s.Discarded != 0 || s.Created != int64(s.Size) {
		t.Errorf("the well-behaved plugin: %+v", s)
	}
	closeLib(t, pg)
	closeLib(t, pt)
	after := heapInUse()
	t.Logf("%d calls in %v (%v per call); heap in use %d KiB before, %d KiB after the calls, %d KiB after Close",
		n, elapsed.Round(time.Millisecond), (elapsed / n).Round(time.Microsecond), base>>10, mid>>10, after>>10)
	if after > base+heapSlack {
		t.Errorf("heap in use grew from %d to %d MiB", base/mib, after/mib)
	}
	// Closing waits for the pools' replacements; nothing of the plugins may
	// still run.
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > goroutines && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if g := runtime.NumGoroutine(); g > goroutines {
		t.Errorf("%d goroutines before, %d after Close", goroutines, g)
	}
}

func testbuildGood(t *testing.T) []byte { return goodModule(t) }

// TestLibraryInitLoopOnReplacement is a module whose _initialize runs fine
// the first time and loops forever once it has failed a call (it remembers
// in a plugin variable, which every instance shares): its replacement never
// starts. Calls must still end with a clear error in bounded time, other
// plugins must not notice, and Close must not hang.
func TestLibraryInitLoopOnReplacement(t *testing.T) {
	d := direct{name: "h-init-later",
		imports: `(import "airlock:host/v1" "var_get" (func $var_get (param i32 i32 i32 i32) (result i32)))
  (import "airlock:host/v1" "var_set" (func $var_set (param i32 i32 i32 i32) (result i32)))`,
		init: `(if (i32.ge_s (call $var_get (i32.const 16384) (i32.const 5) (i32.const 16400) (i32.const 0)) (i32.const 0))
      (then ` + loopForever + `))`,
		invoke: `(drop (call $var_set (i32.const 16384) (i32.const 5) (i32.const 16384) (i32.const 5))) (unreachable)`,
		extra:  `(data (i32.const 16384) "armed")`}
	good := loadLib(t, goodName, goodModule(t), wasm.Limits{})
	defer closeLib(t, good)
	p := loadLib(t, d.name, testbuild.WAT(t, d.wat()), wasm.Limits{MaxInstances: 1, Timeout: 500 * time.Millisecond})
	c := call{interceptor: d.name, reason: `unreachable`}
	_, err := p.Invoke(context.Background(), c.params())
	checkFailure(t, c, err)
	// The replacement is now stuck in _initialize until the host's start-up
	// deadline, and every later one too.
	for i := range 3 {
		start := time.Now()
		_, err = p.Invoke(context.Background(), c.params())
		elapsed := time.Since(start)
		f := asFailure(t, err)
		t.Logf("call %d after the poisoning: %v: %s", i+2, elapsed.Round(time.Millisecond), f.reason)
		if f.code != spec.CodeInternalError || f.interceptor != d.name {
			t.Fatalf("error %v", err)
		}
		if bound := 500*time.Millisecond + slack; elapsed > bound {
			t.Errorf("call %d ended after %v, more than %v", i+2, elapsed, bound)
		}
		goodAnswers(t, good.Invoke)
	}
	start := time.Now()
	closeLib(t, p)
	if bound := startTimeout + slack; time.Since(start) > bound {
		t.Errorf("Close took %v, more than %v", time.Since(start), bound)
	}
	t.Logf("Close took %v; stats %+v", time.Since(start).Round(time.Millisecond), p.Stats())
}

// TestLibraryDistinctModulesDoNotAccumulate loads and closes eight distinct
// modules of 4 MiB of data each, as a host that hot-reloads a changing
// plugin does: the heap must not keep every version.
func TestLibraryDistinctModulesDoNotAccumulate(t *testing.T) {
	const n, size = 8, 4 << 20
	base := heapInUse()
	for i := range n {
		d := direct{name: fmt.Sprintf("h-version-%d", i), pages: size>>16 + 2,
			extra: fmt.Sprintf(`(data (i32.const 65536) "version %d %s")`, i, strings.Repeat("A", size))}
		p := loadLib(t, d.name, testbuild.WAT(t, d.wat()), wasm.Limits{MaxInstances: 1})
		goodAnswers(t, func(ctx context.Context, params *spec.InvokeParams) (*spec.Result, error) {
			params.Name = d.name
			r, err := p.Invoke(ctx, params)
			if r != nil {
				r.Interceptor = goodName // the check is about the answer, not the name
			}
			return r, err
		})
		closeLib(t, p)
	}
	after := heapInUse()
	t.Logf("heap in use %d MiB before, %d MiB after loading and closing %d distinct modules of %d MiB", base/mib, after/mib, n, size/mib)
	if after > base+n*size/2 {
		t.Errorf("heap in use grew from %d to %d MiB: closed plugins' modules are kept", base/mib, after/mib)
	}
}
