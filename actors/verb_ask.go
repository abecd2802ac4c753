package actors

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/store"
)

// askWorktreeSettle bounds how long agent.ask with a worktree waits, after the answer,
// for the ended agent's worktree to be removed or kept (its pane's shutdown and one `git
// worktree remove`: well under a second when nothing is stuck).
const askWorktreeSettle = 30 * time.Second

// Ask is agent.ask (docs/protocol.md §5.9, docs/lifecycle.md §11.3): agent.run with gc
// forced to immediate, a wait on the new agent (the same timeout), then the final
// response through the freshness gate. Completion of a gc-immediate turn only happens
// once the response is readable from the transcript, and the pane is closed after that,
// so the answer returned is the complete final one.
func (s *System) Ask(ctx context.Context, ask api.AskRequest) (api.AskResult, error) {
	var deadline time.Time
	d, err := parseTimeout(ask.Timeout)
	if err != nil {
		return api.AskResult{}, err
	}
	if d > 0 {
		deadline = time.Now().Add(d)
	}
	// The waiter is registered before the agent exists, so its first read already
	// follows every commit about it.
	w := s.startWaiter(ctx)
	defer w.stop()
	uuid, path, err := s.askAgent(ctx, ask)
	if err != nil {
		return api.AskResult{}, err
	}
	wr, err := s.waitLoop(ctx, w, []string{uuid}, deadline, false)
	if err != nil {
		return api.AskResult{}, err
	}
	if ctx.Err() != nil {
		return api.AskResult{}, wire.Internal(wire.CauseCanceled, "the server is stopping")
	}
	if wr.TimedOut {
		return api.AskResult{}, wire.New(wire.Timeout, "agent.ask timed out waiting for "+path, "uuid", uuid, "path", path)
	}
	if len(wr.Targets) == 1 {
		t := wr.Targets[0]
		switch {
		case strings.HasPrefix(t.Reason, "blocked"):
			kind := strings.TrimPrefix(strings.TrimPrefix(t.Reason, "blocked"), ":")
			return api.AskResult{}, wire.New(wire.Blocked, fmt.Sprintf("agent %s is blocked (%s) and needs a human", path, kind),
				"blocked_kind", kind, "uuid", uuid, "path", path)
		case t.Reason == "timeout":
			return api.AskResult{}, wire.New(wire.Timeout, "agent timed out", "uuid", uuid, "path", path)
		case !t.OK:
			// Our decision (docs/lifecycle.md §11.3, Q8): a dead agent is an error, not a
			// guess at an old answer.
			msg := fmt.Sprintf("agent %s ended without completing (%s)", path, t.Reason)
			if t.ExitDetail != "" {
				msg += ": " + t.ExitDetail
			}
			if t.Next.Kind == "logs_screen" {
				msg += "; its last screen: " + t.Next.Command
			}
			return api.AskResult{}, wire.Conflict(msg,
				"uuid", uuid, "path", path, "reason", t.Reason, "exit_reason", t.ExitReason, "exit_detail", t.ExitDetail)
		}
	}
	row, err := store.AgentByUUID(ctx, s.cfg.DB.Reader(), uuid)
	if err != nil {
		return api.AskResult{}, wire.From(err, wire.CauseSQLite)
	}
	resp, err := s.lastResponse(ctx, row)
	if err != nil {
		return api.AskResult{}, err
	}
	res := api.AskResult{UUID: uuid, Path: path, Response: resp}
	if row.Worktree != nil {
		res.Worktree = s.askWorktree(ctx, w, uuid, row.Worktree)
	}
	return res, nil
}

// askAgent starts the ask's agent, or with ask.Resume finds the agent an acknowledged
// agent.run started for it (docs/protocol.md §5.9): an exact uuid, any status.
func (s *System) askAgent(ctx context.Context, ask api.AskRequest) (uuid, path string, err error) {
	if ask.Resume == "" {
		run, err := s.Run(ctx, ask.Run())
		if err != nil {
			return "", "", err
		}
		return run.Agent.UUID, run.Agent.Path, nil
	}
	row, err := store.AgentByUUID(ctx, s.cfg.DB.Reader(), ask.Resume)
	if errors.Is(err, store.ErrNotFound) {
		return "", "", wire.New(wire.NotFound, "no agent "+ask.Resume+" to resume an ask on", "target", ask.Resume)
	}
	if err != nil {
		return "", "", wire.From(err, wire.CauseSQLite)
	}
	return row.UUID, row.Path, nil
}

// askWorktree waits, up to askWorktreeSettle, for the worktree of the ask's agent to
// settle — the agent ended and its worktree removed, kept, dirty, failed or unused — and
// returns it as it then stands (docs/lifecycle.md §8.4), so the caller learns where a
// kept worktree is. It wakes on the waiter's commit notifications (re-reading at least
// every waitFallback); a store error or the deadline returns the last state read.
func (s *System) askWorktree(ctx context.Context, w *waiter, uuid string, last *api.AgentWorktree) *api.AgentWorktree {
	deadline := time.NewTimer(askWorktreeSettle)
	defer deadline.Stop()
	period := s.fallbackPeriod()
	fallback := time.NewTimer(period)
	defer fallback.Stop()
	for {
		row, err := store.AgentByUUID(ctx, s.cfg.DB.Reader(), uuid)
		if err != nil {
			return last
		}
		if row.Worktree != nil {
			last = row.Worktree
		}
		if row.Status == store.StatusEnded && store.WorktreeSettled(last.State) {
			return last
		}
		fallback.Reset(period)
		select {
		case <-w.wake:
		case <-fallback.C:
		case <-deadline.C:
			return last
		case <-ctx.Done():
			return last
		}
	}
}
