// Package abi names the two calling conventions an Airlock interceptor plugin
// (a WebAssembly module) may follow, and holds the small helpers both sides of
// the boundary need: export and import names, the ABI version, and the packing
// of a pointer, a length and an error flag into one i64.
//
// The normative description is README.md in this directory; this package is
// its code form. It depends on nothing but the standard library so that guest
// code (the Go PDK, test plugins built for GOOS=wasip1) can import it.
//
// # Conventions
//
//   - Extism-compatible: the module imports [ExtismModule] and exports
//     [ExtismDescribe] and [ExtismInvoke], both () -> i32.
//   - Direct (Airlock's fast path, version [Version]): the module exports
//     [ExportVersion], [ExportAlloc], [ExportDescribe], [ExportInvoke] and
//     "memory"; the host writes the input straight into guest memory and reads
//     the output straight out of it. It may import [HostModule].
package abi
