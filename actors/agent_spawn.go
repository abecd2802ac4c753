package actors

import (
	"context"
	"errors"
	"time"

	"github.com/orcr-go/orcr/herdr"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/store"
)

// cut reports whether the op must stop (a kill, a deadline, the stuck-start guard or a
// server stop canceled it). The canceler has already ended the row in the store, so the
// row is re-read.
func (w *agentWork) cut() bool {
	if w.ctx.Err() == nil {
		return false
	}
	if err := w.reload(); err != nil {
		w.log().Warn("agent op: cannot re-read the row after a cancel", "err", err)
	}
	return true
}

func (w *agentWork) isEnded() bool { return w.st.Status == store.StatusEnded }

// spawn is the spawn pipeline (docs/lifecycle.md §8.1). It returns true when the row
// ended. Each side effect is preceded by its intent, written in a transaction that also
// proves the row is still starting and not canceled (the cancel interlock).
func (w *agentWork) spawn() (ended bool) {
	if !w.loaded || w.st.Status != store.StatusStarting {
		// The promotion is the queue's write: an actor that held the row before it (an
		// adopted agent's) still has it queued in memory.
		if err := w.reload(); err != nil || w.st.Status != store.StatusStarting {
			return w.isEnded()
		}
	}
	l, err := ReadLaunch(AgentDataDir(w.env.Home, w.st.Path, w.uuid))
	if err == nil && l.Provider != w.st.Provider && w.st.Provider != "" {
		// routing.fallback promoted the row as another provider (docs/lifecycle.md §7.6).
		l, err = w.relaunch(l)
	}
	if err != nil {
		w.fail(err)
		return w.isEnded()
	}
	if w.env.Herdr == nil {
		w.fail(wire.Env(wire.CauseHerdrMissing, "no herdr binary; "+herdr.InstallHint))
		return w.isEnded()
	}
	if w.cut() {
		return w.isEnded()
	}
	if err := w.waitHerdr(); err != nil {
		w.fail(err)
		return w.isEnded()
	}
	if w.cut() {
		return w.isEnded()
	}
	ws := HomeWorkspace(w.st.Path)
	spec := herdr.SpawnSpec{Workspace: ws, Label: w.st.Path, PaneLabel: PaneLabel(w.env.Home, w.st.Path),
		Argv: w.launchArgv(l.Argv), Env: l.Env}
	if l.Cwd != nil {
		spec.Cwd = *l.Cwd
	}
	dir, err := w.makeWorktree()
	if err != nil {
		return w.abandon(err)
	}
	if dir != "" {
		spec.Cwd = dir
	}
	if w.cut() {
		return w.isEnded()
	}
	v, err := w.write(func(tx *store.Tx) (any, error) {
		if err := tx.CheckStarting(w.uuid); err != nil {
			return nil, err
		}
		id, _, err := tx.Intent(w.uuid, &api.AgentSpawnRequested{
			Workspace: ws, Label: w.st.Path, Argv: l.Argv, Cwd: spec.Cwd})
		return id, err
	})
	if err != nil {
		return w.abandon(err)
	}
	opID := v.(string)
	pl, serr := w.spawnPane(spec)
	if serr != nil {
		_, err := w.write(func(tx *store.Tx) (any, error) { return tx.Applied(opID, false, serr.Error(), nil) })
		w.logErr("spawn applied", err)
		w.fail(serr)
		return w.isEnded()
	}
	ids := &api.AgentSpawnApplied{PaneID: pl.PaneID, TerminalID: pl.TerminalID, WorkspaceID: pl.WorkspaceID, TabID: pl.TabID}
	session := w.env.Herdr.Owned().Name()
	// Record the location only if the row is still starting and not canceled; else the
	// fresh pane is closed (the cancel interlock).
	// The spawn's applied fact commits either way: herdr did make the pane.
	owned := false
	err = w.apply(func(tx *store.Tx) error {
		if _, err := tx.Applied(opID, true, "", ids); err != nil {
			return err
		}
		err := tx.RecordLocation(w.uuid, session, pl.TerminalID, pl.PaneID)
		owned = err == nil
		return ignoreStale(err)
	})
	if err == nil && !owned {
		err = store.ErrStale
	}
	if err != nil {
		// The pane exists but the row may not own it: close it either way.
		w.closePane(pl.TerminalID, "canceled")
		if !errors.Is(err, store.ErrStale) {
			w.fail(err)
		}
		return w.isEnded()
	}
	if w.env.providers().NeedsAgentSession(w.st.Provider) {
		w.pollAgentSession(pl.TerminalID)
	}
	if w.cut() {
		if w.isEnded() {
			w.closePane(pl.TerminalID, "canceled")
		}
		return w.isEnded()
	}
	prompt := ""
	if l.Prompt != nil {
		prompt = *l.Prompt
	}
	err = w.settle(pl.TerminalID, prompt)
	switch {
	case err == nil:
	case errors.Is(err, store.ErrStale) || wire.Is(err, wire.NotFound, ""):
		// A kill or a deadline ended the row after its pane was recorded and before
		// this pipeline saw the cancel: the pane is the pipeline's to close (the
		// kill queued behind it is answered, not run, once the row has ended).
		if w.isEnded() {
			w.closePane(pl.TerminalID, "canceled")
		}
	default:
		w.fail(err)
	}
	return w.isEnded()
}

