package intercept

import (
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/airlock-mcp/airlock/spec"
)

// BlockData is the data of the JSON-RPC error that answers a blocked request
// (and the _meta of a blocked tools/call result, under [spec.CapabilityKey]).
// Reason and Messages are present only when the engine exposes messages; a
// timeout always says so in Reason, since that tells nothing about policy.
type BlockData struct {
	Interceptor string           `json:"interceptor"`
	Phase       spec.Phase       `json:"phase"`
	Status      spec.ChainStatus `json:"status"`
	Reason      string           `json:"reason,omitempty"`
	Messages    []spec.Message   `json:"messages,omitempty"`
}

// block is a chain result that stopped a message.
type block struct {
	method      string
	Interceptor string
	phase       spec.Phase
	status      spec.ChainStatus
	verdict     bool // a validator said no (as opposed to failing or timing out)
	reason      string
	messages    []spec.Message
}

func newBlock(method string, phase spec.Phase, res *spec.ChainResult) *block {
	b := &block{method: method, phase: phase, status: res.Status}
	if a := res.AbortedAt; a != nil {
		b.Interceptor, b.reason = a.Interceptor, a.Reason
	}
	if res.Status == spec.StatusValidationFailed {
		// The chain records a failed validator as a result that did nothing,
		// with the failure in info.error: that is a failure, not a verdict.
		for i := range res.Results {
			r := &res.Results[i]
			if r.Interceptor == b.Interceptor && r.Type == spec.TypeValidation {
				b.verdict = !failed(r)
				b.messages = r.Messages
				break
			}
		}
	}
	return b
}

// failed reports whether r records an invocation failure (info.error).
func failed(r *spec.Result) bool {
	if len(r.Info) == 0 {
		return false
	}
	var info struct {
		Error string `json:"error"`
	}
	return json.Unmarshal(r.Info, &info) == nil && info.Error != ""
}

func (b *block) data(expose bool) BlockData {
	d := BlockData{Interceptor: b.Interceptor, Phase: b.phase, Status: b.status}
	switch {
	case b.status == spec.StatusTimeout || b.reason == spec.ReasonTimeout:
		d.Reason = spec.ReasonTimeout
	case expose:
		d.Reason = b.reason
		if b.verdict {
			d.Messages = b.messages
		}
	}
	return d
}

// text is the one line a person (or a model) reads about the block.
func (b *block) text(expose bool) string {
	what := "blocked"
	if !b.verdict {
		what = "failed"
		if b.status == spec.StatusTimeout || b.reason == spec.ReasonTimeout {
			what = "timed out"
		}
	}
	s := fmt.Sprintf("airlock: %s by interceptor %q (%s phase)", what, b.Interceptor, b.phase)
	if b.Interceptor == "" {
		s = fmt.Sprintf("airlock: %s in the %s phase", what, b.phase)
	}
	if expose && b.reason != "" && b.reason != spec.ReasonTimeout {
		s += ": " + b.reason
	}
	return s
}

// answer is what the blocked request is answered with: a tool result with
// isError for tools/call (so that the model sees it and can adapt), a
// JSON-RPC error otherwise: -32602 for a validator's verdict, -32603 for a
// failure or timeout.
func (b *block) answer(expose bool) (mcp.Result, error) {
	d := b.data(expose)
	if b.method == spec.EventToolsCall {
		meta, _ := json.Marshal(d)
		var m map[string]any
		_ = json.Unmarshal(meta, &m)
		return &mcp.CallToolResult{
			Content: []mcp.Content{&mcp.TextContent{Text: b.text(expose)}},
			IsError: true,
			Meta:    mcp.Meta{spec.CapabilityKey: map[string]any{"blocked": m}},
		}, nil
	}
	code := int64(jsonrpc.CodeInternalError)
	if b.verdict {
		code = jsonrpc.CodeInvalidParams
	}
	raw, _ := json.Marshal(d)
	return nil, &jsonrpc.Error{Code: code, Message: b.text(expose), Data: raw}
}
