package pool

import (
	"context"
	"errors"
	"sync"
)

// ErrClosed is returned by Get once the pool is closed.
var ErrClosed = errors.New("plugin is closed")

// Pool is a bounded pool of T (an instance handle).
type Pool[T any] struct {
	idle  chan T
	empty chan struct{} // one token per slot that has no instance
	newT  func(context.Context) (T, error)
	close func(T)
	// onReplaceError reports a background replacement that failed; the slot
	// is then left empty and a later Get tries again inline.
	onReplaceError func(error)

	ctx    context.Context // cancelled by Close: stops replacements
	cancel context.CancelFunc

	mu     sync.RWMutex // guards closed against Put and Discard
	closed bool
	wg     sync.WaitGroup // background replacements

	created, discarded int64 // under mu (write lock)
}

// New returns a pool of size slots, all empty. newT creates an instance;
// closeT releases one.
func New[T any](size int, newT func(context.Context) (T, error), closeT func(T), onReplaceError func(error)) *Pool[T] {
	ctx, cancel := context.WithCancel(context.Background())
	p := &Pool[T]{
		idle: make(chan T, size), empty: make(chan struct{}, size),
		newT: newT, close: closeT, onReplaceError: onReplaceError,
		ctx: ctx, cancel: cancel,
	}
	for range size {
		p.empty <- struct{}{}
	}
	return p
}

// Prewarm fills every empty slot, in the caller's goroutine.
func (p *Pool[T]) Prewarm(ctx context.Context) error {
	for {
		select {
		case <-p.empty:
		default:
			return nil
		}
		t, err := p.create(ctx)
		if err != nil {
			p.empty <- struct{}{}
			return err
		}
		p.Put(t)
	}
}

func (p *Pool[T]) create(ctx context.Context) (T, error) {
	t, err := p.newT(ctx)
	if err == nil {
		p.mu.Lock()
		p.created++
		p.mu.Unlock()
	}
	return t, err
}

// Get returns an idle instance, creating one only if a slot is empty, or
// waits until one is free. It fails when ctx is done or the pool closed.
func (p *Pool[T]) Get(ctx context.Context) (T, error) {
	// An idle instance is always preferred over creating one.
	select {
	case t := <-p.idle:
		return t, nil
	default:
	}
	var zero T
	select {
	case t := <-p.idle:
		return t, nil
	case <-p.empty:
		t, err := p.create(ctx)
		if err != nil {
			p.empty <- struct{}{}
			return zero, err
		}
		return t, nil
	case <-ctx.Done():
		return zero, ctx.Err()
	case <-p.ctx.Done():
		return zero, ErrClosed
	}
}

// Put returns a healthy instance to the pool.
func (p *Pool[T]) Put(t T) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	if p.closed {
		p.close(t)
		return
	}
	p.idle <- t // never blocks: at most size instances exist
}

// Discard closes an instance that must not be used again (it trapped, timed
// out, or is otherwise suspect) and starts its replacement in the
// background.
func (p *Pool[T]) Discard(t T) {
	p.close(t)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.discarded++
	if p.closed {
		return
	}
	p.wg.Add(1)
	go p.replace()
}

func (p *Pool[T]) replace() {
	defer p.wg.Done()
	t, err := p.create(p.ctx)
	if err != nil {
		if p.ctx.Err() == nil && p.onReplaceError != nil {
			p.onReplaceError(err)
		}
		p.empty <- struct{}{}
		return
	}
	p.Put(t)
}

// Stats are counters for tests and metrics.
type Stats struct {
	Size      int   // slots
	Idle      int   // instances waiting for a call
	Created   int64 // instances created since New
	Discarded int64 // instances discarded after a failure
}

// Stats returns the pool's counters.
func (p *Pool[T]) Stats() Stats {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return Stats{Size: cap(p.idle), Idle: len(p.idle), Created: p.created, Discarded: p.discarded}
}

// Close stops replacements, waits for those under way, and closes the idle
// instances. Instances still in use are closed when they are put back.
func (p *Pool[T]) Close() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
	p.mu.Unlock()
	p.cancel()
	p.wg.Wait()
	for {
		select {
		case t := <-p.idle:
			p.close(t)
		default:
			return
		}
	}
}
