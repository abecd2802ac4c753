package actors

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/orcr-go/orcr/herdr"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/store"
)

// Restart recovery of intents (docs/lifecycle.md §13.1, docs/protocol.md §8): every
// side effect was recorded as *_requested before it was tried, so after a crash each
// open intent is settled by finding out from herdr and the store what really happened,
// and closed with *_applied {ok, repaired: true} and the resulting ids. An intent whose
// outcome herdr cannot tell now (it does not answer) stays open for the next restart.

// recoveryProbeChars caps the prompt probe an input intent records: what recovery
// looks for in the input box.
const recoveryProbeChars = 40

// intentParams is what the intents of an agent record.
type intentParams struct {
	Target   string `json:"target"`
	Reason   string `json:"reason"`
	Label    string `json:"label"`
	InputSeq int64  `json:"input_seq"`
	Probe    string `json:"probe"`
	From     string `json:"from"`     // an input's: the status its turn opened from
	Path     string `json:"path"`     // an adoption's new path
	Worktree string `json:"worktree"` // a worktree intent's directory, branch and repository
	Branch   string `json:"branch"`
	Repo     string `json:"repo"`
}

// recoverIntent settles one open intent of this agent.
func (w *agentWork) recoverIntent(in store.Intent) {
	var p intentParams
	_ = json.Unmarshal(in.Params, &p)
	switch in.Kind {
	case "agent.close_requested":
		w.recoverClose(in.OpID, p)
	case "agent.spawn_requested":
		w.recoverSpawn(in.OpID, p)
	case "agent.input_requested":
		w.recoverInput(in.OpID, p)
	case "agent.worktree_add_requested":
		w.recoverWorktreeAdd(in.OpID, p)
	case "agent.worktree_remove_requested":
		w.removeWorktree(in.OpID, p.Worktree, p.Repo, true)
	default:
		if result, ok := api.NewApplied(in.Kind); ok {
			w.closeIntent(in.OpID, false, "interrupted by a server restart", result)
		}
	}
}

// closeIntent closes the intent opID as repaired, with result.
func (w *agentWork) closeIntent(opID string, ok bool, errText string, result api.AppliedEvent) {
	result.Outcome().Repaired = true
	_, err := w.write(func(tx *store.Tx) (any, error) { return tx.Applied(opID, ok, errText, result) })
	w.logErr("close intent as repaired", err)
}

// recoverClose finishes a teardown a crash cut off: the pane is closed (again), the
// intent closed, and a row that is still live ends with the close's reason.
func (w *agentWork) recoverClose(opID string, p intentParams) {
	if w.env.Herdr == nil {
		return
	}
	present, err := w.terminalPresent(p.Target)
	if err != nil {
		return // herdr cannot tell now
	}
	if p.Reason == closeAdopted && p.Path != "" && !w.st.Managed && !w.isEnded() {
		w.recoverAdoption(opID, p, present)
		return
	}
	if present {
		w.finishClose(opID, p.Target, true)
	} else {
		w.closeIntent(opID, true, "", &api.AgentCloseApplied{Target: p.Target})
	}
	if reason, ok := closeEnds(p.Reason); ok && !w.isEnded() && p.Target == w.st.TerminalID {
		w.log().Info("reconcile: a teardown cut off by a crash finished", "reason", reason, "path", w.st.Path)
		w.endAs(w.liveStatuses(), reason)
	}
}

// recoverAdoption finishes an adoption a crash cut off after its close intent: the
// user's pane is closed (if it is still there) and the row becomes the managed one the
// launch.json at the new path describes, as if the adoption had not been interrupted.
func (w *agentWork) recoverAdoption(opID string, p intentParams, present bool) {
	adoption, err := w.adoption(p.Path)
	if err != nil {
		w.log().Warn("reconcile: an adoption cut off by a crash cannot be finished; the agent stays unmanaged", "err", err)
		w.closeIntent(opID, false, "adoption not finished: "+err.Error(), &api.AgentCloseApplied{Target: p.Target})
		return
	}
	then := func(tx *store.Tx) error { return tx.Adopt(adoption) }
	if present {
		err = w.finishCloseThen(opID, p.Target, true, then)
	} else {
		var thenErr error
		thenErr, err = w.commitClose(opID, nil, &api.AgentCloseApplied{AppliedHead: api.AppliedHead{Repaired: true}, Target: p.Target}, then)
		if err == nil {
			err = thenErr
		}
	}
	if err != nil {
		w.log().Warn("reconcile: an adoption cut off by a crash could not be finished", "err", err, "path", p.Path)
		return
	}
	w.log().Info("reconcile: an adoption cut off by a crash finished", "path", p.Path)
}

