package actors

import (
	"context"
	"errors"
	"path"
	"time"

	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/socketapi/remote"
	"github.com/orcr-go/orcr/store"
)

// The stream's client frames (docs/remote.md §6, §7): inject, cancel, approve, deny,
// set_model, set_policy. Each is answered only through the session log (what it appended)
// or with a *StreamError; the WebSocket face sends that as an error frame.

// RemoteKeys is what the stream's ops need of one provider: the interrupt recipe of
// docs/decisions.md D6, the answers to its permission prompt and its model switch.
type RemoteKeys struct {
	Interrupt, Approve, Deny []string
	// ModelSwitch is the text that switches the running TUI to a model (ok false: none).
	ModelSwitch func(model string) (text string, ok bool)
}

// Messages of the stream's ops to an agent actor (routed by the agents actor).
type (
	// drainInbox asks the agent actor to deliver what waits in its inbox, when the
	// agent's state allows it (no reply).
	drainInbox struct{ UUID string }
	// sendKeys sends keys to the agent's pane (a cancel's interrupt, a verdict's answer).
	// Reply: keysSent.
	sendKeys struct {
		UUID string
		Keys []string
		Why  string
		// CallID is the call a verdict answers ("" for other keys): while the pane still
		// waits on it, the answer is sent again (verdictCheck).
		CallID string
	}
	// verdictCheck looks again, VerdictRecheck after a verdict's answer was sent, whether
	// the pane took it (docs/remote.md §7); Try counts the checks.
	verdictCheck struct {
		CallID string
		Try    int
	}
	// callCheck looks again, CallRecheck later, for the call a blocked agent with
	// approvals mounted waits on when its transcript showed none (docs/remote.md §7);
	// Try counts the looks, Cursor is the transcript's stamp at the last one.
	callCheck struct {
		Try    int
		Cursor string
	}
	keysSent struct{ Err error }
	// feedTools asks a working agent's actor to log the tool calls and results its
	// transcript gained (a stream client watches it; no reply).
	feedTools struct{ UUID string }
)

// remoteTimeout bounds the agent actor's part of one client frame.
const remoteTimeout = 2 * time.Minute

// VerdictRecheck is how long after a verdict's answer reached the pane the agent actor
// looks whether the pane took it, and verdictTries how many times it looks
// (docs/remote.md §7): a CLI whose dialog is drawn before it reads keys drops an answer
// that arrives at once.
const (
	VerdictRecheck = 3 * time.Second
	verdictTries   = 3
)

// A CLI may draw its permission dialog before its transcript holds the call it asks
// about (claude 2.1.328 on a loaded machine): herdr then reports the agent blocked while
// no call waits. The blocked report's op looks again every callPoll for up to callWait
// before it records the block, so the block gets its kind (permission) and the request
// comes with it; after that the agent actor looks every CallRecheck, up to callTries
// times, while the agent stays blocked (docs/remote.md §7).
const (
	callWait    = 2 * time.Second
	callPoll    = 200 * time.Millisecond
	CallRecheck = time.Second
	callTries   = 120
)

// StreamFrame serves one client frame of agent's stream (subscribe is the connection
// actor's own).
func (s *System) StreamFrame(ctx context.Context, agent string, f remote.ClientFrame) error {
	switch f := f.(type) {
	case remote.Inject:
		return s.inject(ctx, agent, f.Text, f.Wake)
	case remote.Cancel:
		return s.cancelTurn(ctx, agent, f.Reason)
	case remote.Approve:
		if store.IsBudgetPauseID(f.CallID) {
			return s.approveBudget(ctx, agent, f.CallID)
		}
		return s.verdict(ctx, agent, f.CallID, store.VerdictApproved, f.Reason)
	case remote.Deny:
		if store.IsBudgetPauseID(f.CallID) {
			return streamErr(string(remote.Unsupported), "a budget pause is not denied: it stands until approved or extended")
		}
		return s.verdict(ctx, agent, f.CallID, store.VerdictDenied, f.Reason)
	case remote.SetModel:
		return s.setModel(ctx, agent, f.Role, f.Spec)
	case remote.SetPolicy:
		_, err := s.write(func(tx *store.Tx) (any, error) { return nil, tx.SetPolicy(agent, f.Patterns) })
		return logEnded(err, agent)
	}
	return streamErr(string(remote.BadFrame), "this frame is not served here")
}

