// Package pool keeps a bounded set of WebAssembly instances of one plugin.
//
// # Notes
//
//   - Instances are not safe for concurrent use; the pool hands each one to
//     exactly one caller at a time.
//   - Creating an instance of a Go plugin costs milliseconds (the Go runtime
//     starts). The pool is pre-warmed at load, and an instance discarded
//     after a failure is replaced in the background, so no caller pays for an
//     instantiation unless a replacement itself failed.
//   - The pool never holds more than its size: a caller that finds every
//     instance busy waits for one, or for its context.
package pool
