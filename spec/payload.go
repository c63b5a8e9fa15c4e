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
	// This runs on every mutation a plugin returns, so it scans the top level
	// in place instead of decoding the payload into a map.
	var found [4]bool
	for m := newMembers(payload); ; {
		key, val, ok := m.next()
		if !ok {
			break
		}
		for i, f := range need {
			if keyEquals(key, f.name) {
				found[i] = true
				if !f.kind.is(val) {
					return fmt.Errorf("%s %s payload: %q must be %s", event, phase, f.name, f.kind)
				}
			}
		}
	}
	for i, f := range need {
		if !found[i] && !f.optional {
			return fmt.Errorf("%s %s payload: %q is required", event, phase, f.name)
		}
	}
	return nil
}

// members walks the top-level members of a valid JSON object in place.
type members struct {
	b []byte
	i int
}

func newMembers(obj []byte) members {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return members{}
	}
	return members{b: obj, i: i + 1}
}

// next returns the raw key (without quotes) and raw value of the next member.
func (m *members) next() (key, val []byte, ok bool) {
	b := m.b
	for {
		m.i = skipSpace(b, m.i)
		if m.i >= len(b) || b[m.i] == '}' {
			return nil, nil, false
		}
		if b[m.i] != ',' {
			break
		}
		m.i++
	}
	ks := m.i
	m.i = skipString(b, m.i)
	key = b[ks+1 : m.i-1]
	m.i = skipSpace(b, skipSpace(b, m.i)+1) // past the colon
	vs := m.i
	m.i = skipValue(b, m.i)
	return key, b[vs:m.i], true
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index just past the string that starts at b[i].
func skipString(b []byte, i int) int {
	for i++; i < len(b); {
		switch b[i] {
		case '\\':
			i += 2
		case '"':
			return i + 1
		default:
			i++
		}
	}
	return len(b)
}

// skipValue returns the index just past the value that starts at b[i].
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = skipString(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return len(b)
	}
	for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' && b[i] != '\t' && b[i] != '\n' && b[i] != '\r' {
		i++
	}
	return i
}

// keyEquals compares a raw JSON key with name, unescaping only when the key
// has escapes (rare, so the common case allocates nothing).
func keyEquals(raw []byte, name string) bool {
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw) == name
	}
	var s string
	if err := json.Unmarshal(append(append([]byte{'"'}, raw...), '"'), &s); err != nil {
		return false
	}
	return s == name
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
