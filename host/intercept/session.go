package intercept

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Session is the interception state of one MCP session: what its list
// results were filtered of, so that a call by name agrees with the list
// (SPEC.md section 7). It is safe for concurrent use.
//
// # Notes
//
//   - A name is hidden when a list result from the server had it and the
//     result that left the response chain did not; it is shown again when a
//     later list result keeps it (after a chain reload, say).
//   - Only names the session has seen listed are known: a client that calls a
//     tool it never listed reaches the request chain as usual. Policies that
//     must hold without a list belong on the request phase of the call.
//   - Resource templates are not tracked: a template removed from
//     resources/templates/list does not stop reads of URIs it would match.
type Session struct {
	id     string
	mu     sync.Mutex
	hidden [numKinds]map[string]bool
}

// NewSession returns the state of the session with the given id (passed to
// interceptors as context.sessionId; may be empty).
func NewSession(id string) *Session { return &Session{id: id} }

// ID is the session id given to NewSession.
func (s *Session) ID() string { return s.id }

// isHidden reports whether a response mutation removed the named tool,
// prompt or resource from this session's lists.
func (s *Session) isHidden(k kind, name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hidden[k][name]
}

// HiddenTool, HiddenPrompt and HiddenResource report whether the named item
// is refused in this session.
func (s *Session) HiddenTool(name string) bool    { return s.isHidden(toolKind, name) }
func (s *Session) HiddenPrompt(name string) bool  { return s.isHidden(promptKind, name) }
func (s *Session) HiddenResource(uri string) bool { return s.isHidden(resourceKind, uri) }

// record updates what is hidden from one list result: before is what the
// server listed, after what the client got.
func (s *Session) record(k kind, before, after []string) {
	if len(before) == 0 && len(after) == 0 {
		return
	}
	kept := make(map[string]bool, len(after))
	for _, n := range after {
		kept[n] = true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, n := range after {
		delete(s.hidden[k], n)
	}
	for _, n := range before {
		if !kept[n] {
			if s.hidden[k] == nil {
				s.hidden[k] = map[string]bool{}
			}
			s.hidden[k][n] = true
		}
	}
}

// calledName is the tool or prompt name, or resource URI, that params call.
func calledName(p mcp.Params) string {
	switch p := p.(type) {
	case *mcp.CallToolParamsRaw:
		if p != nil {
			return p.Name
		}
	case *mcp.CallToolParams:
		if p != nil {
			return p.Name
		}
	case *mcp.GetPromptParams:
		if p != nil {
			return p.Name
		}
	case *mcp.ReadResourceParams:
		if p != nil {
			return p.URI
		}
	case *mcp.SubscribeParams:
		if p != nil {
			return p.URI
		}
	}
	return ""
}

// listedNames are the names (URIs for resources) of a list result.
func listedNames(r mcp.Result) []string {
	var out []string
	switch r := r.(type) {
	case *mcp.ListToolsResult:
		for _, t := range r.Tools {
			if t != nil {
				out = append(out, t.Name)
			}
		}
	case *mcp.ListPromptsResult:
		for _, p := range r.Prompts {
			if p != nil {
				out = append(out, p.Name)
			}
		}
	case *mcp.ListResourcesResult:
		for _, res := range r.Resources {
			if res != nil {
				out = append(out, res.URI)
			}
		}
	}
	return out
}

// notFound is what a server answers for a name it does not have (the
// go-sdk's own errors), so that a hidden item is indistinguishable from an
// absent one.
func notFound(k kind, name string) *jsonrpc.Error {
	switch k {
	case resourceKind:
		data, _ := json.Marshal(map[string]string{"uri": name})
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Resource not found", Data: data}
	default:
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown %s %q", k, name)}
	}
}
