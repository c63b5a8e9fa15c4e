// Package logic holds the interceptors every host of the benchmarks runs,
// two validators of tools/call requests that deny a call carrying something
// that looks like a secret:
//
//   - secret-scan searches the raw payload bytes for the pattern (the
//     cheapest useful check: it measures the hosts and calling conventions);
//   - secret-walk visits every string value with its JSON Pointer and names
//     each path (real work in the guest, which dominates).
//
// The PDK plugin, the plain Extism plugin, the native handler and the
// remote server all call these functions and walk payloads with the same
// scanner (internal/jsonscan, which the PDK's WalkStrings uses), so the
// benchmarks compare hosts, not interceptors.
package logic

import (
	"bytes"
	"context"
	"strings"

	"github.com/airlock-mcp/airlock/host/native"
	"github.com/airlock-mcp/airlock/internal/jsonscan"
	"github.com/airlock-mcp/airlock/spec"
)

// Names of the interceptors in every host.
const (
	Scan = "secret-scan"
	Walk = "secret-walk"
)

// ScanPath is the path secret-scan reports.
const ScanPath = "/arguments"

// Descriptors are the interceptors' descriptors.
func Descriptors() []spec.Interceptor {
	d := func(name string) spec.Interceptor {
		return spec.Interceptor{Name: name, Type: spec.TypeValidation,
			Hooks: []spec.Hook{{Events: []string{"tools/call"}, Phase: spec.PhaseRequest}}}
	}
	return []spec.Interceptor{d(Scan), d(Walk)}
}

// DescribeJSON is the describe output of the Extism plugin.
const DescribeJSON = `{"interceptors":[` +
	`{"name":"secret-scan","type":"validation","hooks":[{"events":["tools/call"],"phase":"request"}]},` +
	`{"name":"secret-walk","type":"validation","hooks":[{"events":["tools/call"],"phase":"request"}]}]}`

// ScanRaw reports whether the raw bytes b contain an AWS access key id.
func ScanRaw(b []byte) bool {
	for i := 0; ; {
		j := bytes.Index(b[i:], akia)
		if j < 0 {
			return false
		}
		k := i + j + 4
		if k+16 <= len(b) && upperAlnum(b[k:k+16]) {
			return true
		}
		i = k
	}
}

var akia = []byte("AKIA")

// Message is the finding's message.
const Message = "looks like a secret"

// Match reports whether s contains an AWS access key id (AKIA followed by
// 16 upper-case letters or digits) or a private key header.
func Match(s string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], "AKIA")
		if j < 0 {
			break
		}
		k := i + j + 4
		if k+16 <= len(s) && upperAlnum([]byte(s[k:k+16])) {
			return true
		}
		i = k
	}
	return strings.Contains(s, "-----BEGIN PRIVATE KEY")
}

func upperAlnum(s []byte) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// Pointer is the JSON Pointer of path.
func Pointer(path []string) string {
	var b strings.Builder
	for _, t := range path {
		b.WriteByte('/')
		b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(t))
	}
	return b.String()
}

// WalkPayload calls found with the pointer of every string value of
// payload that Match reports.
func WalkPayload(payload []byte, found func(pointer string)) error {
	return jsonscan.WalkStrings(payload, func(p []string, s string) {
		if Match(s) {
			found(Pointer(p))
		}
	})
}

// Native is the logic as a native handler (host/native), for either name.
func Native(_ context.Context, p *spec.InvokeParams) (*spec.Result, error) {
	r := &spec.Result{Interceptor: p.Name, Type: spec.TypeValidation, Phase: p.Phase, Valid: true}
	deny := func(ptr string) {
		r.Valid, r.Severity = false, spec.SeverityError
		r.Messages = append(r.Messages, spec.Message{Path: ptr, Message: Message, Severity: spec.SeverityError})
	}
	if p.Name == Scan {
		if ScanRaw(p.Payload) {
			deny(ScanPath)
		}
		return r, nil
	}
	if err := WalkPayload(p.Payload, deny); err != nil {
		return nil, err
	}
	return r, nil
}

// NativeSource is a native source of both interceptors.
func NativeSource() *native.Source {
	s := native.New()
	for _, d := range Descriptors() {
		s.MustAdd(d, Native)
	}
	return s
}
