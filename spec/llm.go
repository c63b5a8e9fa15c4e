package spec

import "encoding/json"

// LLMRequest is the request-phase payload of llm/completion: what an agent
// is about to send to its model.
type LLMRequest struct {
	Model       string          `json:"model,omitempty"`
	Messages    []LLMMessage    `json:"messages"`
	MaxTokens   int             `json:"maxTokens,omitempty"`
	Temperature *float64        `json:"temperature,omitempty"`
	Metadata    json.RawMessage `json:"metadata,omitempty"`
}

// LLMMessage is one message of a conversation with a model. Content is text
// or any JSON value a model API takes (content parts).
type LLMMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// TextMessage returns a message whose content is plain text.
func TextMessage(role, text string) LLMMessage {
	b, _ := json.Marshal(text)
	return LLMMessage{Role: role, Content: b}
}

// Text returns the content as text when it is a JSON string, else "".
func (m LLMMessage) Text() string {
	var s string
	_ = json.Unmarshal(m.Content, &s)
	return s
}

// LLMResponse is the response-phase payload of llm/completion: what the
// model answered.
type LLMResponse struct {
	Model      string          `json:"model,omitempty"`
	Message    LLMMessage      `json:"message"`
	StopReason string          `json:"stopReason,omitempty"`
	Usage      *LLMUsage       `json:"usage,omitempty"`
	Metadata   json.RawMessage `json:"metadata,omitempty"`
}

// LLMUsage counts the tokens of one completion.
type LLMUsage struct {
	InputTokens  int `json:"inputTokens"`
	OutputTokens int `json:"outputTokens"`
}
