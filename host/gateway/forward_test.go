package gateway_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/airlock-mcp/airlock/host/chain"
	"github.com/airlock-mcp/airlock/host/gateway"
	"github.com/airlock-mcp/airlock/spec"
)

// TestForwarding drives every forwarded method and notification through the
// gateway, both ways, with interceptors that validate, mutate and sink on
// each intercepted event.
func TestForwarding(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr, func(t *testing.T) {
			b := newBackend(t)
			p := newPolicy()
			_, c := startGateway(t, b, chain.Static(p.chain(t)), tr, gateway.Options{})
			ctx := context.Background()

			t.Run("tools/list pages through, filtered", func(t *testing.T) {
				var names []string
				for tool, err := range c.cs.Tools(ctx, nil) {
					if err != nil {
						t.Fatal(err)
					}
					names = append(names, tool.Name)
					if s, ok := tool.InputSchema.(map[string]any); !ok || s["type"] != "object" {
						t.Errorf("tool %s inputSchema %v", tool.Name, tool.InputSchema)
					}
				}
				want := []string{"change", "contact", "echo", "elicit", "fail", "log", "roots", "sample", "slow"}
				if !slices.Equal(names, want) {
					t.Fatalf("tools %v, want %v", names, want)
				}
				// The backend pages by 3, so the cursor of every page went to the
				// backend and came back: compare the first page with a direct one.
				first, err := c.cs.ListTools(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				d, err := direct(t, b).ListTools(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				if first.NextCursor == "" || first.NextCursor != d.NextCursor {
					t.Fatalf("nextCursor %q, direct %q", first.NextCursor, d.NextCursor)
				}
			})

			t.Run("tools/call: mutated arguments reach the backend, progress comes back", func(t *testing.T) {
				params := &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "x"}}
				params.SetProgressToken("tok-1")
				res, err := c.cs.CallTool(ctx, params)
				if err != nil {
					t.Fatal(err)
				}
				if got := toolText(t, res); got != `echo: {"stamped":true,"text":"x"}` {
					t.Fatalf("result %q", got)
				}
				// Sending: the validator saw the stamped arguments.
				if g := p.payloads("guard"); len(g) == 0 || !strings.Contains(g[len(g)-1], `"stamped":true`) {
					t.Fatalf("guard saw %v", g)
				}
				c.eventually(t, "3 progress notifications", func() bool { return len(c.progress) == 3 })
				for i, pn := range c.progress {
					if pn.ProgressToken != "tok-1" || pn.Progress != float64(i+1) || pn.Message == "" {
						t.Fatalf("progress %d: %+v", i, pn)
					}
				}
			})

			t.Run("tools/call: response mutation", func(t *testing.T) {
				res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: "contact"})
				if err != nil {
					t.Fatal(err)
				}
				if got := toolText(t, res); got != "write to [email]" {
					t.Fatalf("result %q", got)
				}
			})

			t.Run("tools/call: a block never reaches the backend", func(t *testing.T) {
				before := len(b.echoCalls())
				res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "forbidden"}})
				if err != nil {
					t.Fatal(err)
				}
				txt := toolText(t, res)
				if !res.IsError || !strings.Contains(txt, `"guard"`) || !strings.Contains(txt, "request phase") {
					t.Fatalf("result %+v %q", res, txt)
				}
				if strings.Contains(txt, "forbidden word") {
					t.Fatalf("the interceptor's message leaked: %q", txt)
				}
				if len(b.echoCalls()) != before {
					t.Fatal("the blocked call reached the backend")
				}
			})

			t.Run("tools/call: backend errors pass unchanged", func(t *testing.T) {
				_, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: "fail"})
				we := wantRPCError(t, err, -32042, `{"why":"because","n":7}`)
				if we.Message != "backend says no" {
					t.Fatalf("message %q", we.Message)
				}
				_, err = c.cs.CallTool(ctx, &mcp.CallToolParams{Name: "no-such-tool"})
				wantRPCError(t, err, -32602, "")
			})

			t.Run("list/call agreement", func(t *testing.T) {
				if _, err := c.cs.ListTools(ctx, nil); err != nil {
					t.Fatal(err)
				}
				_, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: "internal-admin"})
				we := wantRPCError(t, err, -32602, "")
				if !strings.Contains(we.Message, "internal-admin") {
					t.Fatalf("message %q", we.Message)
				}
				if _, err := c.cs.ListPrompts(ctx, nil); err != nil {
					t.Fatal(err)
				}
				_, err = c.cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "internal-prompt"})
				wantRPCError(t, err, -32602, "")
				if _, err := c.cs.ListResources(ctx, nil); err != nil {
					t.Fatal(err)
				}
				_, err = c.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://internal/keys"})
				wantRPCError(t, err, -32602, `{"uri":"test://internal/keys"}`)
				err = c.cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "test://internal/keys"})
				wantRPCError(t, err, -32602, "")
				// A direct client can still read it: the gateway refused, not the backend.
				if _, err := direct(t, b).ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://internal/keys"}); err != nil {
					t.Fatal(err)
				}
			})

			t.Run("prompts", func(t *testing.T) {
				l, err := c.cs.ListPrompts(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				if len(l.Prompts) != 1 || l.Prompts[0].Name != "greet" {
					t.Fatalf("prompts %+v", l.Prompts)
				}
				g, err := c.cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet", Arguments: map[string]string{"who": "Bob"}})
				if err != nil {
					t.Fatal(err)
				}
				if txt := g.Messages[0].Content.(*mcp.TextContent).Text; txt != "hello Bob, mail [email]" {
					t.Fatalf("prompt text %q", txt)
				}
				_, err = c.cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet", Arguments: map[string]string{"who": "mallory"}})
				wantRPCError(t, err, -32602, `{"interceptor":"prompt-guard","phase":"request","status":"validation_failed"}`)
			})

			t.Run("resources", func(t *testing.T) {
				l, err := c.cs.ListResources(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				if len(l.Resources) != 1 || l.Resources[0].URI != "test://docs/readme" {
					t.Fatalf("resources %+v", l.Resources)
				}
				tl, err := c.cs.ListResourceTemplates(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				if len(tl.ResourceTemplates) != 1 || tl.ResourceTemplates[0].URITemplate != "test://items/{id}" {
					t.Fatalf("templates %+v", tl.ResourceTemplates)
				}
				r, err := c.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://docs/readme"})
				if err != nil {
					t.Fatal(err)
				}
				if r.Contents[0].Text != "read me, [email]" {
					t.Fatalf("contents %+v", r.Contents[0])
				}
				if r, err := c.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://items/7"}); err != nil || r.Contents[0].Text != "an item" {
					t.Fatalf("template read %+v %v", r, err)
				}
				_, err = c.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://items/0"})
				wantRPCError(t, err, -32602, `{"interceptor":"read-guard","phase":"request","status":"validation_failed"}`)

				if err := c.cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "test://docs/readme"}); err != nil {
					t.Fatal(err)
				}
				err = c.cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "test://docs/locked"})
				wantRPCError(t, err, -32602, `{"interceptor":"subscribe-guard","phase":"request","status":"validation_failed"}`)
				if err := c.cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: "test://docs/other"}); err != nil {
					t.Fatal(err)
				}
				if got := b.subscriptions(); !slices.Equal(got, []string{"test://docs/readme", "-test://docs/other"}) {
					t.Fatalf("the backend saw subscriptions %v", got)
				}
			})

			t.Run("list requests are intercepted too", func(t *testing.T) {
				_, err := c.cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: "bogus"})
				wantRPCError(t, err, -32602, `{"interceptor":"list-guard","phase":"request","status":"validation_failed"}`)
			})

			t.Run("completion, logging, ping", func(t *testing.T) {
				cr, err := c.cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "greet"},
					Argument: mcp.CompleteParamsArgument{Name: "who", Value: "al"}})
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(cr.Completion.Values, []string{"al-one", "al-two"}) {
					t.Fatalf("completion %+v", cr.Completion)
				}
				if err := c.cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
					t.Fatal(err)
				}
				if _, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: "log"}); err != nil {
					t.Fatal(err)
				}
				// The level reached the backend: debug was filtered there.
				c.eventually(t, "2 log messages", func() bool { return len(c.logs) == 2 })
				c.mu.Lock()
				if c.logs[0].Level != "info" || c.logs[1].Level != "error" || c.logs[0].Data != "at info" {
					t.Errorf("logs %+v %+v", c.logs[0], c.logs[1])
				}
				c.mu.Unlock()
				if err := c.cs.Ping(ctx, nil); err != nil {
					t.Fatal(err)
				}
			})

			t.Run("list_changed and resources/updated", func(t *testing.T) {
				if _, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: "change"}); err != nil {
					t.Fatal(err)
				}
				c.eventually(t, "list_changed for tools and prompts, and the update", func() bool {
					return slices.Contains(c.changed, "tools") && slices.Contains(c.changed, "prompts") &&
						slices.Contains(c.updated, "test://docs/readme")
				})
			})

			t.Run("sampling round trip", func(t *testing.T) {
				res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: "sample", Arguments: map[string]any{"q": "hello"}})
				if err != nil {
					t.Fatal(err)
				}
				if got := toolText(t, res); got != "model m1 said hi (via airlock)" {
					t.Fatalf("result %q", got)
				}
				c.mu.Lock()
				last := c.sampled[len(c.sampled)-1]
				c.mu.Unlock()
				if last.SystemPrompt != "be kind" || last.MaxTokens != 50 {
					t.Fatalf("the client was asked %+v", last)
				}
				// Receiving: the validator ran before the mutator and saw the
				// backend's own words; sending back: it saw the mutated answer.
				if g := p.payloads("sample-guard"); !strings.Contains(g[len(g)-1], "be brief") {
					t.Fatalf("sample-guard saw %v", g)
				}
				if g := p.payloads("model-guard"); !strings.Contains(g[len(g)-1], "via airlock") {
					t.Fatalf("model-guard saw %v", g)
				}
			})

			t.Run("sampling blocked both ways", func(t *testing.T) {
				c.mu.Lock()
				n := len(c.sampled)
				c.mu.Unlock()
				res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: "sample", Arguments: map[string]any{"q": "taboo"}})
				if err != nil {
					t.Fatal(err)
				}
				if got := toolText(t, res); !strings.Contains(got, "sampling failed") || !strings.Contains(got, "sample-guard") {
					t.Fatalf("result %q", got)
				}
				c.mu.Lock()
				if len(c.sampled) != n {
					t.Fatal("the blocked sampling request reached the client")
				}
				c.model = "evil-model"
				c.mu.Unlock()
				defer c.note(func() { c.model = "m1" })
				res, err = c.cs.CallTool(ctx, &mcp.CallToolParams{Name: "sample", Arguments: map[string]any{"q": "hello"}})
				if err != nil {
					t.Fatal(err)
				}
				if got := toolText(t, res); !strings.Contains(got, "sampling failed") || !strings.Contains(got, "model-guard") ||
					!strings.Contains(got, "response phase") || strings.Contains(got, "not allowed") {
					t.Fatalf("result %q", got)
				}
			})

			t.Run("elicitation round trip", func(t *testing.T) {
				res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: "elicit"})
				if err != nil {
					t.Fatal(err)
				}
				if got := toolText(t, res); got != `accept {"name":"***"}` {
					t.Fatalf("result %q", got)
				}
				c.mu.Lock()
				last := c.elicited[len(c.elicited)-1]
				c.mu.Unlock()
				if last.Message != "your name?" {
					t.Fatalf("the client was asked %+v", last)
				}
			})

			t.Run("roots round trip", func(t *testing.T) {
				res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: "roots"})
				if err != nil {
					t.Fatal(err)
				}
				if got := toolText(t, res); got != "file:///work/project" {
					t.Fatalf("result %q", got)
				}
			})

			t.Run("cancellation reaches the backend", func(t *testing.T) {
				cctx, cancel := context.WithCancel(ctx)
				errc := make(chan error, 1)
				go func() {
					_, err := c.cs.CallTool(cctx, &mcp.CallToolParams{Name: "slow"})
					errc <- err
				}()
				select {
				case <-b.started:
				case <-time.After(10 * time.Second):
					t.Fatal("the slow tool did not start")
				}
				cancel()
				if err := <-errc; err == nil {
					t.Fatal("the cancelled call succeeded")
				}
				select {
				case reason := <-b.cancelled:
					if reason == "" {
						t.Fatal("no reason")
					}
				case <-time.After(10 * time.Second):
					t.Fatal("the backend's handler was not cancelled")
				}
			})

			t.Run("the sink saw every intercepted event with its context", func(t *testing.T) {
				params := &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "traced"}}
				params.SetMeta(map[string]any{"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"})
				if _, err := c.cs.CallTool(ctx, params); err != nil {
					t.Fatal(err)
				}
				seen := map[string]bool{}
				var traced *spec.InvokeParams
				for _, a := range p.audits() {
					seen[a.Event+" "+string(a.Phase)] = true
					if a.Context == nil || a.Context.SessionID == "" || a.Context.Timestamp == "" {
						t.Fatalf("context %+v", a.Context)
					}
					if _, err := time.Parse(time.RFC3339Nano, a.Context.Timestamp); err != nil {
						t.Fatal(err)
					}
					if a.Event == "tools/call" && strings.Contains(string(a.Payload), "traced") {
						traced = &a
					}
				}
				for _, ev := range []string{"tools/list", "tools/call", "prompts/list", "prompts/get", "resources/list",
					"resources/read", "resources/templates/list", "sampling/createMessage", "elicitation/create", "roots/list"} {
					for _, ph := range []string{"request", "response"} {
						if !seen[ev+" "+ph] {
							t.Errorf("the sink never saw %s %s", ev, ph)
						}
					}
				}
				if !seen["resources/subscribe request"] || seen["resources/subscribe response"] {
					t.Errorf("resources/subscribe: %v", seen)
				}
				for k := range seen {
					if strings.HasPrefix(k, "completion") || strings.HasPrefix(k, "logging") || strings.HasPrefix(k, "ping") ||
						strings.HasPrefix(k, "resources/unsubscribe") {
						t.Errorf("%s was intercepted", k)
					}
				}
				if traced == nil || traced.Context.TraceID != "4bf92f3577b34da6a3ce929d0e0e4736" || traced.Context.SpanID != "00f067aa0ba902b7" {
					t.Fatalf("traced call context %+v", traced)
				}
			})
		})
	}
}

