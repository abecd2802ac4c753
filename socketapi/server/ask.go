package server

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/socketapi/wire"
	"github.com/orcr-go/orcr/store"
)

// agentAsk is agent.ask (protocol.md §5.9, lifecycle.md §11.3): agent.run with gc
// forced to immediate, a wait on the new agent (the same timeout), then the final
// response through the freshness gate. Completion of a gc-immediate turn only happens
// once the response is readable from the transcript, and the pane is closed after that,
// so the answer returned is the complete final one.
func (s *Server) agentAsk(ctx context.Context, c *Call) (any, error) {
	var p runParams
	c.Params(&p)
	p.GC = "immediate"
	var deadline time.Time
	if p.Timeout != "" {
		d, err := config.ParseDuration(p.Timeout)
		if err != nil {
			return nil, wire.Invalid("bad_duration", "bad timeout: "+err.Error(), "value", p.Timeout)
		}
		deadline = time.Now().Add(d)
	}
	// The waiter is registered before the agent exists, so its first read already
	// follows every commit about it.
	w := s.startWaiter(ctx)
	defer w.stop()
	res, err := s.enqueue(ctx, p)
	if err != nil {
		return nil, err
	}
	a := res["agent"].(map[string]any)
	uuid, path := a["uuid"].(string), a["path"].(string)
	out, err := s.waitLoop(ctx, w, []string{uuid}, deadline)
	if err != nil {
		return nil, err
	}
	wr := out.(waitResult)
	if ctx.Err() != nil {
		return nil, wire.Internal("canceled", "the server is stopping")
	}
	if wr.TimedOut {
		return nil, wire.New(wire.Timeout, "agent.ask timed out waiting for "+path, "uuid", uuid, "path", path)
	}
	if len(wr.Targets) == 1 {
		t := wr.Targets[0]
		switch {
		case strings.HasPrefix(t.Reason, "blocked"):
			kind := strings.TrimPrefix(strings.TrimPrefix(t.Reason, "blocked"), ":")
			return nil, wire.New(wire.Blocked, fmt.Sprintf("agent %s is blocked (%s) and needs a human", path, kind),
				"blocked_kind", kind, "uuid", uuid, "path", path)
		case t.Reason == "timeout":
			return nil, wire.New(wire.Timeout, "agent timed out", "uuid", uuid, "path", path)
		case !t.OK:
			// Our decision (lifecycle.md §11.3, Q8): a dead agent is an error, not a guess
			// at an old answer.
			return nil, wire.Conflict(fmt.Sprintf("agent %s ended without completing (%s)", path, t.Reason),
				"uuid", uuid, "path", path, "reason", t.Reason, "exit_reason", t.ExitReason)
		}
	}
	row, err := store.AgentByUUID(ctx, s.db.Reader(), uuid)
	if err != nil {
		return nil, wire.From(err, "sqlite")
	}
	text, err := s.lastResponse(ctx, row)
	if err != nil {
		return nil, err
	}
	return map[string]any{"uuid": uuid, "path": path, "response": map[string]any{"text": text, "final": true}}, nil
}
