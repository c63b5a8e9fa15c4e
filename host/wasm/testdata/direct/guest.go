package main

// The guest side of Airlock's direct ABI, version 1 (abi/README.md section 4),
// written for the standard Go toolchain (GOOS=wasip1, -buildmode=c-shared).
// It is small on purpose: a later Go PDK can take it over as it is.

import (
	"unsafe"

	"github.com/airlock-mcp/airlock/abi"
)

// inBuf is the input buffer the host fills; reused across calls so that a
// steady stream of invocations allocates nothing here.
var inBuf []byte

// outBuf keeps the last output reachable (so the GC cannot reclaim it) until
// the host has read it, which the ABI guarantees happens before the next call.
var outBuf []byte

//go:wasmexport airlock_abi_version
func abiVersion() int32 { return abi.Version }

//go:wasmexport airlock_alloc
func alloc(size uint32) uint32 {
	if size == 0 {
		size = 1
	}
	if uint32(cap(inBuf)) < size {
		inBuf = make([]byte, size)
	}
	inBuf = inBuf[:size]
	return uint32(uintptr(unsafe.Pointer(&inBuf[0])))
}

//go:wasmexport airlock_describe
func airlockDescribe() uint64 { return ret(describe()) }

//go:wasmexport airlock_invoke
func airlockInvoke(ptr, n uint32) uint64 {
	if n > uint32(len(inBuf)) || uintptr(ptr) != uintptr(unsafe.Pointer(&inBuf[0])) {
		return ret([]byte("input is not the buffer airlock_alloc returned"), true)
	}
	return ret(invoke(inBuf[:n]))
}

func ret(b []byte, isErr bool) uint64 {
	outBuf = b
	if len(b) == 0 {
		return uint64(abi.Pack(0, 0, isErr))
	}
	return uint64(abi.Pack(uint32(uintptr(unsafe.Pointer(&b[0]))), uint32(len(b)), isErr))
}

//go:wasmimport airlock:host/v1 log
func hostLog(level int32, ptr unsafe.Pointer, n uint32)

//go:wasmimport airlock:host/v1 var_get
func hostVarGet(kptr unsafe.Pointer, klen uint32, vptr unsafe.Pointer, vcap uint32) int32

//go:wasmimport airlock:host/v1 var_set
func hostVarSet(kptr unsafe.Pointer, klen uint32, vptr unsafe.Pointer, vlen uint32) int32

func logf(level int32, msg string) {
	b := []byte(msg)
	if len(b) == 0 {
		return
	}
	hostLog(level, unsafe.Pointer(&b[0]), uint32(len(b)))
}

// getVar returns the plugin variable key, or nil and false when unset.
func getVar(key string) ([]byte, bool) {
	k := []byte(key)
	buf := make([]byte, 64)
	for {
		n := hostVarGet(unsafe.Pointer(&k[0]), uint32(len(k)), unsafe.Pointer(&buf[0]), uint32(len(buf)))
		if n < 0 {
			return nil, false
		}
		if int(n) <= len(buf) {
			return buf[:n], true
		}
		buf = make([]byte, n)
	}
}

// setVar stores a plugin variable; false when the store is full.
func setVar(key string, v []byte) bool {
	k := []byte(key)
	var vp unsafe.Pointer
	if len(v) > 0 {
		vp = unsafe.Pointer(&v[0])
	}
	return hostVarSet(unsafe.Pointer(&k[0]), uint32(len(k)), vp, uint32(len(v))) == 0
}
