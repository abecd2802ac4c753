package actors

import (
	"context"
	"time"

	"github.com/orcr-go/orcr/socketapi/wire"
	"github.com/orcr-go/orcr/store"
)

// SendRequest is agent.send's params.
type SendRequest struct {
	Caller
	Target string `json:"target"`
	Prompt string `json:"prompt"`
}

// SendResult is agent.send's result.
type SendResult struct {
	UUID           string       `json:"uuid"`
	Path           string       `json:"path"`
	DeliveredWhile store.Status `json:"delivered_while"`
	InputSeq       int64        `json:"input_seq"`
}

// sendTimeout bounds one delivery (a parked agent is moved home first, and a real
// provider's submit confirmation may take a while).
const sendTimeout = 10 * time.Minute

// Send is agent.send (docs/lifecycle.md §11.1): the agent actor serializes it with the
// agent's other operations and opens the turn before typing.
func (s *System) Send(ctx context.Context, r SendRequest) (SendResult, error) {
	row, _, err := s.exactTarget(ctx, r.Caller, r.Target)
	if err != nil {
		return SendResult{}, err
	}
	if row.Status.Gone() {
		return SendResult{}, wire.New(wire.NotFound, "agent "+row.Path+" is "+string(row.Status), "target", r.Target)
	}
	if !row.Managed {
		return SendResult{}, wire.Conflict("sending to unmanaged agents is not available yet")
	}
	res, err := s.sys.Root.RequestFuture(s.agents, SendInput{UUID: row.UUID, Prompt: r.Prompt}, sendTimeout).Result()
	if err != nil {
		return SendResult{}, wire.Internal("actor", "agent actor did not answer: "+err.Error())
	}
	out := res.(SendOutcome)
	if wire.Is(out.Err, wire.NotFound, "") {
		return SendResult{}, wire.New(wire.NotFound, "agent "+row.Path+" has ended", "target", r.Target)
	}
	if out.Err != nil {
		return SendResult{}, wire.From(out.Err, "internal")
	}
	return out.Result, nil
}
