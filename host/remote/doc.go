// Package remote makes any MCP server that speaks the interceptor protocol a
// chain source: another Airlock, or an interceptor server written with an SDK
// in another language, reached over stdio (a command) or streamable HTTP (a
// URL).
package remote
