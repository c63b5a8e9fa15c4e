// Package loader turns an airlock.yaml into a running set of interceptor
// sources — WebAssembly plugins and remote interceptor hosts — behind a
// [chain.Live], and reloads it while it serves.
//
// A reload builds the new set next to the old one: changed plugin files are
// compiled, described, validated and pre-warmed, unchanged ones are kept, and
// the new chain is checked before it is swapped in. If anything fails, the
// last good set keeps serving and the error is logged with the plugin's
// name. The old set is closed only after the calls that use it have finished.
package loader
