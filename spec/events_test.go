package spec

import "testing"

func TestMatchEvent(t *testing.T) {
	tests := []struct {
		pattern, event string
		want           bool
	}{
		{"tools/call", "tools/call", true},
		{"tools/call", "tools/list", false},
		{"*", "tools/call", true},
		{"*", "acme/custom", true},
		{"*", "initialize", false},
		{"*", "ping", false},
		{"*", "notifications/tools/list_changed", false},
		{"initialize", "initialize", false},
		{"notifications/*", "notifications/progress", false},
		{"tools/*", "tools/call", true},
		{"tools/*", "tools/list", true},
		{"tools/*", "tools", false},
		{"tools/*", "tools/", false},
		{"tools/*", "toolsx/call", false},
		{"resources/*", "resources/templates/list", true},
		{"resources/templates/*", "resources/read", false},
		{"/*", "/x", false},
		{"tools/call", "", false},
	}
	for _, tt := range tests {
		if got := MatchEvent(tt.pattern, tt.event); got != tt.want {
			t.Errorf("MatchEvent(%q, %q) = %v, want %v", tt.pattern, tt.event, got, tt.want)
		}
	}
}

func TestPatternCovers(t *testing.T) {
	tests := []struct {
		outer, inner string
		want         bool
	}{
		{"*", "tools/call", true},
		{"*", "*", true},
		{"*", "tools/*", true},
		{"tools/*", "tools/call", true},
		{"tools/*", "tools/*", true},
		{"tools/*", "*", false},
		{"tools/*", "prompts/get", false},
		{"tools/call", "tools/*", false},
		{"tools/call", "tools/call", true},
		{"tools/call", "tools/list", false},
		{"resources/*", "resources/templates/*", true},
	}
	for _, tt := range tests {
		if got := PatternCovers(tt.outer, tt.inner); got != tt.want {
			t.Errorf("PatternCovers(%q, %q) = %v, want %v", tt.outer, tt.inner, got, tt.want)
		}
	}
}

func TestHookMatches(t *testing.T) {
	h := Hook{Events: []string{"prompts/get", "tools/*"}, Phase: PhaseResponse}
	if !h.Matches("tools/call", PhaseResponse) || !h.Matches("prompts/get", PhaseResponse) {
		t.Fatal("hook should match its events in its phase")
	}
	if h.Matches("tools/call", PhaseRequest) {
		t.Fatal("hook must not match the other phase")
	}
	d := Interceptor{Hooks: []Hook{h}}
	if !d.MatchesAnyPhase("tools/list") || d.MatchesAnyPhase("resources/read") {
		t.Fatal("MatchesAnyPhase")
	}
}
