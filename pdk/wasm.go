//go:build wasip1

package pdk

// The guest side of Airlock's direct ABI, version 1 (abi/README.md section
// 4): the exports the host calls and the host functions the PDK imports.

import (
	"unsafe"

	"github.com/airlock-mcp/airlock/abi"
)

// inBuf is the input buffer the host fills, reused across calls.
var inBuf []byte

// outBuf keeps the last output reachable until the host has read it, which
// the ABI guarantees happens before the guest is entered again.
var outBuf []byte

//go:wasmexport airlock_abi_version
func exportVersion() int32 { return abi.Version }

//go:wasmexport airlock_alloc
func exportAlloc(size uint32) uint32 {
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
func exportDescribe() uint64 {
	out, err := describe()
	return result(out, err)
}

//go:wasmexport airlock_invoke
func exportInvoke(ptr, n uint32) uint64 {
	if len(inBuf) == 0 || n > uint32(len(inBuf)) || uintptr(ptr) != uintptr(unsafe.Pointer(&inBuf[0])) {
		return result(nil, errString("pdk: the input is not the buffer airlock_alloc returned"))
	}
	// The host has read the previous output (the ABI guarantees it before
	// entering the guest again): its buffer is reused, unless one large
	// output made it big.
	if cap(outBuf) > 1<<20 {
		outBuf = nil
	}
	out, err := dispatchInto(outBuf[:0], wasmHost{}, inBuf[:n])
	// A call with a large input should not pin that much memory for good.
	if cap(inBuf) > 1<<20 {
		inBuf = nil
	}
	return result(out, err)
}

type errString string

func (e errString) Error() string { return string(e) }

func result(out []byte, err error) uint64 {
	isErr := err != nil
	if isErr {
		out = []byte(err.Error())
		if len(out) == 0 {
			out = []byte("failed")
		}
	}
	if len(out) > abi.MaxLen {
		out, isErr = []byte("pdk: output too large for the direct ABI"), true
	}
	outBuf = out
	if len(out) == 0 {
		return uint64(abi.Pack(0, 0, isErr))
	}
	return uint64(abi.Pack(uint32(uintptr(unsafe.Pointer(&out[0]))), uint32(len(out)), isErr))
}

//go:wasmimport airlock:host/v1 log
func hostLog(level int32, ptr unsafe.Pointer, n uint32)

//go:wasmimport airlock:host/v1 var_get
func hostVarGet(kptr unsafe.Pointer, klen uint32, vptr unsafe.Pointer, vcap uint32) int32

//go:wasmimport airlock:host/v1 var_set
func hostVarSet(kptr unsafe.Pointer, klen uint32, vptr unsafe.Pointer, vlen uint32) int32

//go:wasmimport airlock:host/v1 var_delete
func hostVarDelete(kptr unsafe.Pointer, klen uint32)

// The direct ABI has no configuration function; the Extism one, which either
// convention may import (abi/README.md 2.2), serves the plugin's
// configuration.

//go:wasmimport extism:host/env config_get
func extismConfigGet(key uint64) uint64

//go:wasmimport extism:host/env alloc
func extismAlloc(n uint64) uint64

//go:wasmimport extism:host/env length
func extismLength(h uint64) uint64

//go:wasmimport extism:host/env load_u8
func extismLoadU8(addr uint64) uint32

//go:wasmimport extism:host/env store_u8
func extismStoreU8(addr uint64, v uint32)

// wasmHost is the real host.
type wasmHost struct{}

// FixedConfig: a plugin's configuration is set when it is loaded, for its
// whole life.
func (wasmHost) FixedConfig() {}

// strPtr returns a pointer to s's bytes (a dummy for the empty string: the
// host reads 0 bytes there).
func strPtr(s string) unsafe.Pointer {
	if len(s) == 0 {
		return unsafe.Pointer(&outBuf)
	}
	return unsafe.Pointer(unsafe.StringData(s))
}

func bytesPtr(b []byte) unsafe.Pointer {
	if len(b) == 0 {
		return unsafe.Pointer(&outBuf)
	}
	return unsafe.Pointer(&b[0])
}

func (wasmHost) Log(level int32, msg string) {
	hostLog(level, strPtr(msg), uint32(len(msg)))
}

func (wasmHost) VarGet(key string) ([]byte, bool) {
	buf := make([]byte, 256)
	for {
		n := hostVarGet(strPtr(key), uint32(len(key)), bytesPtr(buf), uint32(len(buf)))
		if n < 0 {
			return nil, false
		}
		if int(n) <= len(buf) {
			return buf[:n], true
		}
		buf = make([]byte, n)
	}
}

func (wasmHost) VarSet(key string, val []byte) bool {
	return hostVarSet(strPtr(key), uint32(len(key)), bytesPtr(val), uint32(len(val))) == 0
}

func (wasmHost) VarDelete(key string) { hostVarDelete(strPtr(key), uint32(len(key))) }

// configCache holds what config_get answered: the plugin's configuration is
// fixed for its life, so each key costs one crossing per instance.
var configCache = map[string]*string{}

func (wasmHost) Config(key string) (string, bool) {
	if v, ok := configCache[key]; ok {
		if v == nil {
			return "", false
		}
		return *v, true
	}
	h := extismAlloc(uint64(len(key)))
	for i := 0; i < len(key); i++ {
		extismStoreU8(h+uint64(i), uint32(key[i]))
	}
	vh := extismConfigGet(h)
	if vh == 0 {
		configCache[key] = nil
		return "", false
	}
	n := extismLength(vh)
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(extismLoadU8(vh + uint64(i)))
	}
	s := string(b)
	configCache[key] = &s
	return s, true
}