// abandon stops the pipeline after a step that failed before its side effect: a
// compare-and-set that found the row moved on (a cancel) only re-reads it; anything
// else fails the row. It reports whether the row ended.
func (w *agentWork) abandon(err error) bool {
	if errors.Is(err, store.ErrStale) {
		w.logErr("re-read the row", w.reload())
	} else {
		w.fail(err)
	}
	return w.isEnded()
}

// waitHerdr runs the contract check and makes sure the owned session answers before the
// spawn's first side effect. While herdr does not answer (unreachable, a session that
// will not start, a call that times out) the spawn waits, retrying with a growing pause
// (docs/lifecycle.md §7.5): a starting row is only failed by the stuck-start guard once
// max_starting has passed, which cancels this wait. Any other error (no binary, a
// contract mismatch) is returned at once. nil with w.cut() true: the op was canceled.
func (w *agentWork) waitHerdr() error { return w.waitHerdrUntil(time.Time{}) }

// waitHerdrUntil is waitHerdr giving up at deadline (zero: never) with the last error.
func (w *agentWork) waitHerdrUntil(deadline time.Time) error {
	var again herdrRetry
	for {
		ctx, cancel := w.herdrCtx()
		err := w.env.providers().HerdrGate(ctx)
		if err == nil {
			err = w.ensureOwned(ctx)
		}
		cancel()
		if w.ctx.Err() != nil {
			return nil // canceled: the caller's cut() sees it
		}
		if err == nil || !herdrDown(err) || (!deadline.IsZero() && time.Now().After(deadline)) {
			return err
		}
		if !again.wait(w, "herdr does not answer; the spawn waits for it (up to timings.max_starting)", err) {
			return nil
		}
	}
}

// herdrRetry is the pace of the spawn pipeline's waits for herdr: 250 ms, doubling, at
// most 5 s apart, with one warning in the log (docs/lifecycle.md §7.5).
type herdrRetry struct {
	pause  time.Duration
	warned bool
}

// wait logs msg with err the first time, then sleeps the pause; false when the op was
// canceled meanwhile.
func (r *herdrRetry) wait(w *agentWork, msg string, err error) bool {
	if !r.warned {
		w.log().Warn(msg, "err", err)
		r.warned = true
	}
	r.pause = min(max(2*r.pause, 250*time.Millisecond), 5*time.Second)
	return w.sleepCtx(r.pause)
}

// spawnPane asks herdr for the agent's pane; while the call fails before it reached
// herdr (herdr.ErrNotSent: a connection not accepted in time under a burst of calls, a
// session reconnecting), it is made again after waitHerdr's pause, as nothing can have
// been made twice, until the op is canceled (the stuck-start guard ends the row after
// timings.max_starting; docs/lifecycle.md §7.5). A spawn herdr took but did not answer
// in time is not made again: its pane is looked for ([agentWork.awaitSpawned]).
func (w *agentWork) spawnPane(spec herdr.SpawnSpec) (herdr.Placement, error) {
	var again herdrRetry
	for {
		ctx, cancel := w.herdrCtx()
		pl, err := w.env.Herdr.Owned().Spawn(ctx, spec)
		cancel()
		if err == nil || !herdrDown(err) || w.ctx.Err() != nil {
			return pl, err // a missing herdr or a version skew is not waited for
		}
		if !errors.Is(err, herdr.ErrNotSent) {
			return w.awaitSpawned(spec, err)
		}
		if !again.wait(w, "herdr did not take the spawn; it is asked again (up to timings.max_starting)", err) {
			return pl, err
		}
	}
}

