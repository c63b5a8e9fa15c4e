//go:build race

package wasm_test

// raceEnabled is set when the tests run under the race detector, which makes
// wazero's compiler several times slower.
const raceEnabled = true
