package chain

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/airlock-mcp/airlock/spec"
)

// Run runs the chain for one message. It returns an error only when the
// params are invalid (for example phase "both" or no direction) or when ctx
// is cancelled by the caller; a block, a failure and a timeout are all
// reported in the result's Status.
func (c *Chain) Run(ctx context.Context, p *spec.ChainParams) (*spec.ChainResult, error) {
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("chain: %w", err)
	}
	start := time.Now()
	if p.TimeoutMs > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(p.TimeoutMs)*time.Millisecond)
		defer cancel()
	}
	pl := c.plan(p.Event, p.Phase)
	r := &run{ctx: ctx, params: p, payload: p.Payload, observer: c.observer,
		out: &spec.ChainResult{Status: spec.StatusSuccess, Event: p.Event, Phase: p.Phase}}
	n := len(pl.mutators) + len(pl.validators) + len(pl.sinks)
	if n > 0 {
		r.out.Results = make([]spec.Result, 0, n)
	}

	if p.Direction == spec.DirectionSending {
		r.mutate(pl.mutators)
		r.validate(pl.validators)
		r.sink(pl.sinks)
	} else {
		r.validate(pl.validators)
		r.sink(pl.sinks)
		r.mutate(pl.mutators)
	}

	if r.out.Status == spec.StatusTimeout && errors.Is(context.Cause(ctx), context.Canceled) {
		// The caller gave up: that is not the chain's verdict to report.
		return nil, fmt.Errorf("chain: %w", ctx.Err())
	}
	if !r.out.Blocked() {
		r.out.FinalPayload = r.payload
	}
	took := time.Since(start)
	r.out.TotalDurationMs = ms(took)
	if c.observer != nil {
		c.observer.ChainDone(p.Event, p.Phase, r.out.Status, took)
	}
	return r.out, nil
}

// run is the state of one chain execution.
type run struct {
	ctx      context.Context
	observer Observer
	params   *spec.ChainParams
	payload  json.RawMessage // the payload as mutated so far
	out      *spec.ChainResult
}

func (r *run) stopped() bool { return r.out.Status == spec.StatusTimeout }

// gated reports whether an earlier stage blocked, so that no active member of
// a later stage may run. Audit members still run: they only observe.
func (r *run) gated() bool { return r.out.Blocked() }

func (r *run) mutate(mutators []*entry) {
	for _, e := range mutators {
		if r.stopped() {
			return
		}
		if r.gated() && !e.audit {
			continue
		}
		res, fail := r.invoke(e, r.payload)
		r.record(e, res, fail)
		if fail != nil {
			r.fail(e, fail, spec.StatusMutationFailed, spec.AbortMutation)
			continue
		}
		if res.Modified && !e.audit {
			r.payload = res.Payload
		}
	}
}

func (r *run) validate(validators []*entry) {
	if r.stopped() {
		return
	}
	todo := validators
	if r.gated() {
		todo = nil
		for _, e := range validators {
			if e.audit {
				todo = append(todo, e)
			}
		}
	}
	res, fails := r.parallel(todo, r.payload)
	for i, e := range todo {
		r.record(e, res[i], fails[i])
		switch {
		case fails[i] != nil:
			r.fail(e, fails[i], spec.StatusValidationFailed, spec.AbortValidation)
		case !e.audit && res[i].Blocks() && !r.gated():
			r.out.Status = spec.StatusValidationFailed
			r.out.AbortedAt = &spec.AbortedAt{Interceptor: e.desc.Name, Reason: verdictReason(&res[i]),
				Type: spec.AbortValidation, Phase: r.params.Phase}
		}
	}
}

func (r *run) sink(sinks []*entry) {
	if r.stopped() {
		return
	}
	res, fails := r.parallel(sinks, r.payload)
	for i, e := range sinks {
		r.record(e, res[i], fails[i])
		if fails[i] != nil && fails[i].chainTimeout {
			r.fail(e, fails[i], "", "")
		}
	}
}

// parallel invokes every entry on the same payload snapshot and waits for all.
func (r *run) parallel(es []*entry, payload json.RawMessage) ([]spec.Result, []*failure) {
	res := make([]spec.Result, len(es))
	fails := make([]*failure, len(es))
	switch len(es) {
	case 0:
	case 1:
		res[0], fails[0] = r.invoke(es[0], payload)
	default:
		var wg sync.WaitGroup
		wg.Add(len(es) - 1)
		for i := 1; i < len(es); i++ {
			go func() {
				defer wg.Done()
				res[i], fails[i] = r.invoke(es[i], payload)
			}()
		}
		res[0], fails[0] = r.invoke(es[0], payload)
		wg.Wait()
	}
	return res, fails
}

// failure is why an invocation produced no usable result.
type failure struct {
	reason       string
	timeout      bool // the interceptor's own deadline passed
	chainTimeout bool // the whole chain's deadline passed
}

