package pdk

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"

	"github.com/airlock-mcp/airlock/internal/jsonscan"
)

// Extra holds the members of a JSON object that a typed payload does not
// name. Decoding keeps them and encoding writes them back (after the known
// members), so a typed round trip loses nothing: a mutator that changes one
// field changes only that field.
type Extra map[string]json.RawMessage

var knownNames sync.Map // reflect.Type -> map[string]bool

func jsonNames(t reflect.Type) map[string]bool {
	if m, ok := knownNames.Load(t); ok {
		return m.(map[string]bool)
	}
	m := map[string]bool{}
	for _, f := range fieldsOf(t) {
		m[f.name] = true
	}
	knownNames.Store(t, m)
	return m
}

// field is one JSON member of a typed payload.
type field struct {
	name  string
	index int
	kind  fieldKind
}

type fieldKind uint8

const (
	kindOther  fieldKind = iota // decoded with encoding/json
	kindString                  // a plain string, decoded by hand
	kindRaw                     // json.RawMessage, kept as it is
)

var fieldCache sync.Map // reflect.Type -> []field

var rawType = reflect.TypeFor[json.RawMessage]()

// fieldsOf lists the JSON members of the struct type t.
func fieldsOf(t reflect.Type) []field {
	if fs, ok := fieldCache.Load(t); ok {
		return fs.([]field)
	}
	var fs []field
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		k := kindOther
		switch {
		case f.Type == rawType:
			k = kindRaw
		case f.Type.Kind() == reflect.String && !reflect.PointerTo(f.Type).Implements(unmarshalerType):
			k = kindString
		}
		fs = append(fs, field{name: name, index: i, kind: k})
	}
	fieldCache.Store(t, fs)
	return fs
}

// unmarshalKeep decodes data into v (a pointer to a struct type without
// custom methods) and the members it does not name into *extra, in one
// pass: strings and raw members by hand, other members with encoding/json.
// Keys match fields as encoding/json matches them (case-insensitively); the
// last of duplicate keys wins; null leaves a field alone.
func unmarshalKeep(data []byte, v any, extra *Extra) error {
	rv := reflect.ValueOf(v).Elem()
	fields := fieldsOf(rv.Type())
	var ex Extra
	err := jsonscan.Members(data, func(key, val []byte) error {
		for i := range fields {
			f := &fields[i]
			if !jsonscan.Key(key, f.name) {
				continue
			}
			fv := rv.Field(f.index)
			switch f.kind {
			case kindString:
				switch {
				case val[0] == '"':
					fv.SetString(jsonscan.Unquote(val))
				case !isNull(val):
					return fmt.Errorf("%s: %s is not a string", f.name, kind(val))
				}
			case kindRaw:
				fv.SetBytes(bytes.Clone(val))
			default:
				if err := json.Unmarshal(val, fv.Addr().Interface()); err != nil {
					return fmt.Errorf("%s: %w", f.name, err)
				}
			}
			return nil
		}
		if ex == nil {
			ex = Extra{}
		}
		ex[jsonscan.Unquote(key)] = bytes.Clone(val)
		return nil
	})
	if errors.Is(err, jsonscan.ErrNotObject) {
		if start, end, err := jsonscan.Value(data); err == nil && isNull(data[start:end]) {
			return nil
		}
		return fmt.Errorf("cannot decode %s into %s", kind(data[jsonscan.Space(data, 0):]), rv.Type())
	}
	if err != nil {
		return err
	}
	*extra = ex
	return nil
}

// marshalKeep encodes v (a struct without custom methods) followed by the
// members of extra, in key order.
func marshalKeep(v any, extra Extra) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil || len(extra) == 0 {
		return b, err
	}
	known := jsonNames(reflect.TypeOf(v))
	keys := make([]string, 0, len(extra))
	for k := range extra {
		if !known[k] {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var out bytes.Buffer
	out.Write(b[:len(b)-1])
	empty := len(b) == 2
	for _, k := range keys {
		if !empty {
			out.WriteByte(',')
		}
		empty = false
		kb, _ := json.Marshal(k)
		out.Write(kb)
		out.WriteByte(':')
		out.Write(extra[k])
	}
	out.WriteByte('}')
	return out.Bytes(), nil
}
