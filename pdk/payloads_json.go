// JSON methods of the typed payloads of payloads.go: one pair per type.

package pdk

// UnmarshalJSON decodes the known members and keeps the others in Extra.
func (v *ToolCall) UnmarshalJSON(b []byte) error {
	type plain ToolCall
	return unmarshalKeep(b, (*plain)(v), &v.Extra)
}

// MarshalJSON encodes the known members, then those of Extra.
func (v ToolCall) MarshalJSON() ([]byte, error) {
	type plain ToolCall
	return marshalKeep(plain(v), v.Extra)
}

// UnmarshalJSON decodes the known members and keeps the others in Extra.
func (v *ToolResult) UnmarshalJSON(b []byte) error {
	type plain ToolResult
	return unmarshalKeep(b, (*plain)(v), &v.Extra)
}

// MarshalJSON encodes the known members, then those of Extra.
func (v ToolResult) MarshalJSON() ([]byte, error) {
	type plain ToolResult
	return marshalKeep(plain(v), v.Extra)
}

// UnmarshalJSON decodes the known members and keeps the others in Extra.
func (v *Content) UnmarshalJSON(b []byte) error {
	type plain Content
	return unmarshalKeep(b, (*plain)(v), &v.Extra)
}

// MarshalJSON encodes the known members, then those of Extra.
func (v Content) MarshalJSON() ([]byte, error) {
	type plain Content
	return marshalKeep(plain(v), v.Extra)
}

// UnmarshalJSON decodes the known members and keeps the others in Extra.
func (v *ToolList) UnmarshalJSON(b []byte) error {
	type plain ToolList
	return unmarshalKeep(b, (*plain)(v), &v.Extra)
}

// MarshalJSON encodes the known members, then those of Extra.
func (v ToolList) MarshalJSON() ([]byte, error) {
	type plain ToolList
	return marshalKeep(plain(v), v.Extra)
}

// UnmarshalJSON decodes the known members and keeps the others in Extra.
func (v *Tool) UnmarshalJSON(b []byte) error {
	type plain Tool
	return unmarshalKeep(b, (*plain)(v), &v.Extra)
}

// MarshalJSON encodes the known members, then those of Extra.
func (v Tool) MarshalJSON() ([]byte, error) {
	type plain Tool
	return marshalKeep(plain(v), v.Extra)
}

// UnmarshalJSON decodes the known members and keeps the others in Extra.
func (v *PromptGet) UnmarshalJSON(b []byte) error {
	type plain PromptGet
	return unmarshalKeep(b, (*plain)(v), &v.Extra)
}

// MarshalJSON encodes the known members, then those of Extra.
func (v PromptGet) MarshalJSON() ([]byte, error) {
	type plain PromptGet
	return marshalKeep(plain(v), v.Extra)
}

// UnmarshalJSON decodes the known members and keeps the others in Extra.
func (v *PromptResult) UnmarshalJSON(b []byte) error {
	type plain PromptResult
	return unmarshalKeep(b, (*plain)(v), &v.Extra)
}

// MarshalJSON encodes the known members, then those of Extra.
func (v PromptResult) MarshalJSON() ([]byte, error) {
	type plain PromptResult
	return marshalKeep(plain(v), v.Extra)
}

// UnmarshalJSON decodes the known members and keeps the others in Extra.
func (v *PromptMessage) UnmarshalJSON(b []byte) error {
	type plain PromptMessage
	return unmarshalKeep(b, (*plain)(v), &v.Extra)
}

// MarshalJSON encodes the known members, then those of Extra.
func (v PromptMessage) MarshalJSON() ([]byte, error) {
	type plain PromptMessage
	return marshalKeep(plain(v), v.Extra)
}

// UnmarshalJSON decodes the known members and keeps the others in Extra.
func (v *ResourceRead) UnmarshalJSON(b []byte) error {
	type plain ResourceRead
	return unmarshalKeep(b, (*plain)(v), &v.Extra)
}

