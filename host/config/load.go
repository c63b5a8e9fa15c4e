package config

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Schema is the JSON Schema of airlock.yaml.
//
//go:embed airlock.schema.json
var Schema []byte

// Problem is one thing wrong with a config file.
type Problem struct {
	File         string
	Line, Column int    // 0 when unknown
	Field        string // a path such as plugins[0].limits.memory; "" for the whole file
	Message      string
}

func (p Problem) String() string {
	var b strings.Builder
	b.WriteString(p.File)
	if p.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", p.Line, p.Column)
	}
	b.WriteString(": ")
	if p.Field != "" {
		b.WriteString(p.Field + ": ")
	}
	b.WriteString(p.Message)
	return b.String()
}

// Error lists every problem of a config file, one per line.
type Error struct{ Problems []Problem }

func (e *Error) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

// Load reads and validates the config file at path.
func Load(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	return Parse(path, data)
}

// Parse validates data as an airlock.yaml named name (for messages). Nothing
// is loaded or started: on any problem it returns an *Error listing them all.
func Parse(name string, data []byte) (*File, error) {
	fail := func(ps ...Problem) (*File, error) { return nil, &Error{Problems: ps} }
	file, err := parser.ParseBytes(data, 0)
	if err != nil {
		return fail(yamlProblem(name, err))
	}
	js, err := yaml.YAMLToJSON(data)
	if err != nil {
		return fail(yamlProblem(name, err))
	}
	js = bytes.TrimSpace(js)
	if len(js) == 0 || string(js) == "null" {
		js = []byte("{}") // an empty file is an empty config
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(js))
	if err != nil {
		return fail(Problem{File: name, Message: err.Error()})
	}
	sch, err := compiledSchema()
	if err != nil {
		return nil, err
	}
	if err := sch.Validate(doc); err != nil {
		var ve *jsonschema.ValidationError
		if !errors.As(err, &ve) {
			return fail(Problem{File: name, Message: err.Error()})
		}
		return fail(schemaProblems(name, file, ve)...)
	}
	f := &File{Path: name}
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	if err := dec.Decode(f); err != nil {
		return fail(Problem{File: name, Message: err.Error()})
	}
	if ps := f.check(file); len(ps) > 0 {
		return fail(ps...)
	}
	f.Resolve()
	return f, nil
}

// check finds what the schema cannot express.
func (f *File) check(file *ast.File) []Problem {
	var ps []Problem
	add := func(segs []string, msg string) {
		line, col := position(file, segs)
		ps = append(ps, Problem{File: f.Path, Line: line, Column: col, Field: fieldPath(segs), Message: msg})
	}
	for i, p := range f.Plugins {
		if m := p.Limits.Memory; m != 0 && (m < 64<<10 || m%(64<<10) != 0) {
			add([]string{"plugins", strconv.Itoa(i), "limits", "memory"}, "must be a multiple of 64KiB (one WebAssembly page), at least 64KiB")
		}
		if m := p.Limits.Memory; m > 4<<30 {
			add([]string{"plugins", strconv.Itoa(i), "limits", "memory"}, "must be at most 4GiB (the 32-bit WebAssembly limit)")
		}
	}
	names := make([]string, 0, len(f.Interceptors.Overrides))
	for n := range f.Interceptors.Overrides {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		o := f.Interceptors.Overrides[n]
		for j, h := range o.Hooks {
			for k, e := range h.Events {
				if !eventPattern(e) {
					add([]string{"interceptors", "overrides", n, "hooks", strconv.Itoa(j), "events", strconv.Itoa(k)},
						fmt.Sprintf("%q is not an event, \"*\" or a namespace glob like \"tools/*\"", e))
				}
			}
		}
	}
	return ps
}

func eventPattern(e string) bool {
	return e == "*" || (strings.Contains(e, "/") && !strings.Contains(strings.TrimSuffix(e, "/*"), "*"))
}

var (
	schemaOnce sync.Once
	schema     *jsonschema.Schema
	schemaErr  error
)

func compiledSchema() (*jsonschema.Schema, error) {
	schemaOnce.Do(func() {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(Schema))
		if err != nil {
			schemaErr = err
			return
		}
		c := jsonschema.NewCompiler()
		if err := c.AddResource("airlock.schema.json", doc); err != nil {
			schemaErr = err
			return
		}
		schema, schemaErr = c.Compile("airlock.schema.json")
	})
	return schema, schemaErr
}

// schemaProblems turns the leaf causes of a validation error into problems
// with positions. A failed oneOf reports its own message rather than every
// branch's: "must be a string or a list" reads better than two half-truths.
func schemaProblems(name string, file *ast.File, ve *jsonschema.ValidationError) []Problem {
	printer := message.NewPrinter(language.English)
	var ps []Problem
	seen := map[string]bool{}
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 && !isOneOf(e) {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		segs := e.InstanceLocation
		msg := e.ErrorKind.LocalizedString(printer)
		if pk, ok := e.ErrorKind.(*kind.Pattern); ok {
			msg = patternMessage(e.SchemaURL, pk, msg)
		}
		if isOneOf(e) {
			msg = oneOfMessage(e, printer)
		}
		line, col := position(file, segs)
		p := Problem{File: name, Line: line, Column: col, Field: fieldPath(segs), Message: msg}
		if key := p.String(); !seen[key] {
			seen[key] = true
			ps = append(ps, p)
		}
	}
	walk(ve)
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].Line < ps[j].Line })
	return ps
}

