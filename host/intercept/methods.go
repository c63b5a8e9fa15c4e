package intercept

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/airlock-mcp/airlock/spec"
)

// kind is what a list method lists and a call method names, for the
// list/call agreement.
type kind int

const (
	noKind kind = iota
	toolKind
	promptKind
	resourceKind
	numKinds
)

func (k kind) String() string {
	switch k {
	case toolKind:
		return "tool"
	case promptKind:
		return "prompt"
	case resourceKind:
		return "resource"
	}
	return ""
}

// method describes one intercepted MCP method.
type method struct {
	// request and response say which phases are intercepted.
	request, response bool
	// fromServer marks server-initiated requests: their direction is the
	// reverse of a client request's.
	fromServer bool
	// lists is the kind a list method lists; calls the kind a call names.
	lists, calls kind
	// newParams and newResult make the typed values a payload decodes into
	// when the caller's params are nil (a list request without params).
	newParams func() mcp.Params
	newResult func() mcp.Result
}

// methods are the intercepted methods of SPEC.md section 7. The event of
// each is the method name itself.
var methods = map[string]*method{
	spec.EventToolsList: {request: true, response: true, lists: toolKind,
		newParams: func() mcp.Params { return &mcp.ListToolsParams{} },
		newResult: func() mcp.Result { return &mcp.ListToolsResult{} }},
	spec.EventToolsCall: {request: true, response: true, calls: toolKind,
		newParams: func() mcp.Params { return &mcp.CallToolParamsRaw{} },
		newResult: func() mcp.Result { return &mcp.CallToolResult{} }},
	spec.EventPromptsList: {request: true, response: true, lists: promptKind,
		newParams: func() mcp.Params { return &mcp.ListPromptsParams{} },
		newResult: func() mcp.Result { return &mcp.ListPromptsResult{} }},
	spec.EventPromptsGet: {request: true, response: true, calls: promptKind,
		newParams: func() mcp.Params { return &mcp.GetPromptParams{} },
		newResult: func() mcp.Result { return &mcp.GetPromptResult{} }},
	spec.EventResourcesList: {request: true, response: true, lists: resourceKind,
		newParams: func() mcp.Params { return &mcp.ListResourcesParams{} },
		newResult: func() mcp.Result { return &mcp.ListResourcesResult{} }},
	spec.EventResourcesRead: {request: true, response: true, calls: resourceKind,
		newParams: func() mcp.Params { return &mcp.ReadResourceParams{} },
		newResult: func() mcp.Result { return &mcp.ReadResourceResult{} }},
	spec.EventResourcesTemplateList: {request: true, response: true,
		newParams: func() mcp.Params { return &mcp.ListResourceTemplatesParams{} },
		newResult: func() mcp.Result { return &mcp.ListResourceTemplatesResult{} }},
	// Subscribing is governed before it happens; its result is empty.
	spec.EventResourcesSubscribe: {request: true, calls: resourceKind,
		newParams: func() mcp.Params { return &mcp.SubscribeParams{} }},
	spec.EventSamplingCreateMessage: {request: true, response: true, fromServer: true,
		newParams: func() mcp.Params { return &mcp.CreateMessageWithToolsParams{} },
		newResult: func() mcp.Result { return &mcp.CreateMessageWithToolsResult{} }},
	spec.EventElicitationCreate: {request: true, response: true, fromServer: true,
		newParams: func() mcp.Params { return &mcp.ElicitParams{} },
		newResult: func() mcp.Result { return &mcp.ElicitResult{} }},
	spec.EventRootsList: {request: true, response: true, fromServer: true,
		newParams: func() mcp.Params { return &mcp.ListRootsParams{} },
		newResult: func() mcp.Result { return &mcp.ListRootsResult{} }},
}

// Hooked reports whether the MCP method is an intercepted event in phase.
// Everything else (initialize, ping, completion/complete, logging/setLevel,
// resources/unsubscribe, notifications) passes through untouched.
func Hooked(methodName string, phase spec.Phase) bool {
	m := methods[methodName]
	if m == nil {
		return false
	}
	if phase == spec.PhaseRequest {
		return m.request
	}
	return phase == spec.PhaseResponse && m.response
}

// ServerInitiated reports whether method is one of the intercepted requests
// a server sends to its client (sampling/createMessage, elicitation/create,
// roots/list).
func ServerInitiated(methodName string) bool {
	m := methods[methodName]
	return m != nil && m.fromServer
}

// DirectionOf returns the direction of a method's phase as seen by a gateway
// in front of a server: a client request is sent (request phase) and its
// result received (response phase); a server-initiated request is the
// reverse.
func DirectionOf(methodName string, phase spec.Phase) spec.Direction {
	d := spec.GatewayDirection(phase)
	if ServerInitiated(methodName) {
		return d.Reverse()
	}
	return d
}
