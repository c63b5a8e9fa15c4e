package pdk

import (
	"encoding/json"
	"fmt"

	"github.com/airlock-mcp/airlock/internal/jsonscan"
)

// Typed forms of the common payloads. Every type keeps the members it does
// not name in Extra, so decoding and re-encoding loses nothing; the raw
// payload is always available from [Call.Payload].

// ToolCall is the tools/call request payload (CallToolRequest params).
type ToolCall struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Meta      json.RawMessage `json:"_meta,omitempty"`
	Extra     Extra           `json:"-"`
}

// Args decodes the arguments into v (nothing happens when there are none).
func (t *ToolCall) Args(v any) error {
	if len(t.Arguments) == 0 {
		return nil
	}
	return json.Unmarshal(t.Arguments, v)
}

// SetArgs replaces the arguments with the JSON encoding of v.
func (t *ToolCall) SetArgs(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	t.Arguments = b
	return nil
}

// ToolResult is the tools/call response payload (CallToolResult).
type ToolResult struct {
	Content           []Content       `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`
	Meta              json.RawMessage `json:"_meta,omitempty"`
	Extra             Extra           `json:"-"`
}

// Text is the text of every text content block, joined with newlines.
func (r *ToolResult) Text() string {
	var s string
	for i, c := range r.Content {
		if c.Type == "text" {
			if i > 0 && s != "" {
				s += "\n"
			}
			s += c.Text
		}
	}
	return s
}

// Content is one content block: text, image, audio, resource_link or
// resource (an embedded resource).
type Content struct {
	Type        string            `json:"type"`
	Text        string            `json:"text,omitempty"`
	Data        string            `json:"data,omitempty"`
	MimeType    string            `json:"mimeType,omitempty"`
	URI         string            `json:"uri,omitempty"`
	Name        string            `json:"name,omitempty"`
	Resource    *ResourceContents `json:"resource,omitempty"`
	Annotations json.RawMessage   `json:"annotations,omitempty"`
	Meta        json.RawMessage   `json:"_meta,omitempty"`
	Extra       Extra             `json:"-"`
}

// TextContent returns a text content block.
func TextContent(text string) Content { return Content{Type: "text", Text: text} }

// ToolList is the tools/list response payload (ListToolsResult).
type ToolList struct {
	Tools      []Tool `json:"tools"`
	NextCursor string `json:"nextCursor,omitempty"`
	Extra      Extra  `json:"-"`
}

// Tool is one tool of a tools/list result.
type Tool struct {
	Name         string          `json:"name"`
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema,omitempty"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Annotations  json.RawMessage `json:"annotations,omitempty"`
	Meta         json.RawMessage `json:"_meta,omitempty"`
	Extra        Extra           `json:"-"`
}

// PromptGet is the prompts/get request payload.
type PromptGet struct {
	Name      string            `json:"name"`
	Arguments map[string]string `json:"arguments,omitempty"`
	Meta      json.RawMessage   `json:"_meta,omitempty"`
	Extra     Extra             `json:"-"`
}

// PromptResult is the prompts/get response payload (GetPromptResult).
type PromptResult struct {
	Description string          `json:"description,omitempty"`
	Messages    []PromptMessage `json:"messages"`
	Meta        json.RawMessage `json:"_meta,omitempty"`
	Extra       Extra           `json:"-"`
}

// PromptMessage is one message of a prompt.
type PromptMessage struct {
	Role    string  `json:"role"`
	Content Content `json:"content"`
	Extra   Extra   `json:"-"`
}

// ResourceRead is the resources/read (and resources/subscribe) request
// payload.
type ResourceRead struct {
	URI   string          `json:"uri"`
	Meta  json.RawMessage `json:"_meta,omitempty"`
	Extra Extra           `json:"-"`
}

// ResourceResult is the resources/read response payload.
type ResourceResult struct {
	Contents []ResourceContents `json:"contents"`
	Meta     json.RawMessage    `json:"_meta,omitempty"`
	Extra    Extra              `json:"-"`
}

// ResourceContents is one resource's contents: Text or Blob (base64).
type ResourceContents struct {
	URI      string          `json:"uri"`
	MimeType string          `json:"mimeType,omitempty"`
	Text     string          `json:"text,omitempty"`
	Blob     string          `json:"blob,omitempty"`
	Meta     json.RawMessage `json:"_meta,omitempty"`
	Extra    Extra           `json:"-"`
}

// SamplingRequest is the sampling/createMessage request payload.
type SamplingRequest struct {
	Messages     []SamplingMessage `json:"messages"`
	SystemPrompt string            `json:"systemPrompt,omitempty"`
	MaxTokens    int               `json:"maxTokens,omitempty"`
	Temperature  *float64          `json:"temperature,omitempty"`
	Meta         json.RawMessage   `json:"_meta,omitempty"`
	Extra        Extra             `json:"-"`
}

// SamplingMessage is one message of a sampling request.
type SamplingMessage struct {
	Role    string  `json:"role"`
	Content Content `json:"content"`
	Extra   Extra   `json:"-"`
}

// SamplingResult is the sampling/createMessage response payload.
type SamplingResult struct {
	Role       string          `json:"role"`
	Content    Content         `json:"content"`
	Model      string          `json:"model"`
	StopReason string          `json:"stopReason,omitempty"`
	Meta       json.RawMessage `json:"_meta,omitempty"`
	Extra      Extra           `json:"-"`
}

