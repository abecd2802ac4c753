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

// RetentionCutoff is the ended_at before which an ended agent is forgotten: the later of
// now−endedFor and just after the ended_at of the newest ended agent past the keep newest
// (ties at that boundary are kept), so whichever limit an agent passes first forgets it.
// endedFor ≤ 0 and keep ≤ 0 switch that limit off; ok is false when no ended agent ended
// before the cutoff, so an idle store costs no write. It reads the agents_ended index on
// the read pool.
func (db *DB) RetentionCutoff(ctx context.Context, now, endedFor int64, keep int) (cutoff int64, ok bool, err error) {
	if endedFor > 0 {
		cutoff, ok = now-endedFor, true
	}
	if keep > 0 {
		var at int64
		err = db.r.QueryRowContext(ctx, `SELECT ended_at FROM agents WHERE status = 'ended' AND ended_at IS NOT NULL
			ORDER BY ended_at DESC LIMIT 1 OFFSET ?`, keep).Scan(&at)
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return 0, false, sqliteErr("read retention cutoff", err)
		case !ok || at+1 > cutoff:
			// The one at offset keep is past the keep newest, and so is every row that
			// ended before it.
			cutoff, ok = at+1, true
		}
	}
	if !ok {
		return 0, false, nil
	}
	var due bool
	if err := db.r.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM agents WHERE status = 'ended' AND ended_at < ?)`,
		cutoff).Scan(&due); err != nil {
		return 0, false, sqliteErr("read retention cutoff", err)
	}
	return cutoff, due, nil
}

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

// ForgetEnded forgets up to limit ended agents that ended before cutoff, oldest first
// (docs/lifecycle.md §12.4): their rows, session logs, inbox items, attach leases, stream
// tokens, run budget and budget scopes, and their turns that reported no usage. Turns
// with usage stay, with the usage_days rollup, so usage reports and budgets read the same
// after a trim. Events are trimmed by event retention alone. It writes no event and
// returns what it forgot; the caller removes their data folders once this committed.
func (t *Tx) ForgetEnded(cutoff int64, limit int) ([]Forgotten, error) {
	rows, err := t.Query(liveBudgets+`SELECT a.uuid, a.path FROM agents a
		WHERE a.status = 'ended' AND a.ended_at < ? AND NOT (`+retentionKept+`)
		ORDER BY a.ended_at LIMIT ?`, cutoff, limit)
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
