package intercept

import "github.com/modelcontextprotocol/go-sdk/mcp"

// coerceInputSchemas gives every tool an object inputSchema: MCP requires
// one, and clients (the go-sdk's among them) drop or reject tools without it.
// A schema that is not a JSON object becomes {"type":"object"}; an object
// without a type gets "type":"object"; an object of another type is
// replaced, since no arguments object could satisfy it.
func coerceInputSchemas(r *mcp.ListToolsResult) {
	for _, t := range r.Tools {
		if t == nil {
			continue
		}
		t.InputSchema = coerceSchema(t.InputSchema)
	}
}

func coerceSchema(s any) any {
	m, ok := asObject(s)
	if !ok {
		return map[string]any{"type": "object"}
	}
	switch m["type"] {
	case "object":
		return s
	case nil:
		out := make(map[string]any, len(m)+1)
		for k, v := range m {
			out[k] = v
		}
		out["type"] = "object"
		return out
	}
	return map[string]any{"type": "object"}
}

// asObject returns the schema as a map when it is a JSON object. Schemas
// decoded from the wire are map[string]any; other Go values (a
// *jsonschema.Schema, json.RawMessage) are typed by the server that built
// them, which the go-sdk already requires to be objects.
func asObject(s any) (map[string]any, bool) {
	switch v := s.(type) {
	case map[string]any:
		return v, true
	case nil:
		return nil, false
	default:
		m, err := remarshal(v)
		return m, err == nil && m != nil
	}
}
