// Package server serves the interceptor protocol (interceptors/list and
// interceptor/invoke) for a set of interceptors, over any MCP transport the
// go-sdk offers: stdio for a subprocess, streamable HTTP for a network peer.
//
// The interceptors come from a [chain.Chain], so a server can mix WebAssembly
// plugins, remote interceptor hosts and native Go functions; [Server.Swap]
// replaces them atomically while the server runs.
package server
