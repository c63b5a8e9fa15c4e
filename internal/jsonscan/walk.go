package jsonscan

import (
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// WalkStrings calls fn for every string value in doc (object keys are not
// values), depth first in document order, with the value's path as its
// reference tokens (object keys unescaped, array indexes in decimal). The
// path slice is reused after fn returns.
func WalkStrings(doc []byte, fn func(path []string, s string)) error {
	w := walker{b: doc, visit: func(p []string, s string) (string, bool) { fn(p, s); return "", false }}
	return w.run()
}

// RewriteStrings returns doc with every string value replaced by what fn
// returns for it when fn reports true. Only the replaced strings are
// re-encoded; every other byte is kept. changed is false (and out is doc)
// when fn replaced nothing, or only with identical strings.
func RewriteStrings(doc []byte, fn func(path []string, s string) (string, bool)) (out []byte, changed bool, err error) {
	w := walker{b: doc, visit: fn, rewrite: true}
	if err := w.run(); err != nil {
		return nil, false, err
	}
	if !w.changed {
		return doc, false, nil
	}
	return append(w.out, doc[w.last:]...), true, nil
}

type walker struct {
	b       []byte
	i       int
	path    []string
	visit   func([]string, string) (string, bool)
	rewrite bool
	out     []byte
	last    int
	changed bool
	depth   int
}

var errSyntax = errors.New("not valid JSON")

func (w *walker) run() (err error) {
	w.ws()
	if err := w.value(); err != nil {
		return fmt.Errorf("walking JSON at byte %d: %w", w.i, err)
	}
	if w.ws(); w.i != len(w.b) {
		return fmt.Errorf("walking JSON: trailing data at byte %d", w.i)
	}
	return nil
}

func (w *walker) ws() {
	for w.i < len(w.b) {
		switch w.b[w.i] {
		case ' ', '\t', '\n', '\r':
			w.i++
		default:
			return
		}
	}
}

func (w *walker) value() error {
	if w.i >= len(w.b) {
		return errSyntax
	}
	switch w.b[w.i] {
	case '{':
		return w.object()
	case '[':
		return w.array()
	case '"':
		start := w.i
		s, err := w.str()
		if err != nil {
			return err
		}
		if repl, ok := w.visit(w.path, s); ok && w.rewrite && repl != s {
			w.out = append(w.out, w.b[w.last:start]...)
			w.out = AppendString(w.out, repl)
			w.last = w.i
			w.changed = true
		}
		return nil
	}
	// A number or a literal: skip to the next delimiter.
	start := w.i
	for w.i < len(w.b) {
		switch w.b[w.i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			if w.i == start {
				return errSyntax
			}
			return nil
		}
		w.i++
	}
	if w.i == start {
		return errSyntax
	}
	return nil
}

func (w *walker) object() error {
	if w.depth++; w.depth > 10000 {
		return errors.New("nested too deeply")
	}
	defer func() { w.depth-- }()
	w.i++ // {
	w.ws()
	if w.i < len(w.b) && w.b[w.i] == '}' {
		w.i++
		return nil
	}
	for {
		w.ws()
		if w.i >= len(w.b) || w.b[w.i] != '"' {
			return errSyntax
		}
		key, err := w.str()
		if err != nil {
			return err
		}
		w.ws()
		if w.i >= len(w.b) || w.b[w.i] != ':' {
			return errSyntax
		}
		w.i++
		w.ws()
		w.path = append(w.path, key)
		if err := w.value(); err != nil {
			return err
		}
		w.path = w.path[:len(w.path)-1]
		w.ws()
		if w.i >= len(w.b) {
			return errSyntax
		}
		switch w.b[w.i] {
		case ',':
			w.i++
		case '}':
			w.i++
			return nil
		default:
			return errSyntax
		}
	}
}

func (w *walker) array() error {
	if w.depth++; w.depth > 10000 {
		return errors.New("nested too deeply")
	}
	defer func() { w.depth-- }()
	w.i++ // [
	w.ws()
	if w.i < len(w.b) && w.b[w.i] == ']' {
		w.i++
		return nil
	}
	for n := 0; ; n++ {
		w.ws()
		w.path = append(w.path, strconv.Itoa(n))
		if err := w.value(); err != nil {
			return err
		}
		w.path = w.path[:len(w.path)-1]
		w.ws()
		if w.i >= len(w.b) {
			return errSyntax
		}
		switch w.b[w.i] {
		case ',':
			w.i++
		case ']':
			w.i++
			return nil
		default:
			return errSyntax
		}
	}
}

// str reads the string at w.i (on its opening quote) and returns its value.
func (w *walker) str() (string, error) {
	start := w.i
	end, escaped, err := SkipString(w.b, w.i)
	if err != nil {
		return "", err
	}
	w.i = end
	raw := w.b[start:end]
	if !escaped {
		return string(raw[1 : len(raw)-1]), nil
	}
	return string(AppendUnquote(nil, raw)), nil
}

// AppendString appends s as a JSON string. Unlike encoding/json it does
// not escape <, > and &, so text stays readable; invalid UTF-8 becomes
// U+FFFD.
func AppendString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	// Runs of bytes that need no escape are copied whole: appending byte by
	// byte costs several times more inside WebAssembly.
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
