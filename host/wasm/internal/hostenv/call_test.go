package hostenv

import (
	"context"
	"log/slog"
	"testing"
)

func newTestCall(maxArena int) *Call {
	c := NewCall(&Shared{Plugin: "t", Logger: slog.New(slog.DiscardHandler), MaxArena: maxArena, Vars: NewVars(10)})
	c.Reset(context.Background(), []byte("input"))
	return c
}

// fails reports whether f failed the call (a host function trap).
func fails(c *Call, f func()) (failed bool) {
	defer func() {
		if recover() != nil {
			failed = c.Fault() != nil
		}
	}()
	f()
	return false
}

func TestArena(t *testing.T) {
	c := newTestCall(1 << 10)
	h1 := c.allocBytes([]byte("hello"))
	h2 := c.allocBytes([]byte("world!"))
	if h1 == 0 || h2 == 0 || h1 == h2 {
		t.Fatalf("handles %d, %d", h1, h2)
	}
	if string(c.block(h1, "t")) != "hello" || string(c.block(h2, "t")) != "world!" {
		t.Fatal("blocks corrupted")
	}
	if n, ok := c.length(h2); !ok || n != 6 {
		t.Fatalf("length = %d, %v", n, ok)
	}
	for _, bad := range []uint64{0, 3, 1 << 40} {
		if _, ok := c.length(bad); ok {
			t.Fatalf("length(%d) accepted", bad)
		}
	}
	// free gives back the most recent block only.
	c.free(h1)
	if _, ok := c.length(h2); !ok {
		t.Fatal("freeing an older block released a newer one")
	}
	c.free(h2)
	if h3 := c.alloc(1); h3 != h2 {
		t.Fatalf("the most recent block was not reused: %d != %d", h3, h2)
	}
	if !fails(c, func() { c.alloc(2 << 10) }) {
		t.Fatal("alloc past the arena limit did not fail the call")
	}
	if !fails(c, func() { c.block(12345, "t") }) {
		t.Fatal("a bad handle did not fail the call")
	}
	// Reset empties the arena and forgets the output, error and fault.
	c.outSet, c.errSet = true, true
	c.Reset(context.Background(), nil)
	if _, ok := c.Output(); ok || c.Fault() != nil || len(c.arena) != 0 {
		t.Fatal("Reset kept state of the previous call")
	}
}

func TestVars(t *testing.T) {
	v := NewVars(10)
	if !v.Set("ab", []byte("123")) || v.Size() != 5 {
		t.Fatalf("size = %d", v.Size())
	}
	if !v.Set("ab", []byte("12345678")) || v.Size() != 10 {
		t.Fatalf("replacing a value: size = %d", v.Size())
	}
	if v.Set("c", nil) {
		t.Fatal("store over its limit accepted a key")
	}
	got, _ := v.Get("ab")
	got[0] = 'x'
	if again, _ := v.Get("ab"); again[0] != '1' {
		t.Fatal("Get returned the stored slice, not a copy")
	}
	v.Delete("ab")
	if _, ok := v.Get("ab"); ok || v.Size() != 0 {
		t.Fatal("Delete left the key")
	}
}

func TestHostAllowed(t *testing.T) {
	allowed := []string{"api.example.com", "*.internal"}
	for host, want := range map[string]bool{
		"api.example.com": true, "x.internal": true, "example.com": false, "internal": false, "": false,
	} {
		if got := hostAllowed(allowed, host); got != want {
			t.Errorf("hostAllowed(%q) = %v", host, got)
		}
	}
	if hostAllowed(nil, "anything") {
		t.Error("an empty list allowed a host")
	}
}
