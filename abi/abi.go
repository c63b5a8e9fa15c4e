package abi

// Version is the direct ABI version this package describes. A module reports
// the version it implements from its [ExportVersion] export; a host refuses a
// version it does not know rather than guess at the meaning of its exports.
const Version = 1

// Import module names a plugin may use. Anything else is refused at load.
const (
	// ExtismModule is the host module of the Extism plugin convention.
	ExtismModule = "extism:host/env"
	// HostModule is the optional host module of the direct ABI, version 1.
	HostModule = "airlock:host/v1"
	// WASIModule is WASI preview 1, served sandboxed (no files, no
	// environment, no arguments, no sockets).
	WASIModule = "wasi_snapshot_preview1"
)

// Exports of the Extism convention: both are () -> i32, 0 meaning success.
const (
	ExtismDescribe = "describe"
	ExtismInvoke   = "invoke"
)

// Exports of the direct ABI.
const (
	// ExportVersion is () -> i32 and returns the ABI version ([Version]).
	// Its presence is what marks a module as a direct-ABI module.
	ExportVersion = "airlock_abi_version"
	// ExportAlloc is (size i32) -> i32: a buffer of at least size bytes
	// that the host fills with the next invocation's input; 0 on failure.
	ExportAlloc = "airlock_alloc"
	// ExportDescribe is () -> i64: a packed [Result] whose bytes are the
	// interceptors/list result.
	ExportDescribe = "airlock_describe"
	// ExportInvoke is (ptr i32, len i32) -> i64: the input is the
	// interceptor/invoke params; the output is a packed [Result].
	ExportInvoke = "airlock_invoke"
	// ExportMemory is the linear memory the pointers refer to.
	ExportMemory = "memory"
)

// Functions of [HostModule]. Pointers and lengths are i32 into the guest's
// own memory; the host never keeps them past the call.
const (
	// HostLog is (level i32, ptr i32, len i32) -> (): one log record.
	HostLog = "log"
	// HostVarGet is (kptr, klen, vptr, vcap i32) -> i32: copies at most
	// vcap bytes of the value to vptr and returns the value's full length,
	// or -1 when the key is not set.
	HostVarGet = "var_get"
	// HostVarSet is (kptr, klen, vptr, vlen i32) -> i32: 0 when stored,
	// -1 when the plugin's variable store would exceed its limit.
	HostVarSet = "var_set"
	// HostVarDelete is (kptr, klen i32) -> (): removes the key if set.
	HostVarDelete = "var_delete"
)

// Log levels shared by both conventions (Extism numbers them the same way).
const (
	LogTrace int32 = 0
	LogDebug int32 = 1
	LogInfo  int32 = 2
	LogWarn  int32 = 3
	LogError int32 = 4
)

// MaxLen is the largest length a packed [Result] can carry: the low word's
// top bit is the error flag.
const MaxLen = 1<<31 - 1

// errBit is the error flag inside the low 32 bits of a packed result.
const errBit = 1 << 31

// Result is the i64 returned by [ExportDescribe] and [ExportInvoke]:
// bits 63..32 are the pointer, bit 31 is the error flag and bits 30..0 the
// length. With the flag clear the bytes are JSON; with it set they are a
// UTF-8 error message.
type Result uint64

// Pack builds a Result. A length above [MaxLen] is not representable and
// panics, since it is a programming error in the caller.
func Pack(ptr, length uint32, isErr bool) Result {
	if length > MaxLen {
		panic("abi: length does not fit in 31 bits")
	}
	v := uint64(ptr)<<32 | uint64(length)
	if isErr {
		v |= errBit
	}
	return Result(v)
}

// Ptr is the guest address of the output bytes.
func (r Result) Ptr() uint32 { return uint32(r >> 32) }

// Len is the number of output bytes.
func (r Result) Len() uint32 { return uint32(r) &^ errBit }

// IsError reports whether the bytes are an error message, not JSON.
func (r Result) IsError() bool { return uint32(r)&errBit != 0 }
