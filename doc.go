// Package airlock embeds MCP interceptors (SEP-2624) in a Go program: the
// same sandboxed WebAssembly plugins, remote interceptor hosts and chains
// that the airlock command runs, without a separate gateway.
//
// A [Host] is built from plugin files, remote hosts, in-process sources and
// invoker overrides ([New]). It runs chains directly ([Host.Run]), around an
// agent's own model calls ([Host.Complete], the llm/completion event), on
// everything a go-sdk client sends and answers ([Host.InstallClient]), and on
// everything a go-sdk server receives and sends ([Host.InstallServer]).
//
// A blocked message is a [*BlockedError] carrying the chain result: which
// interceptor, in which phase, and every message.
package airlock
