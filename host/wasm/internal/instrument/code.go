package instrument

import (
	"errors"
	"fmt"
)

// event is an instruction the second pass changes or follows with a check.
type event struct {
	start, end int // byte range of the instruction in the body
	kind       kind
	fn         uint32 // kFuncRef
	site       int    // kLoop: index into the body's costs
}

// body holds one function's scratch state, reused across functions.
type body struct {
	events []event
	costs  []int64 // per check site: 0 is the entry, then one per loop
	stack  []int   // per open frame: the check site it charges
}

func (m *module) codeSection(payload []byte, st *Stats) ([]byte, error) {
	r := &reader{b: payload}
	n := r.u32()
	if r.err == nil && int(n) != len(m.funcTypes) {
		return nil, fmt.Errorf("%d bodies for %d functions", n, len(m.funcTypes))
	}
	out := make([]byte, 0, len(payload)+len(payload)/4)
	out = appendU32(out, n)
	var scratch body
	var fn []byte
	for i := uint32(0); i < n && r.err == nil; i++ {
		b := r.bytes(r.u32())
		if r.err != nil {
			break
		}
		var err error
		fn, err = m.function(fn[:0], b, m.paramCounts[m.funcTypes[i]], &scratch, st)
		if err != nil {
			return nil, fmt.Errorf("function %d: %w", m.funcImports+i, err)
		}
		out = appendU32(out, uint32(len(fn)))
		out = append(out, fn...)
	}
	return out, r.err
}

// function appends the rewritten body b to out.
func (m *module) function(out, b []byte, params uint32, s *body, st *Stats) ([]byte, error) {
	r := &reader{b: b}
	groups := r.u32()
	groupsEnd := r.i
	locals := uint64(params)
	for i := uint32(0); i < groups && r.err == nil; i++ {
		locals += uint64(r.u32())
		r.valType()
	}
	if r.err != nil {
		return nil, fmt.Errorf("locals: %w", r.err)
	}
	codeStart := r.i

	// First pass: find the loops, calls and bulk operations, and count the
	// instructions each check site covers (its frame's, not nested loops').
	s.events, s.costs, s.stack = s.events[:0], append(s.costs[:0], 0), append(s.stack[:0], 0)
	bulk := false
	// When the body starts with straight-line code that reaches a loop
	// (as every Go function does: a short prologue, then the loop of its
	// block dispatch), every call passes that loop's header: its check
	// stands for the entry's, and pays for the code outside the loop too.
	straight, merged := true, 0
	for len(s.stack) > 0 {
		if r.done() {
			if r.err != nil {
				return nil, r.err
			}
			return nil, errors.New("body ends before its end")
		}
		start := r.i
		in := next(r)
		if r.err != nil {
			return nil, fmt.Errorf("at byte %d: %w", start, r.err)
		}
		site := s.stack[len(s.stack)-1]
		s.costs[site]++
		if straight && merged == 0 {
			switch {
			case in.kind == kLoop:
				merged = len(s.costs)
			case in.jumps, in.kind == kBulkMem, in.kind == kBulkTable, in.kind == kEnd:
				straight = false
			}
		}
		switch in.kind {
		case kBlock:
			s.stack = append(s.stack, site)
		case kLoop:
			s.costs = append(s.costs, 0)
			k := len(s.costs) - 1
			s.stack = append(s.stack, k)
			s.events = append(s.events, event{start: start, end: r.i, kind: kLoop, site: k})
		case kEnd:
			s.stack = s.stack[:len(s.stack)-1]
		case kFuncRef:
			s.events = append(s.events, event{start: start, end: r.i, kind: kFuncRef, fn: in.fn})
		case kBulkMem, kBulkTable:
			bulk = true
			s.events = append(s.events, event{start: start, end: r.i, kind: in.kind})
		}
	}
	if r.i != len(b) {
		return nil, errors.New("bytes after the body's end")
	}

	// Second pass: copy, with one scratch i32 local for bulk lengths.
	tmp := uint32(locals)
	if bulk {
		if locals >= 50000 {
			return nil, errors.New("too many locals")
		}
		out = appendU32(out, groups+1)
		out = append(out, b[groupsEnd:codeStart]...)
		out = append(out, 1, 0x7f)
	} else {
		out = append(out, b[:codeStart]...)
	}
	if merged == 0 {
		out = m.check(out, s.costs[0])
		st.EntryChecks++
	}
	st.Functions++
	pos := codeStart
	for _, e := range s.events {
		out = append(out, b[pos:e.start]...)
		switch e.kind {
		case kLoop:
			out = append(out, b[e.start:e.end]...)
			cost := s.costs[e.site]
			if e.site == merged {
				cost += s.costs[0]
			}
			out = m.check(out, cost)
			st.Loops++
		case kFuncRef:
			out = append(out, b[e.start])
			out = appendU32(out, m.remap(e.fn))
		case kBulkMem, kBulkTable:
			shift := int64(memShift)
			if e.kind == kBulkTable {
				shift = tableShift
			}
			out = m.charge(out, tmp, shift)
			out = append(out, b[e.start:e.end]...)
			st.BulkOps++
		}
		pos = e.end
	}
	return append(out, b[pos:]...), nil
}

// check appends: fuel -= cost; if fuel < 0 { fuel = tick() }.
func (m *module) check(out []byte, cost int64) []byte {
	out = append(out, 0x23) // global.get
	out = appendU32(out, m.globals)
	out = append(out, 0x42) // i64.const
	out = appendS64(out, cost)
	out = append(out, 0x7d, 0x24) // i64.sub global.set
	out = appendU32(out, m.globals)
	return m.tickIfEmpty(out)
}

// charge appends, with the i32 length of a bulk operation on top of the
// stack (and left there): fuel -= length >> shift; if fuel < 0 { fuel = tick() }.
func (m *module) charge(out []byte, tmp uint32, shift int64) []byte {
	out = append(out, 0x22) // local.tee
	out = appendU32(out, tmp)
	out = append(out, 0x23) // global.get
	out = appendU32(out, m.globals)
	out = append(out, 0x20) // local.get
	out = appendU32(out, tmp)
	out = append(out, 0xad) // i64.extend_i32_u
	if shift != 0 {
		out = append(out, 0x42)
		out = appendS64(out, shift)
		out = append(out, 0x88) // i64.shr_u
	}
	out = append(out, 0x7d, 0x24) // i64.sub global.set
	out = appendU32(out, m.globals)
	return m.tickIfEmpty(out)
}

func (m *module) tickIfEmpty(out []byte) []byte {
	out = append(out, 0x23) // global.get
	out = appendU32(out, m.globals)
	out = append(out, 0x42, 0x00, 0x53, 0x04, 0x40, 0x10) // i64.const 0 i64.lt_s if call
	out = appendU32(out, m.funcImports)
	out = append(out, 0x24) // global.set
	out = appendU32(out, m.globals)
	return append(out, 0x0b) // end
}
