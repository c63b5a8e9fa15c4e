package pdk

import (
	"fmt"
	"strings"

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
	if err := jsonscan.WalkStrings(doc, func(p []string, s string) { fn(Path(p), s) }); err != nil {
		return fmt.Errorf("pdk: %w", err)
	}
	return nil
}

// RewriteStrings returns doc with every string value replaced by what fn
// returns for it when fn reports true. Only the replaced strings are
// re-encoded; every other byte (white space, key order, numbers) is kept.
// changed is false (and out is doc) when fn replaced nothing, or only with
// identical strings.
func RewriteStrings(doc []byte, fn func(path Path, s string) (string, bool)) (out []byte, changed bool, err error) {
	out, changed, err = jsonscan.RewriteStrings(doc, func(p []string, s string) (string, bool) { return fn(Path(p), s) })
	if err != nil {
		return nil, false, fmt.Errorf("pdk: %w", err)
	}
	return out, changed, nil
}

// appendJSONString appends s as a JSON string; see [jsonscan.AppendString].
func appendJSONString(dst []byte, s string) []byte { return jsonscan.AppendString(dst, s) }
