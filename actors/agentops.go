package actors

import (
	"database/sql"
	"errors"
	"fmt"

	"github.com/orcr-go/orcr/socketapi/wire"
	"github.com/orcr-go/orcr/store"
)

// Store operations of the agent lifecycle (lifecycle.md §5). Each is a store.Op run by
// the store actor; every status change is a compare-and-set on the status it expects,
// and emits its events in the same transaction, each embedding the agent row after the
// change (decisions.md D2).

// ErrStale is returned by an op whose compare-and-set found the row in another state.
var ErrStale = errors.New("actors: agent row changed meanwhile")

// emitAgent emits kind for uuid with payload fields plus the current row as "agent".
func emitAgent(tx *store.Tx, kind, uuid string, fields map[string]any) (int64, error) {
	row, err := store.AgentByUUID(tx.Context(), tx, uuid)
	if err != nil {
		return 0, err
	}
	p := map[string]any{"uuid": uuid}
	for k, v := range fields {
		p[k] = v
	}
	p["agent"] = row
	return tx.Emit(kind, uuid, p)
}

// casStatus updates the row when its status is one of from; extra holds more "col = ?"
// assignments. It returns ErrStale when no row matched.
func casStatus(tx *store.Tx, uuid string, from []string, to string, extra string, args ...any) error {
	q := `UPDATE agents SET status = ?, updated_at = ?, last_status_change_at = ?`
	all := []any{to, tx.Now(), tx.Now()}
	if extra != "" {
		q += ", " + extra
		all = append(all, args...)
	}
	q += ` WHERE uuid = ? AND status IN (` + placeholders(len(from)) + `)`
	all = append(all, uuid)
	for _, f := range from {
		all = append(all, f)
	}
	res, err := tx.Exec(q, all...)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrStale
	}
	return nil
}

func placeholders(n int) string {
	s := ""
	for i := range n {
		if i > 0 {
			s += ","
		}
		s += "?"
	}
	return s
}

// endAgentTx ends a row that is in one of from, with exit_reason, emitting
// agent.status_changed(ended) then agent.ended exactly once (quirk Q1: the CAS makes a
// second end a no-op).
func endAgentTx(tx *store.Tx, uuid string, from []string, exitReason string) error {
	if err := casStatus(tx, uuid, from, "ended", "exit_reason = ?, ended_at = ?, move_state = 'none', move_token = NULL",
		exitReason, tx.Now()); err != nil {
		return err
	}
	if _, err := emitAgent(tx, "agent.status_changed", uuid, map[string]any{"status": "ended", "exit_reason": exitReason}); err != nil {
		return err
	}
	_, err := emitAgent(tx, "agent.ended", uuid, map[string]any{"exit_reason": exitReason})
	return err
}

// live is every managed status that may hold a pane.
var live = []string{"starting", "working", "idle", "blocked", "parked", "lost"}

// OpEnd ends uuid from any of from (a compare-and-set on those statuses).
func OpEnd(uuid string, from []string, exitReason string) store.Op {
	return func(tx *store.Tx) (any, error) { return nil, endAgentTx(tx, uuid, from, exitReason) }
}

// Caps are the admission limits (config concurrency).
type Caps struct {
	Max      int
	Provider func(name string) (int, bool)
}

// promoteResult lists the rows a promotion op moved to starting, in FIFO order.
type promoteResult struct {
	promoted []string
	failed   []string // stuck-start guard victims
	canceled []string // starting rows ended by their deadline: their pipeline must stop
	timedOut []string // live rows past their deadline: the agent actor shuts them down
}

// opPromote is one queue tick (lifecycle.md §7.2–§7.3): the stuck-start sweep, then FIFO
// promotion under the global and per-provider caps, counted inside the transaction.
// Rows matching a kill barrier are not promoted.
func opPromote(caps Caps, maxStartingMS int64, barriers *Barriers) store.Op {
	return func(tx *store.Tx) (any, error) {
		var res promoteResult
		if maxStartingMS > 0 {
			rows, err := tx.Query(`SELECT uuid FROM agents WHERE managed = 1 AND status = 'starting'
				AND pane_id IS NULL AND starting_at < ?`, tx.Now()-maxStartingMS)
			if err != nil {
				return nil, err
			}
			var stuck []string
			for rows.Next() {
				var u string
				rows.Scan(&u)
				stuck = append(stuck, u)
			}
			rows.Close()
			for _, u := range stuck {
				if err := endAgentTx(tx, u, []string{"starting"}, "failed"); err == nil {
					res.failed = append(res.failed, u)
				}
			}
		}
		if err := deadlineSweep(tx, &res); err != nil {
			return nil, err
		}
		used := map[string]int{}
		global := 0
		rows, err := tx.Query(`SELECT COALESCE(agent, ''), count(*) FROM agents WHERE managed = 1
			AND status NOT IN ('queued','ended','lost') GROUP BY agent`)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var p string
			var n int
			rows.Scan(&p, &n)
			used[p] = n
			global += n
		}
		rows.Close()
		if global >= caps.Max {
			return res, nil
		}
		rows, err = tx.Query(`SELECT uuid, path, COALESCE(agent, '') FROM agents WHERE status = 'queued'
			ORDER BY queue_seq, uuid`)
		if err != nil {
			return nil, err
		}
		type cand struct{ uuid, path, provider string }
		var queued []cand
		for rows.Next() {
			var c cand
			rows.Scan(&c.uuid, &c.path, &c.provider)
			queued = append(queued, c)
		}
		rows.Close()
		for _, c := range queued {
			if global >= caps.Max {
				break
			}
			limit := caps.Max
			if caps.Provider != nil {
				if n, ok := caps.Provider(c.provider); ok && n < limit {
					limit = n
				}
			}
			if used[c.provider] >= limit || barriers.Matches(c.path) {
				continue
			}
			if err := casStatus(tx, c.uuid, []string{"queued"}, "starting", "starting_at = ?", tx.Now()); err != nil {
				if errors.Is(err, ErrStale) {
					continue
				}
				return nil, err
			}
			if _, err := emitAgent(tx, "queue.promoted", c.uuid, nil); err != nil {
				return nil, err
			}
			if _, err := emitAgent(tx, "agent.status_changed", c.uuid, map[string]any{"status": "starting"}); err != nil {
				return nil, err
			}
			used[c.provider]++
			global++
			res.promoted = append(res.promoted, c.uuid)
		}
		return res, nil
	}
}

