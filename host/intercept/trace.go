package intercept

import (
	"encoding/json"
	"strings"
)

// traceParent reads a W3C traceparent ("00-<32 hex trace id>-<16 hex span
// id>-<2 hex flags>") from a request's _meta, where MCP clients that trace
// put it. Anything malformed yields nothing rather than a half-parsed id.
func traceParent(meta map[string]any) (traceID, spanID string) {
	tp, _ := meta["traceparent"].(string)
	parts := strings.Split(strings.TrimSpace(tp), "-")
	if len(parts) < 4 || len(parts[0]) != 2 || len(parts[1]) != 32 || len(parts[2]) != 16 {
		return "", ""
	}
	if !isHex(parts[1]) || !isHex(parts[2]) || strings.Trim(parts[1], "0") == "" {
		return "", ""
	}
	return parts[1], parts[2]
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// remarshal turns a Go value into a JSON object map, through its JSON.
func remarshal(v any) (map[string]any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	return m, nil
}
