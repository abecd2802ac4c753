package actors

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/orcr-go/orcr/herdr"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/store"
)

// agentWork is one operation on an op goroutine (edge code: it may block on herdr and
// on store futures). It starts from the actor's row in memory (st) and keeps st current
// from the result of every write it makes; the actor adopts st when the op is done.
type agentWork struct {
	env      *AgentEnv
	uuid     string
	ctx      context.Context // canceled by CancelSpawn or by a stop
	root     *actor.RootContext
	st       store.Agent
	loaded   bool
	stopping *atomic.Bool
	mark     completionMark // the actor's, handed back in opDone
	source   string         // the current send's session-log source ("" = orcr)
	inboxID  int64          // the inbox item the current send delivers (0 = none)
	// started: the start's readiness wait and screen check passed (awaitStart), so the
	// first prompt's delivery skips them.
	started bool
	// screenText is the last non-blank screen this op read of the pane, and screenAt when
	// (unix ms): kept with the row when it fails (docs/lifecycle.md §4.1).
	screenText string
	screenAt   int64
	// callLater: a blocked report's op found no call waiting in the transcript of an
	// agent with approvals mounted; the actor looks again (callCheck).
	callLater bool
}

// inputSource is the session log's source of the input being delivered.
func (w *agentWork) inputSource() string {
	if w.source == "" {
		return store.SourceOrcr
	}
	return w.source
}

func (w *agentWork) log() *slog.Logger {
	return w.env.logger().With("agent", w.uuid, "path", w.st.Path)
}

// write runs op through the store actor and waits for it.
func (w *agentWork) write(op store.Op) (any, error) {
	return WriteSync(w.root, w.env.Store, op)
}

// apply runs fn in a write transaction and, when it succeeds, reads the row back in the
// same transaction, so w.st is the row as committed. A compare-and-set that found the
// row changed (store.ErrStale) re-reads it instead: somebody else wrote it.
func (w *agentWork) apply(fn func(tx *store.Tx) error) error {
	v, err := w.write(func(tx *store.Tx) (any, error) {
		if err := fn(tx); err != nil {
			return nil, err
		}
		return tx.Agent(w.uuid)
	})
	if err == nil {
		w.st, w.loaded = v.(store.Agent), true
		return nil
	}
	if errors.Is(err, store.ErrStale) {
		w.logErr("re-read the row", w.reload())
	}
	return err
}

// reload re-reads the row (after somebody else may have changed it).
func (w *agentWork) reload() error {
	st, err := store.LoadAgent(contextBG, w.env.DB.Reader(), w.uuid)
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return wire.New(wire.NotFound, "no agent "+w.uuid, "target", w.uuid)
		}
		return err
	}
	w.st, w.loaded = st, true
	return nil
}

// WriteSync sends op to the store actor and waits for the result. Edge code only.
func WriteSync(root *actor.RootContext, storePID *actor.PID, op store.Op) (any, error) {
	return requestWrite(root, storePID, Write{Op: op})
}

// requestWrite sends w to the store actor and waits for its result; the op's error
// comes back as the op returned it. Edge code only.
func requestWrite(root *actor.RootContext, storePID *actor.PID, w Write) (any, error) {
	res, err := root.RequestFuture(storePID, w, 60*time.Second).Result()
	if err != nil {
		return nil, wire.Internal(wire.CauseStore, "store actor did not answer: "+err.Error())
	}
	wr := res.(WriteResult)
	return wr.Value, wr.Err
}

func (w *agentWork) herdrCtx() (context.Context, context.CancelFunc) {
	d := w.env.PaneTimeout
	if d <= 0 {
		d = 30 * time.Second
	}
	return context.WithTimeout(context.Background(), d)
}

// logErr logs a failed write of op; a compare-and-set that found the row changed is
// not a failure.
func (w *agentWork) logErr(op string, err error) {
	if err != nil && !errors.Is(err, store.ErrStale) {
		w.log().Error("agent op: write failed", "op", op, "err", err)
	}
}

// closePane closes target in the owned session, recording the intent/applied pair.
// The close is best-effort once intended (docs/lifecycle.md §15.2): failures are logged.
func (w *agentWork) closePane(target, reason string) { w.closePaneWith(target, reason, "", 0) }

// closePaneWith is closePane that first types the provider's shutdown line (if any)
// and waits grace, inside the same close intent.
func (w *agentWork) closePaneWith(target, reason, line string, grace time.Duration) {
	_ = w.closePaneThen(target, reason, line, grace, "", nil)
}

// closePaneThen is closePaneWith with an adoption's new path (recorded in the intent)
// and a step then, run in the transaction that commits a successful close (an
// adoption's row change). It returns the close's or the write's error.
func (w *agentWork) closePaneThen(target, reason, line string, grace time.Duration, adoptPath string,
	then func(tx *store.Tx) error) error {
	if target == "" || w.env.Herdr == nil {
		return nil
	}
	v, err := w.write(func(tx *store.Tx) (any, error) {
		id, _, err := tx.Intent(w.uuid, &api.AgentCloseRequested{Target: target, Reason: reason, Path: adoptPath})
		return id, err
	})
	if err != nil {
		w.log().Error("close intent", "err", err)
		return err
	}
	opID := v.(string)
	if line != "" {
		ctx, cancel := w.herdrCtx()
		// The line, then Enter in its own call, with no pause between them: a prompt's
		// pause guards text the agent must take whole, and a quit line the TUI takes
		// for pasted text costs only the grace before the close (docs/lifecycle.md
		// §15.2). Without it a bulk kill waited a second per agent.
		if err := w.sess().DeliverWith(ctx, target, line, 0); err == nil && grace > 0 {
			w.awaitExit(target, grace)
		}
		cancel()
	}
	return w.finishCloseThen(opID, target, false, then)
}

