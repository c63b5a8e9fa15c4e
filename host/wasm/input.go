package wasm

import (
	"strconv"
	"unicode/utf8"

	"github.com/airlock-mcp/airlock/internal/jsonscan"

	"github.com/airlock-mcp/airlock/spec"
)

// The invocation input is written by hand rather than with encoding/json:
// the payload (and config and _meta) go through byte for byte, with no
// re-encoding, and the direct ABI writes the input straight into guest
// memory, which needs its exact size first. inputSize and appendInput must
// agree byte for byte; a test checks it.

// inputSize returns the length of appendInput's output for p.
func inputSize(p *spec.InvokeParams, ctxJSON []byte) int {
	n := len(`{"name":,"event":,"phase":,"payload":}`) +
		stringSize(p.Name) + stringSize(p.Event) + stringSize(string(p.Phase)) + rawSize(p.Payload)
	if len(p.Config) > 0 {
		n += len(`,"config":`) + len(p.Config)
	}
	if p.TimeoutMs != 0 {
		var b [20]byte
		n += len(`,"timeoutMs":`) + len(strconv.AppendInt(b[:0], p.TimeoutMs, 10))
	}
	if len(ctxJSON) > 0 {
		n += len(`,"context":`) + len(ctxJSON)
	}
	if len(p.Meta) > 0 {
		n += len(`,"_meta":`) + len(p.Meta)
	}
	return n
}

// appendInput appends the interceptor/invoke params object of p to dst.
func appendInput(dst []byte, p *spec.InvokeParams, ctxJSON []byte) []byte {
	dst = append(dst, `{"name":`...)
	dst = jsonscan.AppendString(dst, p.Name)
	dst = append(dst, `,"event":`...)
	dst = jsonscan.AppendString(dst, p.Event)
	dst = append(dst, `,"phase":`...)
	dst = jsonscan.AppendString(dst, string(p.Phase))
	if len(p.Config) > 0 {
		dst = append(dst, `,"config":`...)
		dst = append(dst, p.Config...)
	}
	if p.TimeoutMs != 0 {
		dst = append(dst, `,"timeoutMs":`...)
		dst = strconv.AppendInt(dst, p.TimeoutMs, 10)
	}
	if len(ctxJSON) > 0 {
		dst = append(dst, `,"context":`...)
		dst = append(dst, ctxJSON...)
	}
	if len(p.Meta) > 0 {
		dst = append(dst, `,"_meta":`...)
		dst = append(dst, p.Meta...)
	}
	// The payload is last, as the direct ABI promises guests (abi/README.md
	// section 2.4): a guest finds it without reading it.
	dst = append(dst, `,"payload":`...)
	dst = appendRaw(dst, p.Payload)
	return append(dst, '}')
}

// An absent payload is written as null so that the input stays JSON.
func rawSize(b []byte) int {
	if len(b) == 0 {
		return len("null")
	}
	return len(b)
}

func appendRaw(dst, b []byte) []byte {
	if len(b) == 0 {
		return append(dst, "null"...)
	}
	return append(dst, b...)
}

// stringSize is len(jsonscan.AppendString(nil, s)) without building it.
func stringSize(s string) int {
	n := 2
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t':
				n += 2
			case c < 0x20:
				n += 6
			default:
				n++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1, r == '\u2028' || r == '\u2029':
			n += 6
		default:
			n += size
		}
		i += size
	}
	return n
}
