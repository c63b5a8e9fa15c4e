// Command audit-log is a sink that records every call it sees — event,
// phase, tool, principal, trace ids, payload size and SHA-256 — to the host's
// log, one JSON record per call. The payload itself is recorded only when the
// configuration asks for it.
//
// Build: airlock plugin build plugins/audit-log -o audit-log.wasm
package main

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"

	"github.com/airlock-mcp/airlock/abi"
	"github.com/airlock-mcp/airlock/pdk"
)

func main() {}

// Config is the plugin's configuration.
type Config struct {
	// IncludePayload records the payload too (off by default: payloads
	// carry the very data an audit log must not spread).
	IncludePayload bool `json:"includePayload"`
	// MaxPayloadBytes truncates a recorded payload. Default 4096.
	MaxPayloadBytes int `json:"maxPayloadBytes"`
	// Level of the log record: debug, info (default), warn.
	Level string `json:"level"`
}

// Entry is one audit record.
type Entry struct {
	Event     string          `json:"event"`
	Phase     string          `json:"phase"`
	Tool      string          `json:"tool,omitempty"`
	Resource  string          `json:"resource,omitempty"`
	Prompt    string          `json:"prompt,omitempty"`
	Principal string          `json:"principal"`
	TraceID   string          `json:"traceId,omitempty"`
	SpanID    string          `json:"spanId,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
	Timestamp string          `json:"timestamp,omitempty"`
	IsError   bool            `json:"isError,omitempty"`
	Bytes     int             `json:"bytes"`
	SHA256    string          `json:"sha256"`
	Seq       uint64          `json:"seq"`
	Meta      json.RawMessage `json:"meta,omitempty"`
	Payload   string          `json:"payload,omitempty"`
	Truncated bool            `json:"truncated,omitempty"`
}

func init() {
	pdk.Sink(pdk.Descriptor{
		Name: "audit-log", Version: "1.0.0",
		Description: "Records every call (event, phase, tool, principal, size, hash) to the host log.",
		Events:      []string{"*"}, Phase: pdk.Both,
	}, record)
}

func record(c *pdk.Call) pdk.Record {
	cfg := Config{MaxPayloadBytes: 4096, Level: "info"}
	if err := c.Config(&cfg); err != nil {
		c.Fail(err)
	}
	payload := c.Payload()
	sum := sha256.Sum256(payload)
	ctx := c.Context()
	e := Entry{
		Event: c.Event(), Phase: string(c.Phase()), Principal: c.PrincipalKey(),
		TraceID: ctx.TraceID, SpanID: ctx.SpanID, SessionID: ctx.SessionID, Timestamp: ctx.Timestamp,
		Bytes: len(payload), SHA256: hex.EncodeToString(sum[:]), Meta: c.Meta(),
	}
	// What the payload is about, without its content (and without decoding
	// it: only the member needed is read).
	switch {
	case c.Phase() == pdk.Request && c.Event() == "tools/call":
		e.Tool = c.ToolName()
	case c.Phase() == pdk.Request && c.Event() == "prompts/get":
		e.Prompt = stringMember(c, "name")
	case c.Phase() == pdk.Request && (c.Event() == "resources/read" || c.Event() == "resources/subscribe"):
		e.Resource = stringMember(c, "uri")
	case c.Phase() == pdk.Response && c.Event() == "tools/call":
		e.IsError = string(c.PayloadMember("isError")) == "true"
	}
	if cfg.IncludePayload {
		p := string(payload)
		if cfg.MaxPayloadBytes > 0 && len(p) > cfg.MaxPayloadBytes {
			p, e.Truncated = p[:cfg.MaxPayloadBytes], true
		}
		e.Payload = p
	}
	// A sequence number shared by all instances: gaps or repeats show
	// lost or concurrent records.
	var seq uint64
	if b, ok := c.Vars().Get("seq"); ok && len(b) == 8 {
		seq = binary.LittleEndian.Uint64(b)
	}
	seq++
	e.Seq = seq
	if err := c.Vars().Set("seq", binary.LittleEndian.AppendUint64(nil, seq)); err != nil {
		c.Warnf("audit-log: %v", err)
	}
	line, err := json.Marshal(e)
	if err != nil {
		c.Fail(err)
	}
	level := abi.LogInfo
	switch cfg.Level {
	case "debug":
		level = abi.LogDebug
	case "warn":
		level = abi.LogWarn
	}
	c.Log(level, "audit "+string(line))
	// The record is the info too, encoded once.
	return pdk.Recorded(map[string]float64{"bytes": float64(len(payload)), "seq": float64(seq)}).WithInfo(json.RawMessage(line))
}

// stringMember is the payload's top-level string member name, or "".
func stringMember(c *pdk.Call, name string) string {
	var s string
	if raw := c.PayloadMember(name); len(raw) > 0 && raw[0] == '"' {
		_ = json.Unmarshal(raw, &s)
	}
	return s
}
