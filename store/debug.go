package store

import (
	"github.com/google/uuid"
	"github.com/orcr-go/orcr/socketapi/api"
)

// Test-only operations behind the server's hidden __debug.* methods
// (ORCR_DEBUG_METHODS=1). They let tests churn state without herdr.

// DebugAgent is the row [Tx.DebugSetAgent] writes.
type DebugAgent struct {
	UUID, Path  string
	Status      Status
	BlockedKind string  // stored as given ("" clears it)
	ExitReason  *string // for an ended row; nil = killed, "" = none
}

// DebugSetAgent creates or updates a managed mock row with the given status and emits
// the events a real transition would (agent.created or agent.status_changed, then
// agent.ended for an ended row), each embedding the row after the change. It returns the
// last event's seq.
func (t *Tx) DebugSetAgent(d DebugAgent) (int64, error) {
	var exists int
	if err := t.QueryRow(`SELECT COUNT(*) FROM agents WHERE uuid = ?`, d.UUID).Scan(&exists); err != nil {
		return 0, sqliteErr("read agent", err)
	}
	var exit, ended any
	if d.Status == StatusEnded {
		exit, ended = string(ExitKilled), t.now
		if d.ExitReason != nil {
			exit = null(*d.ExitReason)
		}
	}
	var err error
	if exists == 0 {
		err = t.exec("insert agent", `INSERT INTO agents (uuid, path, managed, origin, agent, status, created_at,
			updated_at, last_status_change_at, exit_reason, ended_at, blocked_kind) VALUES (?, ?, 1, 'run', 'mock', ?, ?, ?, ?, ?, ?, ?)`,
			d.UUID, d.Path, d.Status, t.now, t.now, t.now, exit, ended, null(d.BlockedKind))
	} else {
		err = t.exec("update agent", `UPDATE agents SET status = ?, updated_at = ?, last_status_change_at = ?,
			exit_reason = ?, ended_at = ?, blocked_kind = ? WHERE uuid = ?`, d.Status, t.now, t.now, exit, ended,
			null(d.BlockedKind), d.UUID)
	}
	if err != nil {
		return 0, err
	}
	row, err := AgentByUUID(t.ctx, t, d.UUID)
	if err != nil {
		return 0, err
	}
	head := api.AgentHead{UUID: d.UUID, Agent: row}
	var ev api.Event = &api.AgentStatusChanged{AgentHead: head, Path: row.Path, Status: row.Status}
	if exists == 0 {
		ev = &api.AgentCreated{AgentHead: head, Path: row.Path, Status: row.Status}
	}
	seq, err := t.Emit(d.UUID, ev)
	if err != nil || d.Status != StatusEnded {
		return seq, err
	}
	var text *string
	if s, ok := exit.(string); ok {
		text = &s
	}
	return t.Emit(d.UUID, &api.AgentEnded{AgentHead: head, ExitReason: text})
}

// DebugInsertLoopRun stands in for loop.create until loops land: it inserts an active
// loop named loop (unless one is already active or paused) and a manual run runID of it
// with status, and returns both uuids.
func (t *Tx) DebugInsertLoopRun(loop, runID, status string) (loopUUID, runUUID string, err error) {
	ids, err := t.uuids(`SELECT uuid FROM loops WHERE name = ? AND status IN (`+LoopLiveStatuses.SQL()+`)`, loop)
	if err != nil {
		return "", "", err
	}
	if len(ids) > 0 {
		loopUUID = ids[0]
	} else {
		id, err := uuid.NewV7()
		if err != nil {
			return "", "", err
		}
		loopUUID = id.String()
		if err := t.exec("insert loop", `INSERT INTO loops (uuid, name, cadence_kind, cadence_value, tz, cwd,
			max_concurrency, overlap, status, created_at, updated_at)
			VALUES (?, ?, 'cron', '*/5 * * * *', 'UTC', '/tmp', 1, 'queue', 'active', ?, ?)`, loopUUID, loop, t.now, t.now); err != nil {
			return "", "", err
		}
	}
	id, err := uuid.NewV7()
	if err != nil {
		return "", "", err
	}
	if err := t.exec("insert run", `INSERT INTO loop_runs (uuid, loop_uuid, run_id, kind, status, started_at, created_at,
		updated_at) VALUES (?, ?, ?, 'manual', ?, ?, ?, ?)`, id.String(), loopUUID, runID, status, t.now, t.now, t.now); err != nil {
		return "", "", err
	}
	return loopUUID, id.String(), nil
}
