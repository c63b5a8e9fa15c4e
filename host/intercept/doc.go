// Package intercept runs interceptor chains on MCP messages: it is the
// per-message logic that the gateway (host/gateway) puts between a client and
// a server, kept apart so that a go-sdk client wrapper or server middleware
// can reuse it unchanged.
//
// For each request it knows (SPEC.md section 7):
//
//   - which MCP methods are intercepted events, and in which phases
//     ([Hooked]);
//   - the direction of each phase ([DirectionOf]): a client's request is sent
//     across the trust boundary and its result received; a server-initiated
//     request (sampling/createMessage, elicitation/create, roots/list) is the
//     reverse;
//   - how typed go-sdk params and results become a chain payload (the params
//     object as sent on the wire, the result object) and how the chain's
//     finalPayload becomes typed params and results again;
//   - how a block is answered (a CallToolResult with isError for tools/call,
//     a JSON-RPC error otherwise), without copying interceptor messages
//     across the boundary unless asked to;
//   - that every tool listed keeps an object inputSchema;
//   - that a tool, prompt or resource a response mutation removed from a list
//     is refused when called by name ([Session]).
//
// [Engine.Handle] does all of it around one call of the next hop.
package intercept
