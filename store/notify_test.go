package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/orcr-go/orcr/store"
	"github.com/orcr-go/orcr/store/storetest"
)

func TestNotifyDeliveries(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	ctx := context.Background()
	if _, ok, err := db.NotifyCursor(ctx); ok || err != nil {
		t.Fatalf("NotifyCursor on a fresh store: got ok=%v err=%v, want none", ok, err)
	}
	if got := storetest.Write(t, db, func(tx *store.Tx) (any, error) { return tx.StartNotify(7) }); got != int64(7) {
		t.Errorf("StartNotify(7): got %v", got)
	}
	if got := storetest.Write(t, db, func(tx *store.Tx) (any, error) { return tx.StartNotify(9) }); got != int64(7) {
		t.Errorf("StartNotify(9) over cursor 7: got %v, want the stored 7", got)
	}
	d := func(id string, seq int64) store.NewDelivery {
		return store.NewDelivery{ID: id, Target: "hook", Seq: seq, Event: "blocked", Body: []byte(`{"seq":1}`)}
	}
	enqueue := func(cursor int64, ds ...store.NewDelivery) store.EnqueueResult {
		return storetest.Write(t, db, func(tx *store.Tx) (any, error) { return tx.EnqueueDeliveries(cursor, ds, 2) }).(store.EnqueueResult)
	}
	// The bound is 2 pending: the third is dropped as failed; a repeated (target, seq) is
	// skipped.
	if r := enqueue(10, d("a", 8), d("b", 9), d("c", 10)); r != (store.EnqueueResult{Queued: 2, Dropped: 1}) {
		t.Errorf("EnqueueDeliveries: got %+v, want 2 queued 1 dropped", r)
	}
	if r := enqueue(10, d("a2", 8)); r != (store.EnqueueResult{}) {
		t.Errorf("EnqueueDeliveries again: got %+v, want nothing", r)
	}
	if c, ok, _ := db.NotifyCursor(ctx); !ok || c != 10 {
		t.Errorf("NotifyCursor: got %d %v, want 10", c, ok)
	}
	due, next, err := db.DueDeliveries(ctx, "hook", 1<<62, 10)
	if err != nil || len(due) != 2 || due[0].ID != "a" || due[1].ID != "b" || next != 0 {
		t.Fatalf("DueDeliveries: got %+v next %d err %v", due, next, err)
	}
	storetest.Write(t, db, func(tx *store.Tx) (any, error) {
		return nil, tx.RecordDelivery(store.DeliveryOutcome{RowID: due[0].RowID, Target: "hook", Attempts: 1})
	})
	storetest.Write(t, db, func(tx *store.Tx) (any, error) {
		return nil, tx.RecordDelivery(store.DeliveryOutcome{RowID: due[1].RowID, Target: "hook", Attempts: 1, Err: "503", Retry: 1 << 61})
	})
	// Delivering a row twice is stale.
	res, _, err := db.Apply([]store.Op{func(tx *store.Tx) (any, error) {
		return nil, tx.RecordDelivery(store.DeliveryOutcome{RowID: due[0].RowID, Target: "hook", Attempts: 2})
	}})
	if err != nil || !errors.Is(res[0].Err, store.ErrStale) {
		t.Errorf("RecordDelivery of a delivered row: got %v %v, want ErrStale", err, res[0].Err)
	}
	st, err := db.NotifyStats(ctx)
	if err != nil || len(st) != 1 {
		t.Fatalf("NotifyStats: %+v %v", st, err)
	}
	s := st[0]
	if s.Target != "hook" || s.Pending != 1 || s.Delivered != 1 || s.Dropped != 1 || s.Failed != 0 ||
		s.LastError == nil || *s.LastError != "503" || s.NextAttemptAt == nil || *s.NextAttemptAt != 1<<61 || s.LastDeliveredAt == nil {
		t.Errorf("NotifyStats: got %+v", s)
	}
	storetest.Write(t, db, func(tx *store.Tx) (any, error) {
		return nil, tx.RecordDelivery(store.DeliveryOutcome{RowID: due[1].RowID, Target: "hook", Attempts: 2, Err: "gave up"})
	})
	st, _ = db.NotifyStats(ctx)
	if s := st[0]; s.Pending != 0 || s.Failed != 1 || s.NextAttemptAt != nil || *s.LastError != "gave up" {
		t.Errorf("NotifyStats after giving up: got %+v", s)
	}
	storetest.Write(t, db, func(tx *store.Tx) (any, error) { return nil, tx.StopNotify() })
	if _, ok, _ := db.NotifyCursor(ctx); ok {
		t.Errorf("NotifyCursor after StopNotify: still set")
	}
}

// A target's deliveries come due in the order they fell due: a retried delivery comes
// after the ones enqueued before its retry time, even those of later events.
func TestDueDeliveriesInDueOrder(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	ctx := context.Background()
	d := func(id string, seq int64) store.NewDelivery {
		return store.NewDelivery{ID: id, Target: "hook", Seq: seq, Event: "blocked", Body: []byte(`{}`)}
	}
	storetest.Write(t, db, func(tx *store.Tx) (any, error) {
		return tx.EnqueueDeliveries(2, []store.NewDelivery{d("a", 1), d("b", 2)}, 10)
	})
	due, _, err := db.DueDeliveries(ctx, "hook", 1<<42, 10)
	if err != nil || len(due) != 2 || due[0].ID != "a" || due[1].ID != "b" {
		t.Fatalf("DueDeliveries: got %+v err %v, want a then b", due, err)
	}
	const retry = int64(1) << 43
	storetest.Write(t, db, func(tx *store.Tx) (any, error) {
		return nil, tx.RecordDelivery(store.DeliveryOutcome{RowID: due[0].RowID, Target: "hook", Attempts: 1, Err: "503", Retry: retry})
	})
	storetest.Write(t, db, func(tx *store.Tx) (any, error) { return tx.EnqueueDeliveries(3, []store.NewDelivery{d("c", 3)}, 10) })
	ids := func(ds []store.Delivery) (out []string) {
		for _, d := range ds {
			out = append(out, d.ID)
		}
		return out
	}
	due, next, err := db.DueDeliveries(ctx, "hook", retry-1, 10)
	if got := ids(due); err != nil || len(got) != 2 || got[0] != "b" || got[1] != "c" || next != retry {
		t.Errorf("before a's retry: got %v next %d err %v, want [b c] next %d", got, next, err, retry)
	}
	due, next, err = db.DueDeliveries(ctx, "hook", retry, 10)
	if got := ids(due); err != nil || len(got) != 3 || got[0] != "b" || got[1] != "c" || got[2] != "a" || next != 0 {
		t.Errorf("at a's retry: got %v next %d err %v, want [b c a]", got, next, err)
	}
	due, _, _ = db.DueDeliveries(ctx, "hook", retry, 1)
	if got := ids(due); len(got) != 1 || got[0] != "b" {
		t.Errorf("limit 1: got %v, want [b]", got)
	}
}