// exitPoll is how often a shutdown's grace looks whether the pane's process exited.
const exitPoll = 50 * time.Millisecond

// exitPaneLooks is how many looks of a pane under orcr's launcher go by between two
// pane.get calls: the launcher's status file tells the provider's exit (and the
// launcher holds the pane then), so herdr is asked only in case the launcher itself
// went, and a bulk kill does not flood herdr with a pane.get per agent every 50 ms.
const exitPaneLooks = 5

// awaitExit waits up to grace for target's process to exit after its shutdown line:
// the wait ends as soon as the pane is gone (herdr removes the pane of a process that
// exits) or the pane's launcher recorded the provider's exit (it then holds the pane
// until it is closed) (docs/lifecycle.md §8.2, §15.2). A pane still there when grace
// runs out is closed, as before; a failed look waits on.
func (w *agentWork) awaitExit(target string, grace time.Duration) {
	deadline := time.Now().Add(grace)
	every := 1
	if w.st.Managed && len(w.env.PaneExec) > 0 {
		every = exitPaneLooks
	}
	for look := 0; ; look++ {
		if _, exited := w.providerExit(); exited {
			return
		}
		var err error
		if look%every == every-1 {
			ctx, cancel := w.herdrCtx()
			_, err = w.sess().PaneGet(ctx, target)
			cancel()
		}
		left := time.Until(deadline)
		if herdr.IsCode(err, "pane_not_found") || left <= 0 || !w.sleepCtx(min(exitPoll, left)) {
			return
		}
	}
}

// finishClose closes target and commits the close intent opID: ok when the pane is
// closed or already gone.
func (w *agentWork) finishClose(opID, target string, repaired bool) {
	_ = w.finishCloseThen(opID, target, repaired, nil)
}

// finishCloseThen is finishClose that runs then in the committing transaction when the
// close succeeded.
func (w *agentWork) finishCloseThen(opID, target string, repaired bool, then func(tx *store.Tx) error) error {
	ctx, cancel := w.herdrCtx()
	cerr := w.sess().Close(ctx, target)
	cancel()
	gone := herdr.IsCode(cerr, "pane_not_found")
	if cerr != nil && !gone {
		w.log().Warn("pane close failed", "target", target, "err", cerr)
	}
	if gone {
		cerr = nil // already gone is what a close wants: ok, and no error
	}
	result := &api.AgentCloseApplied{Target: target}
	result.Repaired = repaired
	thenErr, err := w.commitClose(opID, cerr, result, then)
	switch {
	case cerr != nil:
		return cerr
	case err != nil:
		return err
	}
	return thenErr
}

// commitClose commits the close intent opID (ok when cerr is nil) and, after a
// successful close, runs then in the same transaction. A then that refuses before it
// writes anything (the row moved on, a path taken meanwhile) is returned as thenErr and
// leaves the close committed; any other failure rolls the whole write back (err).
func (w *agentWork) commitClose(opID string, cerr error, result *api.AgentCloseApplied, then func(tx *store.Tx) error) (thenErr, err error) {
	_, err = w.write(func(tx *store.Tx) (any, error) {
		if _, err := tx.Applied(opID, cerr == nil, errText(cerr), result); err != nil {
			return nil, err
		}
		if cerr == nil && then != nil {
			if err := then(tx); err != nil {
				var inUse *store.PathInUseError
				if !errors.Is(err, store.ErrStale) && !errors.As(err, &inUse) {
					return nil, err
				}
				thenErr = err
			}
		}
		return nil, nil
	})
	w.logErr("close applied", err)
	if err == nil && then != nil {
		w.logErr("re-read the row", w.reload())
	}
	return thenErr, err
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// endAs ends the row from one of from; a row that already ended is left alone.
func (w *agentWork) endAs(from []store.Status, reason store.ExitReason) {
	w.logErr("end "+string(reason), w.apply(func(tx *store.Tx) error { return tx.EndAgent(w.uuid, from, reason) }))
}

// fail ends a starting or live row failed, closing its pane first when one is
// recorded; the row keeps the cause's message as its exit detail and the pane's last
// screen. During a server stop nothing is failed: the row is left as it is, for
// restart recovery to resume or re-queue.
func (w *agentWork) fail(cause error) {
	if w.stopping.Load() {
		w.log().Info("agent op cut off by the server stop; left for restart recovery", "err", cause)
		return
	}
	w.log().Warn("agent failed", "err", cause)
	if w.st.TerminalID != "" {
		w.readScreen(w.st.TerminalID) // the screen it failed at, kept with the row
		w.closePane(w.st.TerminalID, "failed")
	}
	end := store.End{Detail: endDetail(cause), Screen: w.screenText, ScreenAt: w.screenAt}
	w.logErr("end failed", w.apply(func(tx *store.Tx) error {
		return tx.EndAgentWith(w.uuid, store.LiveStatuses, store.ExitFailed, end)
	}))
}

// sleepCtx waits d or until the op is canceled; false when canceled.
func (w *agentWork) sleepCtx(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-w.ctx.Done():
		return false
	}
}

func (w *agentWork) gone() error {
	return wire.New(wire.NotFound, "agent "+w.st.Path+" is "+string(w.st.Status), "target", w.st.Path,
		"uuid", w.uuid, "current_status", w.st.Status)
}

func isStale(err error) bool { return errors.Is(err, store.ErrStale) }