// closeEnds maps a close's reason to the exit reason of the row it was ending.
func closeEnds(reason string) (store.ExitReason, bool) {
	switch r := store.ExitReason(reason); r {
	case store.ExitKilled, store.ExitTimeout, store.ExitReaped, store.ExitCompleted, store.ExitCanceled, store.ExitFailed:
		return r, true
	}
	return "", false // "recovery": an orphan pane, no row to end
}

// recoverSpawn settles a spawn a crash cut off between asking herdr for the pane and
// recording it: a pane carrying the row's label that no row claims is the spawn's. For
// a starting row the pane is closed and the row re-queued by [agentWork.recover]; for a
// row that ended meanwhile (a kill during the spawn) the pane is closed here.
func (w *agentWork) recoverSpawn(opID string, p intentParams) {
	if w.env.Herdr == nil {
		return
	}
	if w.st.TerminalID != "" {
		w.closeIntent(opID, true, "", &api.AgentSpawnApplied{TerminalID: w.st.TerminalID, PaneID: w.st.PaneID})
		return
	}
	orphans, err := w.orphanPanes(p.Label)
	if err != nil {
		return // herdr cannot tell now
	}
	if len(orphans) == 0 {
		w.closeIntent(opID, false, "no pane was made before the server stopped", &api.AgentSpawnApplied{})
		return
	}
	o := orphans[0]
	w.closeIntent(opID, true, "", &api.AgentSpawnApplied{PaneID: o.PaneID, TerminalID: o.TerminalID,
		WorkspaceID: o.WorkspaceID, TabID: o.TabID})
	if w.isEnded() {
		for _, o := range orphans {
			w.closePane(o.TerminalID, "recovery")
		}
	}
}

// orphanPanes lists the owned session's panes this home labelled for path whose
// terminal no live row claims ([PaneLabel]: another home sharing the session has its
// own label for the same path).
func (w *agentWork) orphanPanes(path string) ([]herdr.PaneInfo, error) {
	if path == "" {
		path = w.st.Path
	}
	label := PaneLabel(w.env.Home, path)
	ctx, cancel := w.herdrCtx()
	defer cancel()
	panes, err := w.env.Herdr.Owned().PaneList(ctx, "")
	if err != nil {
		return nil, err
	}
	rows, err := w.env.DB.ReconRows(contextBG)
	if err != nil {
		return nil, err
	}
	claimed := map[string]bool{}
	for _, r := range rows {
		claimed[r.TerminalID] = true
	}
	var out []herdr.PaneInfo
	for _, p := range panes {
		if p.Label == label && !claimed[p.TerminalID] {
			out = append(out, p)
		}
	}
	return out, nil
}

