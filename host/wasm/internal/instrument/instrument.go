package instrument

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
)

// The function every rewritten module imports. It takes no argument and
// returns the fuel to continue with (an i64); it does not return when the
// call must stop.
const (
	ImportModule = "airlock:deadline"
	ImportName   = "tick"
)

// InitialFuel is the fuel an instance starts with, before its first tick.
const InitialFuel = 1 << 16

// Bulk operations are charged by their length: one unit per 4 bytes of
// memory, one per table element.
const (
	memShift   = 2
	tableShift = 0
)

// Stats count what was rewritten.
type Stats struct {
	Functions   int // function bodies
	EntryChecks int // functions checked at entry, not by a loop they start with
	Loops       int // loop headers, each with a check
	BulkOps     int // bulk memory and table operations, charged by length
}

// Rewrite returns bin with fuel checks: at every function entry and loop
// header the code subtracts from a new mutable i64 global the number of
// instructions it may run before the next check, and calls the imported
// [ImportModule].[ImportName] when the global drops below zero. The host's
// tick either stops the call (it panics with an exit error, which traps) or
// returns fresh fuel. Nothing else changes: the new import is appended after
// the existing function imports, so every defined function's index moves up
// by one, and every reference to one (calls, ref.func, exports, the start
// function, element segments, the name section) is renumbered. DWARF custom
// sections, whose code offsets would be wrong, are dropped.
//
// An error means the module uses something the rewriter does not know (or is
// malformed); the caller must then enforce deadlines another way.
func Rewrite(bin []byte) ([]byte, Stats, error) {
	var st Stats
	if len(bin) < 8 || !bytes.Equal(bin[:8], []byte{0, 'a', 's', 'm', 1, 0, 0, 0}) {
		return nil, st, errors.New("not a WebAssembly 1.0 binary module")
	}
	secs, err := split(bin)
	if err != nil {
		return nil, st, err
	}
	m := &module{}
	if err := m.scan(secs); err != nil {
		return nil, st, err
	}

	out := make([]byte, 0, len(bin)+len(bin)/4)
	out = append(out, bin[:8]...)
	// Sections the rewrite adds when the module has none, by rank.
	missing := map[byte]bool{secType: true, secImport: true, secGlobal: true}
	for _, s := range secs {
		if s.id != secCustom {
			delete(missing, s.id)
		}
	}
	emitMissing := func(before int) {
		for _, id := range []byte{secType, secImport, secGlobal} {
			if missing[id] && rank[id] < before {
				delete(missing, id)
				out = appendSection(out, id, m.newSection(id))
			}
		}
	}
	for _, s := range secs {
		if s.id != secCustom {
			emitMissing(rank[s.id])
		}
		var payload []byte
		switch s.id {
		case secCustom:
			payload, err = m.custom(s.payload)
			if payload == nil && err == nil {
				continue // dropped
			}
		case secType:
			payload = m.typeSection(s.payload)
		case secImport:
			payload = m.importSection(s.payload)
		case secGlobal:
			payload, err = m.globalSection(s.payload)
		case secExport:
			payload, err = m.exportSection(s.payload)
		case secStart:
			r := &reader{b: s.payload}
			payload = appendU32(nil, m.remap(r.u32()))
			err = r.err
		case secElement:
			payload, err = m.elementSection(s.payload)
		case secCode:
			payload, err = m.codeSection(s.payload, &st)
		default:
			payload = s.payload
		}
		if err != nil {
			return nil, st, fmt.Errorf("section %d: %w", s.id, err)
		}
		out = appendSection(out, s.id, payload)
	}
	emitMissing(1 << 10)
	return out, st, nil
}

// Section ids.
const (
	secCustom    = 0
	secType      = 1
	secImport    = 2
	secFunction  = 3
	secTable     = 4
	secMemory    = 5
	secGlobal    = 6
	secExport    = 7
	secStart     = 8
	secElement   = 9
	secCode      = 10
	secData      = 11
	secDataCount = 12
	secTag       = 13
)

// rank is the order sections must appear in.
var rank = map[byte]int{
	secType: 1, secImport: 2, secFunction: 3, secTable: 4, secMemory: 5, secTag: 6, secGlobal: 7,
	secExport: 8, secStart: 9, secElement: 10, secDataCount: 11, secCode: 12, secData: 13,
}

type section struct {
	id      byte
	payload []byte
}

