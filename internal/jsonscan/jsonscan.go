// Package jsonscan reads JSON without reflection: it validates values,
// iterates over the members of an object, unquotes strings and walks string
// values, all on the raw bytes and with no allocation on the common path.
//
// It exists for code that runs inside WebAssembly guests (the Go PDK, test
// and benchmark plugins), where encoding/json's reflection costs far more
// than the work around it. Its rules are encoding/json's: what [Valid]
// accepts is what json.Valid accepts (invalid UTF-8 inside strings
// included), nesting is limited to the same depth, and [AppendUnquote]
// decodes a string exactly as json.Unmarshal does (invalid UTF-8 and lone
// surrogates become U+FFFD). Fuzz tests check both against encoding/json.
package jsonscan

import (
	"bytes"
	"errors"
	"fmt"
	"unicode/utf16"
	"unicode/utf8"
)

// MaxDepth is the deepest nesting accepted, as in encoding/json.
const MaxDepth = 10000

// SyntaxError is malformed JSON at byte offset Off.
type SyntaxError struct {
	Off int
	Msg string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("invalid JSON at byte %d: %s", e.Off, e.Msg)
}

func syntax(off int, msg string) error { return &SyntaxError{Off: off, Msg: msg} }

// Space returns the index of the first byte at or after i that is not JSON
// white space.
func Space(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// Valid reports whether b is one JSON value, white space around it allowed.
func Valid(b []byte) bool {
	_, _, err := Value(b)
	return err == nil
}

// Value returns the bounds of the one JSON value b holds (white space around
// it allowed), validated.
func Value(b []byte) (start, end int, err error) {
	start = Space(b, 0)
	end, err = Skip(b, start)
	if err != nil {
		return 0, 0, err
	}
	if j := Space(b, end); j != len(b) {
		return 0, 0, syntax(j, "data after the value")
	}
	return start, end, nil
}

// Skip validates the JSON value that starts at b[i] (no leading white space)
// and returns the index just past it.
func Skip(b []byte, i int) (int, error) { return skip(b, i, 0) }

// skip is Skip for a value nested in outer open containers.
func skip(b []byte, i, outer int) (int, error) {
	// stack holds the open containers, '{' or '['.
	var buf [64]byte
	stack := buf[:0]
	for {
		// A value is expected at i.
		if i >= len(b) {
			return i, syntax(i, "unexpected end of input")
		}
		closed := true
		switch c := b[i]; c {
		case '{', '[':
			if len(stack)+outer >= MaxDepth {
				return i, syntax(i, "exceeded max depth")
			}
			end := byte('}')
			if c == '[' {
				end = ']'
			}
			i = Space(b, i+1)
			if i < len(b) && b[i] == end {
				i++
				break
			}
			stack = append(stack, c)
			if c == '{' {
				var err error
				if i, err = skipKey(b, i); err != nil {
					return i, err
				}
			}
			closed = false
		case '"':
			var err error
			if i, _, err = SkipString(b, i); err != nil {
				return i, err
			}
		case 't':
			if !bytes.HasPrefix(b[i:], []byte("true")) {
				return i, syntax(i, "invalid literal")
			}
			i += 4
		case 'f':
			if !bytes.HasPrefix(b[i:], []byte("false")) {
				return i, syntax(i, "invalid literal")
			}
			i += 5
		case 'n':
			if !bytes.HasPrefix(b[i:], []byte("null")) {
				return i, syntax(i, "invalid literal")
			}
			i += 4
		default:
			var err error
			if i, err = skipNumber(b, i); err != nil {
				return i, err
			}
		}
		if !closed {
			i = Space(b, i)
			continue
		}
		// A value ended at i: close containers until one goes on.
		for {
			if len(stack) == 0 {
				return i, nil
			}
			i = Space(b, i)
			if i >= len(b) {
				return i, syntax(i, "unexpected end of input")
			}
			top := stack[len(stack)-1]
			c := b[i]
			if c == ',' {
				i = Space(b, i+1)
				if top == '{' {
					var err error
					if i, err = skipKey(b, i); err != nil {
						return i, err
					}
				}
				break
			}
			if (top == '{' && c == '}') || (top == '[' && c == ']') {
				stack = stack[:len(stack)-1]
				i++
				continue
			}
			return i, syntax(i, "expected ',' or the end of the container")
		}
	}
}

// skipKey reads `"key" :` at i and returns the index of the value after it.
func skipKey(b []byte, i int) (int, error) {
	if i >= len(b) || b[i] != '"' {
		return i, syntax(i, "expected a string key")
	}
	i, _, err := SkipString(b, i)
	if err != nil {
		return i, err
	}
	i = Space(b, i)
	if i >= len(b) || b[i] != ':' {
		return i, syntax(i, "expected ':'")
	}
	return Space(b, i+1), nil
}

// SkipString validates the string literal at b[i] (on its opening quote) and
// returns the index just past its closing quote and whether it contains
// escapes.
func SkipString(b []byte, i int) (end int, escaped bool, err error) {
	for i++; i < len(b); i++ {
		c := b[i]
		switch {
		case c == '"':
			return i + 1, escaped, nil
		case c == '\\':
			escaped = true
			i++
			if i >= len(b) {
				return i, escaped, syntax(i, "unterminated string")
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(b) || hex4(b[i+1:i+5]) < 0 {
					return i, escaped, syntax(i, `invalid \u escape`)
				}
				i += 4
			default:
				return i, escaped, syntax(i, "invalid escape")
			}
		case c < 0x20:
			return i, escaped, syntax(i, "control character in string")
		}
	}
	return i, escaped, syntax(i, "unterminated string")
}

func skipNumber(b []byte, i int) (int, error) {
	start := i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i++; i < len(b) && isDigit(b[i]); i++ {
		}
	default:
		return start, syntax(start, "invalid value")
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || !isDigit(b[i]) {
			return i, syntax(i, "invalid number")
		}
		for i++; i < len(b) && isDigit(b[i]); i++ {
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || !isDigit(b[i]) {
			return i, syntax(i, "invalid number")
		}
		for i++; i < len(b) && isDigit(b[i]); i++ {
		}
	}
	return i, nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// hex4 decodes four hex digits, or returns -1.
func hex4(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r<<4 | rune(c)
	}
	return r
}

// ErrNotObject is returned by [Members] for a value that is not an object.
var ErrNotObject = errors.New("not a JSON object")

// Members validates b, which must hold one JSON value (white space around
// it allowed), and calls fn for each member of it in order, with the key's
// raw literal (quotes included) and the value's raw bytes. A value that is
// not an object is ErrNotObject (after validation, so a syntax error wins);
// an error from fn stops the iteration and is returned.
func Members(b []byte, fn func(key, val []byte) error) error { return members(b, fn, false, "") }

// MembersTrusted is Members for input that is known to be valid JSON, or
// whose member values the caller checks itself: the object's own structure
// and keys are validated, but each value is only delimited (strings and
// nesting followed, see [SkipTrusted]), which is several times cheaper for
// large values. Every input Members accepts it accepts the same way.
func MembersTrusted(b []byte, fn func(key, val []byte) error) error {
	return members(b, fn, true, "")
}

// MembersLast is MembersTrusted for input whose producer guarantees that
// the member named last, when present, is the object's final member and
// appears once (the direct ABI's host writes the payload that way): that
// member's value is taken as everything between its colon and the object's
// closing brace, without being scanned, and the iteration ends with it. It
// is what makes a large payload cost nothing to find. On input that breaks
// the guarantee the value is wrong; it is never out of b's bounds.
func MembersLast(b []byte, last string, fn func(key, val []byte) error) error {
	return members(b, fn, true, last)
}

func members(b []byte, fn func(key, val []byte) error, trusted bool, last string) error {
	i := Space(b, 0)
	if i >= len(b) || b[i] != '{' {
		if _, _, err := Value(b); err != nil {
			return err
		}
		return ErrNotObject
	}
	i = Space(b, i+1)
	if i < len(b) && b[i] == '}' {
		if j := Space(b, i+1); j != len(b) {
			return syntax(j, "data after the value")
		}
		return nil
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return syntax(i, "expected a string key")
		}
		ks := i
		ke, _, err := SkipString(b, i)
		if err != nil {
			return err
		}
		i = Space(b, ke)
		if i >= len(b) || b[i] != ':' {
			return syntax(i, "expected ':'")
		}
		vs := Space(b, i+1)
		if last != "" && Key(b[ks:ke], last) {
			return lastMember(b, vs, b[ks:ke], fn)
		}
		// The object itself is one level of nesting.
		var ve int
		if trusted {
			ve, err = skipTrusted(b, vs, 1)
		} else {
			ve, err = skip(b, vs, 1)
		}
		if err != nil {
			return err
		}
		if err := fn(b[ks:ke], b[vs:ve]); err != nil {
			return err
		}
		i = Space(b, ve)
		if i >= len(b) {
			return syntax(i, "unexpected end of input")
		}
		switch b[i] {
		case ',':
			i = Space(b, i+1)
		case '}':
			if j := Space(b, i+1); j != len(b) {
				return syntax(j, "data after the value")
			}
			return nil
		default:
			return syntax(i, "expected ',' or '}'")
		}
	}
}

