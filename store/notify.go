package store

import (
	"context"
	"database/sql"
	"strconv"
)

// Notification deliveries (docs/notify.md §5, docs/config.md §3.15). The notifier reads
// events after its cursor, and one [Tx.EnqueueDeliveries] inserts what they match and
// advances the cursor together: the table is the durable queue, and the in-memory part
// of the notifier only schedules attempts.

// Delivery states.
const (
	DeliveryPending = "pending"
	DeliveryFailed  = "failed"
)

// KeepFailedDeliveries is how many failed rows are kept per target, newest first.
const KeepFailedDeliveries = 1000

// ErrQueueFull is the last_error of a delivery dropped at the queue bound.
const ErrQueueFull = "dropped: notify.queue_limit pending deliveries reached"

const notifyCursorKey = "notify_cursor"

// NewDelivery is one notification to enqueue: the body is sent as is on every attempt.
type NewDelivery struct {
	ID     string // the delivery id (UUIDv7) receivers dedupe by
	Target string
	Seq    int64  // the event's seq
	Event  string // the rule event name (blocked, lost, …)
	Body   []byte // the JSON document
}

// Delivery is a pending delivery as the notifier schedules it.
type Delivery struct {
	RowID    int64
	ID       string
	Target   string
	Seq      int64
	Event    string
	Body     []byte
	Attempts int
	// NextAttemptAt is when the next attempt is due (ms).
	NextAttemptAt int64
}

// NotifyCursor returns the notifier's cursor (every event up to it has been matched), and
// false when none is stored.
func (db *DB) NotifyCursor(ctx context.Context) (int64, bool, error) {
	var v string
	err := db.r.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, notifyCursorKey).Scan(&v)
	if err == sql.ErrNoRows {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, sqliteErr("read notify cursor", err)
	}
	n, err := strconv.ParseInt(v, 10, 64)
	return n, err == nil, nil
}

// StartNotify stores cursor as the notifier's cursor unless one is stored already, and
// returns the cursor in force: a notifier configured for the first time starts at the
// tip instead of notifying the retained history.
func (t *Tx) StartNotify(cursor int64) (int64, error) {
	if err := t.exec("start notify", `INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING`,
		notifyCursorKey, strconv.FormatInt(cursor, 10)); err != nil {
		return 0, err
	}
	var v string
	if err := t.QueryRow(`SELECT value FROM meta WHERE key = ?`, notifyCursorKey).Scan(&v); err != nil {
		return 0, sqliteErr("read notify cursor", err)
	}
	n, _ := strconv.ParseInt(v, 10, 64)
	return n, nil
}

// StopNotify forgets the notifier's cursor (a server started without notify rules), so
// rules configured later start at the tip of that day, not where an old notifier stopped.
// Pending deliveries stay.
func (t *Tx) StopNotify() error {
	return t.exec("stop notify", `DELETE FROM meta WHERE key = ?`, notifyCursorKey)
}

// EnqueueResult counts what [Tx.EnqueueDeliveries] inserted.
type EnqueueResult struct {
	Queued  int // pending rows inserted
	Dropped int // rows inserted failed because their target had limit pending already
}

