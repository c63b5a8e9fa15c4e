package wasmbin

import (
	"reflect"
	"testing"
)

func TestImports(t *testing.T) {
	// (module (import "env" "f" (func)) (import "env" "t" (table 1 2 funcref))
	//   (import "m" "mem" (memory 1)) (import "env" "g" (global (mut i32))))
	bin := []byte{
		0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
		0x01, 0x04, 0x01, 0x60, 0x00, 0x00, // type section: () -> ()
		0x02, 0x26, 0x04, // import section, 4 entries
		0x03, 'e', 'n', 'v', 0x01, 'f', 0x00, 0x00,
		0x03, 'e', 'n', 'v', 0x01, 't', 0x01, 0x70, 0x01, 0x01, 0x02,
		0x01, 'm', 0x03, 'm', 'e', 'm', 0x02, 0x00, 0x01,
		0x03, 'e', 'n', 'v', 0x01, 'g', 0x03, 0x7f, 0x01,
	}
	got, err := Imports(bin)
	if err != nil {
		t.Fatal(err)
	}
	want := []Import{{"env", "f", KindFunc}, {"env", "t", KindTable}, {"m", "mem", KindMemory}, {"env", "g", KindGlobal}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v", got)
	}
	for n := 9; n < len(bin); n += 5 {
		if _, err := Imports(bin[:n]); err == nil && n > 14 {
			t.Fatalf("truncated at %d: no error", n)
		}
	}
	if imps, err := Imports(bin[:8]); err != nil || imps != nil {
		t.Fatalf("empty module: %v %v", imps, err)
	}
}

func TestExports(t *testing.T) {
	// (module (func) (memory 1) (export "f" (func 0)) (export "memory" (memory 0)))
	bin := []byte{
		0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
		0x01, 0x04, 0x01, 0x60, 0x00, 0x00, // type section: () -> ()
		0x03, 0x02, 0x01, 0x00, // function section
		0x05, 0x03, 0x01, 0x00, 0x01, // memory section
		0x07, 0x0e, 0x02, // export section, 2 entries
		0x01, 'f', 0x00, 0x00,
		0x06, 'm', 'e', 'm', 'o', 'r', 'y', 0x02, 0x00,
		0x0a, 0x04, 0x01, 0x02, 0x00, 0x0b, // code section
	}
	got, err := Exports(bin)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, []string{"f", "memory"}) {
		t.Fatalf("got %q", got)
	}
	if _, err := Exports(bin[:30]); err == nil {
		t.Fatal("truncated export section: no error")
	}
	if exps, err := Exports(bin[:8]); err != nil || exps != nil {
		t.Fatalf("empty module: %v %v", exps, err)
	}
}
