package pool

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type item struct {
	id     int64
	closed atomic.Bool
	inUse  atomic.Bool
}

type factory struct {
	next   atomic.Int64
	fail   atomic.Bool
	mu     sync.Mutex
	closed []*item
}

func (f *factory) new(context.Context) (*item, error) {
	if f.fail.Load() {
		return nil, errors.New("cannot create")
	}
	return &item{id: f.next.Add(1)}, nil
}

func (f *factory) close(it *item) {
	it.closed.Store(true)
	f.mu.Lock()
	f.closed = append(f.closed, it)
	f.mu.Unlock()
}

func TestPrewarmAndExclusiveUse(t *testing.T) {
	f := &factory{}
	p := New(4, f.new, f.close, nil)
	defer p.Close()
	if err := p.Prewarm(context.Background()); err != nil {
		t.Fatal(err)
	}
	if s := p.Stats(); s.Created != 4 || s.Idle != 4 {
		t.Fatalf("stats = %+v", s)
	}
	var wg sync.WaitGroup
	for range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				it, err := p.Get(context.Background())
				if err != nil {
					t.Error(err)
					return
				}
				if !it.inUse.CompareAndSwap(false, true) {
					t.Error("an item was handed to two callers at once")
				}
				time.Sleep(10 * time.Microsecond)
				it.inUse.Store(false)
				p.Put(it)
			}
		}()
	}
	wg.Wait()
	if s := p.Stats(); s.Created != 4 {
		t.Fatalf("created %d items for a pool of 4 (instantiation on the hot path)", s.Created)
	}
}

func TestDiscardReplacesInBackground(t *testing.T) {
	f := &factory{}
	p := New(1, f.new, f.close, nil)
	defer p.Close()
	if err := p.Prewarm(context.Background()); err != nil {
		t.Fatal(err)
	}
	it, _ := p.Get(context.Background())
	p.Discard(it)
	if !it.closed.Load() {
		t.Fatal("discarded item not closed")
	}
	next, err := p.Get(context.Background())
	if err != nil || next == it || next.closed.Load() {
		t.Fatalf("got %+v, %v", next, err)
	}
	p.Put(next)
	if s := p.Stats(); s.Created != 2 || s.Discarded != 1 {
		t.Fatalf("stats = %+v", s)
	}
}

func TestFailedReplacementLeavesSlotForRetry(t *testing.T) {
	f := &factory{}
	var reported atomic.Int32
	p := New(1, f.new, f.close, func(error) { reported.Add(1) })
	defer p.Close()
	_ = p.Prewarm(context.Background())
	it, _ := p.Get(context.Background())
	f.fail.Store(true)
	p.Discard(it)
	// The failed replacement returns the slot; Get retries inline.
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if _, err := p.Get(ctx); err == nil || err.Error() != "cannot create" {
		t.Fatalf("err = %v", err)
	}
	f.fail.Store(false)
	it, err := p.Get(ctx)
	if err != nil {
		t.Fatal(err)
	}
	p.Put(it)
	if reported.Load() != 1 {
		t.Fatalf("replacement failure reported %d times", reported.Load())
	}
}

func TestGetWaitsForContext(t *testing.T) {
	f := &factory{}
	p := New(1, f.new, f.close, nil)
	defer p.Close()
	_ = p.Prewarm(context.Background())
	it, _ := p.Get(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := p.Get(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
	p.Put(it)
}

func TestClose(t *testing.T) {
	f := &factory{}
	p := New(2, f.new, f.close, nil)
	_ = p.Prewarm(context.Background())
	held, _ := p.Get(context.Background())
	p.Close()
	if _, err := p.Get(context.Background()); !errors.Is(err, ErrClosed) {
		t.Fatalf("Get after Close: %v", err)
	}
	p.Put(held) // an item in use when the pool closed is closed on return
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.closed) != 2 {
		t.Fatalf("closed %d items, want 2", len(f.closed))
	}
	p.Close() // idempotent
}