// logEnded answers not_running for a write refused because the agent's log has ended
// (nothing follows session/ended); other errors pass.
func logEnded(err error, agent string) error {
	if errors.Is(err, store.ErrLogEnded) {
		return streamErr(string(remote.NotRunning), "agent %s has ended", agent)
	}
	return err
}

// streamRow reads the agent's row; an ended one answers not_running.
func (s *System) streamRow(ctx context.Context, agent string) (store.AgentRow, error) {
	row, err := store.AgentByUUID(ctx, s.cfg.DB.Reader(), agent)
	if errors.Is(err, store.ErrNotFound) {
		return row, streamErr(string(remote.NotRunning), "agent %s does not exist", agent)
	}
	if err != nil {
		return row, err
	}
	if row.Status == store.StatusEnded {
		return row, streamErr(string(remote.NotRunning), "agent %s has ended", row.Path)
	}
	return row, nil
}

// inject (docs/remote.md §6): a wake on an idle, parked or working agent is delivered at
// once — it starts a turn (turn/start source remote, user/message), or, when a log turn
// is open (the agent works, or a crash left the turn open), rides it as context/injected.
// Anything else waits in the durable inbox: text without wake, and a wake the agent
// cannot take now (blocked, starting, queued, lost, or a delivery that failed — no wake
// is ever dropped). The agent actor drains the inbox when its state allows.
func (s *System) inject(ctx context.Context, agent, text string, wake bool) error {
	prompt, err := CheckPrompt(text)
	if err != nil {
		msg := err.Error()
		if pe, ok := wire.As(err); ok {
			msg = pe.Message
		}
		return streamErr(string(remote.BadFrame), "%s", msg)
	}
	row, err := s.streamRow(ctx, agent)
	if err != nil {
		return err
	}
	if wake && store.WakeStatuses.Has(row.Status) {
		res, err := s.sys.Root.RequestFuture(s.agents, SendInput{UUID: agent, Prompt: prompt, Source: store.SourceRemote},
			sendTimeout).Result()
		if err == nil {
			out := res.(SendOutcome)
			if out.Err == nil {
				return nil
			}
			if wire.Is(out.Err, wire.NotFound, "") {
				return streamErr(string(remote.NotRunning), "agent %s has ended", row.Path)
			}
			s.cfg.Log.Info("remote: a wake could not be delivered now; it waits in the inbox", "agent", agent, "err", out.Err)
		}
	}
	if _, err := s.write(func(tx *store.Tx) (any, error) {
		a, err := tx.Agent(agent)
		if err != nil {
			return nil, err
		}
		if a.Status == store.StatusEnded {
			return nil, streamErr(string(remote.NotRunning), "agent %s has ended", a.Path)
		}
		return tx.InboxPut(agent, prompt, store.SourceRemote, wake)
	}); err != nil {
		var se *StreamError
		if errors.As(err, &se) {
			return se
		}
		return err
	}
	s.sys.Root.Send(s.agents, drainInbox{UUID: agent})
	return nil
}

// cancelTurn (docs/remote.md §6, cancel): the log turn closes as cancelled first — every
// standing approval denied, every unanswered call answered (D7), turn/end — then the
// provider's interrupt recipe (D6) reaches the pane, after its deny answer when the turn
// was parked on an approval.
func (s *System) cancelTurn(ctx context.Context, agent, reason string) error {
	row, err := s.streamRow(ctx, agent)
	if err != nil {
		return err
	}
	v, err := s.write(func(tx *store.Tx) (any, error) { return tx.CancelTurn(agent, reason) })
	if errors.Is(err, store.ErrNoTurn) {
		return streamErr(string(remote.NotRunning), "no turn is running on agent %s", row.Path)
	}
	if err != nil {
		return err
	}
	denied, _ := v.([]string)
	keys, ok := s.providers.RemoteKeys(derefStr(row.Agent))
	if !ok || row.PaneID == nil {
		return nil
	}
	var seq []string
	if len(denied) > 0 && row.Status == store.StatusBlocked {
		seq = append(seq, keys.Deny...)
	}
	seq = append(seq, keys.Interrupt...)
	s.paneKeys(agent, sendKeys{UUID: agent, Keys: seq, Why: "cancel"})
	return nil
}

