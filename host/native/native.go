package native

import (
	"context"
	"fmt"
	"sync"

	"github.com/airlock-mcp/airlock/spec"
)

// Handler answers one invocation. It must be safe for concurrent use and
// should honour ctx. A returned error is an invocation failure; a *spec.Error
// keeps its code and data.
type Handler func(ctx context.Context, p *spec.InvokeParams) (*spec.Result, error)

// Source is a set of native interceptors. Add them before the source is used
// by a chain; Source is safe for concurrent use.
type Source struct {
	mu       sync.RWMutex
	descs    []spec.Interceptor
	handlers map[string]int // name -> index in descs and funcs
	funcs    []Handler
}

// New returns an empty source.
func New() *Source { return &Source{handlers: map[string]int{}} }

// Add registers an interceptor. Its descriptor must validate (a "both" hook
// is expanded first) and its name must be new to this source.
func (s *Source) Add(d spec.Interceptor, h Handler) error {
	d = d.ExpandBoth()
	if err := d.Validate(); err != nil {
		return fmt.Errorf("native: interceptor %q: %w", d.Name, err)
	}
	if h == nil {
		return fmt.Errorf("native: interceptor %q has no handler", d.Name)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.handlers[d.Name]; dup {
		return fmt.Errorf("native: interceptor %q is already registered; names are unique within one source", d.Name)
	}
	s.handlers[d.Name] = len(s.descs)
	s.descs = append(s.descs, d)
	s.funcs = append(s.funcs, h)
	return nil
}

// MustAdd is Add for static registrations; it panics on error.
func (s *Source) MustAdd(d spec.Interceptor, h Handler) *Source {
	if err := s.Add(d, h); err != nil {
		panic(err)
	}
	return s
}

// Interceptors returns the registered descriptors in registration order.
func (s *Source) Interceptors(context.Context) ([]spec.Interceptor, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return append([]spec.Interceptor(nil), s.descs...), nil
}

// Invoke runs the named interceptor. Unknown names and events or phases the
// interceptor does not hook are -32602 errors; a panic in the handler is an
// invocation failure carrying the panic message, never a crash.
func (s *Source) Invoke(ctx context.Context, p *spec.InvokeParams) (res *spec.Result, err error) {
	s.mu.RLock()
	i, ok := s.handlers[p.Name]
	var d *spec.Interceptor
	var h Handler
	if ok {
		d, h = &s.descs[i], s.funcs[i]
	}
	s.mu.RUnlock()
	if !ok {
		return nil, spec.UnknownInterceptor(p.Name)
	}
	if !d.Matches(p.Event, p.Phase) {
		return nil, spec.HookNotCovered(p.Name, p.Event, p.Phase, d.Hooks)
	}
	defer func() {
		if v := recover(); v != nil {
			res, err = nil, spec.InvocationFailed(p.Name, fmt.Sprintf("panic: %v", v))
		}
	}()
	return h(ctx, p)
}
