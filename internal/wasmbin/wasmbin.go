// Package wasmbin reads the little of a WebAssembly binary that Airlock needs
// without compiling it: the imports (wazero's compiled-module API does not
// expose imported tables and globals, and the host refuses every import it
// does not provide, listing them all at load rather than failing later at
// instantiation with the first one only) and the export names (which
// `airlock plugin inspect` shows).
package wasmbin

import (
	"errors"
	"fmt"
)

// Kinds of import, as encoded in the import section.
const (
	KindFunc   byte = 0
	KindTable  byte = 1
	KindMemory byte = 2
	KindGlobal byte = 3
)

// Import is one entry of the import section.
type Import struct {
	Module, Name string
	Kind         byte
}

// KindName names an import kind for messages.
func KindName(k byte) string {
	switch k {
	case KindFunc:
		return "function"
	case KindTable:
		return "table"
	case KindMemory:
		return "memory"
	case KindGlobal:
		return "global"
	}
	return fmt.Sprintf("kind %d", k)
}

var errTruncated = errors.New("truncated module")

type reader struct {
	b []byte
	i int
}

func (r *reader) byte() (byte, error) {
	if r.i >= len(r.b) {
		return 0, errTruncated
	}
	c := r.b[r.i]
	r.i++
	return c, nil
}

func (r *reader) u32() (uint32, error) {
	var v uint32
	for shift := 0; shift < 35; shift += 7 {
		c, err := r.byte()
		if err != nil {
			return 0, err
		}
		v |= uint32(c&0x7f) << shift
		if c&0x80 == 0 {
			return v, nil
		}
	}
	return 0, errors.New("malformed LEB128 integer")
}

func (r *reader) name() (string, error) {
	n, err := r.u32()
	if err != nil {
		return "", err
	}
	if uint64(r.i)+uint64(n) > uint64(len(r.b)) {
		return "", errTruncated
	}
	s := string(r.b[r.i : r.i+int(n)])
	r.i += int(n)
	return s, nil
}

func (r *reader) limits() error {
	flags, err := r.byte()
	if err != nil {
		return err
	}
	if _, err := r.u32(); err != nil {
		return err
	}
	if flags&1 != 0 {
		_, err = r.u32()
	}
	return err
}

// section returns the payload of the first section with the given id of
// the module bin (which must start with the wasm magic number and
// version), or nil when there is none.
func section(bin []byte, want byte) (*reader, error) {
	if len(bin) < 8 {
		return nil, errTruncated
	}
	r := &reader{b: bin, i: 8}
	for r.i < len(r.b) {
		id, err := r.byte()
		if err != nil {
			return nil, err
		}
		size, err := r.u32()
		if err != nil {
			return nil, err
		}
		end := r.i + int(size)
		if end > len(r.b) || end < r.i {
			return nil, errTruncated
		}
		if id == want {
			return &reader{b: r.b[:end], i: r.i}, nil
		}
		r.i = end
	}
	return nil, nil
}

// Imports returns the import section of the module bin (which must start
// with the wasm magic number and version).
func Imports(bin []byte) ([]Import, error) {
	sec, err := section(bin, 2)
	if sec == nil {
		return nil, err
	}
	count, err := sec.u32()
	if err != nil {
		return nil, err
	}
	imports := make([]Import, 0, min(count, 1024))
	for range count {
		var im Import
		if im.Module, err = sec.name(); err != nil {
			return nil, err
		}
		if im.Name, err = sec.name(); err != nil {
			return nil, err
		}
		if im.Kind, err = sec.byte(); err != nil {
			return nil, err
		}
		switch im.Kind {
		case KindFunc:
			_, err = sec.u32()
		case KindTable:
			if _, err = sec.byte(); err == nil { // reference type
				err = sec.limits()
			}
		case KindMemory:
			err = sec.limits()
		case KindGlobal:
			if _, err = sec.byte(); err == nil { // value type
				_, err = sec.byte() // mutability
			}
		default:
			err = fmt.Errorf("unknown import kind %d", im.Kind)
		}
		if err != nil {
			return nil, err
		}
		imports = append(imports, im)
	}
	return imports, nil
}

// Exports returns the names in the export section of the module bin (which
// must start with the wasm magic number and version), in order.
func Exports(bin []byte) ([]string, error) {
	sec, err := section(bin, 7)
	if sec == nil {
		return nil, err
	}
	count, err := sec.u32()
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, min(count, 1024))
	for range count {
		name, err := sec.name()
		if err != nil {
			return nil, err
		}
		if _, err := sec.byte(); err != nil { // kind
			return nil, err
		}
		if _, err := sec.u32(); err != nil { // index
			return nil, err
		}
		names = append(names, name)
	}
	return names, nil
}