// MarshalJSON encodes the known members, then those of Extra.
func (v ResourceRead) MarshalJSON() ([]byte, error) {
	type plain ResourceRead
	return marshalKeep(plain(v), v.Extra)
}

// UnmarshalJSON decodes the known members and keeps the others in Extra.
func (v *ResourceResult) UnmarshalJSON(b []byte) error {
	type plain ResourceResult
	return unmarshalKeep(b, (*plain)(v), &v.Extra)
}

// MarshalJSON encodes the known members, then those of Extra.
func (v ResourceResult) MarshalJSON() ([]byte, error) {
	type plain ResourceResult
	return marshalKeep(plain(v), v.Extra)
}

// UnmarshalJSON decodes the known members and keeps the others in Extra.
func (v *ResourceContents) UnmarshalJSON(b []byte) error {
	type plain ResourceContents
	return unmarshalKeep(b, (*plain)(v), &v.Extra)
}

// MarshalJSON encodes the known members, then those of Extra.
func (v ResourceContents) MarshalJSON() ([]byte, error) {
	type plain ResourceContents
	return marshalKeep(plain(v), v.Extra)
}

// UnmarshalJSON decodes the known members and keeps the others in Extra.
func (v *SamplingRequest) UnmarshalJSON(b []byte) error {
	type plain SamplingRequest
	return unmarshalKeep(b, (*plain)(v), &v.Extra)
}

// MarshalJSON encodes the known members, then those of Extra.
func (v SamplingRequest) MarshalJSON() ([]byte, error) {
	type plain SamplingRequest
	return marshalKeep(plain(v), v.Extra)
}

// UnmarshalJSON decodes the known members and keeps the others in Extra.
func (v *SamplingMessage) UnmarshalJSON(b []byte) error {
	type plain SamplingMessage
	return unmarshalKeep(b, (*plain)(v), &v.Extra)
}

// MarshalJSON encodes the known members, then those of Extra.
func (v SamplingMessage) MarshalJSON() ([]byte, error) {
	type plain SamplingMessage
	return marshalKeep(plain(v), v.Extra)
}

// UnmarshalJSON decodes the known members and keeps the others in Extra.
func (v *SamplingResult) UnmarshalJSON(b []byte) error {
	type plain SamplingResult
	return unmarshalKeep(b, (*plain)(v), &v.Extra)
}

// MarshalJSON encodes the known members, then those of Extra.
func (v SamplingResult) MarshalJSON() ([]byte, error) {
	type plain SamplingResult
	return marshalKeep(plain(v), v.Extra)
}

// UnmarshalJSON decodes the known members and keeps the others in Extra.
func (v *LLMRequest) UnmarshalJSON(b []byte) error {
	type plain LLMRequest
	return unmarshalKeep(b, (*plain)(v), &v.Extra)
}

// MarshalJSON encodes the known members, then those of Extra.
func (v LLMRequest) MarshalJSON() ([]byte, error) {
	type plain LLMRequest
	return marshalKeep(plain(v), v.Extra)
}

// UnmarshalJSON decodes the known members and keeps the others in Extra.
func (v *LLMMessage) UnmarshalJSON(b []byte) error {
	type plain LLMMessage
	return unmarshalKeep(b, (*plain)(v), &v.Extra)
}

// MarshalJSON encodes the known members, then those of Extra.
func (v LLMMessage) MarshalJSON() ([]byte, error) {
	type plain LLMMessage
	return marshalKeep(plain(v), v.Extra)
}

// UnmarshalJSON decodes the known members and keeps the others in Extra.
func (v *LLMResponse) UnmarshalJSON(b []byte) error {
	type plain LLMResponse
	return unmarshalKeep(b, (*plain)(v), &v.Extra)
}

// MarshalJSON encodes the known members, then those of Extra.
func (v LLMResponse) MarshalJSON() ([]byte, error) {
	type plain LLMResponse
	return marshalKeep(plain(v), v.Extra)
}
