// Command e2e is the PDK's end-to-end test plugin: the interceptors of
// pdk/internal/e2eplugin, built for WebAssembly.
//
// Build: GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared
package main

import _ "github.com/airlock-mcp/airlock/pdk/internal/e2eplugin"

func main() {}
