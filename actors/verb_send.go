package actors

import (
	"context"
	"time"

	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// sendTimeout bounds one delivery (a parked agent is moved home first, and a real
// provider's submit confirmation may take a while).
const sendTimeout = 10 * time.Minute

// Send is agent.send (docs/lifecycle.md §11.1): the prompt is checked ([CheckPrompt]),
// then the agent actor serializes the send with the agent's other operations and opens
// the turn before typing.
func (s *System) Send(ctx context.Context, r api.SendRequest) (api.SendResult, error) {
	// The prompt is checked before anything else, so a refused one changes nothing.
	prompt, err := CheckPrompt(r.Prompt)
	if err != nil {
		return api.SendResult{}, err
	}
	row, _, err := s.exactTarget(ctx, r.Caller, r.Target)
	if err != nil {
		return api.SendResult{}, err
	}
	if row.Status.Gone() {
		return api.SendResult{}, wire.New(wire.NotFound, "agent "+row.Path+" is "+string(row.Status), "target", r.Target,
			"current_status", string(row.Status))
	}
	res, err := s.sys.Root.RequestFuture(s.agents, SendInput{UUID: row.UUID, Prompt: prompt}, sendTimeout).Result()
	if err != nil {
		return api.SendResult{}, wire.Internal(wire.CauseActor, "agent actor did not answer: "+err.Error())
	}
	out := res.(SendOutcome)
	if wire.Is(out.Err, wire.NotFound, "") {
		// The op found the row gone (lost or ended since it was read): its error names
		// the status. Only an actor that had already retired answers without one.
		if pe, ok := wire.As(out.Err); ok && pe.Details["current_status"] != nil {
			return api.SendResult{}, out.Err
		}
		return api.SendResult{}, wire.New(wire.NotFound, "agent "+row.Path+" has ended", "target", r.Target)
	}
	if out.Err != nil {
		return api.SendResult{}, wire.From(out.Err, wire.CauseInternal)
	}
	return out.Result, nil
}