// fail applies the failure policy: a chain timeout stops everything; an
// active, fail-closed interceptor blocks; anything else is only recorded.
func (r *run) fail(e *entry, f *failure, status spec.ChainStatus, typ spec.AbortType) {
	switch {
	case f.chainTimeout:
		if r.out.Status != spec.StatusTimeout {
			r.out.Status = spec.StatusTimeout
			r.out.AbortedAt = &spec.AbortedAt{Interceptor: e.desc.Name, Reason: spec.ReasonTimeout,
				Type: spec.AbortTimeout, Phase: r.params.Phase}
		}
	case e.audit || e.failOpen || r.gated() || status == "":
	default:
		r.out.Status = status
		r.out.AbortedAt = &spec.AbortedAt{Interceptor: e.desc.Name, Reason: f.reason, Type: typ, Phase: r.params.Phase}
	}
}

// invoke runs one interceptor and checks its result. A result that does not
// echo the call, is of the wrong kind, or (for a mutation) claims to be
// unmodified while changing the payload or replaces it with an invalid one is
// a failure.
func (r *run) invoke(e *entry, payload json.RawMessage) (spec.Result, *failure) {
	if r.observer == nil {
		return r.invokeOnce(e, payload)
	}
	start := time.Now()
	res, f := r.invokeOnce(e, payload)
	outcome := OutcomeOK
	switch {
	case f != nil && (f.timeout || f.chainTimeout):
		outcome = OutcomeTimeout
	case f != nil:
		outcome = OutcomeFailed
	case res.Blocks():
		outcome = OutcomeBlocked
	}
	r.observer.Invocation(e.desc.Name, e.desc.Type, r.params.Phase, time.Since(start), outcome)
	return res, f
}

func (r *run) invokeOnce(e *entry, payload json.RawMessage) (spec.Result, *failure) {
	if expired(r.ctx) {
		return spec.Result{}, &failure{reason: spec.ReasonTimeout, chainTimeout: true}
	}
	ctx := r.ctx
	if e.timeoutMs > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(e.timeoutMs)*time.Millisecond)
		defer cancel()
	}
	p := &spec.InvokeParams{Name: e.desc.Name, Event: r.params.Event, Phase: r.params.Phase,
		Payload: payload, Config: e.config, TimeoutMs: e.timeoutMs, Context: r.params.Context}
	start := time.Now()
	res, err := SafeInvoke(ctx, e.src, p)
	took := time.Since(start)
	if expired(r.ctx) {
		return spec.Result{}, &failure{reason: spec.ReasonTimeout, chainTimeout: true}
	}
	if err != nil {
		var se *spec.Error
		if expired(ctx) || (errors.As(err, &se) && se.IsTimeout()) {
			return spec.Result{}, &failure{reason: spec.ReasonTimeout, timeout: true}
		}
		if errors.As(err, &se) {
			return spec.Result{}, &failure{reason: se.Reason()}
		}
		return spec.Result{}, &failure{reason: err.Error()}
	}
	if res == nil {
		return spec.Result{}, &failure{reason: "the source returned no result and no error"}
	}
	if err := spec.CheckResult(res, p, e.desc.Type); err != nil {
		return spec.Result{}, &failure{reason: err.Error()}
	}
	out := *res
	if out.DurationMs == 0 {
		out.DurationMs = ms(took)
	}
	return out, nil
}

// expired reports whether ctx is done or its deadline has passed. A source
// may see its deadline pass (reading the clock) before the context's timer
// has fired and set Err: the chain must read that as the same deadline.
func expired(ctx context.Context) bool {
	if ctx.Err() != nil {
		return true
	}
	d, ok := ctx.Deadline()
	return ok && !time.Now().Before(d)
}

// SafeInvoke calls src.Invoke and turns a panic into an error: a buggy source
// must never take the host down. Every caller of a Source should use it.
func SafeInvoke(ctx context.Context, src Source, p *spec.InvokeParams) (res *spec.Result, err error) {
	defer func() {
		if v := recover(); v != nil {
			res, err = nil, fmt.Errorf("panic: %v", v)
		}
	}()
	return src.Invoke(ctx, p)
}

// record appends the result of e (or a record of its failure) in plan order
// and counts validation messages.
func (r *run) record(e *entry, res spec.Result, f *failure) {
	if f != nil {
		res = failedResult(e, r.params.Phase, f)
	}
	r.out.Results = append(r.out.Results, res)
	r.out.ValidationSummary.Add(&r.out.Results[len(r.out.Results)-1])
}

// failedResult is how a failed invocation is recorded: a result of the
// interceptor's kind that did nothing (valid:false with one error message,
// modified:false, recorded:false), with the failure in info.
func failedResult(e *entry, phase spec.Phase, f *failure) spec.Result {
	info, _ := json.Marshal(struct {
		Error   string `json:"error"`
		Timeout bool   `json:"timeout,omitempty"`
	}{f.reason, f.timeout || f.chainTimeout})
	res := spec.Result{Interceptor: e.desc.Name, Type: e.desc.Type, Phase: phase, Info: info}
	if e.desc.Type == spec.TypeValidation {
		res.Severity = spec.SeverityError
		res.Messages = []spec.Message{{Message: "interceptor failed: " + f.reason, Severity: spec.SeverityError}}
	}
	return res
}

func verdictReason(r *spec.Result) string {
	for _, m := range r.Messages {
		if m.Severity.Blocks() && m.Message != "" {
			return m.Message
		}
	}
	if len(r.Messages) > 0 && r.Messages[0].Message != "" {
		return r.Messages[0].Message
	}
	return "valid:false"
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