// readAgent reads the lifecycle columns the agent actor needs.
type agentState struct {
	UUID, Path, Status, Provider, GCMode string
	TerminalID, PaneID, Session          string
	MoveState, MoveToken                 string // move_state ("none" when idle) and its lease
	CancelRequested                      bool
	InputSeq                             int64
	Managed                              bool
}

func readAgentState(q store.Querier, tx *store.Tx, uuid string) (agentState, error) {
	var s agentState
	var provider, gc, term, pane, sess, token sql.NullString
	var managed, cancel int
	query := `SELECT uuid, path, status, agent, gc_mode, terminal_id, pane_id, herdr_session,
		cancel_requested, input_seq, managed, move_state, move_token FROM agents WHERE uuid = ?`
	var row interface{ Scan(...any) error }
	if tx != nil {
		row = tx.QueryRow(query, uuid)
	} else {
		row = q.QueryRowContext(contextBG, query, uuid)
	}
	err := row.Scan(&s.UUID, &s.Path, &s.Status, &provider, &gc, &term, &pane, &sess, &cancel, &s.InputSeq, &managed, &s.MoveState, &token)
	if err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return s, wire.New(wire.NotFound, fmt.Sprintf("no agent %s", uuid), "target", uuid)
		}
		return s, err
	}
	s.Provider, s.GCMode, s.TerminalID, s.PaneID, s.Session = provider.String, gc.String, term.String, pane.String, sess.String
	s.CancelRequested, s.Managed = cancel == 1, managed == 1
	s.MoveToken = token.String
	return s, nil
}

// OpRearm is the restart re-arm of lifecycle.md §10.5: working and blocked rows lose
// their idle streak (completion must see a fresh one), idle rows restart the park
// clock; parked rows keep parked_at. No event: clocks are not part of the stream.
func OpRearm() store.Op {
	return func(tx *store.Tx) (any, error) {
		if _, err := tx.Exec(`UPDATE agents SET idle_since = NULL WHERE managed = 1 AND status IN ('working','blocked')`); err != nil {
			return nil, err
		}
		_, err := tx.Exec(`UPDATE agents SET idle_since = ? WHERE managed = 1 AND status = 'idle'`, tx.Now())
		return nil, err
	}
}

// deadlineSweep applies --timeout (lifecycle.md M4, M23): a queued row past its
// deadline ends timeout at once; a starting row gets the cancel interlock and ends
// timeout (its pipeline closes any pane it made); a live row is handed to its agent
// actor for a graceful shutdown. Rows with a move in flight wait for the next tick.
func deadlineSweep(tx *store.Tx, res *promoteResult) error {
	rows, err := tx.Query(`SELECT uuid, status FROM agents WHERE managed = 1 AND deadline_at IS NOT NULL
		AND deadline_at <= ? AND status NOT IN ('ended','lost') AND move_state = 'none'`, tx.Now())
	if err != nil {
		return err
	}
	type due struct{ uuid, status string }
	var all []due
	for rows.Next() {
		var d due
		rows.Scan(&d.uuid, &d.status)
		all = append(all, d)
	}
	rows.Close()
	for _, d := range all {
		switch d.status {
		case "queued":
			if err := endAgentTx(tx, d.uuid, []string{"queued"}, "timeout"); err != nil && !errors.Is(err, ErrStale) {
				return err
			}
		case "starting":
			if _, err := tx.Exec(`UPDATE agents SET cancel_requested = 1 WHERE uuid = ?`, d.uuid); err != nil {
				return err
			}
			if err := endAgentTx(tx, d.uuid, []string{"starting"}, "timeout"); err != nil && !errors.Is(err, ErrStale) {
				return err
			}
			res.canceled = append(res.canceled, d.uuid)
		default:
			res.timedOut = append(res.timedOut, d.uuid)
		}
	}
	return nil
}
