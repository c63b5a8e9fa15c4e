package instrument_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/sys"

	"github.com/airlock-mcp/airlock/host/wasm/internal/instrument"
	"github.com/airlock-mcp/airlock/internal/testbuild"
)

// wat compiles src with wat2wasm and the given flags (--debug-names keeps
// the names, which the rewrite must renumber).
func wat(t *testing.T, src string, flags ...string) []byte {
	t.Helper()
	tool := testbuild.Tool(t, "wat2wasm", "wabt")
	dir := t.TempDir()
	in, out := filepath.Join(dir, "m.wat"), filepath.Join(dir, "m.wasm")
	if err := os.WriteFile(in, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if msg, err := exec.Command(tool, append(flags, in, "-o", out)...).CombinedOutput(); err != nil {
		t.Fatalf("wat2wasm: %v\n%s", err, msg)
	}
	bin, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// ticker is the host side of a rewritten module: it grants refill fuel per
// tick, counts the ticks, and stops the guest after stopAfter of them (0:
// never).
type ticker struct {
	refill    int64
	stopAfter int
	ticks     int
}

// instantiate runs bin in a fresh runtime with env.imp (x -> x+1) and, when
// tk is set, the deadline module. The runtime is closed with the test.
func instantiate(t *testing.T, bin []byte, tk *ticker) api.Module {
	t.Helper()
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	t.Cleanup(func() { _ = rt.Close(ctx) })
	_, err := rt.NewHostModuleBuilder("env").NewFunctionBuilder().
		WithFunc(func(x int32) int32 { return x + 1 }).Export("imp").Instantiate(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if tk != nil {
		_, err := rt.NewHostModuleBuilder(instrument.ImportModule).NewFunctionBuilder().
			WithGoFunction(api.GoFunc(func(_ context.Context, stack []uint64) {
				tk.ticks++
				if tk.stopAfter > 0 && tk.ticks >= tk.stopAfter {
					panic(sys.NewExitError(sys.ExitCodeDeadlineExceeded))
				}
				stack[0] = uint64(tk.refill)
			}), nil, []api.ValueType{api.ValueTypeI64}).Export(instrument.ImportName).Instantiate(ctx)
		if err != nil {
			t.Fatal(err)
		}
	}
	mod, err := rt.InstantiateWithConfig(ctx, bin, wazero.NewModuleConfig().WithName("m"))
	if err != nil {
		t.Fatal(err)
	}
	return mod
}

func rewrite(t *testing.T, bin []byte) ([]byte, instrument.Stats) {
	t.Helper()
	out, st, err := instrument.Rewrite(bin)
	if err != nil {
		t.Fatal(err)
	}
	return out, st
}

// kitchenSink uses every construct whose encoding the rewrite touches or
// must step over: an imported function (so defined functions move), nested
// loops, a loop with parameters (multi-value), br_table, call_indirect
// through active, passive and declarative element segments, ref.func in a
// global and in code, a start function, bulk memory and table operations,
// SIMD, saturating and sign-extension operators, typed select, float
// constants, recursion and a trap in a named function.
const kitchenSink = `(module
  (import "env" "imp" (func $imp (param i32) (result i32)))
  (type $unary (func (param i32) (result i32)))
  (memory (export "memory") 1)
  (table $tab 8 funcref)
  (global $g (mut i32) (i32.const 0))
  (global $fr funcref (ref.func $double))
  (elem (i32.const 0) $double $triple)
  (elem $passive func $triple $double)
  (elem declare func $square)
  (data $d "hello, world")
  (start $init)
  (func $init (global.set $g (i32.const 42)))
  (func $double (param i32) (result i32) (i32.mul (local.get 0) (i32.const 2)))
  (func $triple (param i32) (result i32) (i32.mul (local.get 0) (i32.const 3)))
  (func $square (param i32) (result i32) (i32.mul (local.get 0) (local.get 0)))
  (func (export "start_ran") (result i32) (global.get $g))
  (func (export "imp") (param i32) (result i32) (call $imp (local.get 0)))
  (func (export "nested") (param $n i32) (result i32) (local $i i32) (local $j i32) (local $s i32)
    (loop $outer
      (local.set $j (i32.const 0))
      (loop $inner
        (local.set $s (i32.add (local.get $s) (i32.mul (local.get $i) (local.get $j))))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br_if $inner (i32.lt_u (local.get $j) (local.get $n))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $outer (i32.lt_u (local.get $i) (local.get $n))))
    (local.get $s))
  (func (export "fib") (param $n i32) (result i64) (local $t i64) (local $u i64)
    i64.const 0
    i64.const 1
    loop $l (param i64 i64) (result i64 i64)
      local.set $t
      local.get $t
      i64.add
      local.set $u
      local.get $t
      local.get $u
      local.get $n
      i32.const 1
      i32.sub
      local.tee $n
      br_if $l
    end
    drop)
  (func (export "switch") (param i32) (result i32)
    (block $c (block $b (block $a (br_table $a $b $c (local.get 0)))
      (return (i32.const 10)))
      (return (i32.const 20)))
    (i32.const 30))
  (func (export "indirect") (param $i i32) (param $x i32) (result i32)
    (call_indirect (type $unary) (local.get $x) (local.get $i)))
  (func (export "passive") (param $x i32) (result i32)
    (table.init $tab $passive (i32.const 2) (i32.const 0) (i32.const 2))
    (elem.drop $passive)
    (i32.add (call_indirect (type $unary) (local.get $x) (i32.const 2))
             (call_indirect (type $unary) (local.get $x) (i32.const 3))))
  (func (export "refs") (param $x i32) (result i32)
    (table.set $tab (i32.const 4) (global.get $fr))
    (table.set $tab (i32.const 5) (ref.func $square))
    (table.fill $tab (i32.const 6) (ref.func $triple) (i32.const 2))
    (table.copy $tab $tab (i32.const 7) (i32.const 5) (i32.const 1))
    (i32.add (call_indirect (type $unary) (local.get $x) (i32.const 4))
      (i32.add (call_indirect (type $unary) (local.get $x) (i32.const 6))
               (call_indirect (type $unary) (local.get $x) (i32.const 7)))))
  (func (export "bulk") (result i32) (local $i i32) (local $s i32)
    (memory.init $d (i32.const 100) (i32.const 0) (i32.const 12))
    (data.drop $d)
    (memory.copy (i32.const 200) (i32.const 100) (i32.const 12))
    (memory.fill (i32.const 300) (i32.const 120) (i32.const 10))
    (local.set $i (i32.const 100))
    (loop $l
      (local.set $s (i32.add (local.get $s) (i32.load8_u (local.get $i))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (i32.const 320))))
    (local.get $s))
  (func (export "fill") (param $n i32) (memory.fill (i32.const 0) (i32.const 7) (local.get $n)))
  (func (export "simd") (param $x i32) (result i32)
    (i32x4.extract_lane 2 (i32x4.add (i32x4.splat (local.get $x))
      (v128.const i32x4 1 2 3 4))))
  (func (export "numeric") (param $x i32) (result i32)
    (i32.add (i32.trunc_sat_f64_s (f64.mul (f64.convert_i32_s (local.get $x)) (f64.const 1.5)))
      (i32.add (i32.extend8_s (local.get $x))
        (select (result i32) (i32.const 1) (i32.trunc_sat_f32_u (f32.const 2.5)) (local.get $x)))))
  (func $sum (export "sum") (param $n i32) (result i32)
    (if (result i32) (i32.eqz (local.get $n))
      (then (i32.const 0))
      (else (i32.add (local.get $n) (call $sum (i32.sub (local.get $n) (i32.const 1)))))))
  (func $leaf (param $x i32) (result i32) (local.set $x (i32.add (local.get $x) (i32.const 1))) (local.set $x (i32.add (local.get $x) (i32.const 1))) (local.set $x (i32.add (local.get $x) (i32.const 1))) (local.set $x (i32.add (local.get $x) (i32.const 1))) (local.set $x (i32.add (local.get $x) (i32.const 1))) (local.set $x (i32.add (local.get $x) (i32.const 1))) (local.set $x (i32.add (local.get $x) (i32.const 1))) (local.set $x (i32.add (local.get $x) (i32.const 1))) (local.set $x (i32.add (local.get $x) (i32.const 1))) (local.set $x (i32.add (local.get $x) (i32.const 1))) (local.set $x (i32.add (local.get $x) (i32.const 1))) (local.set $x (i32.add (local.get $x) (i32.const 1))) (local.get $x))
  (func (export "callleaf") (param $n i32) (result i32) (local $s i32)
    (loop $l
      (local.set $s (call $leaf (local.get $s)))
      (local.set $n (i32.sub (local.get $n) (i32.const 1)))
      (br_if $l (local.get $n)))
    (local.get $s))
  (func $boom (unreachable))
  (func $callboom (export "boom") (call $boom))
  (func (export "spin") (loop $l (br $l))))`

func TestRewriteKeepsBehaviour(t *testing.T) {
	bin := wat(t, kitchenSink, "--debug-names")
	out, st := rewrite(t, bin)
	// nested, fib, callleaf and spin start with straight code into a
	// loop, whose check stands for the entry's.
	if st.Functions != 22 || st.EntryChecks != 18 || st.Loops != 6 || st.BulkOps != 7 {
		t.Errorf("stats = %+v", st)
	}
	orig := instantiate(t, bin, nil)
	// A big refill: the host never gets in the way here.
	re := instantiate(t, out, &ticker{refill: 1 << 40})
	calls := []struct {
		fn   string
		args []uint64
	}{
		{"start_ran", nil}, {"imp", []uint64{41}}, {"nested", []uint64{30}}, {"fib", []uint64{40}},
		{"switch", []uint64{0}}, {"switch", []uint64{1}}, {"switch", []uint64{7}},
		{"indirect", []uint64{0, 5}}, {"indirect", []uint64{1, 5}}, {"passive", []uint64{7}},
		{"refs", []uint64{9}}, {"bulk", nil}, {"simd", []uint64{10}}, {"numeric", []uint64{0xff}},
		{"sum", []uint64{1000}}, {"callleaf", []uint64{100}}, {"boom", nil},
	}
	for _, c := range calls {
		want, werr := orig.ExportedFunction(c.fn).Call(context.Background(), c.args...)
		got, gerr := re.ExportedFunction(c.fn).Call(context.Background(), c.args...)
		if (werr == nil) != (gerr == nil) || (werr != nil && werr.Error() != gerr.Error()) {
			// The error of the trap includes the stack trace, with names:
			// equal when the name section was renumbered right.
			t.Errorf("%s%v: error %v, want %v", c.fn, c.args, gerr, werr)
			continue
		}
		if len(want) != len(got) || (len(want) > 0 && want[0] != got[0]) {
			t.Errorf("%s%v = %v, want %v", c.fn, c.args, got, want)
		}
	}
	if !strings.Contains(func() string { _, err := re.ExportedFunction("boom").Call(context.Background()); return err.Error() }(), ".boom()") {
		t.Error("the trap's stack trace lost the function's name")
	}
	wm, _ := orig.Memory().Read(0, 400)
	gm, _ := re.Memory().Read(0, 400)
	if string(wm) != string(gm) {
		t.Error("memory differs after the same calls")
	}
}

func TestRewriteChargesFuel(t *testing.T) {
	out, _ := rewrite(t, wat(t, kitchenSink))
	t.Run("loops", func(t *testing.T) {
		tk := &ticker{refill: 1000}
		mod := instantiate(t, out, tk)
		before := tk.ticks
		// 90,000 inner iterations of 15 instructions each, less the
		// initial fuel, at 1,000 per tick.
		if _, err := mod.ExportedFunction("nested").Call(context.Background(), 300); err != nil {
			t.Fatal(err)
		}
		if n := tk.ticks - before; n < 1250 || n > 1400 {
			t.Errorf("%d ticks for about 1,350,000 instructions at 1,000 per tick, want about %d", n, (1350000-instrument.InitialFuel)/1000)
		}
	})
	t.Run("a loop calling a function", func(t *testing.T) {
		tk := &ticker{refill: 1000}
		mod := instantiate(t, out, tk)
		before := tk.ticks
		// 20,000 calls to $leaf (50 instructions) from a loop of 10:
		// 1,200,000 (and 2 of the entry's per iteration, as the body
		// starts with the loop), less the initial fuel, at 1,000 per tick
		// and up to 60 more (a check's overshoot is not carried over).
		if _, err := mod.ExportedFunction("callleaf").Call(context.Background(), 20000); err != nil {
			t.Fatal(err)
		}
		if n := tk.ticks - before; n < 1050 || n > 1200 {
			t.Errorf("%d ticks for about 1,200,000 instructions at 1,000 per tick", n)
		}
	})
	t.Run("bulk by length", func(t *testing.T) {
		tk := &ticker{refill: 1000}
		mod := instantiate(t, out, tk)
		before := tk.ticks
		// Each 60,000-byte fill is charged 15,000 instructions: once the
		// initial fuel is spent, more than a refill each.
		for range 10 {
			if _, err := mod.ExportedFunction("fill").Call(context.Background(), 60000); err != nil {
				t.Fatal(err)
			}
		}
		if n := tk.ticks - before; n < 5 {
			t.Errorf("%d ticks for 10 fills of 60,000 bytes", n)
		}
	})
	t.Run("a loop that never ends stops at a tick", func(t *testing.T) {
		tk := &ticker{refill: 1000, stopAfter: 50}
		mod := instantiate(t, out, tk)
		_, err := mod.ExportedFunction("spin").Call(context.Background())
		var exit *sys.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != sys.ExitCodeDeadlineExceeded {
			t.Fatalf("err = %v, want the tick's exit error", err)
		}
	})
}

// TestRewriteAddsSections rewrites a module that has no type, import or
// global section: the rewrite creates them, in order.
func TestRewriteAddsSections(t *testing.T) {
	// No import or global section.
	out, st := rewrite(t, wat(t, `(module (func (export "spin") (loop $l (br $l))))`))
	if st.Functions != 1 || st.Loops != 1 {
		t.Errorf("stats = %+v", st)
	}
	tk := &ticker{refill: 100, stopAfter: 3}
	_, err := instantiate(t, out, tk).ExportedFunction("spin").Call(context.Background())
	if err == nil || tk.ticks != 3 {
		t.Fatalf("err = %v after %d ticks", err, tk.ticks)
	}
	// No section at all.
	empty := []byte{0, 'a', 's', 'm', 1, 0, 0, 0}
	out, _ = rewrite(t, empty)
	instantiate(t, out, &ticker{})
}

func TestRewriteRefuses(t *testing.T) {
	cases := []struct {
		name string
		bin  func(t *testing.T) []byte
		err  string
	}{
		{"not wasm", func(*testing.T) []byte { return []byte("(module)") }, "not a WebAssembly"},
		{"the reserved import", func(t *testing.T) []byte {
			return wat(t, `(module (import "airlock:deadline" "tick" (func (result i64))))`)
		}, "reserves"},
		{"exception handling", func(t *testing.T) []byte {
			return wat(t, `(module (tag $e) (func (try (do (throw $e)) (catch_all))))`, "--enable-exceptions")
		}, "section 13|opcode 0x06"},
		{"truncated", func(t *testing.T) []byte {
			b := wat(t, kitchenSink)
			return b[:len(b)-7]
		}, "truncated|ends before"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := instrument.Rewrite(c.bin(t))
			if err == nil {
				t.Fatal("no error")
			}
			if !regexpMatch(c.err, err.Error()) {
				t.Fatalf("err = %v, want %q", err, c.err)
			}
		})
	}
}