// lastMember calls fn with the value that starts at vs and ends at the
// object's closing brace.
func lastMember(b []byte, vs int, key []byte, fn func(key, val []byte) error) error {
	end := len(b)
	for end > vs && (b[end-1] == ' ' || b[end-1] == '\t' || b[end-1] == '\n' || b[end-1] == '\r') {
		end--
	}
	if end <= vs || b[end-1] != '}' {
		return syntax(end, "expected '}' at the end of the object")
	}
	ve := end - 1
	for ve > vs && (b[ve-1] == ' ' || b[ve-1] == '\t' || b[ve-1] == '\n' || b[ve-1] == '\r') {
		ve--
	}
	if ve == vs {
		return syntax(vs, "expected a value")
	}
	return fn(key, b[vs:ve])
}

// Key reports whether the raw key literal (quotes included) names name the
// way encoding/json matches a struct field: exactly, or equal under Unicode
// case folding.
func Key(raw []byte, name string) bool {
	in := raw[1 : len(raw)-1]
	if string(in) == name {
		return true
	}
	if bytes.IndexByte(in, '\\') < 0 {
		return bytes.EqualFold(in, []byte(name))
	}
	var buf [64]byte
	return bytes.EqualFold(AppendUnquote(buf[:0], raw), []byte(name))
}

