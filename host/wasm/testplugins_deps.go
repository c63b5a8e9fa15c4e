//go:build airlock_testplugins

package wasm

// The test plugins under testdata/ are built by the tests against this
// module's go.mod, but go mod tidy does not look into testdata. This file is
// never compiled (no build uses the tag); it only keeps the plugins'
// dependencies required.
import _ "github.com/extism/go-pdk"
