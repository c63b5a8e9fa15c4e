package pdk

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/airlock-mcp/airlock/internal/jsonscan"
)

// Path is a location in a JSON document as its reference tokens (object keys
// and array indexes, unescaped). String gives the JSON Pointer (RFC 6901).
// A Path handed to a callback is reused afterwards: call String (or copy
// it) to keep it.
type Path []string

// String is the JSON Pointer: "" for the root, else "/a/0/b" with "~" and
// "/" in tokens escaped as "~0" and "~1".
func (p Path) String() string {
	var b strings.Builder
	for _, t := range p {
		b.WriteByte('/')
		if strings.ContainsAny(t, "~/") {
			t = strings.NewReplacer("~", "~0", "/", "~1").Replace(t)
		}
		b.WriteString(t)
	}
	return b.String()
}

// Last is the last token, or "" for the root.
func (p Path) Last() string {
	if len(p) == 0 {
		return ""
	}
	return p[len(p)-1]
}

// WalkStrings calls fn for every string value in doc (object keys are not
// values), depth first in document order, with the value's path. doc must
// be valid JSON.
func WalkStrings(doc []byte, fn func(path Path, s string)) error {
	w := walker{b: doc, visit: func(p Path, s string) (string, bool) { fn(p, s); return "", false }}
	return w.run()
}

// RewriteStrings returns doc with every string value replaced by what fn
// returns for it when fn reports true. Only the replaced strings are
// re-encoded; every other byte (white space, key order, numbers) is kept.
// changed is false (and out is doc) when fn replaced nothing, or only with
// identical strings.
func RewriteStrings(doc []byte, fn func(path Path, s string) (string, bool)) (out []byte, changed bool, err error) {
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
	path    Path
	visit   func(Path, string) (string, bool)
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
		return fmt.Errorf("pdk: walking JSON at byte %d: %w", w.i, err)
	}
	if w.ws(); w.i != len(w.b) {
		return fmt.Errorf("pdk: walking JSON: trailing data at byte %d", w.i)
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
			w.out = appendJSONString(w.out, repl)
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
	end, escaped, err := jsonscan.SkipString(w.b, w.i)
	if err != nil {
		return "", err
	}
	w.i = end
	raw := w.b[start:end]
	if !escaped {
		return string(raw[1 : len(raw)-1]), nil
	}
	return string(jsonscan.AppendUnquote(nil, raw)), nil
}

// appendJSONString appends s as a JSON string. Unlike encoding/json it does
// not escape <, > and &, so text stays readable; invalid UTF-8 becomes
// U+FFFD.
func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				dst = append(dst, '\\', c)
			case c == '\n':
				dst = append(dst, '\\', 'n')
			case c == '\r':
				dst = append(dst, '\\', 'r')
			case c == '\t':
				dst = append(dst, '\\', 't')
			case c < 0x20:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				dst = append(dst, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			dst = append(dst, s[i:i+size]...)
		}
		i += size
	}
	return append(dst, '"')
}
