package actors

import (
	"context"
	"github.com/orcr-go/orcr/socketapi"
	"time"

	"github.com/orcr-go/orcr/socketapi/wire"
)

// sendTimeout bounds one delivery (a parked agent is moved home first, and a real
// provider's submit confirmation may take a while).
const sendTimeout = 10 * time.Minute

// Send is agent.send (docs/lifecycle.md §11.1): the agent actor serializes it with the
// agent's other operations and opens the turn before typing.
func (s *System) Send(ctx context.Context, r socketapi.SendRequest) (socketapi.SendResult, error) {
	row, _, err := s.exactTarget(ctx, r.Caller, r.Target)
	if err != nil {
		return socketapi.SendResult{}, err
	}
	if row.Status.Gone() {
		return socketapi.SendResult{}, wire.New(wire.NotFound, "agent "+row.Path+" is "+string(row.Status), "target", r.Target)
	}
	if !row.Managed {
		return socketapi.SendResult{}, wire.Conflict("sending to unmanaged agents is not available yet")
	}
	res, err := s.sys.Root.RequestFuture(s.agents, SendInput{UUID: row.UUID, Prompt: r.Prompt}, sendTimeout).Result()
	if err != nil {
		return socketapi.SendResult{}, wire.Internal("actor", "agent actor did not answer: "+err.Error())
	}
	out := res.(SendOutcome)
	if wire.Is(out.Err, wire.NotFound, "") {
		return socketapi.SendResult{}, wire.New(wire.NotFound, "agent "+row.Path+" has ended", "target", r.Target)
	}
	if out.Err != nil {
		return socketapi.SendResult{}, wire.From(out.Err, "internal")
	}
	return out.Result, nil
}
