package store

import (
	"context"
	"database/sql"
	"errors"
)

// Scanner is satisfied by *sql.Row and *sql.Rows.
type Scanner interface {
	Scan(dest ...any) error
}

// AgentRow is the agent row shape of docs/protocol.md §4.3 (agent.ls, snapshots, and the
// "agent" member of every agent.* event payload, docs/decisions.md D2). Nullable keys that are
// always present are pointers without omitempty (they serialise as null); keys present
// only when set are pointers with omitempty.
type AgentRow struct {
	UUID               string  `json:"uuid"`
	Path               string  `json:"path"`
	Status             Status  `json:"status"`
	Managed            bool    `json:"managed"`
	Agent              *string `json:"agent"`
	Model              *string `json:"model"`
	Effort             *string `json:"effort"`
	Cwd                *string `json:"cwd"`
	PaneID             *string `json:"pane_id"`
	MoveState          string  `json:"move_state"`
	CreatedAt          int64   `json:"created_at"`
	LastStatusChangeAt *int64  `json:"last_status_change_at"`

	HerdrSession    *string `json:"herdr_session,omitempty"`
	StartingAt      *int64  `json:"starting_at,omitempty"`
	IdleSince       *int64  `json:"idle_since,omitempty"`
	ParkedAt        *int64  `json:"parked_at,omitempty"`
	TurnDeliveredAt *int64  `json:"turn_delivered_at,omitempty"` // of the latest turn (highest input_seq)
	TurnCompletedAt *int64  `json:"turn_completed_at,omitempty"` // of the latest turn
	QueuePosition   *int64  `json:"queue_position,omitempty"`    // derived; only when status = queued
	ParentID        *string `json:"parent_id,omitempty"`
	ParentPath      *string `json:"parent_path,omitempty"` // only when parent_id names an agent row
	BlockedKind     *string `json:"blocked_kind,omitempty"`
	ExitReason      *string `json:"exit_reason,omitempty"`
	EndedAt         *int64  `json:"ended_at,omitempty"`
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
	a.blocked_kind, a.exit_reason, a.ended_at
	FROM agents a`

// ScanAgent scans one row selected with [AgentSelect].
func ScanAgent(s Scanner) (AgentRow, error) {
	var r AgentRow
	err := s.Scan(&r.UUID, &r.Path, &r.Status, &r.Managed, &r.Agent, &r.Model, &r.Effort, &r.Cwd,
		&r.PaneID, &r.MoveState, &r.CreatedAt, &r.LastStatusChangeAt,
		&r.HerdrSession, &r.StartingAt, &r.IdleSince, &r.ParkedAt,
		&r.TurnDeliveredAt, &r.TurnCompletedAt, &r.QueuePosition,
		&r.ParentID, &r.ParentPath, &r.BlockedKind, &r.ExitReason, &r.EndedAt)
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

// LoopRow is the loop row shape of docs/protocol.md §4.3 (loop.ls, snapshots, the "loop"
// member of loop.* payloads). Every key is always present; nullable ones serialise as null.
type LoopRow struct {
	UUID           string  `json:"uuid"`
	Name           string  `json:"name"`
	Status         string  `json:"status"`
	EndedReason    *string `json:"ended_reason"`
	Cadence        string  `json:"cadence"`
	CadenceKind    string  `json:"cadence_kind"`
	TZ             string  `json:"tz"`
	NextFireAt     *int64  `json:"next_fire_at"`
	LastFireAt     *int64  `json:"last_fire_at"`
	MaxConcurrency int64   `json:"max_concurrency"`
	Overlap        string  `json:"overlap"`
	CreatedAt      int64   `json:"created_at"`
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

// RunRow is the loop-run row shape of docs/protocol.md §4.3 (loop.run.ls, the "run" member of
// loop_run.* payloads). Every key is always present; nullable ones serialise as null.
// Path is "<loop name>/<run_id>"; Agents counts non-ended agents under that path.
type RunRow struct {
	UUID      string `json:"uuid"`
	LoopUUID  string `json:"loop_uuid"`
	RunID     string `json:"run_id"`
	Path      string `json:"path"`
	Kind      string `json:"kind"`
	Status    string `json:"status"`
	DueAt     *int64 `json:"due_at"`
	CreatedAt int64  `json:"created_at"`
	StartedAt *int64 `json:"started_at"`
	EndedAt   *int64 `json:"ended_at"`
	ExitCode  *int64 `json:"exit_code"`
	Signal    *int64 `json:"signal"`
	PID       *int64 `json:"pid"`
	PGID      *int64 `json:"pgid"`
	Agents    int64  `json:"agents"`
}

// RunSelect selects the columns [ScanRun] reads, from "loop_runs r" left-joined with
// "loops l". The agent count uses the agents_path index: paths strictly between
// "<run path>/" and "<run path>0" ('0' follows '/') are exactly those under the run.
const RunSelect = `SELECT r.uuid, r.loop_uuid, r.run_id, COALESCE(l.name, '') || '/' || r.run_id,
	r.kind, r.status, r.due_at, r.created_at, r.started_at, r.ended_at, r.exit_code, r.signal,
	r.pid, r.pgid,
	(SELECT count(*) FROM agents a WHERE a.status <> 'ended'
		AND a.path > COALESCE(l.name, '') || '/' || r.run_id || '/'
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