func split(bin []byte) ([]section, error) {
	r := &reader{b: bin, i: 8}
	var secs []section
	last := 0
	for !r.done() {
		id := r.byte()
		payload := r.bytes(r.u32())
		if r.err != nil {
			return nil, fmt.Errorf("section %d: %w", id, r.err)
		}
		if id != secCustom {
			rk, ok := rank[id]
			if !ok {
				return nil, fmt.Errorf("unknown section %d", id)
			}
			if rk <= last {
				return nil, fmt.Errorf("section %d out of order", id)
			}
			last = rk
		}
		secs = append(secs, section{id, payload})
	}
	return secs, r.err
}

// module is what the rewrite needs to know about the input.
type module struct {
	types       [][]byte // each function type's encoding, 0x60 included
	paramCounts []uint32 // per type
	tickType    uint32   // index of () -> i64, maybe a new one
	newType     bool     // tickType must be appended
	funcImports uint32   // the new import's index; defined functions move up by one
	globals     uint32   // imported and defined: the new global's index
	funcTypes   []uint32 // type of each defined function
}

var tickSig = []byte{0x60, 0x00, 0x01, 0x7e}

func (m *module) scan(secs []section) error {
	for _, s := range secs {
		r := &reader{b: s.payload}
		switch s.id {
		case secType:
			n := r.u32()
			for i := uint32(0); i < n && r.err == nil; i++ {
				start := r.i
				if f := r.byte(); f != 0x60 && r.err == nil {
					return fmt.Errorf("type %d: unsupported form 0x%02x", i, f)
				}
				np := r.u32()
				for j := uint32(0); j < np && r.err == nil; j++ {
					r.valType()
				}
				nr := r.u32()
				for j := uint32(0); j < nr && r.err == nil; j++ {
					r.valType()
				}
				m.types = append(m.types, r.b[start:r.i])
				m.paramCounts = append(m.paramCounts, np)
			}
		case secImport:
			n := r.u32()
			for i := uint32(0); i < n && r.err == nil; i++ {
				mod := r.name()
				r.name()
				if string(mod) == ImportModule {
					return fmt.Errorf("the module imports from %s, which the host reserves", ImportModule)
				}
				switch k := r.byte(); k {
				case 0:
					r.u32()
					m.funcImports++
				case 1:
					r.byte()
					r.limits()
				case 2:
					r.limits()
				case 3:
					r.valType()
					r.byte()
					m.globals++
				default:
					return fmt.Errorf("import %d: unsupported kind %d", i, k)
				}
			}
		case secFunction:
			n := r.u32()
			for i := uint32(0); i < n && r.err == nil; i++ {
				m.funcTypes = append(m.funcTypes, r.u32())
			}
		case secGlobal:
			m.globals += r.u32()
		}
		if r.err != nil {
			return fmt.Errorf("section %d: %w", s.id, r.err)
		}
	}
	for _, tp := range m.funcTypes {
		if int(tp) >= len(m.types) {
			return fmt.Errorf("function type %d out of range", tp)
		}
	}
	m.newType = true
	for i, t := range m.types {
		if bytes.Equal(t, tickSig) {
			m.tickType, m.newType = uint32(i), false
			break
		}
	}
	if m.newType {
		m.tickType = uint32(len(m.types))
	}
	return nil
}

func (r *reader) limits() {
	flags := r.byte()
	r.u32()
	if flags&1 != 0 {
		r.u32()
	}
}

// remap is the new index of function f.
func (m *module) remap(f uint32) uint32 {
	if f >= m.funcImports {
		return f + 1
	}
	return f
}

func (m *module) newSection(id byte) []byte {
	switch id {
	case secType:
		return m.typeSection([]byte{0})
	case secImport:
		return m.importSection([]byte{0})
	case secGlobal:
		p, _ := m.globalSection([]byte{0})
		return p
	}
	panic("unreachable")
}

func (m *module) typeSection(payload []byte) []byte {
	if !m.newType {
		return payload
	}
	r := &reader{b: payload}
	n := r.u32()
	out := appendU32(nil, n+1)
	out = append(out, payload[r.i:]...)
	return append(out, tickSig...)
}

