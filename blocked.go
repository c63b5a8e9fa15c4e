package airlock

import (
	"fmt"
	"strings"

	"github.com/airlock-mcp/airlock/spec"
)

// BlockedError is returned when a chain stops a message: a validator said
// no, an interceptor failed closed, or the chain ran out of time. Result is
// the whole chain result.
type BlockedError struct {
	Method string // the MCP method or event, e.g. tools/call, llm/completion
	Phase  spec.Phase
	Result *spec.ChainResult
}

// Interceptor names the interceptor that stopped the message ("" for a
// chain timeout before any ran).
func (e *BlockedError) Interceptor() string {
	if e.Result != nil && e.Result.AbortedAt != nil {
		return e.Result.AbortedAt.Interceptor
	}
	return ""
}

// Messages are the blocking interceptor's messages (a validator's findings).
func (e *BlockedError) Messages() []spec.Message {
	for _, r := range e.Result.Results {
		if r.Interceptor == e.Interceptor() && r.Type == spec.TypeValidation {
			return r.Messages
		}
	}
	return nil
}

func (e *BlockedError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "airlock: %s %s blocked", e.Method, e.Phase)
	if n := e.Interceptor(); n != "" {
		fmt.Fprintf(&b, " by %q", n)
	}
	if e.Result != nil {
		fmt.Fprintf(&b, " (%s)", e.Result.Status)
		if a := e.Result.AbortedAt; a != nil && a.Reason != "" {
			b.WriteString(": " + a.Reason)
		}
	}
	return b.String()
}
