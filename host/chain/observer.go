package chain

import (
	"time"

	"github.com/airlock-mcp/airlock/spec"
)

// Outcome is how one invocation ended, for an [Observer].
type Outcome uint8

const (
	// OutcomeOK: a well-formed result that does not block.
	OutcomeOK Outcome = iota
	// OutcomeBlocked: a validation verdict that blocks (active or audit).
	OutcomeBlocked
	// OutcomeFailed: an error, trap or malformed result.
	OutcomeFailed
	// OutcomeTimeout: the interceptor's or the chain's deadline passed.
	OutcomeTimeout
)

func (o Outcome) String() string {
	return [...]string{"ok", "blocked", "failed", "timeout"}[o]
}

// Observer is told about every invocation and every chain run, for metrics.
// Its methods are called on the hot path, concurrently: they must be cheap
// and must not block.
type Observer interface {
	Invocation(interceptor string, typ spec.Type, phase spec.Phase, took time.Duration, outcome Outcome)
	ChainDone(event string, phase spec.Phase, status spec.ChainStatus, took time.Duration)
}