func (m *module) importSection(payload []byte) []byte {
	r := &reader{b: payload}
	n := r.u32()
	out := appendU32(nil, n+1)
	// The new import goes after the last function import, so that it
	// takes index funcImports; other kinds have their own index spaces.
	for i := uint32(0); i < n; i++ {
		start := r.i
		r.name()
		r.name()
		switch r.byte() {
		case 0:
			r.u32()
		case 1:
			r.byte()
			r.limits()
		case 2:
			r.limits()
		case 3:
			r.byte()
			r.byte()
		}
		out = append(out, payload[start:r.i]...)
	}
	out = appendName(out, ImportModule)
	out = appendName(out, ImportName)
	out = append(out, 0)
	return appendU32(out, m.tickType)
}

func (m *module) globalSection(payload []byte) ([]byte, error) {
	r := &reader{b: payload}
	n := r.u32()
	out := appendU32(nil, n+1)
	for i := uint32(0); i < n && r.err == nil; i++ {
		out = append(out, r.valType(), r.byte())
		out = m.constExpr(r, out)
	}
	if r.err != nil {
		return nil, r.err
	}
	// (global (mut i64) (i64.const InitialFuel))
	out = append(out, 0x7e, 0x01, 0x42)
	out = appendS64(out, InitialFuel)
	return append(out, 0x0b), nil
}

// constExpr copies the constant expression at r to out, renumbering ref.func.
func (m *module) constExpr(r *reader, out []byte) []byte {
	depth := 1
	for depth > 0 && r.err == nil {
		start := r.i
		in := next(r)
		switch in.kind {
		case kBlock, kLoop:
			depth++
		case kEnd:
			depth--
		case kFuncRef:
			out = append(out, r.b[start])
			out = appendU32(out, m.remap(in.fn))
			continue
		}
		out = append(out, r.b[start:r.i]...)
	}
	return out
}

func (m *module) exportSection(payload []byte) ([]byte, error) {
	r := &reader{b: payload}
	n := r.u32()
	out := appendU32(nil, n)
	for i := uint32(0); i < n && r.err == nil; i++ {
		start := r.i
		r.name()
		k := r.byte()
		out = append(out, payload[start:r.i]...)
		idx := r.u32()
		if k == 0 {
			idx = m.remap(idx)
		}
		out = appendU32(out, idx)
	}
	return out, r.err
}

func (m *module) elementSection(payload []byte) ([]byte, error) {
	r := &reader{b: payload}
	n := r.u32()
	out := appendU32(nil, n)
	for i := uint32(0); i < n && r.err == nil; i++ {
		flags := r.u32()
		if flags > 7 {
			return nil, fmt.Errorf("element segment %d: unsupported flags %d", i, flags)
		}
		out = appendU32(out, flags)
		if flags&3 == 2 { // explicit table index
			out = appendU32(out, r.u32())
		}
		if flags&1 == 0 { // active: offset
			out = m.constExpr(r, out)
		}
		if flags&3 != 0 { // elemkind or reftype
			out = append(out, r.byte())
		}
		count := r.u32()
		out = appendU32(out, count)
		for j := uint32(0); j < count && r.err == nil; j++ {
			if flags&4 == 0 {
				out = appendU32(out, m.remap(r.u32()))
			} else {
				out = m.constExpr(r, out)
			}
		}
	}
	return out, r.err
}

// custom renumbers the name section and drops DWARF; nil, nil drops.
func (m *module) custom(payload []byte) ([]byte, error) {
	r := &reader{b: payload}
	name := string(r.name())
	if r.err != nil {
		return nil, r.err
	}
	if strings.HasPrefix(name, ".debug_") {
		return nil, nil
	}
	if name != "name" {
		return payload, nil
	}
	out := append([]byte(nil), payload[:r.i]...)
	for !r.done() {
		id := r.byte()
		sub := &reader{b: r.bytes(r.u32())}
		if r.err != nil {
			return nil, nil // malformed names are only lost debug info
		}
		if id < 1 || id > 3 { // module, locals of..., labels of... are per function
			out = appendSection(out, id, sub.b)
			continue
		}
		n := sub.u32()
		body := appendU32(nil, n)
		for i := uint32(0); i < n && sub.err == nil; i++ {
			body = appendU32(body, m.remap(sub.u32()))
			start := sub.i
			if id == 1 {
				sub.name()
			} else {
				k := sub.u32()
				for j := uint32(0); j < k && sub.err == nil; j++ {
					sub.u32()
					sub.name()
				}
			}
			body = append(body, sub.b[start:sub.i]...)
		}
		if sub.err != nil {
			return nil, nil
		}
		out = appendSection(out, id, body)
	}
	return out, nil
}
