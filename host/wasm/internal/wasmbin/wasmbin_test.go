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
