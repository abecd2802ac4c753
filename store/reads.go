package store

import (
	"context"
	"database/sql"
	"errors"
	"github.com/orcr-go/orcr/socketapi/api"
)

// Named reads on the read pool. Each is one read transaction or one statement.

func queryStrings(q Querier, ctx context.Context, query string, args ...any) ([]string, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, sqliteErr("query", err)
	}
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			rows.Close()
			return nil, sqliteErr("scan", err)
		}
		out = append(out, s)
	}
	return out, closeRows(rows, "query")
}

func closeRows(rows *sql.Rows, what string) error {
	err := rows.Err()
	if cerr := rows.Close(); err == nil {
		err = cerr
	}
	return sqliteErr(what, err)
}

// LiveManagedUUIDs lists the managed rows that may hold a pane (restart recovery), oldest
// first.
func (db *DB) LiveManagedUUIDs(ctx context.Context) ([]string, error) {
	return queryStrings(db.r, ctx, `SELECT uuid FROM agents WHERE managed = 1
		AND status IN (`+LiveStatuses.SQL()+`) ORDER BY created_at`)
}

// GCCandidate is one park or reap candidate of a GC sweep. Leased: the agent has a
// stored attach lease, so the sweep defers it (docs/lifecycle.md §12.2).
type GCCandidate struct {
	UUID, Path string
	Leased     bool
}

// leaseExpr is true for a row of agents a with a stored attach lease (see store/attach.go:
// a lease holds until the GC ends it).
const leaseExpr = `EXISTS (SELECT 1 FROM attaches l WHERE l.agent_uuid = a.uuid)`

// ParkCandidates lists idle gc-auto rows with a pane and no move in flight whose idle
// streak began at or before idleBefore, longest idle first, each Leased when it holds a
// lease.
func (db *DB) ParkCandidates(ctx context.Context, idleBefore int64) ([]GCCandidate, error) {
	return gcCandidates(ctx, db.r, `SELECT a.uuid, a.path, `+leaseExpr+` FROM agents a
		WHERE a.managed = 1 AND a.gc_mode = 'auto' AND a.status = 'idle' AND a.move_state = 'none'
		AND COALESCE(a.terminal_id, '') != '' AND a.idle_since IS NOT NULL AND a.idle_since <= ?
		ORDER BY a.idle_since`, idleBefore)
}

// ReapCandidates lists parked rows parked at or before parkedBefore, longest parked
// first, each Leased when it holds a lease.
func (db *DB) ReapCandidates(ctx context.Context, parkedBefore int64) ([]GCCandidate, error) {
	return gcCandidates(ctx, db.r, `SELECT a.uuid, a.path, `+leaseExpr+` FROM agents a
		WHERE a.managed = 1 AND a.status = 'parked' AND a.parked_at IS NOT NULL AND a.parked_at <= ?
		ORDER BY a.parked_at`, parkedBefore)
}

func gcCandidates(ctx context.Context, q Querier, query string, args ...any) ([]GCCandidate, error) {
	return queryRows(ctx, q, query, args, func(s Scanner) (c GCCandidate, err error) {
		return c, s.Scan(&c.UUID, &c.Path, &c.Leased)
	})
}

// Counts are the agent counts of server.status.
type Counts struct {
	Live, Queued, Starting, Blocked, Stalled, Unmanaged int64
}

// AgentCounts counts managed live (not ended or lost), queued, starting and blocked
// rows, and unmanaged rows that have not ended.
func (db *DB) AgentCounts(ctx context.Context) (Counts, error) {
	var c Counts
	err := db.r.QueryRowContext(ctx, `SELECT
		COALESCE(SUM(managed = 1 AND status NOT IN ('ended','lost')), 0),
		COALESCE(SUM(managed = 1 AND status = 'queued'), 0),
		COALESCE(SUM(managed = 1 AND status = 'starting'), 0),
		COALESCE(SUM(managed = 1 AND status = 'blocked'), 0),
		COALESCE(SUM(stalled_at IS NOT NULL), 0),
		COALESCE(SUM(managed = 0 AND status != 'ended'), 0)
		FROM agents`).Scan(&c.Live, &c.Queued, &c.Starting, &c.Blocked, &c.Stalled, &c.Unmanaged)
	return c, sqliteErr("count agents", err)
}