// Unquote returns the value of the valid string literal raw (quotes
// included).
func Unquote(raw []byte) string {
	in := raw[1 : len(raw)-1]
	if bytes.IndexByte(in, '\\') < 0 && utf8.Valid(in) {
		return string(in)
	}
	return string(AppendUnquote(nil, raw))
}

// AppendUnquote appends the value of the valid string literal raw (quotes
// included) to dst, as encoding/json decodes it: escapes resolved, a valid
// surrogate pair joined, and a lone surrogate or an invalid UTF-8 byte
// replaced by U+FFFD.
func AppendUnquote(dst, raw []byte) []byte {
	in := raw[1 : len(raw)-1]
	for i := 0; i < len(in); {
		c := in[i]
		switch {
		case c == '\\' && i+1 < len(in):
			i++
			switch in[i] {
			case 'b':
				dst = append(dst, '\b')
			case 'f':
				dst = append(dst, '\f')
			case 'n':
				dst = append(dst, '\n')
			case 'r':
				dst = append(dst, '\r')
			case 't':
				dst = append(dst, '\t')
			case 'u':
				r := hex4(in[i+1:])
				i += 5
				if utf16.IsSurrogate(r) {
					if i+5 < len(in) && in[i] == '\\' && in[i+1] == 'u' {
						if r2 := hex4(in[i+2:]); r2 >= 0 {
							if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
								dst = utf8.AppendRune(dst, d)
								i += 6
								continue
							}
						}
					}
					r = utf8.RuneError
				}
				dst = utf8.AppendRune(dst, r)
				continue
			default: // '"', '\\', '/'
				dst = append(dst, in[i])
			}
			i++
		case c < utf8.RuneSelf:
			dst = append(dst, c)
			i++
		default:
			r, size := utf8.DecodeRune(in[i:])
			if r == utf8.RuneError && size == 1 {
				dst = utf8.AppendRune(dst, utf8.RuneError)
			} else {
				dst = append(dst, in[i:i+size]...)
			}
			i += size
		}
	}
	return dst
}

// SkipTrusted returns the end of the JSON value that starts at b[i],
// following only strings and nesting: it finds the end of every valid value
// exactly, but does not check literals, numbers, escapes or control
// characters. Strings are skipped with bytes.IndexByte.
func SkipTrusted(b []byte, i int) (int, error) { return skipTrusted(b, i, 0) }

func skipTrusted(b []byte, i, outer int) (int, error) {
	if i >= len(b) {
		return i, syntax(i, "unexpected end of input")
	}
	switch b[i] {
	case '"':
		return skipStringTrusted(b, i)
	case '{', '[':
		depth := outer
		for i < len(b) {
			switch b[i] {
			case '"':
				var err error
				if i, err = skipStringTrusted(b, i); err != nil {
					return i, err
				}
				continue
			case '{', '[':
				if depth++; depth > MaxDepth {
					return i, syntax(i, "exceeded max depth")
				}
			case '}', ']':
				if depth--; depth == outer {
					return i + 1, nil
				}
			}
			i++
		}
		return i, syntax(i, "unexpected end of input")
	case ',', '}', ']', ':':
		return i, syntax(i, "expected a value")
	}
	start := i
	for i < len(b) {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r', '"', '{', '[', ':':
			if i == start {
				return i, syntax(i, "expected a value")
			}
			return i, nil
		}
		i++
	}
	return i, nil
}

// skipStringTrusted returns the end of the string literal at b[i].
func skipStringTrusted(b []byte, i int) (int, error) {
	content := i + 1
	for j := content; ; {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return len(b), syntax(len(b), "unterminated string")
		}
		k += j
		// The quote is escaped when an odd number of backslashes precede it.
		n := 0
		for k-1-n >= content && b[k-1-n] == '\\' {
			n++
		}
		if n%2 == 0 {
			return k + 1, nil
		}
		j = k + 1
	}
}