// patternHints say in words what a pattern in the schema wants.
var patternHints = []struct{ where, want string }{
	{"/$defs/size", "a size is a whole number and B, KiB, MiB or GiB, e.g. 64MiB"},
	{"/$defs/duration", "a duration is like 500ms, 2s or 1m30s"},
	{"/sha256", "a SHA-256 is 64 hexadecimal digits (sha256sum FILE)"},
	{"/url", "use an http:// or https:// URL"},
	{"/listen/properties/http", "use host:port, e.g. 127.0.0.1:8080"},
}

func patternMessage(schemaURL string, k *kind.Pattern, fallback string) string {
	for _, h := range patternHints {
		if strings.HasSuffix(schemaURL, h.where) {
			return fmt.Sprintf("%q: %s", fmt.Sprint(k.Got), h.want)
		}
	}
	return fallback
}

func isOneOf(e *jsonschema.ValidationError) bool {
	_, ok := e.ErrorKind.(*kind.OneOf)
	return ok
}

// oneOfMessage says what the alternatives wanted, from their leaf messages.
func oneOfMessage(e *jsonschema.ValidationError, p *message.Printer) string {
	if k := e.ErrorKind.(*kind.OneOf); len(k.Subschemas) > 1 {
		return "matches more than one of the allowed forms: give only one of them (for example command or url, not both)"
	}
	var alts []string
	for _, c := range e.Causes {
		for len(c.Causes) == 1 {
			c = c.Causes[0]
		}
		alts = append(alts, c.ErrorKind.LocalizedString(p))
	}
	if len(alts) == 0 {
		return e.ErrorKind.LocalizedString(p)
	}
	return "matches none of the allowed forms: " + strings.Join(alts, "; or ")
}

// fieldPath renders JSON pointer segments as plugins[0].limits.memory.
func fieldPath(segs []string) string {
	var b strings.Builder
	for _, s := range segs {
		if _, err := strconv.Atoi(s); err == nil {
			b.WriteString("[" + s + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s)
	}
	return b.String()
}

// position finds the line and column of the value at segs, or of the
// deepest ancestor that exists (for a missing property: its object).
func position(file *ast.File, segs []string) (line, col int) {
	if file == nil || len(file.Docs) == 0 || file.Docs[0].Body == nil {
		return 1, 1
	}
	node := file.Docs[0].Body
	line, col = pos(node)
	for _, s := range segs {
		next, keyLine, keyCol := child(node, s)
		if next == nil {
			return line, col
		}
		node = next
		if keyLine > 0 {
			line, col = keyLine, keyCol
		} else {
			line, col = pos(next)
		}
	}
	return line, col
}

func pos(n ast.Node) (int, int) {
	// A mapping is where its first key is, not where the tokenizer put it
	// (at a colon): that is the line a person looks at.
	switch v := n.(type) {
	case *ast.MappingNode:
		if len(v.Values) > 0 {
			return pos(v.Values[0].Key)
		}
	case *ast.MappingValueNode:
		return pos(v.Key)
	}
	if t := n.GetToken(); t != nil && t.Position != nil {
		return t.Position.Line, t.Position.Column
	}
	return 0, 0
}

// child returns the value under key (mapping) or index (sequence), and for a
// mapping the position of the key, which is where a person looks.
func child(n ast.Node, seg string) (ast.Node, int, int) {
	switch v := n.(type) {
	case *ast.DocumentNode:
		return child(v.Body, seg)
	case *ast.MappingNode:
		for _, mv := range v.Values {
			if keyText(mv.Key) == seg {
				l, c := pos(mv.Key)
				return mv.Value, l, c
			}
		}
	case *ast.MappingValueNode:
		if keyText(v.Key) == seg {
			l, c := pos(v.Key)
			return v.Value, l, c
		}
	case *ast.SequenceNode:
		i, err := strconv.Atoi(seg)
		if err == nil && i >= 0 && i < len(v.Values) {
			return v.Values[i], 0, 0
		}
	case *ast.TagNode:
		return child(v.Value, seg)
	case *ast.AnchorNode:
		return child(v.Value, seg)
	}
	return nil, 0, 0
}

func keyText(k ast.MapKeyNode) string {
	if s, ok := k.(*ast.StringNode); ok {
		return s.Value
	}
	return strings.Trim(k.String(), `"'`)
}

// yamlProblem turns a YAML syntax error into a problem with its position.
func yamlProblem(name string, err error) Problem {
	p := Problem{File: name, Message: "not valid YAML: " + err.Error()}
	var se yaml.Error
	if errors.As(err, &se) {
		if t := se.GetToken(); t != nil && t.Position != nil {
			p.Line, p.Column = t.Position.Line, t.Position.Column
		}
		p.Message = "not valid YAML: " + se.GetMessage()
	}
	return p
}
