package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/airlock-mcp/airlock/host/chain"
	"github.com/airlock-mcp/airlock/host/gateway"
	"github.com/airlock-mcp/airlock/host/native"
	"github.com/airlock-mcp/airlock/spec"
)

// policy is a set of native interceptors that validate, mutate and sink on
// every intercepted event, and remember what they saw.
type policy struct {
	src *native.Source

	mu    sync.Mutex
	seen  map[string][]string // by interceptor: the payloads it was invoked with
	audit []spec.InvokeParams // every sink invocation
}

func hook(phase spec.Phase, events ...string) []spec.Hook {
	return []spec.Hook{{Events: events, Phase: phase}}
}

func (p *policy) saw(name string, payload json.RawMessage) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.seen[name] = append(p.seen[name], string(payload))
}

func (p *policy) payloads(name string) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.seen[name]...)
}

func (p *policy) audits() []spec.InvokeParams {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]spec.InvokeParams(nil), p.audit...)
}

// validator blocks when reject returns a message.
func (p *policy) validator(name string, hooks []spec.Hook, reject func(map[string]any) string) {
	p.src.MustAdd(spec.Interceptor{Name: name, Type: spec.TypeValidation, Hooks: hooks},
		func(_ context.Context, in *spec.InvokeParams) (*spec.Result, error) {
			p.saw(name, in.Payload)
			var m map[string]any
			if err := json.Unmarshal(in.Payload, &m); err != nil {
				return nil, err
			}
			res := &spec.Result{Interceptor: name, Type: spec.TypeValidation, Phase: in.Phase, Valid: true}
			if msg := reject(m); msg != "" {
				res.Valid, res.Severity = false, spec.SeverityError
				res.Messages = []spec.Message{{Message: msg, Severity: spec.SeverityError}}
			}
			return res, nil
		})
}

// mutator rewrites the decoded payload in place.
func (p *policy) mutator(name string, hooks []spec.Hook, mutate func(map[string]any)) {
	p.src.MustAdd(spec.Interceptor{Name: name, Type: spec.TypeMutation, Hooks: hooks},
		func(_ context.Context, in *spec.InvokeParams) (*spec.Result, error) {
			p.saw(name, in.Payload)
			var m map[string]any
			if err := json.Unmarshal(in.Payload, &m); err != nil {
				return nil, err
			}
			mutate(m)
			out, err := json.Marshal(m)
			if err != nil {
				return nil, err
			}
			mod := !spec.JSONEqual(out, in.Payload)
			res := &spec.Result{Interceptor: name, Type: spec.TypeMutation, Phase: in.Phase, Modified: mod}
			if mod {
				res.Payload = out
			}
			return res, nil
		})
}

// replacer is a mutator that replaces text anywhere in the payload.
func (p *policy) replacer(name string, hooks []spec.Hook, old, new string) {
	p.src.MustAdd(spec.Interceptor{Name: name, Type: spec.TypeMutation, Hooks: hooks},
		func(_ context.Context, in *spec.InvokeParams) (*spec.Result, error) {
			p.saw(name, in.Payload)
			out := bytes.ReplaceAll(in.Payload, []byte(old), []byte(new))
			mod := !bytes.Equal(out, in.Payload)
			res := &spec.Result{Interceptor: name, Type: spec.TypeMutation, Phase: in.Phase, Modified: mod}
			if mod {
				res.Payload = out
			}
			return res, nil
		})
}

// dropWhere removes the members of list key whose field contains substr.
func dropWhere(key, field, substr string) func(map[string]any) {
	return func(m map[string]any) {
		list, _ := m[key].([]any)
		kept := []any{}
		for _, it := range list {
			if o, ok := it.(map[string]any); ok {
				if s, _ := o[field].(string); strings.Contains(s, substr) {
					continue
				}
			}
			kept = append(kept, it)
		}
		if list != nil {
			m[key] = kept
		}
	}
}

