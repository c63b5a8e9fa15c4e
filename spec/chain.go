package spec

import (
	"encoding/json"
	"fmt"
)

// Direction says which way a message crosses the trust boundary. It decides the
// order of a chain and is always explicit: it is never guessed from the phase.
type Direction string

const (
	// Sending: mutations (sequential), then validations, then sinks.
	DirectionSending Direction = "sending"
	// Receiving: validations, then sinks, then mutations (sequential).
	DirectionReceiving Direction = "receiving"
)

// Valid reports whether d is sending or receiving.
func (d Direction) Valid() bool { return d == DirectionSending || d == DirectionReceiving }

// GatewayDirection is the direction a gateway in front of a server uses for a
// client request's phase: the request is sent to the server, its result is
// received from it. Server-initiated requests (sampling, elicitation, roots)
// take the reverse, which [Reverse] gives.
func GatewayDirection(p Phase) Direction {
	if p == PhaseResponse {
		return DirectionReceiving
	}
	return DirectionSending
}

// Reverse returns the other direction.
func (d Direction) Reverse() Direction {
	if d == DirectionSending {
		return DirectionReceiving
	}
	return DirectionSending
}

// Override is what an invoker may change about one interceptor in its chains.
// Nil fields keep the descriptor's value. Hooks may only narrow the
// descriptor's hooks; a chain refuses an override that widens them.
type Override struct {
	Mode         *Mode         `json:"mode,omitempty"`
	FailOpen     *bool         `json:"failOpen,omitempty"`
	PriorityHint *PriorityHint `json:"priorityHint,omitempty"`
	TimeoutMs    int64         `json:"timeoutMs,omitempty"`
	Hooks        []Hook        `json:"hooks,omitempty"`
	// Config is passed as the per-call config of every invocation.
	Config json.RawMessage `json:"config,omitempty"`
}

// ChainStatus is the outcome of a chain.
type ChainStatus string

const (
	StatusSuccess          ChainStatus = "success"
	StatusValidationFailed ChainStatus = "validation_failed"
	StatusMutationFailed   ChainStatus = "mutation_failed"
	StatusTimeout          ChainStatus = "timeout"
)

// AbortType says what stopped a chain.
type AbortType string

const (
	AbortValidation AbortType = "validation"
	AbortMutation   AbortType = "mutation"
	AbortTimeout    AbortType = "timeout"
)

// AbortedAt names what stopped a chain.
type AbortedAt struct {
	Interceptor string    `json:"interceptor"`
	Reason      string    `json:"reason"`
	Type        AbortType `json:"type"`
	Phase       Phase     `json:"phase"`
}

// ValidationSummary counts the message severities of every validation result
// in a chain; a failed validator counts as one error.
type ValidationSummary struct {
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	Infos    int `json:"infos"`
}

// Add counts the messages of one validation result. A message without a
// severity takes the result's; a result that failed with no messages counts
// once, so a block is never summarised as zero errors.
func (s *ValidationSummary) Add(r *Result) {
	if r.Type != TypeValidation {
		return
	}
	if len(r.Messages) == 0 {
		if !r.Valid {
			s.count(r.Severity)
		}
		return
	}
	for _, m := range r.Messages {
		sev := m.Severity
		if sev == "" {
			sev = r.Severity
		}
		s.count(sev)
	}
}

func (s *ValidationSummary) count(sev Severity) {
	switch sev {
	case SeverityInfo:
		s.Infos++
	case SeverityWarn:
		s.Warnings++
	default:
		s.Errors++
	}
}

// ChainParams ask an invoker to run a chain.
type ChainParams struct {
	Event     string          `json:"event"`
	Phase     Phase           `json:"phase"`
	Direction Direction       `json:"direction"`
	Payload   json.RawMessage `json:"payload"`
	// TimeoutMs bounds the whole chain; 0 means no chain-wide limit.
	TimeoutMs int64    `json:"timeoutMs,omitempty"`
	Context   *Context `json:"context,omitempty"`
}

// Validate checks the params a chain needs before it can run.
func (p *ChainParams) Validate() error {
	switch {
	case !Interceptable(p.Event):
		return fmt.Errorf("event %q cannot be intercepted", p.Event)
	case p.Phase == PhaseBoth:
		return fmt.Errorf(`phase "both" is authoring sugar and never valid at execution time: use request or response`)
	case !p.Phase.Valid():
		return fmt.Errorf("phase %q is not one of request, response", p.Phase)
	case !p.Direction.Valid():
		return fmt.Errorf("direction %q is not one of sending, receiving (it is never guessed from the phase)", p.Direction)
	case len(p.Payload) == 0:
		return fmt.Errorf("payload is required (use {} for a request without params)")
	}
	return nil
}

// ChainResult is the outcome of running a chain.
type ChainResult struct {
	Status            ChainStatus       `json:"status"`
	Event             string            `json:"event"`
	Phase             Phase             `json:"phase"`
	Results           []Result          `json:"results"`
	FinalPayload      json.RawMessage   `json:"finalPayload,omitempty"`
	ValidationSummary ValidationSummary `json:"validationSummary"`
	TotalDurationMs   float64           `json:"totalDurationMs"`
	AbortedAt         *AbortedAt        `json:"abortedAt,omitempty"`
}

// Blocked reports whether the chain did not succeed.
func (c *ChainResult) Blocked() bool { return c.Status != StatusSuccess }

// MarshalJSON always writes the results array, never null.
func (c ChainResult) MarshalJSON() ([]byte, error) {
	type plain ChainResult
	if c.Results == nil {
		c.Results = []Result{}
	}
	return json.Marshal(plain(c))
}