// LLMRequest is the llm/completion request payload.
type LLMRequest struct {
	Model       string          `json:"model,omitempty"`
	Messages    []LLMMessage    `json:"messages"`
	MaxTokens   int             `json:"maxTokens,omitempty"`
	Temperature *float64        `json:"temperature,omitempty"`
	Metadata    json.RawMessage `json:"metadata,omitempty"`
	Extra       Extra           `json:"-"`
}

// LLMMessage is one message of an llm/completion payload. Content is
// usually a string; [LLMMessage.Text] reads it as one.
type LLMMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
	Extra   Extra           `json:"-"`
}

// Text returns the content when it is a JSON string, else "".
func (m *LLMMessage) Text() string {
	start, end, err := jsonscan.Value(m.Content)
	if err != nil || m.Content[start] != '"' {
		return ""
	}
	return jsonscan.Unquote(m.Content[start:end])
}

// SetText sets the content to the string s.
func (m *LLMMessage) SetText(s string) { m.Content = appendJSONString(nil, s) }

// LLMResponse is the llm/completion response payload.
type LLMResponse struct {
	Model      string          `json:"model,omitempty"`
	Message    LLMMessage      `json:"message"`
	StopReason string          `json:"stopReason,omitempty"`
	Usage      *LLMUsage       `json:"usage,omitempty"`
	Metadata   json.RawMessage `json:"metadata,omitempty"`
	Extra      Extra           `json:"-"`
}

// LLMUsage counts tokens.
type LLMUsage struct {
	InputTokens  int `json:"inputTokens"`
	OutputTokens int `json:"outputTokens"`
}

// Typed accessors. Each checks the event and phase, so that a handler hooked
// to several events cannot misread one payload as another.

func (c *Call) decodeAs(event string, phase Phase, v json.Unmarshaler) error {
	if c.inv.event != event || c.inv.phase != phase {
		return fmt.Errorf("pdk: payload of %s %s is not a %s %s payload", c.inv.event, c.inv.phase, event, phase)
	}
	// The typed payloads validate as they decode (unmarshalKeep): calling
	// them directly saves encoding/json's separate validation pass.
	if err := v.UnmarshalJSON(c.inv.payload); err != nil {
		return fmt.Errorf("%s %s payload: %w", event, phase, err)
	}
	return nil
}

// ToolCall decodes a tools/call request payload.
func (c *Call) ToolCall() (*ToolCall, error) {
	var v ToolCall
	return &v, c.decodeAs("tools/call", Request, &v)
}

// ToolResult decodes a tools/call response payload.
func (c *Call) ToolResult() (*ToolResult, error) {
	var v ToolResult
	return &v, c.decodeAs("tools/call", Response, &v)
}

// ToolList decodes a tools/list response payload.
func (c *Call) ToolList() (*ToolList, error) {
	var v ToolList
	return &v, c.decodeAs("tools/list", Response, &v)
}

// PromptGet decodes a prompts/get request payload.
func (c *Call) PromptGet() (*PromptGet, error) {
	var v PromptGet
	return &v, c.decodeAs("prompts/get", Request, &v)
}

// PromptResult decodes a prompts/get response payload.
func (c *Call) PromptResult() (*PromptResult, error) {
	var v PromptResult
	return &v, c.decodeAs("prompts/get", Response, &v)
}

// ResourceRead decodes a resources/read request payload.
func (c *Call) ResourceRead() (*ResourceRead, error) {
	var v ResourceRead
	return &v, c.decodeAs("resources/read", Request, &v)
}

// ResourceResult decodes a resources/read response payload.
func (c *Call) ResourceResult() (*ResourceResult, error) {
	var v ResourceResult
	return &v, c.decodeAs("resources/read", Response, &v)
}

// SamplingRequest decodes a sampling/createMessage request payload.
func (c *Call) SamplingRequest() (*SamplingRequest, error) {
	var v SamplingRequest
	return &v, c.decodeAs("sampling/createMessage", Request, &v)
}

// SamplingResult decodes a sampling/createMessage response payload.
func (c *Call) SamplingResult() (*SamplingResult, error) {
	var v SamplingResult
	return &v, c.decodeAs("sampling/createMessage", Response, &v)
}

// LLMRequest decodes an llm/completion request payload.
func (c *Call) LLMRequest() (*LLMRequest, error) {
	var v LLMRequest
	return &v, c.decodeAs("llm/completion", Request, &v)
}

// LLMResponse decodes an llm/completion response payload.
func (c *Call) LLMResponse() (*LLMResponse, error) {
	var v LLMResponse
	return &v, c.decodeAs("llm/completion", Response, &v)
}

// PayloadMember is the raw value of the payload's top-level member name,
// matched as encoding/json matches a field (the last of duplicates, case
// folded), or nil when the payload is not an object or has no such member.
// It reads only the top level: cheaper than decoding the payload when a
// handler needs one member (a request's "name" or "uri", a result's
// "isError"). Like Payload, it is a view: do not modify it.
func (c *Call) PayloadMember(name string) json.RawMessage {
	var raw json.RawMessage
	_ = jsonscan.MembersTrusted(c.inv.payload, func(key, val []byte) error {
		if jsonscan.Key(key, name) {
			raw = val
		}
		return nil
	})
	return raw
}

// ToolName is the tool's name of a tools/call request, else "".
func (c *Call) ToolName() string {
	if c.inv.event != "tools/call" || c.inv.phase != Request {
		return ""
	}
	var name string
	_ = jsonscan.Members(c.inv.payload, func(key, val []byte) error {
		if jsonscan.Key(key, "name") {
			_ = setString(&name, val, "name")
		}
		return nil
	})
	return name
}
