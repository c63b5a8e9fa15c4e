//go:build !wasip1

package pdk

// On the host (go test), the PDK has no exports: package pdktest drives it
// through internal/hostapi.
