package actors

import (
	"time"

	"github.com/orcr-go/orcr/socketapi/api/wire"

	"github.com/orcr-go/orcr/store"
)

// The agent actor's side of the stream's client frames (docs/remote.md §6, §7): keys to
// the pane, the inbox drain, approvals, the tool feed and a pending model switch.

// keys sends keys to the pane.
func (w *agentWork) keys(keys []string) error {
	if err := w.reload(); err != nil {
		return err
	}
	if w.st.PaneID == "" || w.env.Herdr == nil {
		return wire.Conflict("agent " + w.st.Path + " has no pane")
	}
	ctx, cancel := w.herdrCtx()
	defer cancel()
	return w.sess().SendKeys(ctx, w.st.PaneID, keys...)
}

// drain delivers the inbox when the agent's state allows (docs/remote.md §6): into a
// working agent at once (context/injected); on an idle or parked agent the oldest wake
// starts a turn and the rest ride it; nothing is typed into a blocked agent, and nothing
// happens while it is queued, starting or lost. An ended agent's inbox is dropped. It
// reports whether text still waits.
func (w *agentWork) drain() (waiting bool) {
	if err := w.reload(); err != nil {
		return false
	}
	items, err := store.Inbox(w.ctx, w.env.DB.Reader(), w.uuid)
	if err != nil || len(items) == 0 {
		return false
	}
	if w.st.Status == store.StatusEnded {
		w.logErr("drop inbox", w.apply(func(tx *store.Tx) error { return tx.InboxDrop(w.uuid) }))
		return false
	}
	if w.st.BudgetPaused != "" {
		return true // docs/usage.md §7.3: delivered after budget extend
	}
	for len(items) > 0 {
		i := 0
		switch w.st.Status {
		case store.StatusWorking:
		case store.StatusIdle, store.StatusParked:
			i = -1
			for j, it := range items {
				if it.Wake {
					i = j
					break
				}
			}
			if i < 0 {
				return true
			}
		default:
			return true
		}
		it := items[i]
		w.source, w.inboxID = it.Source, it.ID // the sender's: remote, or orcr for a send a budget pause held
		_, err := w.send(it.Text)
		w.inboxID = 0
		if err != nil {
			w.log().Info("remote: inbox delivery deferred", "err", err)
			return true
		}
		items = append(items[:i], items[i+1:]...)
	}
	return false
}

// reapplyVerdict sends a recorded verdict's answer again when the pane still waits on
// its call: the row is blocked, the transcript's pending call is that call and a
// verdict for it is recorded (docs/remote.md §7). It reports whether it sent.
func (w *agentWork) reapplyVerdict(callID string) bool {
	if err := w.reload(); err != nil || w.st.Status != store.StatusBlocked {
		return false
	}
	pending := w.pendingCall()
	if pending == nil || pending.CallID != callID {
		return false
	}
	keys, ok := w.env.providers().RemoteKeys(w.st.Provider)
	if !ok {
		return false
	}
	verdicts, err := store.TurnVerdicts(w.ctx, w.env.DB.Reader(), w.uuid)
	if err != nil {
		return false
	}
	for _, v := range verdicts {
		if v.CallID != callID {
			continue
		}
		answer := keys.Approve
		if v.Verdict == store.VerdictDenied {
			answer = keys.Deny
		}
		w.log().Info("approvals: the pane still waits on the call; its verdict is sent again", "call_id", callID, "verdict", v.Verdict)
		w.logErr("re-apply verdict", w.keys(answer))
		return true
	}
	return false
}

// approvals is the approval check of an agent with the approvals row mounted, run when
// herdr reports it blocked and after a restart (docs/remote.md §7): the transcript's tool
// activity is logged, and the call it waits on (the last call without a result) is
// requested once; a verdict already recorded for it (before a restart) is applied
// instead, and a call the policy allows is approved at once.
func (w *agentWork) approvals() { w.requestApproval(w.pendingCall()) }

// pendingCall is the tool call an agent with the approvals row mounted waits on: the
// transcript's last call without a result (its tool activity is logged on the way), or
// nil when approvals are not mounted, no turn is open or every call has its result.
func (w *agentWork) pendingCall() *store.ToolLog {
	pending, _ := w.pendingCallOpen()
	return pending
}

// pendingCallOpen is pendingCall and whether approvals are open (approvalsOpen), from
// one read of the session.
func (w *agentWork) pendingCallOpen() (*store.ToolLog, bool) {
	info, err := store.Session(w.ctx, w.env.DB.Reader(), w.uuid)
	if err != nil || !info.Approvals || !info.Open || w.env.Transcripts == nil {
		return nil, false
	}
	tools := w.logTools()
	answered := map[string]bool{}
	for i := len(tools) - 1; i >= 0; i-- {
		t := tools[i]
		if t.Result {
			answered[t.CallID] = true
			continue
		}
		if !answered[t.CallID] {
			return &tools[i], true
		}
	}
	return nil, true
}

// approvalsOpen: the agent has the approvals row mounted and a turn open, and its
// transcript can be read (a call it waits on may show up there).
func (w *agentWork) approvalsOpen() bool {
	info, err := store.Session(w.ctx, w.env.DB.Reader(), w.uuid)
	return err == nil && info.Approvals && info.Open && w.env.Transcripts != nil
}

// awaitCall is pendingCall for a blocked report: when approvals are open and no call
// waits yet, it looks again every callPoll for up to callWait, as the dialog may be
// drawn before the transcript has the call (see callWait). Still none then: callLater
// is set, and the actor goes on looking (recheckCall).
func (w *agentWork) awaitCall() *store.ToolLog {
	deadline := time.Now().Add(callWait)
	pending, open := w.pendingCallOpen()
	for pending == nil && open {
		if !time.Now().Before(deadline) {
			w.callLater = true
			return nil
		}
		select {
		case <-w.ctx.Done():
			return nil
		case <-time.After(callPoll):
		}
		pending, open = w.pendingCallOpen()
	}
	return pending
}

