package spec

import "strings"

// Events that interceptors can hook. Any other "namespace/operation" string is
// a valid custom event.
const (
	EventToolsList             = "tools/list"
	EventToolsCall             = "tools/call"
	EventPromptsList           = "prompts/list"
	EventPromptsGet            = "prompts/get"
	EventResourcesList         = "resources/list"
	EventResourcesRead         = "resources/read"
	EventResourcesSubscribe    = "resources/subscribe"
	EventResourcesTemplateList = "resources/templates/list"
	EventSamplingCreateMessage = "sampling/createMessage"
	EventElicitationCreate     = "elicitation/create"
	EventRootsList             = "roots/list"
	EventLLMCompletion         = "llm/completion"

	// EventAll matches every interceptable event.
	EventAll = "*"
)

// KnownEvents lists the events this package names, in the order SPEC.md gives
// them. Custom events are valid too; this list is for documentation and tools.
var KnownEvents = []string{
	EventToolsList, EventToolsCall, EventPromptsList, EventPromptsGet,
	EventResourcesList, EventResourcesRead, EventResourcesSubscribe,
	EventResourcesTemplateList, EventSamplingCreateMessage,
	EventElicitationCreate, EventRootsList, EventLLMCompletion,
}

// Interceptable reports whether an event may be intercepted at all.
// initialize, ping and notifications are never intercepted: they carry the
// session itself, and blocking them would break the connection rather than
// govern a message.
func Interceptable(event string) bool {
	switch {
	case event == "", event == "initialize", event == "ping",
		strings.HasPrefix(event, "notifications/"):
		return false
	}
	return true
}

// MatchEvent reports whether a hook's event pattern selects event. A pattern is
// an exact event name, "*" (every interceptable event) or a namespace glob
// "ns/*" (every event whose name starts with "ns/"). Events that are not
// [Interceptable] match no pattern, not even an exact one.
func MatchEvent(pattern, event string) bool {
	if !Interceptable(event) {
		return false
	}
	if pattern == event || pattern == EventAll {
		return true
	}
	if ns, ok := strings.CutSuffix(pattern, "/*"); ok && ns != "" {
		return len(event) > len(ns)+1 && event[:len(ns)] == ns && event[len(ns)] == '/'
	}
	return false
}

// PatternCovers reports whether everything pattern inner matches is matched by
// outer too. Invoker overrides use it: an override may narrow an interceptor's
// hooks, never widen them.
func PatternCovers(outer, inner string) bool {
	switch {
	case outer == inner, outer == EventAll:
		return true
	case inner == EventAll:
		return false
	}
	ns, ok := strings.CutSuffix(outer, "/*")
	if !ok || ns == "" {
		return false
	}
	// A narrower glob ("tools/x/*") or an exact event inside the namespace.
	return strings.HasPrefix(inner, ns+"/") && len(inner) > len(ns)+1
}

// validEventPattern reports whether s can stand in a hook's events.
func validEventPattern(s string) bool {
	if s == EventAll {
		return true
	}
	if s == "" || strings.TrimSpace(s) != s {
		return false
	}
	if ns, ok := strings.CutSuffix(s, "/*"); ok {
		return ns != "" && !strings.Contains(ns, "*")
	}
	// Events are "namespace/operation": a bare word is most likely a typo for
	// a glob ("tools" for "tools/*") and would silently match nothing.
	return !strings.Contains(s, "*") && strings.Contains(s, "/") && Interceptable(s)
}
