package chain_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/airlock-mcp/airlock/host/chain"
	"github.com/airlock-mcp/airlock/spec"
)

func TestLiveSwapWaitsForUsers(t *testing.T) {
	f1, f2 := newFixture(t), newFixture(t)
	f1.sink("old")
	f2.sink("new")
	c1, c2 := f1.chain(chain.Options{}), f2.chain(chain.Options{})
	l := chain.NewLive(c1)

	got, release := l.Acquire()
	if got != c1 {
		t.Fatal("Acquire did not return the current chain")
	}
	var cleaned atomic.Bool
	done := l.Swap(c2, func() { cleaned.Store(true) })
	if next, r := l.Acquire(); next != c2 {
		t.Fatal("a call after the swap did not get the new chain")
	} else {
		r()
	}
	select {
	case <-done:
		t.Fatal("the old chain was cleaned up while a call still held it")
	case <-time.After(20 * time.Millisecond):
	}
	// The call that held the old chain can still run it.
	if res := run(t, got, spec.PhaseRequest, spec.DirectionSending); res.Results[0].Interceptor != "old" {
		t.Fatalf("old chain ran %v", names(res))
	}
	release()
	<-done
	if !cleaned.Load() {
		t.Fatal("cleanup did not run")
	}
	// Close retires the last generation.
	var closed atomic.Bool
	<-l.Close(func() { closed.Store(true) })
	if !closed.Load() {
		t.Fatal("Close did not run the cleanup")
	}
}

func TestLiveConcurrentSwaps(t *testing.T) {
	var chains []*chain.Chain
	for range 4 {
		f := newFixture(t)
		f.sink("s")
		chains = append(chains, f.chain(chain.Options{}))
	}
	l := chain.NewLive(chains[0])
	var inUse, cleaned atomic.Int64
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				c, release := l.Acquire()
				inUse.Add(1)
				if _, err := c.Run(context.Background(), &spec.ChainParams{Event: "tools/call", Phase: spec.PhaseRequest,
					Direction: spec.DirectionSending, Payload: []byte(`{"name":"x"}`)}); err != nil {
					t.Error(err)
				}
				inUse.Add(-1)
				release()
			}
		}()
	}
	var dones []<-chan struct{}
	for i := 0; ctx.Err() == nil; i++ {
		dones = append(dones, l.Swap(chains[i%len(chains)], func() { cleaned.Add(1) }))
		time.Sleep(time.Millisecond)
	}
	wg.Wait()
	for _, d := range dones {
		<-d
	}
	if cleaned.Load() != int64(len(dones)) {
		t.Fatalf("%d swaps, %d cleanups", len(dones), cleaned.Load())
	}
}
