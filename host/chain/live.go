package chain

import (
	"sync"
	"sync/atomic"
)

// Provider hands out the chain to run a request with. The caller must call
// release when it no longer uses the chain (or any source of it).
type Provider interface {
	Acquire() (c *Chain, release func())
}

// Live is a Provider whose chain can be swapped while requests use it: calls
// already running finish on the chain they acquired, new calls get the new
// one, and the old one's cleanup (closing the plugins the new chain does not
// share) runs only after its last user has released it.
//
// Live is safe for concurrent use.
type Live struct {
	cur atomic.Pointer[generation]
	mu  sync.Mutex // serialises Swap and Close
}

type generation struct {
	chain   *Chain
	mu      sync.Mutex
	refs    int
	retired bool
	cleanup func()
	done    chan struct{} // closed after cleanup ran
}

// NewLive returns a Live serving c.
func NewLive(c *Chain) *Live {
	l := &Live{}
	l.cur.Store(&generation{chain: c, done: make(chan struct{})})
	return l
}

// Static returns a Provider of a chain that never changes.
func Static(c *Chain) Provider { return NewLive(c) }

// Acquire returns the current chain and the function that releases it.
func (l *Live) Acquire() (*Chain, func()) {
	for {
		g := l.cur.Load()
		g.mu.Lock()
		if g.retired {
			// Swapped between the load and the lock: take the new one.
			g.mu.Unlock()
			continue
		}
		g.refs++
		g.mu.Unlock()
		return g.chain, g.release
	}
}

// Current returns the current chain without holding it: for listing and
// inspection, never for invoking.
func (l *Live) Current() *Chain { return l.cur.Load().chain }

func (g *generation) release() {
	g.mu.Lock()
	g.refs--
	last := g.retired && g.refs == 0
	g.mu.Unlock()
	if last {
		g.finish()
	}
}

func (g *generation) finish() {
	if g.cleanup != nil {
		g.cleanup()
	}
	close(g.done)
}

// Swap makes c the current chain. cleanupOld runs once every call that
// acquired the previous chain has released it (at once if none has); Swap
// returns a channel closed when it has run.
func (l *Live) Swap(c *Chain, cleanupOld func()) <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	old := l.cur.Swap(&generation{chain: c, done: make(chan struct{})})
	return old.retire(cleanupOld)
}

func (g *generation) retire(cleanup func()) <-chan struct{} {
	g.mu.Lock()
	g.retired, g.cleanup = true, cleanup
	idle := g.refs == 0
	g.mu.Unlock()
	if idle {
		g.finish()
	}
	return g.done
}

// Close retires the current chain: cleanup runs once it is released. After
// Close, Acquire must not be called.
func (l *Live) Close(cleanup func()) <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.cur.Load().retire(cleanup)
}
