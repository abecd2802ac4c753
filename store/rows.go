package store

import (
	"context"
	"database/sql"
	"errors"
	"github.com/orcr-go/orcr/socketapi/api"
)

// Scanner is satisfied by *sql.Row and *sql.Rows.
type Scanner interface {
	Scan(dest ...any) error
}

// AgentSelect selects the columns [ScanAgent] reads, from "agents a". Append a WHERE /
// ORDER BY clause that refers to the table as a.
const AgentSelect = `SELECT a.uuid, a.path, a.status, a.managed, a.agent, a.model, a.effort, a.cwd,
	a.pane_id, a.move_state, a.created_at, a.last_status_change_at,
	a.herdr_session, a.starting_at, a.idle_since, a.parked_at,
	(SELECT t.delivered_at FROM turns t WHERE t.agent_uuid = a.uuid ORDER BY t.input_seq DESC LIMIT 1),
	(SELECT t.completed_at FROM turns t WHERE t.agent_uuid = a.uuid ORDER BY t.input_seq DESC LIMIT 1),
	CASE WHEN a.status = 'queued' THEN (SELECT count(*) FROM agents q WHERE q.status = 'queued'
		AND (q.queue_seq < a.queue_seq OR (q.queue_seq = a.queue_seq AND q.uuid <= a.uuid))) END,
	a.parent_id, (SELECT p.path FROM agents p WHERE p.uuid = a.parent_id),
	a.blocked_kind, a.exit_reason, a.exit_detail, a.last_screen_at, a.ended_at, a.stalled_at IS NOT NULL, a.stalled_at, a.routed_from, a.budget_paused,
	a.worktree_state, a.worktree_path, a.worktree_branch, a.worktree_repo, a.worktree_keep,
	a.usage_turns, a.usage_tokens, a.usage_cost_micros, a.usage_unpriced
	FROM agents a`

// ScanAgent scans one row selected with [AgentSelect].
func ScanAgent(s Scanner) (AgentRow, error) {
	var r AgentRow
	var wtState, wtPath, wtBranch, wtRepo sql.NullString
	var wtKeep bool
	var u api.AgentUsage
	var costMicros int64
	err := s.Scan(&r.UUID, &r.Path, &r.Status, &r.Managed, &r.Agent, &r.Model, &r.Effort, &r.Cwd,
		&r.PaneID, &r.MoveState, &r.CreatedAt, &r.LastStatusChangeAt,
		&r.HerdrSession, &r.StartingAt, &r.IdleSince, &r.ParkedAt,
		&r.TurnDeliveredAt, &r.TurnCompletedAt, &r.QueuePosition,
		&r.ParentID, &r.ParentPath, &r.BlockedKind, &r.ExitReason, &r.ExitDetail, &r.ScreenAt, &r.EndedAt, &r.Stalled, &r.StalledAt, &r.RoutedFrom, &r.BudgetPaused,
		&wtState, &wtPath, &wtBranch, &wtRepo, &wtKeep, &u.Turns, &u.Tokens, &costMicros, &u.UnpricedTurns)
	if u.Turns > 0 {
		u.CostUSD = float64(costMicros) / 1e6
		r.Usage = &u
	}
	if wtState.Valid {
		r.Worktree = &api.AgentWorktree{Path: wtPath.String, Branch: wtBranch.String, Repo: wtRepo.String,
			Keep: wtKeep, State: wtState.String}
	}
	return r, err
}

// AgentByUUID reads one agent row through q (a write [Tx] or the read pool). No row wraps
// [ErrNotFound].
func AgentByUUID(ctx context.Context, q Querier, uuid string) (AgentRow, error) {
	r, err := ScanAgent(q.QueryRowContext(ctx, AgentSelect+` WHERE a.uuid = ?`, uuid))
	return r, rowErr("agent", err)
}

// QueryAgents reads the agent rows selected by tail (a WHERE / ORDER BY clause over
// "agents a", may be empty) and args.
func QueryAgents(ctx context.Context, q Querier, tail string, args ...any) ([]AgentRow, error) {
	return queryRows(ctx, q, AgentSelect+" "+tail, args, ScanAgent)
}

