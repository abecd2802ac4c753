package actors

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/store"
)

// Hidden test methods (the server exposes them only with ORCR_DEBUG_METHODS=1).

// DebugEmit appends one event of kind with a pre-encoded payload (a JSON object; none
// is {}) through the store actor, like any state change would, and returns its seq.
func (s *System) DebugEmit(ctx context.Context, kind, ref string, payload json.RawMessage) (int64, error) {
	if kind == "" {
		kind = "debug.tick"
	}
	v, err := s.write(func(tx *store.Tx) (any, error) { return tx.Emit(ref, api.RawEvent{Kind: kind, Fields: payload}) })
	if err != nil {
		return 0, err
	}
	return v.(int64), nil
}

// DebugFillLog appends n policy/updated entries to agent's session log in one
// transaction and returns the log's tip.
func (s *System) DebugFillLog(ctx context.Context, agent string, n int) (int64, error) {
	v, err := s.write(func(tx *store.Tx) (any, error) {
		for i := range n {
			if err := tx.SetPolicy(agent, []string{fmt.Sprintf("fill-%d", i)}); err != nil {
				return nil, err
			}
		}
		return tx.EnsureSession(agent)
	})
	if err != nil {
		return 0, err
	}
	return v.(int64), nil
}

// DebugSetAgent creates or updates a managed row with a status, emitting the events a
// real transition would (see [store.Tx.DebugSetAgent]); it returns the last seq.
func (s *System) DebugSetAgent(ctx context.Context, d store.DebugAgent) (int64, error) {
	if d.UUID == "" || d.Status == "" {
		return 0, wire.Invalid(wire.ReasonTargetRequired, "uuid and status are required")
	}
	v, err := s.write(func(tx *store.Tx) (any, error) { return tx.DebugSetAgent(d) })
	if err != nil {
		return 0, err
	}
	return v.(int64), nil
}

// DebugInsertLoopRun stands in for loop.create until loops land (see
// [store.Tx.DebugInsertLoopRun]).
func (s *System) DebugInsertLoopRun(ctx context.Context, loop, runID, status string) (loopUUID, runUUID string, err error) {
	if loop == "" || runID == "" {
		return "", "", wire.Invalid(wire.ReasonTargetRequired, "loop and run_id are required")
	}
	if status == "" {
		status = "running"
	}
	// As a loop verb: only after restart recovery read the live runs, which would take
	// this run, with no process behind it, for one a previous server left.
	if _, err := s.sys.Root.RequestFuture(s.loops, AwaitLoopsRecovered{}, loopOpTimeout).Result(); err != nil {
		return "", "", wire.Internal(wire.CauseActor, "loops actor did not answer: "+err.Error())
	}
	v, err := s.write(func(tx *store.Tx) (any, error) {
		l, r, err := tx.DebugInsertLoopRun(loop, runID, status)
		return [2]string{l, r}, err
	})
	if err != nil {
		return "", "", err
	}
	ids := v.([2]string)
	return ids[0], ids[1], nil
}
