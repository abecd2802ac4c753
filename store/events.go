package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
)

// DefaultEventsBatch is the page size [DB.EventsAfter] uses when given limit <= 0; the
// same 256 rows per batch the subscription pump reads (docs/protocol.md §7.2).
const DefaultEventsBatch = 256

// Event is one stored event row. Ref is "" when ref_uuid is NULL. Payload is the stored
// JSON object.
type Event struct {
	Seq     int64
	TS      int64
	Kind    string
	Ref     string
	Payload json.RawMessage
}

// Frame returns the frame's "event" object (docs/protocol.md §2.4): the payload's fields (a
// payload that is not an object is wrapped as {"data": payload}), then "kind" set to the
// event kind and, when the row has a ref, "ref_uuid" set — both overwriting payload keys
// of the same name. Keys come out sorted; ts is not included.
func (e Event) Frame() json.RawMessage {
	obj := map[string]json.RawMessage{}
	if err := json.Unmarshal(e.Payload, &obj); err != nil || obj == nil {
		obj = map[string]json.RawMessage{}
		if len(e.Payload) > 0 && json.Valid(e.Payload) {
			obj["data"] = e.Payload
		} else {
			obj["data"] = json.RawMessage("null")
		}
	}
	obj["kind"], _ = json.Marshal(e.Kind)
	if e.Ref != "" {
		obj["ref_uuid"], _ = json.Marshal(e.Ref)
	}
	b, err := json.Marshal(obj)
	if err != nil { // unreachable: every value is valid JSON
		panic(fmt.Sprintf("store: event %d frame: %v", e.Seq, err))
	}
	return b
}

// EventsAfter returns up to limit events with seq > after, oldest first, from the read
// pool (limit <= 0 means [DefaultEventsBatch]). Because there is a single writer and seqs
// are assigned in commit order, the result never skips a committed seq that is still
// retained.
func (db *DB) EventsAfter(ctx context.Context, after int64, limit int) ([]Event, error) {
	if limit <= 0 {
		limit = DefaultEventsBatch
	}
	out, err := db.queryEvents(ctx, `SELECT seq, ts, kind, ref_uuid, payload_json FROM events
		WHERE seq > ? ORDER BY seq LIMIT ?`, after, limit)
	if out == nil && err == nil {
		out = []Event{}
	}
	return out, err
}

// LoopEvents lists the retained loop.* and loop_run.* events of a loop and its runs, in
// seq order (loop.logs, docs/loops.md §2.8).
func (db *DB) LoopEvents(ctx context.Context, loop string) ([]Event, error) {
	return db.queryEvents(ctx, `SELECT seq, ts, kind, ref_uuid, payload_json FROM events
		WHERE kind LIKE 'loop%' AND (ref_uuid = ? OR ref_uuid IN (SELECT uuid FROM loop_runs WHERE loop_uuid = ?))
		ORDER BY seq`, loop, loop)
}

func (db *DB) queryEvents(ctx context.Context, q string, args ...any) ([]Event, error) {
	rows, err := db.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, sqliteErr("read events", err)
	}
	defer rows.Close()
	var out []Event
	for rows.Next() {
		var e Event
		var ref sql.NullString
		var p string
		if err := rows.Scan(&e.Seq, &e.TS, &e.Kind, &ref, &p); err != nil {
			return nil, sqliteErr("read events", err)
		}
		e.Ref = ref.String
		e.Payload = json.RawMessage(p)
		out = append(out, e)
	}
	return out, sqliteErr("read events", rows.Err())
}

// boundsQuery returns (latest, oldest) per docs/protocol.md §7.1: latest is the highest stored
// seq, or, when the table is empty, the last seq ever allocated (0 on a fresh store);
// oldest is the lowest stored seq, or latest+1 when the table is empty; always >= 1.
const boundsQuery = `SELECT
	COALESCE((SELECT max(seq) FROM events), (SELECT seq FROM sqlite_sequence WHERE name = 'events'), 0),
	(SELECT min(seq) FROM events)`

func bounds(ctx context.Context, q Querier) (latest, oldest int64, err error) {
	var minSeq sql.NullInt64
	if err := q.QueryRowContext(ctx, boundsQuery).Scan(&latest, &minSeq); err != nil {
		return 0, 0, sqliteErr("read event bounds", err)
	}
	oldest = latest + 1
	if minSeq.Valid {
		oldest = minSeq.Int64
	}
	return latest, max(oldest, 1), nil
}

// Bounds returns latest_seq and oldest_retained_seq as defined in docs/protocol.md §7.1. The
// store actor calls it once at start and then tracks both in memory.
func (db *DB) Bounds() (latest, oldest int64, err error) {
	return bounds(context.Background(), db.r)
}

// Trim applies retention in its own write transaction; see [Tx.Trim]. Only the store
// actor may call it.
func (db *DB) Trim(keep int, floor int64) (oldest int64, err error) {
	res, _, err := db.Apply([]Op{func(tx *Tx) (any, error) { return tx.Trim(keep, floor) }})
	if err != nil {
		return 0, err
	}
	if res[0].Err != nil {
		return 0, res[0].Err
	}
	return res[0].Value.(int64), nil
}

// Trim applies retention inside the transaction: it deletes every event with
// seq <= min(latest-keep, floor), so the newest keep rows always stay and no row with
// seq > floor is ever deleted (floor is the lowest pinned delivered cursor: a pinned
// subscriber has consumed up to floor and still needs floor+1 onward; pass
// math.MaxInt64 when nothing is pinned). It returns the new oldest_retained_seq
// (docs/protocol.md §7.1). keep must be >= 1.
func (t *Tx) Trim(keep int, floor int64) (oldest int64, err error) {
	if keep < 1 {
		return 0, fmt.Errorf("store: Trim keep %d < 1", keep)
	}
	return trim(t.ctx, t, keep, floor)
}

// TrimThrough deletes every event with seq <= cutoff: the cheap form of [Tx.Trim] for a
// caller that tracks the bounds itself (the store actor). It does not check retention or
// pins; that is the caller's job.
func (t *Tx) TrimThrough(cutoff int64) error {
	_, err := t.Exec(`DELETE FROM events WHERE seq <= ?`, cutoff)
	return sqliteErr("trim events", err)
}

// Bounds returns latest_seq and oldest_retained_seq as the transaction sees them.
func (t *Tx) Bounds() (latest, oldest int64, err error) {
	return bounds(t.ctx, t)
}

func trim(ctx context.Context, q *Tx, keep int, floor int64) (int64, error) {
	latest, oldest, err := bounds(ctx, q)
	if err != nil {
		return 0, err
	}
	cutoff := min(latest-int64(keep), floor)
	if cutoff < oldest {
		return oldest, nil
	}
	if _, err := q.ExecContext(ctx, `DELETE FROM events WHERE seq <= ?`, cutoff); err != nil {
		return 0, sqliteErr("trim events", err)
	}
	_, oldest, err = bounds(ctx, q)
	return oldest, err
}
