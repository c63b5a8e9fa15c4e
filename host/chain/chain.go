package chain

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/airlock-mcp/airlock/spec"
)

// Options configure a chain. The zero value runs every interceptor of every
// source as described.
type Options struct {
	// Interceptors, when not empty, restricts the chain to interceptors with
	// these names. A name that no source has is an error.
	Interceptors []string
	// Overrides change how the named interceptors run (every source's
	// interceptor of that name). An override for a name no source has, or
	// hooks that widen the descriptor's, are errors.
	Overrides map[string]spec.Override
	// Observer, if set, is told about every invocation and run.
	Observer Observer
}

// Chain is an immutable, ready-to-run set of interceptors from one or more
// sources. It is safe for concurrent use.
type Chain struct {
	entries  []*entry
	observer Observer

	mu    sync.RWMutex
	plans map[planKey]*plan
}

// entry is one interceptor of one source, with the invoker's overrides applied.
type entry struct {
	src       Source
	srcIndex  int // position of the source in New's arguments
	listIndex int // position in that source's list
	desc      spec.Interceptor
	hooks     []spec.Hook // effective: the override's, else the descriptor's
	audit     bool
	failOpen  bool
	priority  spec.PriorityHint
	timeoutMs int64
	config    json.RawMessage
}

// Interceptor describes one interceptor of a chain: its descriptor and the
// source it came from.
type Interceptor struct {
	Descriptor  spec.Interceptor
	SourceIndex int
	Source      Source
}

// New lists every source in parallel and builds a chain of their
// interceptors. Discovery fails closed: if any source cannot be listed, or
// lists an invalid descriptor or a name twice, New returns an error and no
// chain.
func New(ctx context.Context, sources []Source, opts Options) (*Chain, error) {
	lists := make([][]spec.Interceptor, len(sources))
	errs := make([]error, len(sources))
	var wg sync.WaitGroup
	for i, s := range sources {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lists[i], errs[i] = s.Interceptors(ctx)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("chain: listing interceptors of source %d: %w", i, err)
		}
	}

	var only map[string]bool
	if len(opts.Interceptors) > 0 {
		only = make(map[string]bool, len(opts.Interceptors))
		for _, n := range opts.Interceptors {
			only[n] = false
		}
	}
	known := map[string]bool{} // every name any source lists, filtered or not
	c := &Chain{plans: map[planKey]*plan{}, observer: opts.Observer}
	for si, list := range lists {
		seen := make(map[string]bool, len(list))
		for li, d := range list {
			if err := d.Validate(); err != nil {
				return nil, fmt.Errorf("chain: source %d lists an invalid interceptor %q: %w", si, d.Name, err)
			}
			if seen[d.Name] {
				return nil, fmt.Errorf("chain: source %d lists interceptor %q twice; names are unique within one host", si, d.Name)
			}
			seen[d.Name] = true
			known[d.Name] = true
			if only != nil {
				if _, ok := only[d.Name]; !ok {
					continue
				}
				only[d.Name] = true
			}
			e := &entry{src: sources[si], srcIndex: si, listIndex: li, desc: d, hooks: d.Hooks,
				audit: d.Mode.IsAudit(), failOpen: d.FailOpen, priority: d.PriorityHint}
			if o, ok := opts.Overrides[d.Name]; ok {
				if err := e.apply(o); err != nil {
					return nil, fmt.Errorf("chain: override for %q (source %d): %w", d.Name, si, err)
				}
			}
			c.entries = append(c.entries, e)
		}
	}
	for _, n := range opts.Interceptors {
		if !only[n] {
			return nil, fmt.Errorf("chain: no source has an interceptor named %q (check the name with interceptors/list)", n)
		}
	}
	for n := range opts.Overrides {
		if !known[n] {
			return nil, fmt.Errorf("chain: override for %q, but no source has an interceptor of that name (check the name with interceptors/list)", n)
		}
	}
	return c, nil
}