// TestRootsListChangedReachesTheBackend checks a client notification going
// the other way.
func TestClientNotificationsReachTheBackend(t *testing.T) {
	b := newBackend(t)
	changed := make(chan struct{}, 1)
	progress := make(chan *mcp.ProgressNotificationParams, 1)
	b.server = mcp.NewServer(&mcp.Implementation{Name: "roots-watcher"}, &mcp.ServerOptions{
		RootsListChangedHandler: func(context.Context, *mcp.RootsListChangedRequest) { changed <- struct{}{} },
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationServerRequest) {
			progress <- r.Params
		},
	})
	_, c := startGateway(t, b, chain.Static(nil), "in-memory", gateway.Options{})
	c.c.AddRoots(&mcp.Root{URI: "file:///new"})
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Fatal("notifications/roots/list_changed did not reach the backend")
	}
	if err := c.cs.NotifyProgress(context.Background(), &mcp.ProgressNotificationParams{ProgressToken: "srv-1", Progress: 0.5}); err != nil {
		t.Fatal(err)
	}
	select {
	case p := <-progress:
		if p.ProgressToken != "srv-1" || p.Progress != 0.5 {
			t.Fatalf("progress %+v", p)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the client's progress did not reach the backend")
	}
}

var _ = json.Marshal