// recoverInput settles a delivery a crash cut off (docs/lifecycle.md §13.1) with
// [judgeCutDelivery]: it is taken as submitted only on evidence that the agent got it
// (herdr shows it working or blocked, or the transcript, written since, ends with the
// prompt). Without evidence the input box is cleared and the first prompt typed again
// under its turn and watched ([agentWork.redeliverFirst]), or a later turn undone; a
// prompt typed into a TUI busy with an earlier turn has its turn undone.
func (w *agentWork) recoverInput(opID string, p intentParams) {
	if w.env.Herdr == nil {
		return
	}
	if !w.st.Managed {
		// An unmanaged agent's status follows herdr (discovery); whether the text got
		// there cannot be told, and no prompt is kept to type again.
		w.closeIntent(opID, false, "interrupted by a server restart", &api.AgentInputApplied{InputSeq: p.InputSeq})
		return
	}
	if w.st.Status != store.StatusWorking || w.st.InputSeq != p.InputSeq || w.st.Turn.Seq != p.InputSeq {
		w.closeIntent(opID, false, "interrupted by a server restart", &api.AgentInputApplied{InputSeq: p.InputSeq})
		return
	}
	window := w.env.tuning(w.st.Provider).FastTurnGrace
	first := time.Now()
	var c cutDelivery
	v := cutWait
	for v == cutWait {
		c = w.observeCut(p, time.Since(first) >= window)
		if v = judgeCutDelivery(c); v == cutWait && !w.sleepCtx(MonitorTick) {
			return // the server stops: the intent stays open for the next restart
		}
	}
	// What recovery saw, logged: a prompt typed twice or a turn undone after a crash is
	// diagnosed from this line (docs/lifecycle.md §13.1).
	_, located := w.locateAt(p.Target)
	w.log().Info("recovery: a cut-off delivery settled", "verdict", v.String(), "input_seq", p.InputSeq,
		"from_working", c.FromWorking, "herdr_busy", c.HerdrBusy, "readable", c.Readable, "in_box", c.InBox,
		"in_transcript", c.InTranscript, "transcript_located", located, "delivered_at", w.st.Turn.DeliveredAt,
		"looked_ms", time.Since(first).Milliseconds())
	switch v {
	case cutLeaveOpen:
		// herdr cannot tell now
	case cutSubmitted:
		w.markSubmitted(opID, p.InputSeq, nil)
	case cutUndoBusy:
		// Typed into a TUI busy with an earlier turn, which takes its input only when
		// that turn is over: nothing is typed into it, and the row goes on with the
		// earlier turn; a prompt that was taken after all shows later as herdr working
		// with no open turn, an external turn (M14). Marking it submitted instead left a
		// turn nothing could complete.
		w.undoTurn(opID, p.InputSeq, store.StatusWorking)
	case cutRedeliver:
		w.clearInput(p.Target)
		w.redeliverFirst(opID, p)
	default:
		// A later prompt's text is not kept: the turn is undone (the row goes idle), and
		// the caller's send had failed with the crash anyway.
		w.clearInput(p.Target)
		w.undoTurn(opID, p.InputSeq, store.StatusIdle)
	}
}

// observeCut is what recovery sees of a cut-off delivery p now ([cutDelivery]);
// watched is whether the provider's window has passed since its first look.
func (w *agentWork) observeCut(p intentParams, watched bool) cutDelivery {
	c := cutDelivery{FromWorking: p.From == string(store.StatusWorking), First: p.InputSeq == 1, Watched: watched}
	if !c.FromWorking {
		st, listed := w.paneStatus(p.Target)
		c.HerdrBusy = listed && (st == herdr.StatusWorking || st == herdr.StatusBlocked)
	}
	if !c.FromWorking && !c.HerdrBusy {
		var text string
		text, c.Readable = w.screen(p.Target)
		c.InBox = p.Probe != "" && strings.Contains(text, p.Probe)
		c.InTranscript = w.transcriptEndsWith(p.Target, p.Probe, w.st.Turn.DeliveredAt)
	}
	return c
}

// redeliverFirst types a cut-off first prompt (from launch.json) again under its turn
// and watches for the provider's fast-turn window (longer while the pane has drawn
// nothing) whether the agent got it, with [judgeRedelivery]: evidence closes the intent
// ok; none types it again, and after maxRedeliveries typings the turn is undone (the
// row goes idle), so the turn is never left open on a prompt the agent never got. A
// server stop during the watch leaves the intent open for the next restart.
func (w *agentWork) redeliverFirst(opID string, p intentParams) {
	l, err := ReadLaunch(AgentDataDir(w.env.Home, w.st.Path, w.uuid))
	if err != nil || l.Prompt == nil {
		w.undoTurn(opID, p.InputSeq, store.StatusIdle)
		return
	}
	prompt, since := *l.Prompt, w.st.Turn.DeliveredAt
	probe := promptProbe(prompt, recoveryProbeChars)
	window, plan := w.env.tuning(w.st.Provider).FastTurnGrace, w.plan(w.st.Provider)
	var r redelivery
	var base counter
	for {
		switch judgeRedelivery(r, time.Now().UnixMilli(), window, plan.BlankBudget) {
		case redeliverySubmitted:
			w.markSubmitted(opID, p.InputSeq, new(r.Attempts))
			w.mark = completionMark{Turn: p.InputSeq, Base: base, Seen: base.N}
			return
		case redeliveryUndo:
			w.log().Warn("reconcile: a cut-off first prompt typed again never reached the agent; its turn is undone",
				"attempts", r.Attempts)
			w.undoTurn(opID, p.InputSeq, store.StatusIdle)
			return
		case redeliveryAgain:
			w.log().Info("recovery: typing a cut-off first prompt again", "attempt", r.Attempts+1)
			if base, _, err = w.submit(p.Target, prompt, plan); err != nil {
				w.log().Warn("reconcile: a cut-off first prompt could not be typed again; its turn is undone", "err", err)
				w.undoTurn(opID, p.InputSeq, store.StatusIdle)
				return
			}
			r.Attempts++
			r.EnterAt = time.Now().UnixMilli()
		case redeliveryWait:
			if !w.sleepCtx(MonitorTick) {
				return
			}
		}
		r.Evidence = w.deliveryEvidence(p.Target, probe, base, since)
		text, readable := w.screen(p.Target)
		r.Blank = readable && strings.TrimSpace(text) == ""
	}
}