func (e *entry) apply(o spec.Override) error {
	if o.Mode != nil {
		e.audit = o.Mode.IsAudit()
	}
	if o.FailOpen != nil {
		e.failOpen = *o.FailOpen
	}
	if o.PriorityHint != nil {
		e.priority = *o.PriorityHint
	}
	if o.TimeoutMs < 0 {
		return fmt.Errorf("timeoutMs %d is negative", o.TimeoutMs)
	}
	e.timeoutMs = o.TimeoutMs
	e.config = o.Config
	if o.Hooks == nil {
		return nil
	}
	narrowed := spec.Interceptor{Name: e.desc.Name, Type: e.desc.Type, Hooks: o.Hooks}.ExpandBoth()
	if err := narrowed.Validate(); err != nil {
		return err
	}
	for i, h := range narrowed.Hooks {
		for _, ev := range h.Events {
			if !covers(e.desc.Hooks, ev, h.Phase) {
				return fmt.Errorf("hooks[%d] would widen the interceptor's hooks: it does not hook %q in the %s phase (overrides may only narrow)", i, ev, h.Phase)
			}
		}
	}
	e.hooks = narrowed.Hooks
	return nil
}

// covers reports whether some hook of the given phase covers the pattern.
func covers(hooks []spec.Hook, pattern string, phase spec.Phase) bool {
	for _, h := range hooks {
		if h.Phase != phase {
			continue
		}
		for _, ev := range h.Events {
			if spec.PatternCovers(ev, pattern) {
				return true
			}
		}
	}
	return false
}

func (e *entry) matches(event string, phase spec.Phase) bool {
	for _, h := range e.hooks {
		if h.Matches(event, phase) {
			return true
		}
	}
	return false
}

// Interceptors returns the chain's interceptors in source order, each with
// the hooks and settings the chain runs it with.
func (c *Chain) Interceptors() []Interceptor {
	out := make([]Interceptor, len(c.entries))
	for i, e := range c.entries {
		d := e.desc
		d.Hooks = e.hooks
		d.Mode = spec.ModeActive
		if e.audit {
			d.Mode = spec.ModeAudit
		}
		d.FailOpen = e.failOpen
		d.PriorityHint = e.priority
		out[i] = Interceptor{Descriptor: d, SourceIndex: e.srcIndex, Source: e.src}
	}
	return out
}

type planKey struct {
	event string
	phase spec.Phase
}

// plan is the selection for one (event, phase), sorted by effective priority.
type plan struct {
	mutators, validators, sinks []*entry
}

// maxCachedPlans bounds the plan cache: events come from peers, and custom
// event names must not grow it without limit.
const maxCachedPlans = 1024

func (c *Chain) plan(event string, phase spec.Phase) *plan {
	k := planKey{event, phase}
	c.mu.RLock()
	p, ok := c.plans[k]
	c.mu.RUnlock()
	if ok {
		return p
	}
	p = c.selectPlan(event, phase)
	c.mu.Lock()
	if len(c.plans) < maxCachedPlans {
		c.plans[k] = p
	}
	c.mu.Unlock()
	return p
}

func (c *Chain) selectPlan(event string, phase spec.Phase) *plan {
	var sel []*entry
	for _, e := range c.entries {
		if e.matches(event, phase) {
			sel = append(sel, e)
		}
	}
	slices.SortStableFunc(sel, func(a, b *entry) int {
		return cmp.Or(
			cmp.Compare(a.priority.For(phase), b.priority.For(phase)),
			strings.Compare(a.desc.Name, b.desc.Name),
			cmp.Compare(a.srcIndex, b.srcIndex),
			cmp.Compare(a.listIndex, b.listIndex),
		)
	})
	p := &plan{}
	for _, e := range sel {
		switch e.desc.Type {
		case spec.TypeMutation:
			p.mutators = append(p.mutators, e)
		case spec.TypeValidation:
			p.validators = append(p.validators, e)
		case spec.TypeSink:
			p.sinks = append(p.sinks, e)
		}
	}
	return p
}
