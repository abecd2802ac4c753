package actors

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/orcr-go/orcr/herdr"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/store"
)

// Two-phase pane moves (docs/lifecycle.md §12.3, docs/decisions.md D1). Every move runs as an op
// of the agent actor, so it is serialized with sends, kills and the other moves of the
// same agent (the actor is the move lock).
//
//  1. begin_move: a compare-and-set takes the lease (move_state parking|unparking and
//     a fresh move_token) and commits agent.move_requested in the same transaction.
//  2. Session.Move puts the pane into a new tab of the destination workspace.
//  3. finish: a compare-and-set on the token applies the new status and location and
//     commits agent.move_applied, agent.location_changed, agent.status_changed. A
//     failed move rolls the lease back (no status change) and commits
//     agent.move_applied {ok:false}.
//
// Public status changes only in finish, after herdr reported the move done, so status
// and location always agree.

// IdleWorkspace is the herdr workspace parked panes live in.
const IdleWorkspace = "idle"

// moveKind is one direction of a pane move.
type moveKind struct {
	state     store.MoveState // move_state while in flight
	from, to  store.Status    // status before and after
	workspace func(path string) string
}

var (
	parkMove   = moveKind{state: store.MoveParking, from: store.StatusIdle, to: store.StatusParked, workspace: func(string) string { return IdleWorkspace }}
	unparkMove = moveKind{state: store.MoveUnparking, from: store.StatusParked, to: store.StatusIdle, workspace: HomeWorkspace}
)

func (k moveKind) dir() string {
	if k.state == store.MoveParking {
		return "park"
	}
	return "unpark"
}

