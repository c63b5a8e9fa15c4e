package spec

import "sort"

// JSON-RPC method names of the interceptor protocol.
const (
	MethodList   = "interceptors/list"
	MethodInvoke = "interceptor/invoke"
)

// CapabilityKey is the key under capabilities.extensions that advertises an
// interceptor host.
const CapabilityKey = "io.modelcontextprotocol/interceptors"

// Capability is the value advertised under [CapabilityKey].
type Capability struct {
	// SupportedEvents is the sorted union of the hook events of the host's
	// interceptors.
	SupportedEvents []string `json:"supportedEvents"`
}

// SupportedEvents returns the sorted union of the hook events of ds: the value
// a host advertises in its [Capability].
func SupportedEvents(ds []Interceptor) []string {
	seen := map[string]bool{}
	out := []string{}
	for i := range ds {
		for _, h := range ds[i].Hooks {
			for _, e := range h.Events {
				if !seen[e] {
					seen[e] = true
					out = append(out, e)
				}
			}
		}
	}
	sort.Strings(out)
	return out
}
