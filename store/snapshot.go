package store

import (
	"context"
	"database/sql"
	"github.com/orcr-go/orcr/socketapi/api"
)

// Snapshot builds the SnapshotDoc inside one read transaction on the read pool, so
// SnapshotSeq (the highest event seq, 0 if none) is consistent with the rows: every
// change up to SnapshotSeq is included and nothing after it.
func (db *DB) Snapshot(ctx context.Context) (*Snapshot, error) {
	tx, err := db.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, sqliteErr("begin snapshot", err)
	}
	defer tx.Rollback()
	return snapshot(ctx, tx)
}

func snapshot(ctx context.Context, q Querier) (*Snapshot, error) {
	s := &Snapshot{Queue: []QueueEntry{}, Loops: []SnapshotLoop{}}
	var err error
	// The first statement starts the read transaction's snapshot.
	if s.SnapshotSeq, _, err = bounds(ctx, q); err != nil {
		return nil, err
	}
	if s.Agents, err = QueryAgents(ctx, q, `WHERE a.status <> 'ended' ORDER BY a.path, a.created_at, a.uuid`); err != nil {
		return nil, err
	}
	for _, a := range s.Agents {
		if a.Status == "queued" {
			s.Queue = append(s.Queue, QueueEntry{UUID: a.UUID, Path: a.Path, Agent: a.Agent})
		}
	}
	loops, err := QueryLoops(ctx, q, `WHERE l.status IN (`+LoopLiveStatuses.SQL()+`) ORDER BY l.created_at, l.uuid`)
	if err != nil {
		return nil, err
	}
	idx := make(map[string]int, len(loops))
	for i, l := range loops {
		idx[l.UUID] = i
		s.Loops = append(s.Loops, SnapshotLoop{LoopRow: l, Runs: []SnapshotRun{}})
	}
	rows, err := q.QueryContext(ctx, `SELECT r.loop_uuid, r.uuid, r.run_id, r.kind, r.status, r.due_at, r.started_at
		FROM loop_runs r JOIN loops l ON l.uuid = r.loop_uuid
		WHERE l.status IN (`+LoopLiveStatuses.SQL()+`) AND r.status IN (`+RunLiveStatuses.SQL()+`)
		ORDER BY r.created_at, r.uuid`)
	if err != nil {
		return nil, sqliteErr("read runs", err)
	}
	defer rows.Close()
	for rows.Next() {
		var loop string
		var r SnapshotRun
		if err := rows.Scan(&loop, &r.UUID, &r.RunID, &r.Kind, &r.Status, &r.DueAt, &r.StartedAt); err != nil {
			return nil, sqliteErr("read runs", err)
		}
		if i, ok := idx[loop]; ok {
			s.Loops[i].Runs = append(s.Loops[i].Runs, r)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, sqliteErr("read runs", err)
	}
	return s, nil
}

// The snapshot document's types are the wire types of package socketapi/api.
type (
	Snapshot     = api.Snapshot
	SnapshotLoop = api.SnapshotLoop
	SnapshotRun  = api.SnapshotRun
	QueueEntry   = api.QueueEntry
)
