package instrument

import "fmt"

// kind is what the rewriter needs to know about an instruction.
type kind uint8

const (
	kOther     kind = iota
	kBlock          // block, if: opens a frame
	kLoop           // loop: opens a frame and a check site
	kEnd            // end: closes a frame
	kFuncRef        // call, return_call, ref.func: a function index to renumber
	kBulkMem        // memory.init, memory.copy, memory.fill: length on top of the stack
	kBulkTable      // table.init, table.copy, table.fill: length on top of the stack
)

// instr is one decoded instruction.
type instr struct {
	kind kind
	// fn is the function index of a kFuncRef; it is the last immediate and
	// starts right after the opcode byte.
	fn uint32
	// jumps is set for what may not fall through to the next instruction:
	// branches, if and else, return, unreachable and calls.
	jumps bool
}

// next decodes the instruction at r's position and leaves r after it. It
// knows the immediates of every instruction of WebAssembly 2.0 (MVP, sign
// extension, saturating conversions, bulk memory, reference types,
// multi-value, fixed-width and relaxed SIMD) plus tail calls and threads.
// Anything else (exception handling, GC, typed function references) is an
// error: the module is then left to another deadline mechanism.
func next(r *reader) instr {
	op := r.byte()
	switch {
	case op == 0x02: // block
		r.blockType()
		return instr{kind: kBlock}
	case op == 0x04: // if
		r.blockType()
		return instr{kind: kBlock, jumps: true}
	case op == 0x03: // loop
		r.blockType()
		return instr{kind: kLoop}
	case op == 0x0b: // end
		return instr{kind: kEnd}
	case op == 0x01, op == 0x1a, op == 0x1b, op == 0xd1: // nop drop select ref.is_null
	case op == 0x00, op == 0x05, op == 0x0f: // unreachable else return
		return instr{jumps: true}
	case op == 0x0c, op == 0x0d: // br br_if
		r.u32()
		return instr{jumps: true}
	case op == 0x0e: // br_table
		n := r.u32()
		for i := uint32(0); i < n && r.err == nil; i++ {
			r.u32()
		}
		r.u32()
		return instr{jumps: true}
	case op == 0x10, op == 0x12: // call return_call
		return instr{kind: kFuncRef, fn: r.u32(), jumps: true}
	case op == 0xd2: // ref.func
		return instr{kind: kFuncRef, fn: r.u32()}
	case op == 0x11, op == 0x13: // call_indirect return_call_indirect: type, table
		r.u32()
		r.u32()
		return instr{jumps: true}
	case op == 0x1c: // select t*
		n := r.u32()
		for i := uint32(0); i < n && r.err == nil; i++ {
			r.valType()
		}
	case op >= 0x20 && op <= 0x26: // local.* global.* table.get table.set
		r.u32()
	case op >= 0x28 && op <= 0x3e: // loads and stores
		r.memArg()
	case op == 0x3f, op == 0x40: // memory.size memory.grow
		r.u32()
	case op == 0x41:
		r.sleb(32)
	case op == 0x42:
		r.sleb(64)
	case op == 0x43:
		r.bytes(4)
	case op == 0x44:
		r.bytes(8)
	case op >= 0x45 && op <= 0xc4: // numeric, sign extension
	case op == 0xd0: // ref.null t
		r.sleb(33)
	case op == 0xfc:
		return r.prefixFC()
	case op == 0xfd:
		r.prefixFD()
	case op == 0xfe:
		r.prefixFE()
	default:
		r.fail(fmt.Errorf("unsupported opcode 0x%02x", op))
	}
	return instr{}
}

func (r *reader) blockType() {
	c := r.byte()
	if c == 0x40 || isValType(c) {
		return
	}
	r.i-- // a type index, as s33
	r.sleb(33)
}

func (r *reader) memArg() {
	align := r.u32()
	if align&0x40 != 0 { // multi-memory: a memory index follows
		r.u32()
	}
	r.u32() // offset
}

func (r *reader) prefixFC() instr {
	switch sub := r.u32(); {
	case sub <= 7: // trunc_sat
	case sub == 8: // memory.init data mem
		r.u32()
		r.u32()
		return instr{kind: kBulkMem}
	case sub == 9, sub == 13: // data.drop elem.drop
		r.u32()
	case sub == 10: // memory.copy mem mem
		r.u32()
		r.u32()
		return instr{kind: kBulkMem}
	case sub == 11: // memory.fill mem
		r.u32()
		return instr{kind: kBulkMem}
	case sub == 12, sub == 14: // table.init elem table, table.copy table table
		r.u32()
		r.u32()
		return instr{kind: kBulkTable}
	case sub == 15, sub == 16: // table.grow table.size
		r.u32()
	case sub == 17: // table.fill
		r.u32()
		return instr{kind: kBulkTable}
	default:
		r.fail(fmt.Errorf("unsupported opcode 0xfc %d", sub))
	}
	return instr{}
}

func (r *reader) prefixFD() {
	switch sub := r.u32(); {
	case sub <= 11, sub == 92, sub == 93: // v128 loads and stores
		r.memArg()
	case sub == 12, sub == 13: // v128.const, i8x16.shuffle
		r.bytes(16)
	case sub >= 21 && sub <= 34: // extract_lane, replace_lane
		r.byte()
	case sub >= 84 && sub <= 91: // load_lane, store_lane
		r.memArg()
		r.byte()
	case sub <= 0x113: // arithmetic, comparisons, conversions, relaxed SIMD
	default:
		r.fail(fmt.Errorf("unsupported opcode 0xfd %d", sub))
	}
}

func (r *reader) prefixFE() {
	switch sub := r.u32(); {
	case sub == 3: // atomic.fence
		r.byte()
	case sub <= 2, sub >= 0x10 && sub <= 0x4e:
		r.memArg()
	default:
		r.fail(fmt.Errorf("unsupported opcode 0xfe %d", sub))
	}
}
