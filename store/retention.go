package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strconv"
)

// Retention of ended agents (docs/lifecycle.md §12.4): the gc forgets an ended agent once
// it ended more than retention.ended_for ago, or once retention.ended_max newer ended
// agents are kept, in batches of at most RetentionBatch rows per transaction so the store
// actor's other writers never wait long behind it.

// RetentionBatch is the most agents one retention transaction forgets.
const RetentionBatch = 200

// Meta keys of the retention counters server.status reports.
const (
	retentionTrimmedKey = "retention_trimmed_total"
	retentionLastKey    = "retention_last_trim_at"
)

// Forgotten is an agent retention forgot: its data folder (keyed by path and uuid) is
// removed after the transaction committed.
type Forgotten struct{ UUID, Path string }

// RetentionStats is what retention has forgotten so far, across restarts.
type RetentionStats struct {
	// Trimmed counts the agents forgotten.
	Trimmed int64
	// LastAt is when the last batch was forgotten (unix ms; 0 = never).
	LastAt int64
}

// RetentionCut is the point in the ended agents' order — (ended_at, rowid), oldest
// first; rowid is insertion order, so of two agents that ended in the same millisecond
// the one created later counts as newer — before which an ended agent is forgotten.
type RetentionCut struct{ EndedAt, RowID int64 }

// before reports whether c comes before d in that order.
func (c RetentionCut) before(d RetentionCut) bool {
	return c.EndedAt < d.EndedAt || (c.EndedAt == d.EndedAt && c.RowID < d.RowID)
}

