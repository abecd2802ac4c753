package store_test

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/orcr-go/orcr/store"
	"github.com/orcr-go/orcr/store/storetest"
)

// applyEvents runs op in one transaction and returns its value and committed events.
func applyEvents(t *testing.T, db *store.DB, op store.Op) (any, []store.Event) {
	t.Helper()
	res, evs, err := db.Apply([]store.Op{op})
	if err == nil {
		err = res[0].Err
	}
	if err != nil {
		t.Fatal(err)
	}
	return res[0].Value, evs
}

func payload(t *testing.T, e store.Event) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(e.Payload, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// The lease operations of docs/lifecycle.md §11.6: insert (attach.started), heartbeat
// (no event; false for an unknown lease), release (attach.ended; false and no event when
// gone), expiry (attach.ended reason expired), and freshness as the GC reads it.
func TestLeases(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	id := storetest.InsertAgent(t, db, map[string]any{"status": "idle", "terminal_id": "t1", "pane_id": "w1:p1",
		"gc_mode": "auto", "idle_since": 1})

	v, evs := applyEvents(t, db, func(tx *store.Tx) (any, error) {
		return tx.InsertLease(store.NewLease{AgentUUID: id, Takeover: true, ClientPID: 77, TTL: time.Hour})
	})
	l := v.(store.Lease)
	if l.Mode != store.LeaseTakeover || l.ClientPID != 77 || l.ExpiresAt-l.StartedAt != time.Hour.Milliseconds() {
		t.Errorf("lease %+v: want takeover, pid 77, one hour", l)
	}
	if len(evs) != 1 || evs[0].Kind != "attach.started" || evs[0].Ref != id {
		t.Fatalf("insert events %+v, want one attach.started", evs)
	}
	if p := payload(t, evs[0]); p["uuid"] != id || p["lease_id"] != l.LeaseID || p["mode"] != "takeover" {
		t.Errorf("attach.started payload %v", p)
	}
	now := time.Now().UnixMilli()
	if held, err := store.HoldsLease(t.Context(), db.Reader(), id); err != nil || !held {
		t.Errorf("HoldsLease: %v %v, want true", held, err)
	}
	park, err := db.ParkCandidates(t.Context(), now)
	if err != nil || len(park) != 1 || !park[0].Leased {
		t.Errorf("ParkCandidates: %+v %v, want the agent, leased", park, err)
	}
	// The GC park's compare-and-set refuses a leased agent.
	res, _, err := db.Apply([]store.Op{func(tx *store.Tx) (any, error) {
		return nil, tx.BeginMove(store.MoveStart{UUID: id, State: store.MoveParking, Token: "t", From: store.StatusIdle, IdleBefore: now})
	}})
	if err == nil {
		err = res[0].Err
	}
	if !errors.Is(err, store.ErrStale) {
		t.Errorf("BeginMove (GC park) with a fresh lease: %v, want ErrStale", err)
	}

	for _, tc := range []struct {
		lease string
		want  bool
	}{{l.LeaseID, true}, {"nosuch", false}} {
		v, evs := applyEvents(t, db, func(tx *store.Tx) (any, error) { return tx.HeartbeatLease(tc.lease, time.Hour) })
		if v.(bool) != tc.want || len(evs) != 0 {
			t.Errorf("HeartbeatLease(%s): %v with %d events, want %v and none", tc.lease, v, len(evs), tc.want)
		}
	}
	v, evs = applyEvents(t, db, func(tx *store.Tx) (any, error) { return tx.ReleaseLease(l.LeaseID) })
	if !v.(bool) || len(evs) != 1 || evs[0].Kind != "attach.ended" {
		t.Fatalf("ReleaseLease: %v %+v, want true and attach.ended", v, evs)
	}
	if p := payload(t, evs[0]); p["uuid"] != id || p["lease_id"] != l.LeaseID || p["reason"] != nil {
		t.Errorf("attach.ended payload %v, want uuid and lease_id only", p)
	}
	v, evs = applyEvents(t, db, func(tx *store.Tx) (any, error) { return tx.ReleaseLease(l.LeaseID) })
	if v.(bool) || len(evs) != 0 {
		t.Errorf("second ReleaseLease: %v %+v, want false and no event", v, evs)
	}

	// Expiry: a zero-TTL lease is expired at once; a fresh one stays.
	v, _ = applyEvents(t, db, func(tx *store.Tx) (any, error) { return tx.InsertLease(store.NewLease{AgentUUID: id, TTL: 0}) })
	old := v.(store.Lease)
	v, _ = applyEvents(t, db, func(tx *store.Tx) (any, error) { return tx.InsertLease(store.NewLease{AgentUUID: id, TTL: time.Hour}) })
	kept := v.(store.Lease)
	if old.Mode != store.LeaseObserve {
		t.Errorf("mode without takeover: %s, want observe", old.Mode)
	}
	v, evs = applyEvents(t, db, func(tx *store.Tx) (any, error) { return tx.ExpireLeases() })
	if v.(int) != 1 || len(evs) != 1 || payload(t, evs[0])["lease_id"] != old.LeaseID || payload(t, evs[0])["reason"] != "expired" {
		t.Errorf("ExpireLeases: %v %+v, want the expired lease with reason expired", v, evs)
	}
	leases, err := db.Leases(t.Context(), id)
	if err != nil || len(leases) != 1 || leases[0].LeaseID != kept.LeaseID {
		t.Errorf("leases after expiry: %+v %v, want only %s", leases, err, kept.LeaseID)
	}
}

// A lease past its expires_at defers park and reap until the GC's expiry deletes it, so
// the stream shows its attach.ended before the park it deferred (docs/lifecycle.md
// §11.6); a heartbeat before that deletion renews it.
func TestExpiredLeaseHoldsUntilEnded(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	id := storetest.InsertAgent(t, db, map[string]any{"status": "idle", "terminal_id": "t1", "pane_id": "w1:p1",
		"gc_mode": "auto", "idle_since": 1})
	parked := storetest.InsertAgent(t, db, map[string]any{"status": "parked", "terminal_id": "t2", "pane_id": "w9:p1",
		"parked_at": 1})
	for _, agent := range []string{id, parked} {
		applyEvents(t, db, func(tx *store.Tx) (any, error) { return tx.InsertLease(store.NewLease{AgentUUID: agent, TTL: 0}) })
	}
	now := time.Now().UnixMilli()
	park, err := db.ParkCandidates(t.Context(), now)
	if err != nil || len(park) != 1 || !park[0].Leased {
		t.Errorf("ParkCandidates with an expired, stored lease: %+v %v, want the agent, leased", park, err)
	}
	reap, err := db.ReapCandidates(t.Context(), now)
	if err != nil || len(reap) != 1 || !reap[0].Leased {
		t.Errorf("ReapCandidates with an expired, stored lease: %+v %v, want the agent, leased", reap, err)
	}
	if held, err := store.HoldsLease(t.Context(), db.Reader(), parked); err != nil || !held {
		t.Errorf("HoldsLease of the parked agent: %v %v, want true until the expiry deletes it", held, err)
	}
	begin := func() error {
		res, _, err := db.Apply([]store.Op{func(tx *store.Tx) (any, error) {
			return nil, tx.BeginMove(store.MoveStart{UUID: id, State: store.MoveParking, Token: "t", From: store.StatusIdle, IdleBefore: now})
		}})
		if err == nil {
			err = res[0].Err
		}
		return err
	}
	if err := begin(); !errors.Is(err, store.ErrStale) {
		t.Errorf("BeginMove (GC park) with an expired, stored lease: %v, want ErrStale", err)
	}
	v, _ := applyEvents(t, db, func(tx *store.Tx) (any, error) { return tx.ExpireLeases() })
	if v.(int) != 2 {
		t.Fatalf("ExpireLeases: %v, want both leases", v)
	}
	if park, _ := db.ParkCandidates(t.Context(), now); len(park) != 1 || park[0].Leased {
		t.Errorf("ParkCandidates after the expiry: %+v, want the agent, not leased", park)
	}
	if err := begin(); err != nil {
		t.Errorf("BeginMove (GC park) after the expiry: %v, want the move begun", err)
	}
}
