// Command pdk is a test plugin written with Airlock's own PDK (package pdk,
// direct ABI), as the bundled plugins are. Its "redact" mutator is the
// benchmark's interceptor logic done the PDK way (a walk over the payload's
// strings); "spin" is a validator that never returns.
//
// Build: GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared
package main

import (
	"strings"

	"github.com/airlock-mcp/airlock/pdk"
)

func main() {}

func init() {
	pdk.Mutator(pdk.Descriptor{Name: "redact", Events: []string{"tools/call"}, Phase: pdk.Request},
		func(c *pdk.Call) pdk.Mutation {
			return c.RewriteStrings(func(_ pdk.Path, s string) (string, bool) {
				if !strings.Contains(s, "secret") {
					return s, false
				}
				return strings.ReplaceAll(s, "secret", "[REDACTED]"), true
			})
		})
	pdk.Validator(pdk.Descriptor{Name: "spin", Events: []string{"test/misbehave"}, Phase: pdk.Request},
		func(c *pdk.Call) pdk.Verdict {
			for i := 0; ; i++ {
				if i == -1 {
					break
				}
			}
			return pdk.Allow()
		})
}
