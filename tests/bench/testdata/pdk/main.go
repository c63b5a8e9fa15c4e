// Command pdk is the benchmarks' interceptor written with Airlock's Go PDK
// (direct ABI).
//
// Build: GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared
package main

import (
	"github.com/airlock-mcp/airlock/pdk"
	"github.com/airlock-mcp/airlock/tests/bench/logic"
)

func main() {}

func init() {
	pdk.Validator(pdk.Descriptor{Name: logic.Scan, Events: []string{"tools/call"}, Phase: pdk.Request},
		func(c *pdk.Call) pdk.Verdict {
			if logic.ScanRaw(c.Payload()) {
				return pdk.DenyAt(logic.ScanPath, logic.Message)
			}
			return pdk.Allow()
		})
	pdk.Validator(pdk.Descriptor{Name: logic.Walk, Events: []string{"tools/call"}, Phase: pdk.Request},
		func(c *pdk.Call) pdk.Verdict {
			var v pdk.Verdict
			c.WalkStrings(func(p pdk.Path, s string) {
				if logic.Match(s) {
					v.Error(logic.Pointer(p), logic.Message)
				}
			})
			return v
		})
}