// verdict (docs/remote.md §7): unsupported where approvals are not mounted; a verdict
// for anything but a standing request of the open turn is stale_call and appends
// nothing; otherwise it is logged, then the provider's accept or reject answer reaches
// the pane.
func (s *System) verdict(ctx context.Context, agent, callID, verdict, reason string) error {
	info, err := store.Session(ctx, s.cfg.DB.Reader(), agent)
	if err != nil {
		return err
	}
	if !info.Approvals {
		return streamErr(string(remote.Unsupported), "approvals are not mounted for this agent (remote.approvals was off when it started)")
	}
	row, err := store.AgentByUUID(ctx, s.cfg.DB.Reader(), agent)
	if err != nil {
		return err
	}
	_, err = s.write(func(tx *store.Tx) (any, error) { return tx.ResolveApproval(agent, callID, verdict, reason) })
	if err != nil {
		if errors.Is(err, store.ErrStaleCall) {
			return streamErr(string(remote.StaleCall), "call %q has no standing approval request in the open turn", callID)
		}
		return err
	}
	keys, ok := s.providers.RemoteKeys(derefStr(row.Agent))
	if !ok {
		return nil
	}
	answer := keys.Approve
	if verdict == store.VerdictDenied {
		answer = keys.Deny
	}
	s.paneKeys(agent, sendKeys{UUID: agent, Keys: answer, Why: verdict, CallID: callID})
	return nil
}

// setModel (docs/remote.md §6): role main only; the spec must pass the provider's
// routing; the switch runs before the next waking input.
func (s *System) setModel(ctx context.Context, agent, role, spec string) error {
	if role != "main" {
		return streamErr(string(remote.BadFrame), "unknown model role %q (orcr agents have one role: main)", role)
	}
	row, err := s.streamRow(ctx, agent)
	if err != nil {
		return err
	}
	prov, err := s.lookupProvider(derefStr(row.Agent))
	if err != nil {
		return streamErr(string(remote.BadFrame), "agent %s runs no provider orcr can route", row.Path)
	}
	if _, err := prov.Route(s.cfg.Config, spec, ""); err != nil {
		msg := err.Error()
		if pe, ok := wire.As(err); ok {
			msg = pe.Message
		}
		return streamErr(string(remote.BadFrame), "model %q: %s", spec, msg)
	}
	_, err = s.write(func(tx *store.Tx) (any, error) { return nil, tx.SetModel(agent, role, spec) })
	return logEnded(err, agent)
}

// paneKeys asks the agent actor to send keys to the pane; a failure is logged (the log
// already holds the decision; a restart's approval check re-applies a verdict).
func (s *System) paneKeys(agent string, m sendKeys) {
	if len(m.Keys) == 0 {
		return
	}
	res, err := s.sys.Root.RequestFuture(s.agents, m, remoteTimeout).Result()
	if err == nil {
		if out, ok := res.(keysSent); ok {
			err = out.Err
		}
	}
	if err != nil {
		s.cfg.Log.Warn("remote: keys did not reach the pane", "agent", agent, "why", m.Why, "err", err)
	}
}

func derefStr(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// PolicyAllows reports whether a tool name matches one of the policy's fnmatch globs.
func PolicyAllows(patterns []string, name string) bool {
	for _, p := range patterns {
		if ok, err := path.Match(p, name); err == nil && ok {
			return true
		}
	}
	return false
}