// recheckCall is one of the actor's later looks (callCheck) for the call a blocked
// agent waits on: found, it is requested (requestApproval); the next look is returned
// while the agent is blocked with approvals open and tries are left (nil: none). The
// transcript is read only when its stamp (size and mtime in ns) changed since the last
// look. The block keeps the kind it was recorded with; the request says what it waits
// on. The last look says in the log what it saw: the transcript located or not, and
// its tool calls.
func (w *agentWork) recheckCall(m callCheck) *callCheck {
	if w.st.Status != store.StatusBlocked || !w.approvalsOpen() {
		return nil
	}
	next := &callCheck{Try: m.Try + 1, Cursor: m.Cursor}
	p, err := w.locate()
	if err == nil {
		if now, ok := w.env.Transcripts.Stamp(p); ok && now != m.Cursor {
			next.Cursor = now
			if pending := w.pendingCall(); pending != nil {
				w.requestApproval(pending)
				return nil
			}
		}
	}
	if m.Try >= callTries {
		attrs := []any{"looks", m.Try, "stamp", next.Cursor}
		if err != nil {
			attrs = append(attrs, "located", false, "err", err)
		} else {
			tools, terr := w.env.Transcripts.Tools(w.st.Provider, p)
			attrs = append(attrs, "transcript", p, "tool_events", len(tools), "read_err", terr)
		}
		w.log().Info("approvals: the agent is blocked and its transcript shows no call waiting", attrs...)
		return nil
	}
	return next
}

// requestApproval requests pending's approval once (see approvals); nil does nothing.
func (w *agentWork) requestApproval(pending *store.ToolLog) {
	if pending == nil {
		return
	}
	keys, ok := w.env.providers().RemoteKeys(w.st.Provider)
	if !ok {
		return
	}
	verdicts, err := store.TurnVerdicts(w.ctx, w.env.DB.Reader(), w.uuid)
	if err != nil {
		w.log().Warn("approvals: cannot read verdicts", "err", err)
		return
	}
	for _, v := range verdicts {
		if v.CallID == pending.CallID {
			answer := keys.Approve
			if v.Verdict == store.VerdictDenied {
				answer = keys.Deny
			}
			w.logErr("apply recorded verdict", w.keys(answer))
			return
		}
	}
	if err := w.apply(func(tx *store.Tx) error {
		_, err := tx.RequestApproval(w.uuid, store.Approval{CallID: pending.CallID, Name: pending.Name, Args: pending.Args})
		return err
	}); err != nil {
		w.logErr("request approval", err)
		return
	}
	policy, err := store.Policy(w.ctx, w.env.DB.Reader(), w.uuid)
	if err != nil || !PolicyAllows(policy, pending.Name) {
		return
	}
	err = w.apply(func(tx *store.Tx) error {
		_, err := tx.ResolveApproval(w.uuid, pending.CallID, store.VerdictApproved, "policy")
		return err
	})
	if err == nil {
		w.logErr("policy approval", w.keys(keys.Approve))
	}
}

// feedTools logs the tool activity of a working agent's open turn when its transcript
// changed since cursor (the file's stamp at the last feed), and returns the new one.
func (w *agentWork) feedTools(cursor string) string {
	if w.env.Transcripts == nil || w.st.Status != store.StatusWorking {
		return cursor
	}
	p, err := w.locate()
	if err != nil {
		return cursor
	}
	now, ok := w.env.Transcripts.Stamp(p)
	if !ok || now == cursor {
		return cursor
	}
	w.logTools()
	return now
}

// logTools logs the open turn's tool calls and results the transcript shows and returns
// them (nil when the transcript cannot be read).
func (w *agentWork) logTools() []store.ToolLog {
	if w.env.Transcripts == nil {
		return nil
	}
	p, err := w.locate()
	if err != nil {
		return nil
	}
	tools, err := w.env.Transcripts.Tools(w.st.Provider, p)
	if err != nil || len(tools) == 0 {
		return tools
	}
	w.logErr("log tools", w.apply(func(tx *store.Tx) error {
		_, err := tx.LogTools(w.uuid, tools)
		return err
	}))
	return tools
}

// switchModel runs the provider's model-switch recipe before a waking input when
// set_model left one pending and no log turn is open (docs/decisions.md D7).
func (w *agentWork) switchModel() {
	if !w.st.Managed {
		return
	}
	model, err := store.PendingModel(w.ctx, w.env.DB.Reader(), w.uuid)
	if err != nil || model == "" {
		return
	}
	info, err := store.Session(w.ctx, w.env.DB.Reader(), w.uuid)
	if err != nil || info.Open {
		return
	}
	keys, ok := w.env.providers().RemoteKeys(w.st.Provider)
	if !ok || keys.ModelSwitch == nil {
		return
	}
	text, ok := keys.ModelSwitch(model)
	if !ok || w.st.PaneID == "" || w.env.Herdr == nil {
		return
	}
	plan := w.plan(w.st.Provider)
	ctx, cancel := w.herdrCtx()
	err = w.sess().Submit(ctx, w.st.PaneID, plan.submission(text, plan.EnterDelay))
	cancel()
	if err != nil {
		w.log().Warn("model switch failed; it is tried again before the next waking input", "model", model, "err", err)
		return
	}
	w.logErr("model switched", w.apply(func(tx *store.Tx) error { return tx.ModelSwitched(w.uuid, model) }))
}
