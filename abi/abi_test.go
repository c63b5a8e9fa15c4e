package abi

import "testing"

func TestPackRoundTrip(t *testing.T) {
	cases := []struct {
		name   string
		ptr    uint32
		length uint32
		isErr  bool
		want   uint64
	}{
		{"zero", 0, 0, false, 0},
		{"ok", 0x10000, 42, false, 0x00010000_0000002a},
		{"error", 0x10000, 42, true, 0x00010000_8000002a},
		{"high pointer", 0xffff_fff0, MaxLen, false, 0xffff_fff0_7fffffff},
		{"high pointer error", 0xffff_fff0, MaxLen, true, 0xffff_fff0_ffffffff},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Pack(c.ptr, c.length, c.isErr)
			if uint64(r) != c.want {
				t.Fatalf("Pack = %#x, want %#x", uint64(r), c.want)
			}
			if r.Ptr() != c.ptr || r.Len() != c.length || r.IsError() != c.isErr {
				t.Fatalf("unpacked (%#x, %d, %v), want (%#x, %d, %v)",
					r.Ptr(), r.Len(), r.IsError(), c.ptr, c.length, c.isErr)
			}
		})
	}
}

func TestPackRejectsOversizedLength(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("Pack accepted a length that overlaps the error flag")
		}
	}()
	Pack(0, MaxLen+1, false)
}
