package gateway

import (
	"context"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The SDK's connection hands a response to the waiting caller as soon as it
// reads it, while notifications read before it wait in a queue for the
// handler. A gateway that answered its client as soon as the backend's
// response arrived would overtake the progress and log notifications the
// backend sent before it, and on streamable HTTP those could then only go
// to another stream or be lost. So the backend connection holds each
// response back until the notifications read before it have been forwarded
// (or maxNotificationLag has passed: a notification the SDK refuses before
// the gateway sees it must not stall the session).
const maxNotificationLag = time.Second

// orderedTransport wraps a backend transport with that barrier.
//
// The streamable HTTP client is not wrapped: the SDK finds optional,
// unexported methods on its connection, which a wrapper would hide. Over it,
// a backend notification can still race the response it preceded.
type orderedTransport struct {
	mcp.Transport
	b *barrier
}

func (t *orderedTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &orderedConn{Connection: c, b: t.b}, nil
}

type orderedConn struct {
	mcp.Connection
	b *barrier
}

func (c *orderedConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	switch m := msg.(type) {
	case *jsonrpc.Request:
		if !m.IsCall() && forwardedNotifications[m.Method] {
			c.b.read()
		}
	case *jsonrpc.Response:
		c.b.wait(ctx)
	}
	return msg, err
}

// forwardedNotifications are the notifications a client session hands to
// the gateway's handler, and so the ones the barrier counts.
var forwardedNotifications = map[string]bool{
	"notifications/cancelled":              true,
	"notifications/progress":               true,
	"notifications/message":                true,
	"notifications/tools/list_changed":     true,
	"notifications/prompts/list_changed":   true,
	"notifications/resources/list_changed": true,
	"notifications/resources/updated":      true,
	"notifications/elicitation/complete":   true,
}

// barrier counts the notifications read from and handled for one backend
// session.
type barrier struct {
	mu           sync.Mutex
	nRead, nDone uint64
	changed      chan struct{}
}

func newBarrier() *barrier { return &barrier{changed: make(chan struct{})} }

func (b *barrier) read() {
	b.mu.Lock()
	b.nRead++
	b.mu.Unlock()
}

func (b *barrier) handled() {
	b.mu.Lock()
	b.nDone++
	close(b.changed)
	b.changed = make(chan struct{})
	b.mu.Unlock()
}

// wait returns when every notification read so far has been handled, or
// after maxNotificationLag, or when ctx is done.
func (b *barrier) wait(ctx context.Context) {
	var timer <-chan time.Time
	for {
		b.mu.Lock()
		caughtUp, ch := b.nDone >= b.nRead, b.changed
		b.mu.Unlock()
		if caughtUp {
			return
		}
		if timer == nil {
			t := time.NewTimer(maxNotificationLag)
			defer t.Stop()
			timer = t.C
		}
		select {
		case <-ch:
		case <-timer:
			return
		case <-ctx.Done():
			return
		}
	}
}
