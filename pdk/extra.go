package pdk

import (
	"bytes"
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"sync"
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
		m[name] = true
	}
	knownNames.Store(t, m)
	return m
}

// unmarshalKeep decodes data into v (a pointer to a struct type without
// custom methods) and the members it does not name into *extra.
func unmarshalKeep(data []byte, v any, extra *Extra) error {
	if err := json.Unmarshal(data, v); err != nil {
		return err
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(data, &all); err != nil {
		return err
	}
	known := jsonNames(reflect.TypeOf(v).Elem())
	*extra = nil
	for k, raw := range all {
		if !known[k] {
			if *extra == nil {
				*extra = Extra{}
			}
			(*extra)[k] = raw
		}
	}
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
