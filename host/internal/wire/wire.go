// Package wire adapts the interceptor protocol's spec types to the go-sdk's
// custom-method machinery, which needs params and results that implement its
// Params and Result interfaces. The server and the remote-host client share
// it so that both ends encode exactly the spec's JSON.
package wire

import (
	"bytes"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/airlock-mcp/airlock/spec"
)

// Params carries a method's params as raw JSON. Decoding never fails, so the
// handler, not the SDK, decides how a malformed request is answered (the
// spec's -32602 with {"name","reason"}). The SDK's per-request _meta (set
// with SetMeta) is merged into the encoded object.
type Params struct {
	mcp.ParamsBase
	Raw json.RawMessage
}

// NewParams encodes v as the params of an outgoing request.
func NewParams(v any) (*Params, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return &Params{Raw: b}, nil
}

// UnmarshalJSON keeps the bytes and reads _meta when it can.
func (p *Params) UnmarshalJSON(b []byte) error {
	p.Raw = append(p.Raw[:0], b...)
	var m struct {
		Meta map[string]any `json:"_meta"`
	}
	if json.Unmarshal(b, &m) == nil {
		p.Meta = m.Meta
	}
	return nil
}

// MarshalJSON writes Raw, with the SDK's _meta keys added.
func (p *Params) MarshalJSON() ([]byte, error) {
	raw := p.Raw
	if len(raw) == 0 {
		raw = json.RawMessage("{}")
	}
	return withMeta(raw, p.Meta)
}

// InvokeResult is the result of interceptor/invoke.
type InvokeResult struct {
	mcp.ResultBase
	Result spec.Result
}

// MarshalJSON writes the flat InterceptorResult.
func (r *InvokeResult) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(r.Result)
	if err != nil {
		return nil, err
	}
	return withMeta(b, r.Meta)
}

// UnmarshalJSON decodes strictly: a result of unknown kind or missing a
// required field is an error.
func (r *InvokeResult) UnmarshalJSON(b []byte) error { return json.Unmarshal(b, &r.Result) }

// ListResult is the result of interceptors/list.
type ListResult struct {
	mcp.ResultBase
	Result spec.ListResult
}

// MarshalJSON writes the list result.
func (r *ListResult) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(r.Result)
	if err != nil {
		return nil, err
	}
	return withMeta(b, r.Meta)
}

// UnmarshalJSON decodes the list result.
func (r *ListResult) UnmarshalJSON(b []byte) error { return json.Unmarshal(b, &r.Result) }

// withMeta adds the keys of meta to the object's _meta, keeping keys the
// object already has. The common case, no meta, returns obj as it is.
func withMeta(obj []byte, meta map[string]any) ([]byte, error) {
	if len(meta) == 0 {
		return obj, nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(obj, &fields); err != nil || fields == nil {
		return obj, nil // not an object: leave it to the peer to refuse
	}
	merged := map[string]any{}
	for k, v := range meta {
		merged[k] = v
	}
	if old, ok := fields["_meta"]; ok && !bytes.Equal(bytes.TrimSpace(old), []byte("null")) {
		var own map[string]any
		if err := json.Unmarshal(old, &own); err == nil {
			for k, v := range own {
				merged[k] = v
			}
		}
	}
	m, err := json.Marshal(merged)
	if err != nil {
		return nil, err
	}
	fields["_meta"] = m
	return json.Marshal(fields)
}

// Error turns a spec error into the go-sdk's wire error, keeping code,
// message and data exactly, so a peer sees what the spec says.
func Error(e *spec.Error) error {
	we := &jsonrpc.Error{Code: e.Code, Message: e.Message}
	if e.Data != nil {
		if raw, ok := e.Data.(json.RawMessage); ok {
			we.Data = raw
		} else if b, err := json.Marshal(e.Data); err == nil {
			we.Data = b
		}
	}
	return we
}
