// Package native makes plain Go functions an interceptor source: the
// in-process baseline for benchmarks, a way for Go programs to add their own
// interceptors to a chain, and the reference behaviour every other source is
// tested against.
package native
