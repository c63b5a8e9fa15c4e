package spec

import "encoding/json"

// ListParams are the params of interceptors/list. Both fields are optional
// and the params object itself may be absent.
type ListParams struct {
	// Event, when set, keeps only interceptors with a hook (either phase) whose
	// events match it.
	Event  string `json:"event,omitempty"`
	Cursor string `json:"cursor,omitempty"`
}

// ListResult is the result of interceptors/list, in registration order.
type ListResult struct {
	Interceptors []Interceptor `json:"interceptors"`
	NextCursor   string        `json:"nextCursor,omitempty"`
}

// MarshalJSON always writes the interceptors array, never null.
func (l ListResult) MarshalJSON() ([]byte, error) {
	type plain ListResult
	if l.Interceptors == nil {
		l.Interceptors = []Interceptor{}
	}
	return json.Marshal(plain(l))
}

// MatchesAnyPhase reports whether d has a hook, in either phase, whose events
// match event. interceptors/list filters with it.
func (d *Interceptor) MatchesAnyPhase(event string) bool {
	return d.Matches(event, PhaseRequest) || d.Matches(event, PhaseResponse)
}

// InvokeParams are the params of interceptor/invoke.
type InvokeParams struct {
	Name  string `json:"name"`
	Event string `json:"event"`
	Phase Phase  `json:"phase"`
	// Config is the per-call configuration, checked against the
	// interceptor's configSchema when it has one.
	Config json.RawMessage `json:"config,omitempty"`
	// TimeoutMs bounds this invocation; 0 leaves the host's own limit.
	TimeoutMs int64           `json:"timeoutMs,omitempty"`
	Context   *Context        `json:"context,omitempty"`
	Meta      json.RawMessage `json:"_meta,omitempty"`
	// Payload is the governed message's params (request phase) or result
	// (response phase). It is the last field so that its JSON is the last
	// member, which lets a WebAssembly guest take it without reading it
	// (abi/README.md section 2.4).
	Payload json.RawMessage `json:"payload"`
}

// Context tells an interceptor who is calling and where in a trace it runs.
type Context struct {
	Principal *Principal `json:"principal,omitempty"`
	TraceID   string     `json:"traceId,omitempty"`
	SpanID    string     `json:"spanId,omitempty"`
	// Timestamp is an ISO-8601 (RFC 3339) time.
	Timestamp string `json:"timestamp,omitempty"`
	SessionID string `json:"sessionId,omitempty"`
}

// PrincipalType is the kind of caller.
type PrincipalType string

const (
	PrincipalUser      PrincipalType = "user"
	PrincipalService   PrincipalType = "service"
	PrincipalAnonymous PrincipalType = "anonymous"
)

// Principal identifies the caller on whose behalf a message flows.
type Principal struct {
	Type   PrincipalType  `json:"type"`
	ID     string         `json:"id,omitempty"`
	Claims map[string]any `json:"claims,omitempty"`
}
