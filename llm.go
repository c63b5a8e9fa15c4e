package airlock

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/airlock-mcp/airlock/spec"
)

// Model is an agent's own call to its language model.
type Model func(ctx context.Context, req *spec.LLMRequest) (*spec.LLMResponse, error)

// Complete runs the llm/completion chain around one model call: the request
// phase on the prompt before it leaves (sending: mutators first, so PII can
// be redacted before validators and the model see it), then model, then the
// response phase on the completion (receiving: validators first, so a
// secret in the answer blocks it). Mutations are applied; a block is a
// *BlockedError, and a blocked request never reaches the model.
func (h *Host) Complete(ctx context.Context, req *spec.LLMRequest, model Model) (*spec.LLMResponse, error) {
	var sent spec.LLMRequest
	if err := h.completionPhase(ctx, spec.PhaseRequest, req, &sent); err != nil {
		return nil, err
	}
	res, err := model(ctx, &sent)
	if err != nil {
		return nil, err
	}
	var got spec.LLMResponse
	if err := h.completionPhase(ctx, spec.PhaseResponse, res, &got); err != nil {
		return nil, err
	}
	return &got, nil
}

// completionPhase runs one phase of llm/completion on in and decodes what
// the chain released into out.
func (h *Host) completionPhase(ctx context.Context, phase spec.Phase, in, out any) error {
	payload, err := json.Marshal(in)
	if err != nil {
		return fmt.Errorf("airlock: encoding the llm/completion %s: %w", phase, err)
	}
	res, err := h.Run(ctx, &spec.ChainParams{Event: spec.EventLLMCompletion, Phase: phase,
		Direction: spec.GatewayDirection(phase), Payload: payload})
	if err != nil {
		return err
	}
	if res.Blocked() {
		return &BlockedError{Method: spec.EventLLMCompletion, Phase: phase, Result: res}
	}
	if err := json.Unmarshal(res.FinalPayload, out); err != nil {
		return fmt.Errorf("airlock: the llm/completion %s after its mutations does not decode: %w", phase, err)
	}
	return nil
}
