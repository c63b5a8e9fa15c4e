package wasm

// Why a fast path with a fallback, not a full hand-written decoder.
//
// Decoding a plugin's result with encoding/json (spec.Result.UnmarshalJSON)
// costs a few microseconds and over a dozen allocations for a tiny result,
// a third of a whole invocation. Nearly every result has one shape: the
// one the PDK writes (pdk/encode.go appendResult), with exact lowercase
// keys, each once, and values of the expected kinds. decodeFast reads that
// shape without reflection and with a handful of allocations.
//
// Matching encoding/json on everything else (case-insensitive keys,
// duplicate keys where the last one wins and maps merge, nulls that leave
// fields alone, unknown members, type errors and their messages) would
// mean re-implementing it, with every corner a chance to decide
// differently from the slow path and from the other hosts, which all use
// spec.Result's decoder. So decodeFast never decides anything on its own:
// it either returns exactly the Result the slow path would, or reports that
// it did not handle the input, and the slow path runs. It has no errors of
// its own, so error messages stay those of spec.Result. What it accepts it
// validates completely, as encoding/json would (syntax, nesting depth,
// strings, numbers); what it is unsure of it leaves to the slow path. The
// fuzz test FuzzDecodeResult holds it to that.

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"math/bits"
	"strconv"
	"unicode/utf8"

	"github.com/airlock-mcp/airlock/internal/jsonscan"
	"github.com/airlock-mcp/airlock/spec"
)

// Members of a result, one bit each, to refuse duplicates and to know which
// were present.
const (
	mInterceptor = 1 << iota
	mType
	mPhase
	mDurationMs
	mInfo
	mValid
	mSeverity
	mMessages
	mSuggestions
	mModified
	mPayload
	mRecorded
	mMetrics
)

// Strings a result names without them being copied: the interceptor called
// (kName) and the constants of constant.
const (
	kBlock = iota // not a constant: cut from the block
	kName
	kRequest
	kResponse
	kError
	kWarn
	kInfo
)

var constant = [...]string{
	kRequest:  string(spec.PhaseRequest),
	kResponse: string(spec.PhaseResponse),
	kError:    string(spec.SeverityError),
	kWarn:     string(spec.SeverityWarn),
	kInfo:     string(spec.SeverityInfo),
}

// text is a decoded string: a constant (k), or buf[s:e] of the decoder (the
// block every other string of a result is cut from). The zero text is "".
type text struct {
	k    uint8
	s, e int32
}

// span is a raw JSON value, out[s:e].
type span struct{ s, e int32 }

type fastMessage struct{ path, message, severity text }

type fastSuggestion struct {
	path  text
	value span
	has   bool // a "value" member was present
}

type fastMetric struct {
	key text
	v   float64
}

// few holds a few values in place and the rest on the heap.
type few[T any] struct {
	a    [4]T
	n    int
	more []T
}

func (f *few[T]) add(v T) {
	if f.n < len(f.a) {
		f.a[f.n] = v
	} else {
		f.more = append(f.more, v)
	}
	f.n++
}

func (f *few[T]) at(i int) *T {
	if i < len(f.a) {
		return &f.a[i]
	}
	return &f.more[i-len(f.a)]
}

// fastDecoder is the state of one decodeFast.
type fastDecoder struct {
	b    []byte
	name string // the interceptor called, reused when the result names it
	echo []byte // the input payload
	buf  []byte // the decoded strings, back to back

	seen                      int
	interceptor, phase, sev   text
	typ                       spec.Type
	durationMs                float64
	info, payload             span
	echoed                    bool // payload is the input payload
	valid, modified, recorded bool
	messages                  few[fastMessage]
	suggestions               few[fastSuggestion]
	metrics                   few[fastMetric]
}

// decodeFast decodes out, a plugin's result for params, when it has the
// canonical form plugins write; see the top of this file. ok is false when
// it did not handle out (which may or may not be a valid result): decode it
// with the slow path then. scratch is a buffer reused across calls.
//
// # Notes
//
// A payload byte for byte equal to params.Payload is not validated again
// (params.Payload is valid) and the result's Payload is params.Payload
// itself, not a copy. Every other raw member is copied: out lives in the
// guest's memory. All the result's strings share one allocation.
func decodeFast(out []byte, params *spec.InvokeParams, scratch *[]byte) (r *spec.Result, ok bool) {
	// Offsets are int32; the strings' block can be three times its input
	// (each invalid byte becomes U+FFFD).
	if len(out) > math.MaxInt32/4 {
		return nil, false
	}
	d := fastDecoder{b: out, name: params.Name, echo: params.Payload, buf: (*scratch)[:0]}
	ok = d.object()
	*scratch = d.buf[:0]
	if !ok {
		return nil, false
	}
	return d.result()
}

