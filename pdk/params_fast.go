package pdk

// The fast path of decoding the invoke params. Inside WebAssembly a Go
// allocation costs about 200 ns and a small function call tens of
// nanoseconds, so the general decoder (closures over a member iterator,
// case-folding key matches, a string allocated for each of name, event and
// phase) cost more than all the rest of a small call. Airlock's host always
// writes the params the same way (host/wasm/input.go): no white space, keys
// in their exact case and each once, plain strings, and the payload last.
// decodeFast reads exactly that form in one pass, allocating nothing: name,
// event and phase are the registered descriptor's own strings. Anything else
// it leaves to the general decoder, which accepts whatever encoding/json
// would; a test checks that both agree whenever the fast path answers.

import (
	"github.com/airlock-mcp/airlock/internal/jsonscan"
	"github.com/airlock-mcp/airlock/spec"
)

// Keys of the params, as bits of the set decodeFast has seen.
const (
	seenName = 1 << iota
	seenEvent
	seenPhase
	seenConfig
	seenTimeout
	seenContext
	seenMeta
)

// decodeFast decodes input in the form Airlock's host writes, and returns
// the interceptor it names. ok is false when input is in any other form
// (or names no interceptor): then nothing is decided and the general
// decoder must run.
func decodeFast(input []byte) (inv invocation, e *entry, ok bool) {
	n := len(input)
	if n < 2 || input[0] != '{' || input[n-1] != '}' {
		return inv, nil, false
	}
	var name, event, phase []byte
	seen := 0
	i := 1
	for {
		// A key: a plain ASCII string.
		if i >= n || input[i] != '"' {
			return inv, nil, false
		}
		ks := i + 1
		ke, plain := plainString(input, ks)
		if !plain || ke+1 >= n || input[ke+1] != ':' {
			return inv, nil, false
		}
		key := input[ks:ke]
		vs := ke + 2
		if string(key) == "payload" {
			// The last member: the value runs to the closing brace. White
			// space around it is left to the general decoder, which trims.
			if vs >= n-1 || isSpace(input[vs]) || isSpace(input[n-2]) {
				return inv, nil, false
			}
			inv.payload = input[vs : n-1 : n-1]
			break
		}
		var bit int
		var ve int
		switch string(key) {
		case "name", "event", "phase":
			if vs >= n || input[vs] != '"' {
				return inv, nil, false
			}
			end, plain := plainString(input, vs+1)
			if !plain {
				return inv, nil, false
			}
			ve = end + 1
			s := input[vs+1 : end]
			switch key[0] {
			case 'n':
				bit, name = seenName, s
			case 'e':
				bit, event = seenEvent, s
			default:
				bit, phase = seenPhase, s
			}
		case "timeoutMs":
			bit = seenTimeout
			var good bool
			if inv.timeoutMs, ve, good = plainInt(input, vs); !good {
				return inv, nil, false
			}
		case "config", "context", "_meta":
			if vs >= n {
				return inv, nil, false
			}
			var err error
			if ve, err = jsonscan.SkipTrusted(input, vs); err != nil {
				return inv, nil, false
			}
			raw := input[vs:ve:ve]
			switch key[1] {
			case 'o':
				if key[3] == 'f' {
					bit, inv.config = seenConfig, raw
				} else {
					if raw[0] != '{' {
						return inv, nil, false
					}
					bit, inv.ctx1 = seenContext, raw
				}
			default:
				bit, inv.meta = seenMeta, raw
			}
		default:
			return inv, nil, false
		}
		if seen&bit != 0 {
			return inv, nil, false // a duplicate: encoding/json's rules decide
		}
		seen |= bit
		if ve >= n || input[ve] != ',' {
			return inv, nil, false
		}
		i = ve + 1
	}
	if seen&(seenName|seenEvent|seenPhase) != seenName|seenEvent|seenPhase {
		return inv, nil, false
	}
	if e = lookup(name); e == nil {
		return inv, nil, false
	}
	switch string(phase) {
	case string(spec.PhaseRequest):
		inv.phase = spec.PhaseRequest
	case string(spec.PhaseResponse):
		inv.phase = spec.PhaseResponse
	default:
		return inv, nil, false
	}
	inv.name = e.desc.Name
	inv.event = e.event(event)
	return inv, e, true
}

// lookup returns the interceptor named name, or nil. A plugin has a few
// interceptors, and comparing a few strings costs less than hashing one
// inside WebAssembly (the runtime has no hardware hash there).
func lookup(name []byte) *entry {
	if len(entries) > 8 {
		return byName[string(name)]
	}
	for _, e := range entries {
		if e.desc.Name == string(name) {
			return e
		}
	}
	return nil
}

// event returns the event named by b: one of the descriptor's own strings
// when a hook names it (the host calls only events a hook covers, so a
// plain event name is always found), a new string otherwise.
func (e *entry) event(b []byte) string {
	for _, h := range e.desc.Hooks {
		for _, ev := range h.Events {
			if string(b) == ev {
				return ev
			}
		}
	}
	return string(b)
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// plainString returns the index of the closing quote of the string whose
// contents start at i, and whether those contents are plain: printable
// ASCII without escapes, so that the raw bytes are the value.
func plainString(b []byte, i int) (end int, plain bool) {
	for ; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			return i, true
		case c < 0x20 || c >= 0x80 || c == '\\':
			return i, false
		}
	}
	return i, false
}

// plainInt parses the positive integer without sign, fraction or exponent
// that starts at i (the form strconv.AppendInt gives a positive int64).
func plainInt(b []byte, i int) (v int64, end int, ok bool) {
	if i >= len(b) || b[i] < '1' || b[i] > '9' {
		return 0, i, false
	}
	for end = i; end < len(b) && b[end] >= '0' && b[end] <= '9'; end++ {
		if end-i == 18 {
			return 0, i, false // might overflow: the general path decides
		}
		v = v*10 + int64(b[end]-'0')
	}
	return v, end, true
}