// awaitSpawned follows a spawn whose request herdr took but did not answer within the
// call's deadline: a herdr busy with a burst of calls still carries it out when it
// gets to it, so the owned session's panes are listed, at herdrRetry's pace, until one
// carries the agent's pane label, and that pane is the spawn's; asking again would make
// a second one. It gives up, with sendErr, when the op is canceled (the stuck-start
// guard after timings.max_starting; docs/lifecycle.md §7.5).
func (w *agentWork) awaitSpawned(spec herdr.SpawnSpec, sendErr error) (herdr.Placement, error) {
	var again herdrRetry
	for {
		if !again.wait(w, "herdr took the spawn but did not answer in time; its pane is looked for (up to timings.max_starting)", sendErr) {
			return herdr.Placement{}, sendErr
		}
		ctx, cancel := w.herdrCtx()
		panes, err := w.env.Herdr.Owned().PaneList(ctx, "")
		cancel()
		if err != nil {
			continue // herdr still busy (or down): look again
		}
		for _, p := range panes {
			if p.Label == spec.PaneLabel {
				w.log().Info("the spawn's pane came after its call's deadline; it is the agent's", "pane", p.PaneID, "terminal", p.TerminalID)
				return herdr.Placement{Workspace: spec.Workspace, WorkspaceID: p.WorkspaceID, TabID: p.TabID,
					PaneID: p.PaneID, TerminalID: p.TerminalID}, nil
			}
		}
	}
}

// herdrDown reports whether err means herdr is not answering now (worth waiting for),
// as opposed to a missing binary or a contract mismatch.
func herdrDown(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	pe, ok := wire.As(err)
	return ok && (pe.Cause() == wire.CauseHerdrUnreachable || pe.Cause() == wire.CauseServerStartFailed)
}

// ensureOwned is [AgentEnv.ensureOwned] for this op: it also ends when the op is
// canceled.
func (w *agentWork) ensureOwned(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(w.ctx, cancel)()
	return w.env.ensureOwned(ctx)
}