// object reads the whole output: one object, white space around it.
func (d *fastDecoder) object() bool {
	b := d.b
	i := jsonscan.Space(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = jsonscan.Space(b, i+1)
	if j := d.head(i); j > i {
		if i = jsonscan.Space(b, j); i < len(b) && b[i] == ',' {
			i = jsonscan.Space(b, i+1)
		} else {
			return false
		}
	}
	for {
		key, vs, ok := d.key(i)
		if !ok {
			return false
		}
		var bit int
		switch string(key) {
		case "interceptor":
			bit = mInterceptor
		case "type":
			bit = mType
		case "phase":
			bit = mPhase
		case "durationMs":
			bit = mDurationMs
		case "info":
			bit = mInfo
		case "valid":
			bit = mValid
		case "severity":
			bit = mSeverity
		case "messages":
			bit = mMessages
		case "suggestions":
			bit = mSuggestions
		case "modified":
			bit = mModified
		case "payload":
			bit = mPayload
		case "recorded":
			bit = mRecorded
		case "metrics":
			bit = mMetrics
		default:
			// Unknown, or a known one in another case.
			return false
		}
		if d.seen&bit != 0 {
			return false
		}
		d.seen |= bit
		if i, ok = d.member(bit, vs); !ok {
			return false
		}
		i = jsonscan.Space(b, i)
		if i >= len(b) {
			return false
		}
		switch b[i] {
		case ',':
			i = jsonscan.Space(b, i+1)
		case '}':
			return jsonscan.Space(b, i+1) == len(b)
		default:
			return false
		}
	}
}

// head reads the members the PDK writes first, as it writes them:
// "interceptor":"<the name called>","type":"<type>","phase":"<phase>", and
// returns the index past them, or i when b is not written so.
func (d *fastDecoder) head(i int) int {
	b := d.b[i:]
	const p1, p2, p3 = `"interceptor":"`, `","type":"`, `","phase":"`
	if !bytes.HasPrefix(b, []byte(p1)) || !bytes.HasPrefix(b[len(p1):], []byte(d.name)) {
		return i
	}
	n := len(p1) + len(d.name)
	// The name must be all of the string, and read as it is.
	if skipPlain(b[:n], len(p1)) != n || !bytes.HasPrefix(b[n:], []byte(p2)) {
		return i
	}
	n += len(p2)
	var typ spec.Type
	switch {
	case bytes.HasPrefix(b[n:], []byte(spec.TypeValidation)):
		typ = spec.TypeValidation
	case bytes.HasPrefix(b[n:], []byte(spec.TypeMutation)):
		typ = spec.TypeMutation
	case bytes.HasPrefix(b[n:], []byte(spec.TypeSink)):
		typ = spec.TypeSink
	default:
		return i
	}
	n += len(typ)
	if !bytes.HasPrefix(b[n:], []byte(p3)) {
		return i
	}
	n += len(p3)
	var phase uint8
	switch {
	case bytes.HasPrefix(b[n:], []byte(`request"`)):
		phase, n = kRequest, n+len(`request"`)
	case bytes.HasPrefix(b[n:], []byte(`response"`)):
		phase, n = kResponse, n+len(`response"`)
	default:
		return i
	}
	d.seen |= mInterceptor | mType | mPhase
	d.interceptor, d.typ, d.phase = text{k: kName}, typ, text{k: phase}
	return i + n
}

// plain[c] is true for the bytes a string literal holds as they are and
// that need no further look: printable ASCII but the quote and backslash.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// skipPlain returns the index of the first byte at or after i that is not
// plain, or len(b). It looks at eight bytes at a time.
func skipPlain(b []byte, i int) int {
	const lsb, msb = 0x0101010101010101, 0x8080808080808080
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		q, bs := x^(lsb*'"'), x^(lsb*'\\')
		// The high bit of each byte that is a quote, a backslash, below
		// 0x20 or from 0x80; the lowest one set is exact, the ones above
		// it may not be (borrows), which is all this needs.
		if m := ((q-lsb)&^q | (bs-lsb)&^bs | (x-lsb*0x20)&^x | x) & msb; m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for i < len(b) && plain[b[i]] {
		i++
	}
	return i
}

// key reads `"key" :` at i and returns the key's bytes (quotes excluded)
// and the index of the value. Only plain keys are handled: one with an
// escape or a byte beyond ASCII names no member as it is written.
func (d *fastDecoder) key(i int) (key []byte, vs int, ok bool) {
	b := d.b
	if i >= len(b) || b[i] != '"' {
		return nil, 0, false
	}
	j := skipPlain(b, i+1)
	if j >= len(b) || b[j] != '"' {
		return nil, 0, false
	}
	key = b[i+1 : j]
	j = jsonscan.Space(b, j+1)
	if j >= len(b) || b[j] != ':' {
		return nil, 0, false
	}
	return key, jsonscan.Space(b, j+1), true
}

// member reads the value of the top-level member bit at i and returns the
// index past it.
func (d *fastDecoder) member(bit, i int) (int, bool) {
	var ok bool
	switch bit {
	case mInterceptor:
		var lit []byte
		var clean bool
		if lit, i, clean, ok = d.str(i); ok {
			if clean && string(lit[1:len(lit)-1]) == d.name {
				d.interceptor = text{k: kName}
			} else {
				d.interceptor = d.text(lit, clean)
			}
		}
	case mType:
		var lit []byte
		if lit, i, _, ok = d.str(i); ok {
			switch string(lit[1 : len(lit)-1]) {
			case string(spec.TypeValidation):
				d.typ = spec.TypeValidation
			case string(spec.TypeMutation):
				d.typ = spec.TypeMutation
			case string(spec.TypeSink):
				d.typ = spec.TypeSink
			default:
				// An error, or an escaped spelling: the slow path decides.
				return i, false
			}
		}
	case mPhase:
		d.phase, i, ok = d.known(i, kRequest, kResponse, kResponse)
	case mSeverity:
		d.sev, i, ok = d.known(i, kError, kWarn, kInfo)
	case mDurationMs:
		d.durationMs, i, ok = d.number(i)
	case mInfo:
		d.info, i, ok = d.raw(i, 1)
	case mValid:
		d.valid, i, ok = d.bool(i)
	case mModified:
		d.modified, i, ok = d.bool(i)
	case mRecorded:
		d.recorded, i, ok = d.bool(i)
	case mPayload:
		if e := i + len(d.echo); echoable(d.echo) && bytes.HasPrefix(d.b[i:], d.echo) && echoEnds(d.b, e) {
			d.payload, d.echoed = span{int32(i), int32(e)}, true
			return e, true
		}
		d.payload, i, ok = d.raw(i, 1)
	case mMessages:
		i, ok = d.array(i, d.message)
	case mSuggestions:
		i, ok = d.array(i, d.suggestion)
	case mMetrics:
		i, ok = d.metricsObject(i)
	}
	return i, ok
}

// echoable reports whether p, a valid input payload, may stand for a member
// whose value has the same bytes: it does not end with white space (which
// would not be part of the member's value) and, nested one level deeper in
// a result, it is still within encoding/json's depth limit.
func echoable(p []byte) bool {
	if len(p) == 0 {
		return false
	}
	switch p[len(p)-1] {
	case ' ', '\t', '\n', '\r':
		return false
	}
	return depthWithin(p, jsonscan.MaxDepth-1)
}

// echoEnds reports whether a member's value that is a prefix of b ending
// at e ends the value: only white space before a ',' or '}'. A complete
// JSON value followed by that can only end there.
func echoEnds(b []byte, e int) bool {
	j := jsonscan.Space(b, e)
	return j < len(b) && (b[j] == ',' || b[j] == '}')
}

// str reads and validates the string literal at i. clean is true when it
// holds neither escapes nor invalid UTF-8: its value is its content.
func (d *fastDecoder) str(i int) (lit []byte, end int, clean, ok bool) {
	b := d.b
	if i >= len(b) || b[i] != '"' {
		return nil, i, false, false
	}
	j := i + 1
	ascii := true
	for {
		if j = skipPlain(b, j); j >= len(b) {
			return nil, i, false, false
		}
		if c := b[j]; c == '"' {
			break
		} else if c < 0x80 {
			// A backslash or a control character: the scanner decides.
			end, _, err := jsonscan.SkipString(b, i)
			if err != nil {
				return nil, i, false, false
			}
			return b[i:end], end, false, true
		}
		ascii = false
		j++
	}
	lit = b[i : j+1]
	return lit, j + 1, ascii || utf8.Valid(lit[1:len(lit)-1]), true
}

// text appends the value of the string literal lit to the block.
func (d *fastDecoder) text(lit []byte, clean bool) text {
	s := len(d.buf)
	if clean {
		d.buf = append(d.buf, lit[1:len(lit)-1]...)
	} else {
		d.buf = jsonscan.AppendUnquote(d.buf, lit)
	}
	return text{s: int32(s), e: int32(len(d.buf))}
}

// known reads the string at i: one of the constants a, b, c without
// copying, any other into the block.
func (d *fastDecoder) known(i int, a, b, c uint8) (text, int, bool) {
	lit, end, clean, ok := d.str(i)
	if !ok {
		return text{}, i, false
	}
	if clean {
		switch in := string(lit[1 : len(lit)-1]); in {
		case "":
			return text{}, end, true
		case constant[a]:
			return text{k: a}, end, true
		case constant[b]:
			return text{k: b}, end, true
		case constant[c]:
			return text{k: c}, end, true
		}
	}
	return d.text(lit, clean), end, true
}

// bool reads true or false at i; null and anything else are not handled.
func (d *fastDecoder) bool(i int) (v bool, end int, ok bool) {
	switch rest := d.b[i:]; {
	case bytes.HasPrefix(rest, []byte("true")):
		return true, i + 4, true
	case bytes.HasPrefix(rest, []byte("false")):
		return false, i + 5, true
	}
	return false, i, false
}

// number reads a number at i as encoding/json does into a float64:
// strconv.ParseFloat of the literal. One out of range is not handled.
func (d *fastDecoder) number(i int) (float64, int, bool) {
	if f, end, ok := d.decimal(i); ok {
		return f, end, true
	}
	b := d.b
	if i >= len(b) || (b[i] != '-' && (b[i] < '0' || b[i] > '9')) {
		return 0, i, false
	}
	end, err := jsonscan.Skip(b, i)
	if err != nil {
		return 0, i, false
	}
	f, err := strconv.ParseFloat(string(b[i:end]), 64)
	if err != nil {
		return 0, i, false
	}
	return f, end, true
}

// pow10 holds the powers of ten a float64 holds exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15}

// decimal reads the common numbers, like 1024 or -0.031, quicker than
// number: at most 15 digits and no exponent. The digits then make an
// integer and a power of ten that a float64 holds exactly, so one division,
// correctly rounded, gives the correctly rounded value of the literal,
// which is what strconv.ParseFloat returns (it takes the same shortcut).
// ok is false for anything else. The literal's end is not checked: the
// caller requires a ',', '}' or white space there.
func (d *fastDecoder) decimal(i int) (float64, int, bool) {
	b := d.b
	j := i
	neg := j < len(b) && b[j] == '-'
	if neg {
		j++
	}
	var m uint64
	n := 0 // digits in m
	switch {
	case j < len(b) && b[j] == '0':
		j++
	case j < len(b) && b[j] >= '1' && b[j] <= '9':
		for ; j < len(b) && b[j] >= '0' && b[j] <= '9'; j++ {
			m = m*10 + uint64(b[j]-'0')
			n++
		}
	default:
		return 0, i, false
	}
	frac := 0
	if j < len(b) && b[j] == '.' {
		j++
		for ; j < len(b) && b[j] >= '0' && b[j] <= '9'; j++ {
			m = m*10 + uint64(b[j]-'0')
			n++
			frac++
		}
		if frac == 0 {
			return 0, i, false
		}
	}
	if n > 15 || (j < len(b) && (b[j] == 'e' || b[j] == 'E')) {
		return 0, i, false
	}
	f := float64(m) / pow10[frac]
	if neg {
		f = -f
	}
	return f, j, true
}

// raw validates the JSON value at i, inside outer open containers.
func (d *fastDecoder) raw(i, outer int) (span, int, bool) {
	end, err := jsonscan.Skip(d.b, i)
	if err != nil || !depthWithin(d.b[i:end], jsonscan.MaxDepth-outer) {
		return span{}, i, false
	}
	return span{int32(i), int32(end)}, end, true
}

// depthWithin reports whether the valid JSON value v certainly nests no
// deeper than max: false when it might (the caller leaves it to the slow
// path). A value nested n deep has at least 2n bytes and n brackets.
func depthWithin(v []byte, max int) bool {
	if len(v) < 2*(max+1) {
		return true
	}
	return bytes.Count(v, []byte("{"))+bytes.Count(v, []byte("[")) <= max
}

// array reads an array at i whose elements elem reads; it is never null.
// An empty one is recorded by the member's bit alone.
func (d *fastDecoder) array(i int, elem func(int) (int, bool)) (int, bool) {
	b := d.b
	if i >= len(b) || b[i] != '[' {
		return i, false
	}
	i = jsonscan.Space(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1, true
	}
	for {
		var ok bool
		if i, ok = elem(i); !ok {
			return i, false
		}
		i = jsonscan.Space(b, i)
		if i >= len(b) {
			return i, false
		}
		switch b[i] {
		case ',':
			i = jsonscan.Space(b, i+1)
		case ']':
			return i + 1, true
		default:
			return i, false
		}
	}
}

// next reads what follows a member of an object at i: a ',' and the next
// key's index (more) or the '}' and the index past it.
func (d *fastDecoder) next(i int) (j int, more, ok bool) {
	b := d.b
	i = jsonscan.Space(b, i)
	if i >= len(b) {
		return i, false, false
	}
	switch b[i] {
	case ',':
		return jsonscan.Space(b, i+1), true, true
	case '}':
		return i + 1, false, true
	}
	return i, false, false
}

// open reads the '{' of an object at i and returns the index of its first
// key, or past its '}' when it is empty (more false).
func (d *fastDecoder) open(i int) (j int, more, ok bool) {
	b := d.b
	if i >= len(b) || b[i] != '{' {
		return i, false, false
	}
	i = jsonscan.Space(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, false, true
	}
	return i, true, true
}

// message reads one element of "messages": an object of strings.
func (d *fastDecoder) message(i int) (int, bool) {
	var m fastMessage
	var seen int
	i, more, ok := d.open(i)
	for ok && more {
		var key []byte
		if key, i, ok = d.key(i); !ok {
			break
		}
		var bit int
		switch string(key) {
		case "path":
			bit = 1
		case "message":
			bit = 2
		case "severity":
			bit = 4
		}
		if bit == 0 || seen&bit != 0 {
			return i, false
		}
		seen |= bit
		if bit == 4 {
			m.severity, i, ok = d.known(i, kError, kWarn, kInfo)
		} else {
			var lit []byte
			var clean bool
			if lit, i, clean, ok = d.str(i); ok {
				if bit == 1 {
					m.path = d.text(lit, clean)
				} else {
					m.message = d.text(lit, clean)
				}
			}
		}
		if ok {
			i, more, ok = d.next(i)
		}
	}
	if ok {
		d.messages.add(m)
	}
	return i, ok
}

// suggestion reads one element of "suggestions".
func (d *fastDecoder) suggestion(i int) (int, bool) {
	var s fastSuggestion
	var seen int
	i, more, ok := d.open(i)
	for ok && more {
		var key []byte
		if key, i, ok = d.key(i); !ok {
			break
		}
		switch string(key) {
		case "path":
			if seen&1 != 0 {
				return i, false
			}
			seen |= 1
			var lit []byte
			var clean bool
			if lit, i, clean, ok = d.str(i); ok {
				s.path = d.text(lit, clean)
			}
		case "value":
			if seen&2 != 0 {
				return i, false
			}
			seen |= 2
			// The value is in an object in an array in the result.
			s.value, i, ok = d.raw(i, 3)
			s.has = true
		default:
			return i, false
		}
		if ok {
			i, more, ok = d.next(i)
		}
	}
	if ok {
		d.suggestions.add(s)
	}
	return i, ok
}

// metricsObject reads "metrics": any keys, number values. A key given
// twice is fine: the last value wins, as in encoding/json.
func (d *fastDecoder) metricsObject(i int) (int, bool) {
	b := d.b
	i, more, ok := d.open(i)
	for ok && more {
		var lit []byte
		var clean bool
		if lit, i, clean, ok = d.str(i); !ok {
			break
		}
		if i = jsonscan.Space(b, i); i >= len(b) || b[i] != ':' {
			return i, false
		}
		var v float64
		if v, i, ok = d.number(jsonscan.Space(b, i+1)); !ok {
			break
		}
		d.metrics.add(fastMetric{d.text(lit, clean), v})
		i, more, ok = d.next(i)
	}
	return i, ok
}

// result builds the Result from what object read, applying the rules of
// spec.Result.UnmarshalJSON; an input it would refuse is not handled.
func (d *fastDecoder) result() (*spec.Result, bool) {
	if d.seen&mType == 0 {
		return nil, false
	}
	switch d.typ {
	case spec.TypeValidation:
		if d.seen&mValid == 0 {
			return nil, false
		}
	case spec.TypeMutation:
		if d.seen&mModified == 0 {
			return nil, false
		}
		if d.modified && (d.seen&mPayload == 0 || string(d.b[d.payload.s:d.payload.e]) == "null") {
			return nil, false
		}
	case spec.TypeSink:
		if d.seen&mRecorded == 0 {
			return nil, false
		}
	}

	// The raw members kept are copied into one block, strings into another.
	n := 0
	if d.seen&mInfo != 0 {
		n += int(d.info.e - d.info.s)
	}
	if d.typ == spec.TypeMutation && d.seen&mPayload != 0 && !d.echoed {
		n += int(d.payload.e - d.payload.s)
	}
	if d.typ == spec.TypeValidation {
		for i := range d.suggestions.n {
			if s := d.suggestions.at(i); s.has {
				n += int(s.value.e - s.value.s)
			}
		}
	}
	var raws []byte
	if n > 0 {
		raws = make([]byte, 0, n)
	}
	raw := func(v span) json.RawMessage {
		s := len(raws)
		raws = append(raws, d.b[v.s:v.e]...)
		return raws[s:len(raws):len(raws)]
	}
	block := string(d.buf)
	str := func(t text) string {
		switch t.k {
		case kBlock:
			return block[t.s:t.e]
		case kName:
			return d.name
		}
		return constant[t.k]
	}

	// A denial with one message, the most common result with messages,
	// takes one allocation for both.
	var r *spec.Result
	var messages []spec.Message
	if d.typ == spec.TypeValidation && d.messages.n == 1 {
		rm := new(struct {
			r spec.Result
			m [1]spec.Message
		})
		r, messages = &rm.r, rm.m[:]
	} else {
		r = new(spec.Result)
	}
	r.Interceptor = str(d.interceptor)
	r.Type = d.typ
	r.Phase = spec.Phase(str(d.phase))
	r.DurationMs = d.durationMs
	if d.seen&mInfo != 0 {
		r.Info = raw(d.info)
	}
	switch d.typ {
	case spec.TypeValidation:
		r.Valid = d.valid
		r.Severity = spec.Severity(str(d.sev))
		if d.seen&mMessages != 0 {
			if messages == nil {
				messages = make([]spec.Message, d.messages.n)
			}
			for i := range messages {
				m := d.messages.at(i)
				messages[i] = spec.Message{Path: str(m.path), Message: str(m.message), Severity: spec.Severity(str(m.severity))}
			}
			r.Messages = messages
		}
		if d.seen&mSuggestions != 0 {
			r.Suggestions = make([]spec.Suggestion, d.suggestions.n)
			for i := range r.Suggestions {
				s := d.suggestions.at(i)
				r.Suggestions[i].Path = str(s.path)
				if s.has {
					r.Suggestions[i].Value = raw(s.value)
				}
			}
		}
	case spec.TypeMutation:
		r.Modified = d.modified
		switch {
		case d.echoed:
			r.Payload = d.echo
		case d.seen&mPayload != 0:
			r.Payload = raw(d.payload)
		}
	case spec.TypeSink:
		r.Recorded = d.recorded
		if d.seen&mMetrics != 0 {
			r.Metrics = make(map[string]float64, d.metrics.n)
			for i := range d.metrics.n {
				m := d.metrics.at(i)
				r.Metrics[str(m.key)] = m.v
			}
		}
	}
	return r, true
}
