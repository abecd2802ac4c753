package actors

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/orcr-go/orcr/herdr"
	"github.com/orcr-go/orcr/socketapi/wire"
	"github.com/orcr-go/orcr/store"
)

// Two-phase pane moves (lifecycle.md §12.3, decisions.md D1). Every move runs as an op
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
	state     string // move_state while in flight
	from, to  string // status before and after
	workspace func(path string) string
}

var (
	parkMove   = moveKind{state: "parking", from: "idle", to: "parked", workspace: func(string) string { return IdleWorkspace }}
	unparkMove = moveKind{state: "unparking", from: "parked", to: "idle", workspace: HomeWorkspace}
)

func (k moveKind) dir() string {
	if k.state == "parking" {
		return "park"
	}
	return "unpark"
}

func newToken() string {
	var b [16]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// beginMove takes the move lease on uuid when its status is k.from and no move is in
// flight (extra: more SQL conditions with args), and records the intent. ErrStale when
// the row is in another state.
func (w *agentWork) beginMove(k moveKind, st agentState, token, extra string, args ...any) (string, error) {
	v, err := w.write(func(tx *store.Tx) (any, error) {
		q := `UPDATE agents SET move_state = ?, move_token = ?, updated_at = ?
			WHERE uuid = ? AND status = ? AND move_state = 'none'`
		all := []any{k.state, token, tx.Now(), w.uuid, k.from}
		if extra != "" {
			q += " AND " + extra
			all = append(all, args...)
		}
		res, err := tx.Exec(q, all...)
		if err != nil {
			return nil, err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil, ErrStale
		}
		id, _, err := tx.Intent("agent.move_requested", w.uuid, map[string]any{
			"move": k.dir(), "target": st.TerminalID, "workspace": k.workspace(st.Path), "label": st.Path,
			"move_token": token})
		return id, err
	})
	if err != nil {
		return "", err
	}
	return v.(string), nil
}

// finishMove applies a move herdr reported done: status k.to, new location, lease
// cleared; then agent.move_applied, agent.location_changed, agent.status_changed.
// ErrStale when the token no longer matches. opID "" records no applied event.
func (w *agentWork) finishMove(k moveKind, token, opID string, p herdr.Placement, repaired bool) error {
	_, err := w.write(func(tx *store.Tx) (any, error) {
		clocks := "parked_at = ?, idle_since = NULL"
		if k.to == "idle" {
			clocks = "parked_at = NULL, idle_since = ?"
		}
		res, err := tx.Exec(`UPDATE agents SET status = ?, move_state = 'none', move_token = NULL,
			terminal_id = ?, pane_id = ?, updated_at = ?, last_status_change_at = ?, `+clocks+`
			WHERE uuid = ? AND move_state = ? AND move_token = ?`,
			k.to, p.TerminalID, p.PaneID, tx.Now(), tx.Now(), tx.Now(), w.uuid, k.state, token)
		if err != nil {
			return nil, err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil, ErrStale
		}
		if opID != "" {
			result := map[string]any{"pane_id": p.PaneID, "terminal_id": p.TerminalID,
				"workspace_id": p.WorkspaceID, "tab_id": p.TabID}
			if repaired {
				result["repaired"] = true
			}
			if _, err := tx.Applied(opID, true, "", result); err != nil {
				return nil, err
			}
		}
		if _, err := emitAgent(tx, "agent.location_changed", w.uuid, map[string]any{
			"pane_id": p.PaneID, "terminal_id": p.TerminalID}); err != nil {
			return nil, err
		}
		return emitAgent(tx, "agent.status_changed", w.uuid, map[string]any{"status": k.to})
	})
	return err
}

// rollbackMove clears the lease without a status change and closes the intent with
// ok:false (cause) — or ok:true/repaired when recovery found the move never happened.
func (w *agentWork) rollbackMove(token, opID string, cause error, repaired bool) {
	_, err := w.write(func(tx *store.Tx) (any, error) {
		if _, err := tx.Exec(`UPDATE agents SET move_state = 'none', move_token = NULL, updated_at = ?
			WHERE uuid = ? AND move_token = ?`, tx.Now(), w.uuid, token); err != nil {
			return nil, err
		}
		if opID == "" {
			return nil, nil
		}
		var result map[string]any
		if repaired {
			result = map[string]any{"repaired": true, "rolled_back": true}
		}
		return tx.Applied(opID, false, errText(cause), result)
	})
	if err != nil {
		w.log().Error("move roll-back", "err", err)
	}
}

// move runs both phases of k. It returns ErrStale when the lease could not be taken.
func (w *agentWork) move(k moveKind, st agentState, extra string, args ...any) error {
	if w.env.Herdr == nil {
		return wire.Env(herdr.CauseMissing, "no herdr binary; "+herdr.InstallHint)
	}
	token := newToken()
	opID, err := w.beginMove(k, st, token, extra, args...)
	if err != nil {
		return err
	}
	if st.TerminalID == "" {
		cause := errors.New("no pane recorded")
		w.rollbackMove(token, opID, cause, false)
		return cause
	}
	ctx, cancel := w.herdrCtx()
	res, merr := w.env.Herdr.Owned().Move(ctx, st.TerminalID, k.workspace(st.Path), st.Path)
	cancel()
	if merr != nil {
		w.log().Warn("pane move failed", "move", k.dir(), "err", merr)
		w.rollbackMove(token, opID, merr, false)
		return merr
	}
	if res.TerminalID == "" {
		res.TerminalID = st.TerminalID
	}
	if err := w.finishMove(k, token, opID, res.Placement, false); err != nil {
		w.log().Error("move finish", "move", k.dir(), "err", err)
		return err
	}
	return nil
}

// park is the GC park of an idle gc-auto agent whose idle streak began at or before
// idleBefore (M17). It gives up quietly when the row changed meanwhile.
func (w *agentWork) park(idleBefore int64) {
	st, err := w.state()
	if err != nil || st.Status != "idle" || st.MoveState != "none" {
		return
	}
	err = w.move(parkMove, st, `gc_mode = 'auto' AND idle_since IS NOT NULL AND idle_since <= ?`, idleBefore)
	if err != nil && !errors.Is(err, ErrStale) {
		w.log().Warn("park failed; the agent stays idle", "err", err)
	}
}

// unpark moves a parked agent home (M18) and returns the row after it. A move left in
// flight (a crash) is recovered first. A row that is not parked is returned as is.
func (w *agentWork) unpark(st agentState) (agentState, error) {
	if st.MoveState != "none" {
		if err := w.recoverMove(st, ""); err != nil {
			return st, err
		}
		var err error
		if st, err = w.state(); err != nil {
			return st, err
		}
	}
	if st.Status != "parked" {
		return st, nil
	}
	if err := w.move(unparkMove, st, ""); err != nil && !errors.Is(err, ErrStale) {
		return st, fmt.Errorf("un-park %s: %w", st.Path, err)
	}
	return w.state()
}

// reap ends a parked agent whose parked_at is at or before parkedBefore (M19): only if
// it is still parked with no move in flight; the pane is shut down gracefully first,
// then the row ends reaped with a compare-and-set on status parked.
func (w *agentWork) reap(parkedBefore int64) ReapResult {
	st, err := w.state()
	if err != nil {
		return ReapResult{Err: err}
	}
	if st.Status != "parked" || st.MoveState != "none" {
		return ReapResult{}
	}
	var parkedAt *int64
	if err := w.env.DB.Reader().QueryRowContext(contextBG, `SELECT parked_at FROM agents WHERE uuid = ?`,
		w.uuid).Scan(&parkedAt); err != nil {
		return ReapResult{Err: err}
	}
	if parkedAt == nil || *parkedAt > parkedBefore {
		return ReapResult{}
	}
	w.shutdownPane(st, "reaped")
	_, err = w.write(OpEnd(w.uuid, []string{"parked"}, "reaped"))
	return ReapResult{Reaped: err == nil, Err: ignoreStale(err)}
}

// recoverMove settles a move a crash left in flight (lifecycle.md §13.3): find the pane
// by terminal id; in the move's destination workspace → finish, elsewhere → roll back
// (the status stays). A pane that is gone clears the lease and marks the row lost. The
// open intent opID (if known) is closed with repaired:true. herdr unreachable: the row
// is left as is and the error returned.
func (w *agentWork) recoverMove(st agentState, opID string) error {
	k := parkMove
	if st.MoveState == "unparking" {
		k = unparkMove
	}
	if w.env.Herdr == nil {
		return wire.Env(herdr.CauseMissing, "no herdr binary; "+herdr.InstallHint)
	}
	ctx, cancel := w.herdrCtx()
	defer cancel()
	p, err := w.env.Herdr.Owned().PaneGet(ctx, st.TerminalID)
	if herdr.IsCode(err, "pane_not_found") || (err == nil && st.TerminalID == "") {
		w.rollbackMove(st.MoveToken, opID, errors.New("pane gone"), true)
		_, lerr := w.write(func(tx *store.Tx) (any, error) {
			if err := casStatus(tx, w.uuid, []string{"working", "idle", "blocked", "parked"}, "lost", ""); err != nil {
				return nil, ignoreStale(err)
			}
			return emitAgent(tx, "agent.status_changed", w.uuid, map[string]any{"status": "lost"})
		})
		return lerr
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
	if label == k.workspace(st.Path) {
		err := w.finishMove(k, st.MoveToken, opID, herdr.Placement{Workspace: label, WorkspaceID: p.WorkspaceID,
			TabID: p.TabID, PaneID: p.PaneID, TerminalID: p.TerminalID}, true)
		return ignoreStale(err)
	}
	w.rollbackMove(st.MoveToken, opID, nil, true)
	return nil
}