// ensureOwned makes sure the owned herdr session runs and its connection is up. A
// session that answers a ping on its socket is running; only when it does not is
// `herdr session list` run (a process per call) and the session started, and then the
// ping is retried until the supervised connection has reconnected (it backs off after
// the failed ping) or ctx ends. A session that is listed running but does not answer
// (a frozen herdr) is never started twice: the ping is retried until ctx ends. Spawns
// and the reconciler (actors/herdr_reconcile.go ownedPanes) start the session through here.
func (env *AgentEnv) ensureOwned(ctx context.Context) error {
	owned := env.Herdr.Owned()
	if _, err := owned.Ping(ctx); err == nil {
		return nil
	}
	// One start at a time: callers that find the session down wait for the one starting
	// it instead of each starting a herdr server of their own.
	if env.OwnedStart != nil {
		select {
		case env.OwnedStart <- struct{}{}:
			defer func() { <-env.OwnedStart }()
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if _, err := owned.Ping(ctx); err == nil {
		return nil
	}
	if _, err := env.Herdr.EnsureOwned(ctx); err != nil {
		return err
	}
	for {
		_, err := owned.Ping(ctx)
		if err == nil {
			return nil
		}
		t := time.NewTimer(50 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
	}
}

// pollAgentSession waits up to AgentSessionWait for herdr's transcript pointer and
// records it (docs/lifecycle.md §8.1 step 7).
func (w *agentWork) pollAgentSession(terminal string) {
	d := w.env.AgentSessionWait
	if d <= 0 {
		return
	}
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) && w.ctx.Err() == nil {
		ctx, cancel := w.herdrCtx()
		p, err := w.env.Herdr.Owned().PaneGet(ctx, terminal)
		cancel()
		if err == nil && p.AgentSession != nil && p.AgentSession.Value != "" {
			w.logErr("record agent session", w.apply(func(tx *store.Tx) error {
				return tx.RecordAgentSession(w.uuid, p.AgentSession.Kind, p.AgentSession.Value)
			}))
			return
		}
		if !w.sleepCtx(150 * time.Millisecond) {
			return
		}
	}
}

// recover runs restart recovery for a live row (docs/lifecycle.md §13.1, with decisions Q5
// and Q6 of docs/lifecycle.md §18): open intents are closed as repaired; a move left in flight is
// finished or rolled back; a starting row whose pane was never recorded has any pane
// carrying its label closed and goes back to its place in the queue (a spawn cut off
// by a stop is started again, never failed and never duplicated); a starting row with
// a live recorded pane gets its first prompt (or settles idle).
func (w *agentWork) recover() (ended bool) {
	if err := w.reload(); err != nil {
		return true
	}
	intents, err := w.env.DB.OpenIntents()
	if err != nil {
		w.log().Error("recovery: cannot read open intents", "err", err)
	}
	// Recovery asks herdr what happened: right after a start its session connection may
	// still be coming up, so give herdr a moment (bounded: a row that is not starting
	// must not hold its actor's queue for long) before deciding anything from a failed call.
	if w.env.Herdr != nil && (w.st.Status == store.StatusStarting || hasIntentOf(intents, w.uuid)) {
		if err := w.waitHerdrUntil(time.Now().Add(recoveryHerdrWait)); err != nil {
			w.log().Warn("recovery: herdr does not answer; deciding with what it can tell", "err", err)
		}
		if w.ctx.Err() != nil {
			return w.isEnded()
		}
	}
	if w.st.MoveState != store.MoveNone {
		// herdr unreachable: the lease stays and the next send (or restart) retries.
		moveOp := ""
		for _, in := range intents {
			if in.Ref == w.uuid && in.Kind == "agent.move_requested" {
				moveOp = in.OpID
			}
		}
		if err := w.recoverMove(moveOp); err != nil {
			w.log().Warn("move recovery deferred", "err", err)
		}
		if intents, err = w.env.DB.OpenIntents(); err != nil {
			w.log().Error("recovery: cannot read open intents", "err", err)
		}
	}
	for _, in := range intents {
		if in.Ref != w.uuid || (in.Kind == "agent.move_requested" && w.st.MoveState != store.MoveNone) {
			continue
		}
		w.recoverIntent(in)
	}
	if w.isEnded() {
		return true
	}
	if w.resumeTeardown() {
		return true
	}
	if w.st.Status == store.StatusBlocked {
		// A verdict recorded before the stop is applied now; a call the pane still
		// waits on is asked about once (docs/remote.md §7).
		w.approvals()
	}
	if w.st.Status != store.StatusStarting {
		return w.isEnded()
	}
	if w.env.Herdr == nil {
		return false // the stuck-start guard ends it if no pane ever gets recorded
	}
	ctx, cancel := w.herdrCtx()
	defer cancel()
	if w.st.TerminalID == "" {
		panes, err := w.recoveryPanes(time.Now().Add(recoveryHerdrWait))
		if err != nil {
			w.log().Warn("recovery: cannot list the owned session's panes; the stuck-start guard decides", "err", err)
			return false
		}
		for _, p := range panes {
			if p.Label == PaneLabel(w.env.Home, w.st.Path) {
				w.closePane(p.TerminalID, "recovery")
			}
		}
		err = w.apply(func(tx *store.Tx) error { return tx.Requeue(w.uuid) })
		w.logErr("requeue", err)
		// The actor stays: the row is live again (queued), and its promotion's
		// StartAgent is addressed to this actor. Retiring here raced with that
		// promotion — a StartAgent sent to the retiring actor's pid before the agents
		// actor saw it terminate was a dead letter, and the row stayed starting with
		// no spawn (seen in TestStopDuringSpawnResumesAtRestart under load).
		return w.isEnded()
	}
	if _, err := w.env.Herdr.Owned().PaneGet(ctx, w.st.TerminalID); err != nil {
		w.endAs([]store.Status{store.StatusStarting}, store.ExitFailed)
		return true
	}
	l, err := ReadLaunch(AgentDataDir(w.env.Home, w.st.Path, w.uuid))
	if err != nil {
		w.fail(err)
		return w.isEnded()
	}
	if l.Prompt == nil || *l.Prompt == "" || w.st.InputSeq > 0 {
		w.logErr("settle idle", w.apply(func(tx *store.Tx) error { return tx.SettleIdle(w.uuid) }))
		return w.isEnded()
	}
	if err := w.settle(w.st.TerminalID, *l.Prompt); err != nil {
		w.fail(err)
	}
	return w.isEnded()
}

// recoveryHerdrWait bounds how long restart recovery waits for herdr to answer.
const recoveryHerdrWait = 15 * time.Second

// recoveryPanes lists the owned session's panes for recovery, retrying until deadline:
// right after a start the session's connection can answer a ping while pane.list still
// fails (seen: "herdr session orcr is not running" for a few hundred ms after the
// session came up), and giving up there would leave a cut-off spawn to the stuck-start
// guard instead of putting it back in the queue.
func (w *agentWork) recoveryPanes(deadline time.Time) ([]herdr.PaneInfo, error) {
	pause := 100 * time.Millisecond
	for {
		ctx, cancel := w.herdrCtx()
		err := w.ensureOwned(ctx)
		var panes []herdr.PaneInfo
		if err == nil {
			panes, err = w.env.Herdr.Owned().PaneList(ctx, "")
		}
		cancel()
		if err == nil || w.ctx.Err() != nil || time.Now().After(deadline) {
			return panes, err
		}
		if !w.sleepCtx(pause) {
			return nil, err
		}
		pause = min(2*pause, time.Second)
	}
}

func hasIntentOf(intents []store.Intent, uuid string) bool {
	for _, in := range intents {
		if in.Ref == uuid {
			return true
		}
	}
	return false
}
