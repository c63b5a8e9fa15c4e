package spec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
)

// JSONEqual reports whether a and b encode the same JSON value, ignoring
// white space and object key order. Identical bytes are the fast path.
func JSONEqual(a, b json.RawMessage) bool {
	if bytes.Equal(a, b) {
		return true
	}
	var va, vb any
	da, db := json.NewDecoder(bytes.NewReader(a)), json.NewDecoder(bytes.NewReader(b))
	da.UseNumber()
	db.UseNumber()
	if da.Decode(&va) != nil || db.Decode(&vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}

// CheckPayload returns an error when payload is not a valid payload for
// (event, phase): request payloads are a request's params and response
// payloads a request's result, both JSON objects, with the fields that the
// known events require. A mutator's replacement must pass it; custom events
// need only be objects.
func CheckPayload(event string, phase Phase, payload json.RawMessage) error {
	if !isJSONObject(payload) {
		return fmt.Errorf("%s %s payload must be a JSON object", event, phase)
	}
	var need []fieldKind
	switch phase {
	case PhaseRequest:
		need = requestShape[event]
	case PhaseResponse:
		need = responseShape[event]
	}
	if len(need) == 0 {
		return nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(payload, &obj); err != nil {
		return fmt.Errorf("%s %s payload: %w", event, phase, err)
	}
	for _, f := range need {
		v, ok := obj[f.name]
		if !ok {
			if f.optional {
				continue
			}
			return fmt.Errorf("%s %s payload: %q is required", event, phase, f.name)
		}
		if !f.kind.is(v) {
			return fmt.Errorf("%s %s payload: %q must be %s", event, phase, f.name, f.kind)
		}
	}
	return nil
}

type jsonKind string

const (
	kindString jsonKind = "a string"
	kindObject jsonKind = "an object"
	kindArray  jsonKind = "an array"
)

func (k jsonKind) is(v json.RawMessage) bool {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return false
	}
	switch k {
	case kindString:
		return v[0] == '"'
	case kindObject:
		return v[0] == '{'
	case kindArray:
		return v[0] == '['
	}
	return false
}

type fieldKind struct {
	name     string
	kind     jsonKind
	optional bool
}

var requestShape = map[string][]fieldKind{
	EventToolsCall:             {{"name", kindString, false}, {"arguments", kindObject, true}},
	EventPromptsGet:            {{"name", kindString, false}, {"arguments", kindObject, true}},
	EventResourcesRead:         {{"uri", kindString, false}},
	EventResourcesSubscribe:    {{"uri", kindString, false}},
	EventSamplingCreateMessage: {{"messages", kindArray, false}},
	EventElicitationCreate:     {{"message", kindString, false}},
	EventLLMCompletion:         {{"messages", kindArray, false}},
}

var responseShape = map[string][]fieldKind{
	EventToolsList:             {{"tools", kindArray, false}},
	EventToolsCall:             {{"content", kindArray, true}},
	EventPromptsList:           {{"prompts", kindArray, false}},
	EventPromptsGet:            {{"messages", kindArray, false}},
	EventResourcesList:         {{"resources", kindArray, false}},
	EventResourcesRead:         {{"contents", kindArray, false}},
	EventResourcesTemplateList: {{"resourceTemplates", kindArray, false}},
	EventRootsList:             {{"roots", kindArray, false}},
	EventElicitationCreate:     {{"action", kindString, false}},
	EventLLMCompletion:         {{"message", kindObject, false}},
}