// SlotsUsed counts the managed agents holding a concurrency slot, by provider: the
// counts the admission queue promotes under (docs/lifecycle.md §7).
func (db *DB) SlotsUsed(ctx context.Context) (map[string]int64, error) {
	return readSlots(db.r.QueryContext(ctx, querySlots))
}

// QueuedByProvider counts the queued rows by provider (the fleet-wide caps' demand,
// docs/fleet.md §4.7).
func (db *DB) QueuedByProvider(ctx context.Context) (map[string]int64, error) {
	return readSlots(db.r.QueryContext(ctx, queryQueuedByProvider))
}

// LastScreen is the last screen kept of uuid's pane and when it was read
// (docs/lifecycle.md §4.1); ok is false when none was kept.
func (db *DB) LastScreen(ctx context.Context, uuid string) (text string, at int64, ok bool, err error) {
	var t sql.NullString
	var a sql.NullInt64
	err = db.r.QueryRowContext(ctx, `SELECT last_screen, last_screen_at FROM agents WHERE uuid = ?`, uuid).Scan(&t, &a)
	if err != nil {
		return "", 0, false, rowErr("agent", err)
	}
	return t.String, a.Int64, t.Valid, nil
}

// StalledAgents lists the rows marked stalled (docs/lifecycle.md §10.7), longest
// stalled first.
func (db *DB) StalledAgents(ctx context.Context) ([]api.StalledAgent, error) {
	return queryRows(ctx, db.r, `SELECT uuid, path, stalled_at FROM agents WHERE stalled_at IS NOT NULL
		ORDER BY stalled_at, uuid`, nil, func(s Scanner) (r api.StalledAgent, err error) {
		return r, s.Scan(&r.UUID, &r.Path, &r.StalledAt)
	})
}

// ActiveLoops lists active and paused loops in creation order.
func (db *DB) ActiveLoops(ctx context.Context) ([]LoopSummary, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT name, status, next_fire_at FROM loops
		WHERE status IN (`+LoopLiveStatuses.SQL()+`) ORDER BY created_at`)
	if err != nil {
		return nil, sqliteErr("read loops", err)
	}
	out := []LoopSummary{}
	for rows.Next() {
		var l LoopSummary
		if err := rows.Scan(&l.Name, &l.Status, &l.NextFireAt); err != nil {
			rows.Close()
			return nil, sqliteErr("read loops", err)
		}
		out = append(out, l)
	}
	return out, closeRows(rows, "read loops")
}

// LoopActive reports whether an active or paused loop is named name.
func (db *DB) LoopActive(ctx context.Context, name string) (bool, error) {
	var n int
	err := db.r.QueryRowContext(ctx, `SELECT count(*) FROM loops WHERE name = ? AND status IN (`+LoopLiveStatuses.SQL()+`)`, name).Scan(&n)
	return n > 0, sqliteErr("read loops", err)
}

// LatestTurn is the completion of an agent's latest turn (highest input_seq).
type LatestTurn struct {
	CompletedAt int64  // 0 = not completed (or no turn)
	Cursor      string // transcript cursor recorded at completion
}

// LatestTurnOf reads uuid's latest turn; no turn is the zero value.
func (db *DB) LatestTurnOf(ctx context.Context, uuid string) (LatestTurn, error) {
	var lt LatestTurn
	var completed sql.NullInt64
	var cursor sql.NullString
	err := db.r.QueryRowContext(ctx, `SELECT completed_at, transcript_cursor FROM turns WHERE agent_uuid = ?
		ORDER BY input_seq DESC LIMIT 1`, uuid).Scan(&completed, &cursor)
	if errors.Is(err, sql.ErrNoRows) {
		return lt, nil
	}
	lt.CompletedAt, lt.Cursor = completed.Int64, cursor.String
	return lt, sqliteErr("read latest turn", err)
}

// AnyTurnCompleted reports whether any turn of uuid has completed.
func (db *DB) AnyTurnCompleted(ctx context.Context, uuid string) (bool, error) {
	var n int
	err := db.r.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM turns WHERE agent_uuid = ? AND completed_at IS NOT NULL)`, uuid).Scan(&n)
	return n == 1, sqliteErr("read completed turns", err)
}