func str(m map[string]any, path ...string) string {
	var v any = m
	for _, k := range path {
		o, _ := v.(map[string]any)
		v = o[k]
	}
	s, _ := v.(string)
	return s
}

// newPolicy is the interceptors every forwarding test runs with.
func newPolicy() *policy {
	p := &policy{src: native.New(), seen: map[string][]string{}}
	req, res := spec.PhaseRequest, spec.PhaseResponse

	// tools/call, request (sending): the mutator runs before the validator.
	p.mutator("stamp", hook(req, "tools/call"), func(m map[string]any) {
		if m["name"] == "echo" {
			args, _ := m["arguments"].(map[string]any)
			if args == nil {
				args = map[string]any{}
			}
			args["stamped"] = true
			m["arguments"] = args
		}
	})
	p.validator("guard", hook(req, "tools/call"), func(m map[string]any) string {
		b, _ := json.Marshal(m["arguments"])
		if bytes.Contains(b, []byte("forbidden")) {
			return "the arguments contain a forbidden word"
		}
		return ""
	})
	// Responses of calls: redact an email address.
	p.replacer("redact", hook(res, "tools/call", "prompts/get", "resources/read"), "ada@example.com", "[email]")
	// Lists: hide everything internal.
	p.mutator("hide-tools", hook(res, "tools/list"), dropWhere("tools", "name", "internal"))
	p.mutator("hide-prompts", hook(res, "prompts/list"), dropWhere("prompts", "name", "internal"))
	p.mutator("hide-resources", hook(res, "resources/list"), dropWhere("resources", "uri", "internal"))
	p.mutator("hide-templates", hook(res, "resources/templates/list"), dropWhere("resourceTemplates", "name", "internal"))
	p.validator("prompt-guard", hook(req, "prompts/get"), func(m map[string]any) string {
		if str(m, "arguments", "who") == "mallory" {
			return "mallory may not be greeted"
		}
		return ""
	})
	p.validator("read-guard", hook(req, "resources/read"), func(m map[string]any) string {
		if strings.Contains(str(m, "uri"), "/items/0") {
			return "item 0 is off limits"
		}
		return ""
	})
	p.validator("subscribe-guard", hook(req, "resources/subscribe"), func(m map[string]any) string {
		if strings.Contains(str(m, "uri"), "locked") {
			return "locked resources cannot be watched"
		}
		return ""
	})
	p.validator("list-guard", hook(req, "tools/list", "prompts/list", "resources/list", "resources/templates/list"),
		func(m map[string]any) string {
			if str(m, "cursor") == "bogus" {
				return "no bogus cursors"
			}
			return ""
		})

	// sampling/createMessage, request (receiving: validate, then mutate).
	p.validator("sample-guard", hook(req, "sampling/createMessage"), func(m map[string]any) string {
		b, _ := json.Marshal(m["messages"])
		if bytes.Contains(b, []byte("taboo")) {
			return "the prompt is taboo"
		}
		return ""
	})
	p.replacer("sample-rewrite", hook(req, "sampling/createMessage"), "be brief", "be kind")
	// sampling/createMessage, response (sending: mutate, then validate).
	p.replacer("sample-tag", hook(res, "sampling/createMessage"), `"hi"`, `"hi (via airlock)"`)
	p.validator("model-guard", hook(res, "sampling/createMessage"), func(m map[string]any) string {
		if m["model"] == "evil-model" {
			return "that model is not allowed"
		}
		return ""
	})
	// elicitation/create: refuse asking for passwords; mask the answer.
	p.validator("elicit-guard", hook(req, "elicitation/create"), func(m map[string]any) string {
		if strings.Contains(str(m, "message"), "password") {
			return "no passwords"
		}
		return ""
	})
	p.mutator("elicit-mask", hook(res, "elicitation/create"), func(m map[string]any) {
		if c, ok := m["content"].(map[string]any); ok {
			c["name"] = "***"
		}
	})
	// roots/list: the backend does not learn private roots.
	p.mutator("roots-filter", hook(res, "roots/list"), dropWhere("roots", "uri", "private"))

	// A sink on everything, both phases.
	p.src.MustAdd(spec.Interceptor{Name: "audit", Type: spec.TypeSink,
		Hooks: []spec.Hook{{Events: []string{"*"}, Phase: req}, {Events: []string{"*"}, Phase: res}}},
		func(_ context.Context, in *spec.InvokeParams) (*spec.Result, error) {
			p.mu.Lock()
			p.audit = append(p.audit, *in)
			p.mu.Unlock()
			return &spec.Result{Interceptor: "audit", Type: spec.TypeSink, Phase: in.Phase, Recorded: true}, nil
		})
	return p
}

