package pdk

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/airlock-mcp/airlock/spec"
)

// Phase is the phase of a hook. [Both] is authoring sugar for two hooks.
type Phase = spec.Phase

// Phases.
const (
	Request  = spec.PhaseRequest
	Response = spec.PhaseResponse
	Both     = spec.PhaseBoth
)

// Severities of findings.
const (
	SeverityInfo  = spec.SeverityInfo
	SeverityWarn  = spec.SeverityWarn
	SeverityError = spec.SeverityError
)

// Descriptor describes one interceptor. Its type comes from the function that
// registers it ([Validator], [Mutator] or [Sink]).
type Descriptor struct {
	// Name is required and unique within the host.
	Name        string
	Version     string
	Description string

	// Events and Phase make the first hook. Events are event names
	// ("tools/call"), "*" or a namespace glob ("tools/*").
	Events []string
	Phase  Phase
	// Hooks are further hooks, for interceptors that need different events
	// per phase.
	Hooks []spec.Hook

	// Mode is active (the default) or audit.
	Mode spec.Mode
	// FailOpen lets the chain go on when this interceptor fails.
	FailOpen bool
	// Priority orders mutators (ascending); spec.Priority(n) or
	// spec.PhasePriority(&req, &resp).
	Priority spec.PriorityHint
	// ConfigSchema is the JSON Schema of the per-call config, if any.
	ConfigSchema json.RawMessage
	// Meta is the descriptor's _meta object.
	Meta json.RawMessage
}

// ValidatorFunc handles one call of a validator.
type ValidatorFunc func(c *Call) Verdict

// MutatorFunc handles one call of a mutator.
type MutatorFunc func(c *Call) Mutation

// SinkFunc handles one call of a sink.
type SinkFunc func(c *Call) Record

type entry struct {
	desc spec.Interceptor
	val  ValidatorFunc
	mut  MutatorFunc
	sink SinkFunc
	// heads are the openings of the interceptor's results in the request
	// and the response phase (appendResultHead), encoded once.
	heads [2][]byte
}

// head returns the opening of the interceptor's results in phase.
func (e *entry) head(phase Phase) []byte {
	i := 0
	if phase == Response {
		i = 1
	}
	return e.heads[i]
}

var (
	entries []*entry
	byName  = map[string]*entry{}
	regErrs []error
)

// Validator registers a validation interceptor. Call it from init.
//
// A descriptor that does not validate or a duplicate name does not panic:
// describe then fails with every such error, so that the host refuses the
// plugin at load with a message that names the interceptor and the field.
func Validator(d Descriptor, fn ValidatorFunc) {
	register(d, spec.TypeValidation, &entry{val: fn}, fn == nil)
}

// Mutator registers a mutation interceptor. Call it from init.
func Mutator(d Descriptor, fn MutatorFunc) {
	register(d, spec.TypeMutation, &entry{mut: fn}, fn == nil)
}

// Sink registers a sink interceptor. Call it from init.
func Sink(d Descriptor, fn SinkFunc) {
	register(d, spec.TypeSink, &entry{sink: fn}, fn == nil)
}

func register(d Descriptor, typ spec.Type, e *entry, nilFn bool) {
	desc := d.spec(typ)
	if err := desc.Validate(); err != nil {
		regErrs = append(regErrs, fmt.Errorf("interceptor %q: %w", d.Name, err))
		return
	}
	if nilFn {
		regErrs = append(regErrs, fmt.Errorf("interceptor %q: the handler is nil", d.Name))
		return
	}
	if _, dup := byName[d.Name]; dup {
		regErrs = append(regErrs, fmt.Errorf("interceptor %q is registered twice; names must be unique", d.Name))
		return
	}
	e.desc = desc
	for i, ph := range []Phase{Request, Response} {
		e.heads[i] = appendResultHead(nil, &spec.Result{Interceptor: desc.Name, Type: typ, Phase: ph})
	}
	entries = append(entries, e)
	byName[d.Name] = e
}

// spec converts d to the wire descriptor, "both" expanded.
func (d Descriptor) spec(typ spec.Type) spec.Interceptor {
	var hooks []spec.Hook
	if len(d.Events) > 0 || d.Phase != "" {
		hooks = append(hooks, spec.Hook{Events: d.Events, Phase: d.Phase})
	}
	hooks = append(hooks, d.Hooks...)
	return spec.Interceptor{
		Name: d.Name, Version: d.Version, Description: d.Description,
		Type: typ, Hooks: hooks, Mode: d.Mode, FailOpen: d.FailOpen,
		PriorityHint: d.Priority, ConfigSchema: d.ConfigSchema, Meta: d.Meta,
	}.ExpandBoth()
}

// Registered returns the descriptors registered so far, in order, and the
// registration errors, if any. It is what describe answers.
func Registered() ([]spec.Interceptor, error) {
	out := make([]spec.Interceptor, len(entries))
	for i, e := range entries {
		out[i] = e.desc
	}
	return out, errors.Join(regErrs...)
}

func describe() ([]byte, error) {
	descs, err := Registered()
	if err != nil {
		return nil, fmt.Errorf("pdk: %w", err)
	}
	if len(descs) == 0 {
		return nil, errors.New("pdk: the plugin registered no interceptors (call pdk.Validator, pdk.Mutator or pdk.Sink from init)")
	}
	return json.Marshal(spec.ListResult{Interceptors: descs})
}