// deliveryEvidence reports whether the agent demonstrably got a prompt typed into
// target: herdr lists it working or blocked, its completion_seq rose past base (a turn
// too short for the poll), or the transcript, written after since, ends with the prompt.
func (w *agentWork) deliveryEvidence(target, probe string, base counter, since int64) bool {
	if a, ok := w.agentRow(target, true); ok {
		if a.AgentStatus == herdr.StatusWorking || a.AgentStatus == herdr.StatusBlocked {
			return true
		}
		if c := counterOf(a.CompletionSeq); base.Known && c.Known && c.N > base.N {
			return true
		}
	}
	return w.transcriptEndsWith(target, probe, since)
}

// transcriptEndsWith reports whether the agent's transcript (located as
// [agentWork.locateAt] does, for target) was written after since (its mtime up to
// [mtimeLag] before it, the kernel's coarse clock) and its last user text holds probe:
// the provider took that prompt. A transcript merely written is not enough (a TUI
// writes it when it starts).
func (w *agentWork) transcriptEndsWith(target, probe string, since int64) bool {
	if at, ok := w.transcriptMtime(target); !ok || at < since-mtimeLag.Milliseconds() {
		return false
	}
	return w.transcriptHolds(target, probe)
}

// undoTurn closes a cut-off delivery as not submitted and undoes its turn seq: the row
// goes back to status back (docs/lifecycle.md §13.1).
func (w *agentWork) undoTurn(opID string, seq int64, back store.Status) {
	err := w.apply(func(tx *store.Tx) error {
		if _, err := tx.Applied(opID, false, "the prompt was never submitted; the turn was undone",
			&api.AgentInputApplied{AppliedHead: api.AppliedHead{Repaired: true}, InputSeq: seq, RolledBack: true}); err != nil {
			return err
		}
		return ignoreStale(tx.AbandonTurn(w.uuid, seq, back))
	})
	w.logErr("undo an unsubmitted turn", err)
}

// markSubmitted closes a cut-off delivery as submitted; typedAgain is how often recovery
// typed the prompt again (nil when it did not).
func (w *agentWork) markSubmitted(opID string, seq int64, typedAgain *int) {
	result := &api.AgentInputApplied{AppliedHead: api.AppliedHead{Repaired: true}, InputSeq: seq, TypedAgain: typedAgain}
	err := w.apply(func(tx *store.Tx) error {
		if err := tx.MarkDelivered(w.uuid, seq, 0); err != nil {
			return err
		}
		_, err := tx.Applied(opID, true, "", result)
		return err
	})
	w.logErr("input recovered as submitted", err)
}

// clearInput empties the TUI's input box with the provider's clear keys
// (docs/providers.md §5.1).
func (w *agentWork) clearInput(target string) {
	keys := w.plan(w.st.Provider).ClearKeys
	if len(keys) == 0 {
		return
	}
	ctx, cancel := w.herdrCtx()
	defer cancel()
	if err := w.sess().SendKeys(ctx, target, keys...); err != nil {
		w.log().Warn("could not clear the input box", "err", err)
	}
}

// resumeTeardown finishes a gc-immediate agent whose turn completed before a crash cut
// its teardown off (docs/lifecycle.md M12): the response is already captured, so the
// pane is shut down and the row ends completed. It reports whether the row ended.
func (w *agentWork) resumeTeardown() bool {
	if w.st.GCMode != store.GCImmediate || !store.TurnStatuses.Has(w.st.Status) ||
		w.st.InputSeq == 0 || w.st.Turn.Seq != 0 {
		return false
	}
	w.log().Info("reconcile: resuming the teardown of a gc-immediate agent whose turn completed", "path", w.st.Path)
	w.shutdownPane(string(store.ExitCompleted))
	w.endAs(store.TurnStatuses, store.ExitCompleted)
	return w.isEnded()
}
