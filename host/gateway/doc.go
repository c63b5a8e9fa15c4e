// Package gateway is a transparent MCP gateway: a go-sdk server that, to its
// clients, is the backend server it stands in front of, and that runs the
// interceptor chain on the traffic in between (SPEC.md section 7).
//
// The backend is a command speaking MCP on stdio ([Command]) or a
// streamable HTTP endpoint ([URL]); clients connect over any go-sdk
// transport ([Gateway.Serve] for stdio, [Gateway.HTTPHandler] for
// streamable HTTP). Every client session gets a backend session of its own,
// opened when the client initializes and introduced to the backend with the
// client's own clientInfo and capabilities; the client is answered with the
// backend's serverInfo, instructions and capabilities.
//
// Every request and notification is forwarded, both ways. The intercepted
// requests (tools, prompts and resources from the client; sampling,
// elicitation and roots from the backend) run through
// [github.com/airlock-mcp/airlock/host/intercept], which owns the
// per-message rules; this package owns the sessions and the wiring.
//
// Both hops speak protocol [BackendProtocol] (2025-11-25): see RATIONALE.md
// for why not 2026-07-28.
package gateway