func newToken() string {
	var b [16]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// beginMove takes the move lease when the row is in k.from with no move in flight
// (idleBefore: the GC park condition, 0 for none) and records the intent. ErrStale
// when the row is in another state.
func (w *agentWork) beginMove(k moveKind, token string, idleBefore int64) (string, error) {
	target := w.st.TerminalID
	v, err := w.write(func(tx *store.Tx) (any, error) {
		if err := tx.BeginMove(store.MoveStart{UUID: w.uuid, State: k.state, Token: token, From: k.from, IdleBefore: idleBefore}); err != nil {
			return nil, err
		}
		id, _, err := tx.Intent(w.uuid, &api.AgentMoveRequested{
			Move: k.dir(), Target: target, Workspace: k.workspace(w.st.Path), Label: w.st.Path,
			MoveToken: token})
		return id, err
	})
	if err != nil {
		if errors.Is(err, store.ErrStale) {
			w.logErr("re-read the row", w.reload())
		}
		return "", err
	}
	return v.(string), nil
}

// finishMove applies a move herdr reported done: status k.to, new location, lease
// cleared; then agent.move_applied, agent.location_changed, agent.status_changed.
// ErrStale when the token no longer matches. opID "" records no applied event.
func (w *agentWork) finishMove(k moveKind, token, opID string, p herdr.Placement, repaired bool) error {
	return w.apply(func(tx *store.Tx) error {
		if opID != "" {
			result := &api.AgentMoveApplied{PaneID: p.PaneID, TerminalID: p.TerminalID,
				WorkspaceID: p.WorkspaceID, TabID: p.TabID}
			result.Repaired = repaired
			if _, err := tx.Applied(opID, true, "", result); err != nil {
				return err
			}
		}
		return tx.FinishMove(w.uuid, k.state, token, k.to, p.TerminalID, p.PaneID)
	})
}

// rollbackMove clears the lease without a status change and closes the intent with
// ok:false (cause), or ok:false with repaired and rolled_back when recovery found the
// move never happened.
func (w *agentWork) rollbackMove(token, opID string, cause error, repaired bool) {
	err := w.apply(func(tx *store.Tx) error {
		if err := tx.RollbackMove(w.uuid, token); err != nil {
			return err
		}
		if opID == "" {
			return nil
		}
		result := &api.AgentMoveApplied{RolledBack: repaired}
		result.Repaired = repaired
		_, err := tx.Applied(opID, false, errText(cause), result)
		return err
	})
	w.logErr("move roll-back", err)
}

// move runs both phases of k. It returns ErrStale when the lease could not be taken.
func (w *agentWork) move(k moveKind, idleBefore int64) error {
	if w.env.Herdr == nil {
		return wire.Env(wire.CauseHerdrMissing, "no herdr binary; "+herdr.InstallHint)
	}
	token := newToken()
	target := w.st.TerminalID
	opID, err := w.beginMove(k, token, idleBefore)
	if err != nil {
		return err
	}
	if target == "" {
		cause := errors.New("no pane recorded")
		w.rollbackMove(token, opID, cause, false)
		return cause
	}
	ctx, cancel := w.herdrCtx()
	res, merr := w.env.Herdr.Owned().Move(ctx, target, k.workspace(w.st.Path), w.st.Path)
	cancel()
	if merr != nil {
		w.rollbackMove(token, opID, merr, false)
		if paneGone(merr) {
			w.log().Warn("reconcile: pane gone during a move, agent lost", "move", k.dir(), "path", w.st.Path)
			if err := w.markLost(); err != nil {
				return err
			}
			return w.lostError(k.dir())
		}
		w.log().Warn("pane move failed", "move", k.dir(), "err", merr)
		return merr
	}
	if res.TerminalID == "" {
		res.TerminalID = target
	}
	if err := w.finishMove(k, token, opID, res.Placement, false); err != nil {
		w.log().Error("move finish", "move", k.dir(), "err", err)
		return err
	}
	return nil
}

// park is the GC park of an idle gc-auto agent whose idle streak began at or before
// idleBefore (docs/lifecycle.md M17). It gives up quietly when the row changed meanwhile.
func (w *agentWork) park(idleBefore int64) {
	if w.st.Status != store.StatusIdle || w.st.MoveState != store.MoveNone {
		return
	}
	if err := w.move(parkMove, idleBefore); err != nil && !errors.Is(err, store.ErrStale) && w.st.Status != store.StatusLost {
		w.log().Warn("park failed; the agent stays idle", "err", err)
	}
}

// unpark moves a parked agent home (docs/lifecycle.md M18). A move left in flight (a crash) is
// recovered first. A row that is not parked is left as it is.
func (w *agentWork) unpark() error {
	if w.st.MoveState != store.MoveNone {
		if err := w.recoverMove(""); err != nil {
			return err
		}
	}
	if w.st.Status != store.StatusParked {
		return nil
	}
	if err := w.move(unparkMove, 0); err != nil && !errors.Is(err, store.ErrStale) {
		if w.st.Status == store.StatusLost {
			return err // the typed lost error
		}
		return fmt.Errorf("un-park %s: %w", w.st.Path, err)
	}
	return nil
}

// reap ends a parked agent whose parked_at is at or before parkedBefore (docs/lifecycle.md M19): only if
// it is still parked with no move in flight and no attach lease (§12.2); the pane
// is shut down gracefully first, then the row ends reaped with a compare-and-set on
// status parked. A prepare that commits its lease after the lease check loses the race:
// its attach finds the pane closing, as it would after any reap.
func (w *agentWork) reap(parkedBefore int64) ReapResult {
	if w.st.Status != store.StatusParked || w.st.MoveState != store.MoveNone ||
		w.st.ParkedAt == 0 || w.st.ParkedAt > parkedBefore {
		return ReapResult{}
	}
	if leased, err := store.HoldsLease(w.ctx, w.env.DB.Reader(), w.uuid); err != nil || leased {
		if leased {
			w.log().Info("gc: reap deferred: the agent has an attach lease")
		}
		return ReapResult{Err: err}
	}
	w.shutdownPane("reaped")
	err := w.apply(func(tx *store.Tx) error {
		return tx.EndAgent(w.uuid, []store.Status{store.StatusParked}, store.ExitReaped)
	})
	return ReapResult{Reaped: err == nil, Err: ignoreStale(err)}
}

func ignoreStale(err error) error {
	if errors.Is(err, store.ErrStale) {
		return nil
	}
	return err
}

// recoverMove settles a move a crash left in flight (docs/lifecycle.md §13.3): find
// the pane by terminal id; in the move's destination workspace it is finished,
// elsewhere rolled back (the status stays). A pane that is gone clears the lease and
// marks the row lost. The open intent opID (if known) is closed with repaired:true.
// herdr unreachable: the row is left as is and the error returned.
func (w *agentWork) recoverMove(opID string) error {
	k := parkMove
	if w.st.MoveState == store.MoveUnparking {
		k = unparkMove
	}
	if w.env.Herdr == nil {
		return wire.Env(wire.CauseHerdrMissing, "no herdr binary; "+herdr.InstallHint)
	}
	ctx, cancel := w.herdrCtx()
	defer cancel()
	token := w.st.MoveToken
	p, err := w.env.Herdr.Owned().PaneGet(ctx, w.st.TerminalID)
	if paneGone(err) || (err == nil && w.st.TerminalID == "") {
		w.rollbackMove(token, opID, errors.New("pane gone"), true)
		return w.markLost()
	}
	if err != nil {
		return err
	}
	wss, err := w.env.Herdr.Owned().WorkspaceList(ctx)
	if err != nil {
		return err
	}
	label := ""
	for _, ws := range wss {
		if ws.WorkspaceID == p.WorkspaceID {
			label = ws.Label
		}
	}
	if label == k.workspace(w.st.Path) {
		return ignoreStale(w.finishMove(k, token, opID, herdr.Placement{Workspace: label, WorkspaceID: p.WorkspaceID,
			TabID: p.TabID, PaneID: p.PaneID, TerminalID: p.TerminalID}, true))
	}
	w.rollbackMove(token, opID, nil, true)
	return nil
}
