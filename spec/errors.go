package spec

import (
	"encoding/json"
	"fmt"
)

// JSON-RPC error codes used by the interceptor protocol.
const (
	CodeMethodNotFound int64 = -32601
	CodeInvalidParams  int64 = -32602
	CodeInternalError  int64 = -32603
)

// ReasonTimeout is the reason of an invocation that ran past its deadline.
const ReasonTimeout = "timeout"

// Error is a JSON-RPC error object of the interceptor protocol. Hosts return
// it from invocations so that transports can pass code and data on unchanged.
type Error struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
	// Data is one of the *Data types of this package, or raw JSON
	// (json.RawMessage) when the error came from another peer.
	Data any `json:"data,omitempty"`
}

func (e *Error) Error() string { return fmt.Sprintf("%s (%d)", e.Message, e.Code) }

// UnmarshalJSON keeps data as raw JSON, which [Error.IsTimeout] and
// [Error.Reason] read.
func (e *Error) UnmarshalJSON(b []byte) error {
	var w struct {
		Code    int64           `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*e = Error{Code: w.Code, Message: w.Message}
	if len(w.Data) > 0 && string(w.Data) != "null" {
		e.Data = w.Data
	}
	return nil
}

// NameData is the data of an unknown-interceptor error.
type NameData struct {
	Name string `json:"name"`
}

// HookData is the data of an event/phase that an interceptor does not hook.
type HookData struct {
	Name            string `json:"name"`
	Event           string `json:"event"`
	Phase           Phase  `json:"phase"`
	AdvertisedHooks []Hook `json:"advertisedHooks"`
}

// ReasonData is the data of malformed params or a config rejected by the
// interceptor's configSchema.
type ReasonData struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// FailureData is the data of an interceptor that failed or timed out.
type FailureData struct {
	Interceptor string `json:"interceptor"`
	Reason      string `json:"reason"`
	TimeoutMs   int64  `json:"timeoutMs,omitempty"`
	Phase       Phase  `json:"phase,omitempty"`
}

// MethodNotFound is the error of a peer that does not implement method.
func MethodNotFound(method string) *Error {
	return &Error{Code: CodeMethodNotFound, Message: "method not found: " + method}
}

// UnknownInterceptor is the error for a name no interceptor has.
func UnknownInterceptor(name string) *Error {
	return &Error{Code: CodeInvalidParams, Message: fmt.Sprintf("unknown interceptor %q", name),
		Data: &NameData{Name: name}}
}

// HookNotCovered is the error for an (event, phase) that the interceptor's
// hooks do not cover.
func HookNotCovered(name, event string, phase Phase, hooks []Hook) *Error {
	if hooks == nil {
		hooks = []Hook{}
	}
	return &Error{Code: CodeInvalidParams,
		Message: fmt.Sprintf("interceptor %q does not hook %s in the %s phase", name, event, phase),
		Data:    &HookData{Name: name, Event: event, Phase: phase, AdvertisedHooks: hooks}}
}

// InvalidParams is the error for malformed params, or a config that the
// interceptor's configSchema rejects.
func InvalidParams(name, reason string) *Error {
	return &Error{Code: CodeInvalidParams, Message: "invalid params: " + reason,
		Data: &ReasonData{Name: name, Reason: reason}}
}

// InvocationFailed is the error of an interceptor that trapped, panicked,
// returned an error or returned a malformed result.
func InvocationFailed(interceptor, reason string) *Error {
	return &Error{Code: CodeInternalError, Message: fmt.Sprintf("interceptor %q failed: %s", interceptor, reason),
		Data: &FailureData{Interceptor: interceptor, Reason: reason}}
}

// InvocationTimeout is the error of an interceptor that ran past timeoutMs or
// the host's own limit.
func InvocationTimeout(interceptor string, timeoutMs int64, phase Phase) *Error {
	return &Error{Code: CodeInternalError,
		Message: fmt.Sprintf("interceptor %q timed out after %d ms", interceptor, timeoutMs),
		Data:    &FailureData{Interceptor: interceptor, Reason: ReasonTimeout, TimeoutMs: timeoutMs, Phase: phase}}
}

// IsTimeout reports whether e is an invocation timeout.
func (e *Error) IsTimeout() bool {
	switch d := e.Data.(type) {
	case *FailureData:
		return d.Reason == ReasonTimeout
	case json.RawMessage:
		var f FailureData
		return json.Unmarshal(d, &f) == nil && f.Reason == ReasonTimeout
	}
	return false
}

// Reason returns the failure reason carried in the data, or the message.
func (e *Error) Reason() string {
	switch d := e.Data.(type) {
	case *FailureData:
		return d.Reason
	case *ReasonData:
		return d.Reason
	case json.RawMessage:
		var f struct {
			Reason string `json:"reason"`
		}
		if json.Unmarshal(d, &f) == nil && f.Reason != "" {
			return f.Reason
		}
	}
	return e.Message
}
