package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/orcr-go/orcr/socketapi/api"
)

// Attach leases (docs/lifecycle.md §11.6, §12.2): one row of the attaches table per
// `orcr agent attach` session. A lease holds while it is stored: the GC tick deletes the
// leases whose expires_at has passed (attach.ended, reason expired) before it sweeps, and
// park and reap are deferred by any stored lease. So an expired lease's attach.ended
// always comes before the park or reap it deferred, and a heartbeat that arrives after
// expires_at but before the tick still renews it.

// Lease modes.
const (
	LeaseObserve  = "observe"
	LeaseTakeover = "takeover"
)

// NewLease is a lease to insert ([Tx.InsertLease]).
type NewLease struct {
	AgentUUID string
	Takeover  bool
	ClientPID int64
	TTL       time.Duration
}

// Lease is one stored lease.
type Lease struct {
	LeaseID, AgentUUID, Mode string
	ClientPID                int64
	StartedAt, ExpiresAt     int64
}

// InsertLease stores a lease (a fresh uuid v4, connection "cli", heartbeat now, expiry
// now + TTL) and emits attach.started {uuid, lease_id, mode}. It checks nothing of the
// agent row: the caller does, in the same transaction.
func (t *Tx) InsertLease(n NewLease) (Lease, error) {
	id, err := uuid.NewRandom()
	if err != nil {
		return Lease{}, err
	}
	l := Lease{LeaseID: id.String(), AgentUUID: n.AgentUUID, Mode: LeaseObserve, ClientPID: n.ClientPID,
		StartedAt: t.now, ExpiresAt: t.now + n.TTL.Milliseconds()}
	if n.Takeover {
		l.Mode = LeaseTakeover
	}
	if err := t.exec("insert lease", `INSERT INTO attaches (agent_uuid, lease_id, mode, connection, client_pid,
		started_at, heartbeat_at, expires_at) VALUES (?, ?, ?, 'cli', ?, ?, ?, ?)`,
		l.AgentUUID, l.LeaseID, l.Mode, l.ClientPID, t.now, t.now, l.ExpiresAt); err != nil {
		return Lease{}, err
	}
	_, err = t.Emit(l.AgentUUID, &api.AttachStarted{UUID: l.AgentUUID, LeaseID: l.LeaseID, Mode: l.Mode})
	return l, err
}

// HeartbeatLease extends leaseID to now + ttl; false when no such lease is stored. No
// event.
func (t *Tx) HeartbeatLease(leaseID string, ttl time.Duration) (bool, error) {
	err := t.execOne("heartbeat lease", `UPDATE attaches SET heartbeat_at = ?, expires_at = ? WHERE lease_id = ?`,
		t.now, t.now+ttl.Milliseconds(), leaseID)
	if errors.Is(err, ErrStale) {
		return false, nil
	}
	return err == nil, err
}

// ReleaseLease deletes leaseID and emits attach.ended {uuid, lease_id}; false (and no
// event) when no such lease is stored.
func (t *Tx) ReleaseLease(leaseID string) (bool, error) {
	var agent string
	err := t.QueryRow(`DELETE FROM attaches WHERE lease_id = ? RETURNING agent_uuid`, leaseID).Scan(&agent)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, sqliteErr("release lease", err)
	}
	_, err = t.Emit(agent, &api.AttachEnded{UUID: agent, LeaseID: leaseID})
	return err == nil, err
}

// ExpireLeases deletes every lease whose expiry has passed and emits attach.ended
// {uuid, lease_id, reason: "expired"} for each, oldest expiry first. It returns how many
// it deleted.
func (t *Tx) ExpireLeases() (int, error) {
	type gone struct {
		agent, lease string
		at           int64
	}
	out, err := queryRows(t.ctx, t, `DELETE FROM attaches WHERE expires_at <= ? RETURNING agent_uuid, lease_id, expires_at`,
		[]any{t.now}, func(s Scanner) (g gone, err error) { return g, s.Scan(&g.agent, &g.lease, &g.at) })
	if err != nil {
		return 0, err
	}
	// RETURNING gives no order: emit in expiry order, then lease id, so the stream is
	// deterministic.
	slices.SortFunc(out, func(a, b gone) int {
		return cmp.Or(cmp.Compare(a.at, b.at), strings.Compare(a.lease, b.lease))
	})
	for _, g := range out {
		if _, err := t.Emit(g.agent, &api.AttachEnded{UUID: g.agent, LeaseID: g.lease, Reason: "expired"}); err != nil {
			return 0, err
		}
	}
	return len(out), nil
}

// HoldsLease reports whether uuid has a stored attach lease (one the GC has not ended).
func HoldsLease(ctx context.Context, q Querier, uuid string) (bool, error) {
	var n int
	err := q.QueryRowContext(ctx, `SELECT count(*) FROM attaches WHERE agent_uuid = ?`, uuid).Scan(&n)
	return n > 0, sqliteErr("read leases", err)
}

// Leases lists uuid's stored leases (fresh or not), oldest first.
func (db *DB) Leases(ctx context.Context, uuid string) ([]Lease, error) {
	return queryRows(ctx, db.r, `SELECT lease_id, agent_uuid, mode, COALESCE(client_pid, 0), started_at, expires_at
		FROM attaches WHERE agent_uuid = ? ORDER BY started_at, lease_id`, []any{uuid}, func(s Scanner) (l Lease, err error) {
		return l, s.Scan(&l.LeaseID, &l.AgentUUID, &l.Mode, &l.ClientPID, &l.StartedAt, &l.ExpiresAt)
	})
}
