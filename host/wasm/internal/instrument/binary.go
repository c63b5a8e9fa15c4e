package instrument

import (
	"errors"
	"fmt"
)

var errTruncated = errors.New("truncated")

// reader reads a WebAssembly binary. Its first error sticks: every later read
// returns zero, so that a decoder checks err once per item, not per field.
type reader struct {
	b   []byte
	i   int
	err error
}

func (r *reader) fail(err error) {
	if r.err == nil {
		r.err = err
	}
	r.i = len(r.b)
}

func (r *reader) done() bool { return r.err != nil || r.i >= len(r.b) }

func (r *reader) byte() byte {
	if r.i >= len(r.b) {
		r.fail(errTruncated)
		return 0
	}
	c := r.b[r.i]
	r.i++
	return c
}

func (r *reader) bytes(n uint32) []byte {
	if uint64(n) > uint64(len(r.b)-r.i) {
		r.fail(errTruncated)
		return nil
	}
	s := r.b[r.i : r.i+int(n)]
	r.i += int(n)
	return s
}

// u32 reads an unsigned LEB128 of at most 32 bits.
func (r *reader) u32() uint32 {
	var v uint32
	for shift := 0; shift < 35; shift += 7 {
		c := r.byte()
		if r.err != nil {
			return 0
		}
		if shift == 28 && c&0x70 != 0 {
			break
		}
		v |= uint32(c&0x7f) << shift
		if c&0x80 == 0 {
			return v
		}
	}
	r.fail(errors.New("malformed unsigned LEB128"))
	return 0
}

// sleb skips a signed LEB128 of at most maxBits bits (s32, s33, s64); only
// its length matters to the rewriter.
func (r *reader) sleb(maxBits int) {
	for n := 0; n < (maxBits+6)/7; n++ {
		c := r.byte()
		if r.err != nil {
			return
		}
		if c&0x80 == 0 {
			return
		}
	}
	r.fail(errors.New("malformed signed LEB128"))
}

// name reads a length-prefixed UTF-8 name (not checked: wazero does).
func (r *reader) name() []byte { return r.bytes(r.u32()) }

func appendU32(b []byte, v uint32) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v == 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

func appendS64(b []byte, v int64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

func appendName(b []byte, s string) []byte {
	return append(appendU32(b, uint32(len(s))), s...)
}

// appendSection appends a section with its id and size.
func appendSection(b []byte, id byte, payload []byte) []byte {
	b = append(b, id)
	b = appendU32(b, uint32(len(payload)))
	return append(b, payload...)
}

// Value types of the core spec, SIMD and reference types.
func isValType(t byte) bool {
	switch t {
	case 0x7f, 0x7e, 0x7d, 0x7c, 0x7b, 0x70, 0x6f:
		return true
	}
	return false
}

func (r *reader) valType() byte {
	t := r.byte()
	if r.err == nil && !isValType(t) {
		r.fail(fmt.Errorf("unsupported value type 0x%02x", t))
	}
	return t
}