// LoopSelect selects the columns [ScanLoop] reads, from "loops l".
const LoopSelect = `SELECT l.uuid, l.name, l.status, l.ended_reason, l.cadence_value, l.cadence_kind,
	l.tz, l.next_fire_at, l.last_fire_at, l.max_concurrency, l.overlap, l.created_at
	FROM loops l`

// ScanLoop scans one row selected with [LoopSelect].
func ScanLoop(s Scanner) (LoopRow, error) {
	var r LoopRow
	err := s.Scan(&r.UUID, &r.Name, &r.Status, &r.EndedReason, &r.Cadence, &r.CadenceKind,
		&r.TZ, &r.NextFireAt, &r.LastFireAt, &r.MaxConcurrency, &r.Overlap, &r.CreatedAt)
	return r, err
}

// LoopByUUID reads one loop row through q. No row wraps [ErrNotFound].
func LoopByUUID(ctx context.Context, q Querier, uuid string) (LoopRow, error) {
	r, err := ScanLoop(q.QueryRowContext(ctx, LoopSelect+` WHERE l.uuid = ?`, uuid))
	return r, rowErr("loop", err)
}

// QueryLoops reads the loop rows selected by tail (over "loops l") and args.
func QueryLoops(ctx context.Context, q Querier, tail string, args ...any) ([]LoopRow, error) {
	return queryRows(ctx, q, LoopSelect+" "+tail, args, ScanLoop)
}

// RunSelect selects the columns [ScanRun] reads, from "loop_runs r" left-joined with
// "loops l". The agent count is every agent the run created, ended ones included (a
// finished run's agents have ended: a live count read 0 for it); it uses the agents_path
// index: paths strictly between "<run path>/" and "<run path>0" ('0' follows '/') are
// exactly those under the run.
const RunSelect = `SELECT r.uuid, r.loop_uuid, r.run_id, COALESCE(l.name, '') || '/' || r.run_id,
	r.kind, r.status, r.due_at, r.created_at, r.started_at, r.ended_at, r.exit_code, r.signal,
	r.pid, r.pgid,
	(SELECT count(*) FROM agents a WHERE a.path > COALESCE(l.name, '') || '/' || r.run_id || '/'
		AND a.path < COALESCE(l.name, '') || '/' || r.run_id || '0')
	FROM loop_runs r LEFT JOIN loops l ON l.uuid = r.loop_uuid`

// ScanRun scans one row selected with [RunSelect].
func ScanRun(s Scanner) (RunRow, error) {
	var r RunRow
	err := s.Scan(&r.UUID, &r.LoopUUID, &r.RunID, &r.Path, &r.Kind, &r.Status, &r.DueAt,
		&r.CreatedAt, &r.StartedAt, &r.EndedAt, &r.ExitCode, &r.Signal, &r.PID, &r.PGID, &r.Agents)
	return r, err
}

// RunByUUID reads one run row through q. No row wraps [ErrNotFound].
func RunByUUID(ctx context.Context, q Querier, uuid string) (RunRow, error) {
	r, err := ScanRun(q.QueryRowContext(ctx, RunSelect+` WHERE r.uuid = ?`, uuid))
	return r, rowErr("run", err)
}

// QueryRuns reads the run rows selected by tail (over "loop_runs r" / "loops l") and args.
func QueryRuns(ctx context.Context, q Querier, tail string, args ...any) ([]RunRow, error) {
	return queryRows(ctx, q, RunSelect+" "+tail, args, ScanRun)
}

func rowErr(what string, err error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNotFound
	}
	return sqliteErr("read "+what, err)
}

func queryRows[T any](ctx context.Context, q Querier, query string, args []any, scan func(Scanner) (T, error)) ([]T, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, sqliteErr("query", err)
	}
	defer rows.Close()
	out := []T{}
	for rows.Next() {
		r, err := scan(rows)
		if err != nil {
			return nil, sqliteErr("scan", err)
		}
		out = append(out, r)
	}
	return out, sqliteErr("query", rows.Err())
}

// The row shapes are the wire types of package socketapi/api (docs/protocol.md §4.3); the
// store scans into them.
type (
	AgentRow = api.AgentRow
	LoopRow  = api.LoopRow
	RunRow   = api.RunRow
)