// EnqueueDeliveries inserts ds and sets the notifier's cursor to cursor, in the caller's
// transaction. A delivery whose (target, seq) exists already is skipped, so a scan that
// is repeated after a crash enqueues nothing twice. A target with limit pending
// deliveries gets further ones as failed rows with [ErrQueueFull] (counted as dropped),
// never a blocked writer. Every delivery is due at once.
func (t *Tx) EnqueueDeliveries(cursor int64, ds []NewDelivery, limit int) (EnqueueResult, error) {
	var r EnqueueResult
	pending := map[string]int{}
	for _, d := range ds {
		n, ok := pending[d.Target]
		if !ok {
			if err := t.QueryRow(`SELECT count(*) FROM notify_deliveries WHERE target = ? AND state = 'pending'`, d.Target).Scan(&n); err != nil {
				return r, sqliteErr("count deliveries", err)
			}
		}
		state, next, lastErr := DeliveryPending, any(t.now), any(nil)
		if n >= limit {
			state, next, lastErr = DeliveryFailed, nil, ErrQueueFull
		}
		res, err := t.Exec(`INSERT INTO notify_deliveries (delivery_id, target, event_seq, event, body, state, next_attempt_at,
			last_error, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
			d.ID, d.Target, d.Seq, d.Event, string(d.Body), state, next, lastErr, t.now, t.now)
		if err != nil {
			return r, sqliteErr("enqueue delivery", err)
		}
		if k, _ := res.RowsAffected(); k == 0 {
			pending[d.Target] = n
			continue
		}
		if state == DeliveryPending {
			r.Queued++
			n++
		} else {
			r.Dropped++
			if err := t.targetCount(d.Target, "dropped", ErrQueueFull); err != nil {
				return r, err
			}
		}
		pending[d.Target] = n
	}
	if r.Dropped > 0 {
		for target := range pending {
			if err := t.pruneFailed(target); err != nil {
				return r, err
			}
		}
	}
	return r, t.exec("advance notify cursor", `INSERT INTO meta (key, value) VALUES (?, ?)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value`, notifyCursorKey, strconv.FormatInt(cursor, 10))
}

// targetCount adds one to a notify_targets counter (delivered, failed or dropped); a
// non-empty errText becomes the target's last error.
func (t *Tx) targetCount(target, counter, errText string) error {
	q := `INSERT INTO notify_targets (target, ` + counter + `) VALUES (?, 1)
		ON CONFLICT (target) DO UPDATE SET ` + counter + ` = ` + counter + ` + 1`
	if err := t.exec("count delivery", q, target); err != nil {
		return err
	}
	if counter == "delivered" {
		return t.exec("count delivery", `UPDATE notify_targets SET last_delivered_at = ? WHERE target = ?`, t.now, target)
	}
	return t.noteError(target, errText)
}

func (t *Tx) noteError(target, errText string) error {
	if errText == "" {
		return nil
	}
	return t.exec("note delivery error", `INSERT INTO notify_targets (target, last_error, last_error_at) VALUES (?, ?, ?)
		ON CONFLICT (target) DO UPDATE SET last_error = excluded.last_error, last_error_at = excluded.last_error_at`,
		target, errText, t.now)
}

func (t *Tx) pruneFailed(target string) error {
	return t.exec("prune failed deliveries", `DELETE FROM notify_deliveries WHERE target = ? AND state = 'failed' AND id NOT IN
		(SELECT id FROM notify_deliveries WHERE target = ? AND state = 'failed' ORDER BY id DESC LIMIT ?)`,
		target, target, KeepFailedDeliveries)
}

// DueDeliveries returns up to limit pending deliveries of target due at now, in the order
// they fell due (next_attempt_at, then enqueue order: a new delivery is due when it is
// enqueued, a retried one at its retry time), and the earliest next_attempt_at after now
// of the rest (0 when none is waiting). Both queries walk the notify_deliveries_due
// index: a read costs the same with 10 or 10,000 rows pending (no sort of the queue).
func (db *DB) DueDeliveries(ctx context.Context, target string, now int64, limit int) ([]Delivery, int64, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT id, delivery_id, event_seq, event, body, attempts, next_attempt_at
		FROM notify_deliveries WHERE target = ? AND state = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT ?`,
		target, now, limit)
	if err != nil {
		return nil, 0, sqliteErr("read deliveries", err)
	}
	defer rows.Close()
	var out []Delivery
	for rows.Next() {
		d := Delivery{Target: target}
		var body string
		if err := rows.Scan(&d.RowID, &d.ID, &d.Seq, &d.Event, &body, &d.Attempts, &d.NextAttemptAt); err != nil {
			return nil, 0, sqliteErr("read deliveries", err)
		}
		d.Body = []byte(body)
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, sqliteErr("read deliveries", err)
	}
	var next sql.NullInt64
	if err := db.r.QueryRowContext(ctx, `SELECT min(next_attempt_at) FROM notify_deliveries
		WHERE target = ? AND state = 'pending' AND next_attempt_at > ?`, target, now).Scan(&next); err != nil {
		return nil, 0, sqliteErr("read deliveries", err)
	}
	return out, next.Int64, nil
}

// DeliveryOutcome is the result of one attempt of a delivery.
type DeliveryOutcome struct {
	RowID    int64
	Target   string
	Attempts int    // attempts made, this one included
	Err      string // "" = delivered
	// Retry is when the next attempt is due (ms); 0 with an Err fails the delivery for
	// good.
	Retry int64
}

// RecordDelivery applies an attempt's outcome: a delivered row is deleted and counted, a
// retried one rescheduled with its error, a failed one kept as failed and counted.
// ErrStale when the row is no longer pending.
func (t *Tx) RecordDelivery(o DeliveryOutcome) error {
	switch {
	case o.Err == "":
		if err := t.execOne("record delivery", `DELETE FROM notify_deliveries WHERE id = ? AND state = 'pending'`, o.RowID); err != nil {
			return err
		}
		return t.targetCount(o.Target, "delivered", "")
	case o.Retry > 0:
		if err := t.execOne("record delivery", `UPDATE notify_deliveries SET attempts = ?, next_attempt_at = ?, last_error = ?,
			updated_at = ? WHERE id = ? AND state = 'pending'`, o.Attempts, o.Retry, o.Err, t.now, o.RowID); err != nil {
			return err
		}
		return t.noteError(o.Target, o.Err)
	default:
		if err := t.execOne("record delivery", `UPDATE notify_deliveries SET state = 'failed', attempts = ?, next_attempt_at = NULL,
			last_error = ?, updated_at = ? WHERE id = ? AND state = 'pending'`, o.Attempts, o.Err, t.now, o.RowID); err != nil {
			return err
		}
		if err := t.targetCount(o.Target, "failed", o.Err); err != nil {
			return err
		}
		return t.pruneFailed(o.Target)
	}
}

// NotifyTargetStats is one target's line of server.status (docs/protocol.md §5.2).
type NotifyTargetStats struct {
	Target          string
	Pending         int64
	Delivered       int64
	Failed          int64
	Dropped         int64
	LastError       *string
	LastErrorAt     *int64
	LastDeliveredAt *int64
	NextAttemptAt   *int64 // the earliest pending attempt
}

// NotifyStats returns the counters of every target that has any, by target name.
func (db *DB) NotifyStats(ctx context.Context) ([]NotifyTargetStats, error) {
	rows, err := db.r.QueryContext(ctx, `WITH p AS (SELECT target, count(*) AS n, min(next_attempt_at) AS next
			FROM notify_deliveries WHERE state = 'pending' GROUP BY target),
		names AS (SELECT target FROM notify_targets UNION SELECT target FROM p)
		SELECT names.target, COALESCE(p.n, 0), COALESCE(t.delivered, 0), COALESCE(t.failed, 0), COALESCE(t.dropped, 0),
			t.last_error, t.last_error_at, t.last_delivered_at, p.next
		FROM names LEFT JOIN p ON p.target = names.target LEFT JOIN notify_targets t ON t.target = names.target
		ORDER BY names.target`)
	if err != nil {
		return nil, sqliteErr("read notify stats", err)
	}
	defer rows.Close()
	var out []NotifyTargetStats
	for rows.Next() {
		var s NotifyTargetStats
		var lastErr sql.NullString
		var errAt, delAt, next sql.NullInt64
		if err := rows.Scan(&s.Target, &s.Pending, &s.Delivered, &s.Failed, &s.Dropped, &lastErr, &errAt, &delAt, &next); err != nil {
			return nil, sqliteErr("read notify stats", err)
		}
		if lastErr.Valid {
			s.LastError = &lastErr.String
		}
		s.LastErrorAt, s.LastDeliveredAt, s.NextAttemptAt = nullPtr(errAt), nullPtr(delAt), nullPtr(next)
		out = append(out, s)
	}
	return out, sqliteErr("read notify stats", rows.Err())
}

func nullPtr(n sql.NullInt64) *int64 {
	if !n.Valid {
		return nil
	}
	return &n.Int64
}