// WaitRow is the part of an agent row wait settlement needs ("" for NULL).
// StatusChangedAt is last_status_change_at in Unix ms (0 for NULL): an any wait names
// the settled member that got there first.
type WaitRow struct {
	UUID, Path              string
	Status                  Status
	BlockedKind, ExitReason string
	ExitDetail              string // why it ended, in words ("" = none)
	Screen                  bool   // the pane's last screen was kept
	StatusChangedAt         int64
	// Managed and TerminalID let a wait confirm that the pane of a row it would settle
	// still exists ("" when none was recorded).
	Managed    bool
	TerminalID string
}

// WaitRows reads the rows of uuids still present, by path, and the event head in one
// read transaction, so the rows are exactly the state at head (the highest seq, or the
// autoincrement counter when retention emptied the table, 0 for a fresh store).
func (db *DB) WaitRows(ctx context.Context, uuids []string) (int64, []WaitRow, error) {
	tx, err := db.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return 0, nil, sqliteErr("begin wait read", err)
	}
	defer tx.Rollback()
	// The first statement fixes the transaction's snapshot; the rows below share it.
	head, _, err := bounds(ctx, tx)
	if err != nil {
		return 0, nil, err
	}
	args := make([]any, len(uuids))
	for i, u := range uuids {
		args[i] = u
	}
	rs, err := tx.QueryContext(ctx, `SELECT uuid, path, status, COALESCE(blocked_kind, ''), COALESCE(exit_reason, ''),
		COALESCE(exit_detail, ''), last_screen IS NOT NULL, COALESCE(last_status_change_at, 0), managed, COALESCE(terminal_id, '') FROM agents WHERE uuid IN (`+marks(len(uuids))+`) ORDER BY path, uuid`, args...)
	if err != nil {
		return 0, nil, sqliteErr("read wait rows", err)
	}
	rows := make([]WaitRow, 0, len(uuids))
	for rs.Next() {
		var r WaitRow
		if err := rs.Scan(&r.UUID, &r.Path, &r.Status, &r.BlockedKind, &r.ExitReason, &r.ExitDetail, &r.Screen, &r.StatusChangedAt, &r.Managed, &r.TerminalID); err != nil {
			rs.Close()
			return 0, nil, sqliteErr("read wait rows", err)
		}
		rows = append(rows, r)
	}
	return head, rows, closeRows(rs, "read wait rows")
}

// LoopSummary is one active or paused loop as server.status lists it (a wire type).
type LoopSummary = api.LoopSummary

// ReconRow is what a reconciliation pass reads of one managed row that may hold a pane
// (docs/lifecycle.md §13.2).
type ReconRow struct {
	UUID       string
	Path       string
	Status     Status
	TerminalID string // "" when none was recorded
	PaneID     string
	MoveState  MoveState
	TurnOpen   bool // the latest turn has not completed
}

// ReconRows lists the managed rows in starting, working, idle, blocked, parked or lost,
// oldest first: one statement.
func (db *DB) ReconRows(ctx context.Context) ([]ReconRow, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT a.uuid, a.path, a.status, COALESCE(a.terminal_id, ''),
		COALESCE(a.pane_id, ''), a.move_state,
		EXISTS (SELECT 1 FROM turns t WHERE t.agent_uuid = a.uuid AND t.input_seq = a.input_seq AND t.completed_at IS NULL)
		FROM agents a WHERE a.managed = 1
		AND a.status IN ('starting','working','idle','blocked','parked','lost') ORDER BY a.created_at`)
	if err != nil {
		return nil, sqliteErr("read reconcile rows", err)
	}
	var out []ReconRow
	for rows.Next() {
		var r ReconRow
		if err := rows.Scan(&r.UUID, &r.Path, &r.Status, &r.TerminalID, &r.PaneID, &r.MoveState, &r.TurnOpen); err != nil {
			rows.Close()
			return nil, sqliteErr("scan reconcile rows", err)
		}
		out = append(out, r)
	}
	return out, closeRows(rows, "read reconcile rows")
}