func (p *policy) chain(t testing.TB) *chain.Chain {
	t.Helper()
	c, err := chain.New(context.Background(), []chain.Source{p.src}, chain.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// client is what the gateway's client saw.
type client struct {
	cs *mcp.ClientSession
	c  *mcp.Client

	mu           sync.Mutex
	progress     []*mcp.ProgressNotificationParams
	logs         []*mcp.LoggingMessageParams
	changed      []string
	updated      []string
	sampled      []*mcp.CreateMessageParams
	elicited     []*mcp.ElicitParams
	model        string // what the sampling handler answers as
	elicitAnswer map[string]any
}

func (c *client) note(f func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f()
}

// eventually waits for cond (read under the client's lock).
func (c *client) eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		c.mu.Lock()
		ok := cond()
		c.mu.Unlock()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func newClient() *client {
	c := &client{model: "m1", elicitAnswer: map[string]any{"name": "Ada"}}
	c.c = mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "0.1"}, &mcp.ClientOptions{
		CreateMessageHandler: func(_ context.Context, r *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			var model string
			c.note(func() { c.sampled = append(c.sampled, r.Params); model = c.model })
			return &mcp.CreateMessageResult{Model: model, Role: "assistant", Content: &mcp.TextContent{Text: "hi"}}, nil
		},
		ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			var ans map[string]any
			c.note(func() { c.elicited = append(c.elicited, r.Params); ans = c.elicitAnswer })
			return &mcp.ElicitResult{Action: "accept", Content: ans}, nil
		},
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			c.note(func() { c.progress = append(c.progress, r.Params) })
		},
		LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
			c.note(func() { c.logs = append(c.logs, r.Params) })
		},
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			c.note(func() { c.changed = append(c.changed, "tools") })
		},
		PromptListChangedHandler: func(context.Context, *mcp.PromptListChangedRequest) {
			c.note(func() { c.changed = append(c.changed, "prompts") })
		},
		ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
			c.note(func() { c.updated = append(c.updated, r.Params.URI) })
		},
	})
	c.c.AddRoots(&mcp.Root{URI: "file:///work/project", Name: "project"}, &mcp.Root{URI: "file:///home/private", Name: "private"})
	return c
}

// transports the tests run the gateway's client side over.
var transports = []string{"in-memory", "streamable-http"}

// startGateway starts a gateway in front of b and connects a client to it
// over the named transport. Everything is closed when the test ends.
func startGateway(t *testing.T, b *backend, p chain.Provider, transport string, opts gateway.Options) (*gateway.Gateway, *client) {
	t.Helper()
	opts.Backend = b.dial
	opts.Chains = p
	g, err := gateway.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	return g, connectClient(t, g, transport)
}

func connectClient(t *testing.T, g *gateway.Gateway, transport string) *client {
	t.Helper()
	ctx := context.Background()
	c := newClient()
	var ct mcp.Transport
	switch transport {
	case "in-memory":
		a, b := mcp.NewInMemoryTransports()
		ss, err := g.MCP().Connect(ctx, b, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ss.Close() })
		ct = a
	case "streamable-http":
		srv := httptest.NewServer(g.HTTPHandler())
		t.Cleanup(srv.Close)
		ct = &mcp.StreamableClientTransport{Endpoint: srv.URL}
	default:
		t.Fatalf("unknown transport %q", transport)
	}
	cs, err := c.c.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	c.cs = cs
	return c
}