// RetentionCutoff is the cut before which an ended agent is forgotten: the later of
// now−endedFor and the oldest of the keep newest ended agents, so whichever limit an
// agent passes first forgets it, and exactly keep are kept however many ended in the
// same millisecond (a bulk kill ends hundreds at once). endedFor ≤ 0 and keep ≤ 0 switch
// that limit off; ok is false when no ended agent comes before the cut, so an idle store
// costs no write. It reads the agents_ended index (ended_at, rowid) on the read pool.
func (db *DB) RetentionCutoff(ctx context.Context, now, endedFor int64, keep int) (cut RetentionCut, ok bool, err error) {
	if endedFor > 0 {
		cut, ok = RetentionCut{EndedAt: now - endedFor}, true // rowid 0: every agent of that ms is kept
	}
	if keep > 0 {
		var oldest RetentionCut
		err = db.r.QueryRowContext(ctx, `SELECT ended_at, rowid FROM agents WHERE status = 'ended' AND ended_at IS NOT NULL
			ORDER BY ended_at DESC, rowid DESC LIMIT 1 OFFSET ?`, keep-1).Scan(&oldest.EndedAt, &oldest.RowID)
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return RetentionCut{}, false, sqliteErr("read retention cutoff", err)
		case !ok || cut.before(oldest):
			// Every agent before the oldest of the keep newest is past them.
			cut, ok = oldest, true
		}
	}
	if !ok {
		return RetentionCut{}, false, nil
	}
	var due bool
	if err := db.r.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM agents WHERE status = 'ended' AND `+beforeCut+`)`,
		cut.EndedAt, cut.EndedAt, cut.RowID).Scan(&due); err != nil {
		return RetentionCut{}, false, sqliteErr("read retention cutoff", err)
	}
	return cut, due, nil
}

// beforeCut is the condition of an agents row that comes before a RetentionCut, with the
// parameters (EndedAt, EndedAt, RowID).
const beforeCut = `(ended_at < ? OR (ended_at = ? AND rowid < ?))`

// retentionKept is the condition of an ended row a that retention keeps whatever its age:
// an open intent (recovery still has a step of it to finish), a worktree it still holds,
// a live child (whose row names it as parent), or a run budget a live agent still counts
// against — through its own budget or an enclosing or nested one — whose spend is the sum
// of its lineage's rows (docs/usage.md §8.2).
const retentionKept = `EXISTS (SELECT 1 FROM intents i WHERE i.ref_uuid = a.uuid)
	OR (a.worktree_state IS NOT NULL AND ` + holdsWorktree + `)
	OR EXISTS (SELECT 1 FROM agents c WHERE c.parent_id = a.uuid AND c.status != 'ended')
	OR (a.run_budget IS NOT NULL AND a.run_budget IN (SELECT b FROM live_budgets))`

// liveBudgets is the CTE live_budgets: every run budget a live agent counts against, the
// budgets enclosing them, and every budget nested inside those.
const liveBudgets = `WITH RECURSIVE up(b) AS (
		SELECT run_budget FROM agents WHERE run_budget IS NOT NULL AND status != 'ended'
		UNION SELECT p.run_budget FROM up JOIN agents o ON o.uuid = up.b JOIN agents p ON p.uuid = o.parent_id
			WHERE p.run_budget IS NOT NULL),
	live_budgets(b) AS (SELECT b FROM up
		UNION SELECT rb.agent_uuid FROM run_budgets rb JOIN agents o ON o.uuid = rb.agent_uuid
			JOIN agents p ON p.uuid = o.parent_id JOIN live_budgets l ON p.run_budget = l.b)
	`

// ForgetEnded forgets up to limit ended agents before cut, oldest first
// (docs/lifecycle.md §12.4): their rows, session logs, inbox items, attach leases, stream
// tokens, run budget and budget scopes, and their turns that reported no usage. Turns
// with usage stay, with the usage_days rollup, so usage reports and budgets read the same
// after a trim. Events are trimmed by event retention alone. It writes no event and
// returns what it forgot; the caller removes their data folders once this committed.
func (t *Tx) ForgetEnded(cut RetentionCut, limit int) ([]Forgotten, error) {
	rows, err := t.Query(liveBudgets+`SELECT a.uuid, a.path FROM agents a
		WHERE a.status = 'ended' AND `+beforeCut+` AND NOT (`+retentionKept+`)
		ORDER BY a.ended_at, a.rowid LIMIT ?`, cut.EndedAt, cut.EndedAt, cut.RowID, limit)
	if err != nil {
		return nil, sqliteErr("read ended agents to forget", err)
	}
	var gone []Forgotten
	for rows.Next() {
		var f Forgotten
		if err := rows.Scan(&f.UUID, &f.Path); err != nil {
			rows.Close()
			return nil, sqliteErr("read ended agents to forget", err)
		}
		gone = append(gone, f)
	}
	if err := closeRows(rows, "read ended agents to forget"); err != nil || len(gone) == 0 {
		return nil, err
	}
	ids := make([]string, len(gone))
	for i, f := range gone {
		ids[i] = f.UUID
	}
	list, err := json.Marshal(ids)
	if err != nil {
		return nil, err
	}
	const in = ` IN (SELECT value FROM json_each(?))`
	for _, s := range []struct{ what, q string }{
		{"forget session logs", `DELETE FROM session_log WHERE agent_uuid` + in},
		{"forget sessions", `DELETE FROM sessions WHERE agent_uuid` + in},
		{"forget inbox", `DELETE FROM inbox WHERE agent_uuid` + in},
		{"forget attach leases", `DELETE FROM attaches WHERE agent_uuid` + in},
		{"forget stream tokens", `DELETE FROM remote_tokens WHERE agent_uuid` + in},
		{"forget run budgets", `DELETE FROM run_budgets WHERE agent_uuid` + in},
		{"forget budget scopes", `DELETE FROM budget_scopes WHERE scope` + in +
			` OR (instr(scope, '#') > 0 AND substr(scope, 1, instr(scope, '#') - 1)` + in + `)`},
		{"forget turns", `DELETE FROM turns WHERE usage_at IS NULL AND agent_uuid` + in},
		{"forget agents", `DELETE FROM agents WHERE uuid` + in},
	} {
		args := []any{string(list)}
		if s.what == "forget budget scopes" {
			args = append(args, string(list))
		}
		if err := t.exec(s.what, s.q, args...); err != nil {
			return nil, err
		}
	}
	n := strconv.Itoa(len(gone))
	if err := t.exec("count forgotten agents", `INSERT INTO meta (key, value) VALUES (?, ?)
		ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + CAST(excluded.value AS INTEGER)`,
		retentionTrimmedKey, n); err != nil {
		return nil, err
	}
	return gone, t.exec("stamp forgotten agents", `INSERT INTO meta (key, value) VALUES (?, ?)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value`, retentionLastKey, strconv.FormatInt(t.now, 10))
}

// RetentionStats reads what retention has forgotten so far.
func (db *DB) RetentionStats(ctx context.Context) (RetentionStats, error) {
	var s RetentionStats
	rows, err := db.r.QueryContext(ctx, `SELECT key, CAST(value AS INTEGER) FROM meta WHERE key IN (?, ?)`,
		retentionTrimmedKey, retentionLastKey)
	if err != nil {
		return s, sqliteErr("read retention stats", err)
	}
	for rows.Next() {
		var k string
		var v int64
		if err := rows.Scan(&k, &v); err != nil {
			rows.Close()
			return s, sqliteErr("read retention stats", err)
		}
		if k == retentionTrimmedKey {
			s.Trimmed = v
		} else {
			s.LastAt = v
		}
	}
	return s, closeRows(rows, "read retention stats")
}
