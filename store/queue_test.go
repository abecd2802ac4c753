package store_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/orcr-go/orcr/store"
	"github.com/orcr-go/orcr/store/storetest"
)

// A queue pass reports what its pace depends on (docs/lifecycle.md §7.2): how many rows
// it left queued, and the earliest --timeout deadline of a live row, so the queue actor
// runs fast only while rows wait and otherwise wakes for the next deadline.
func TestPromotionReportsWhatWaits(t *testing.T) {
	t.Parallel()
	db, err := store.Open(filepath.Join(storetest.Dir(t), "orcr.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	promote := func(max int) store.Promotion {
		t.Helper()
		return storetest.Write(t, db, func(tx *store.Tx) (any, error) {
			return tx.Promote(store.Admission{Max: max})
		}).(store.Promotion)
	}
	if p := promote(10); p.Left != 0 || p.NextDeadline != 0 || len(p.Promoted) != 0 {
		t.Fatalf("an empty store's pass: %+v", p)
	}
	far := int64(1) << 50 // far in the future, in ms
	for i, deadline := range []int64{0, far + 7, far} {
		storetest.Write(t, db, func(tx *store.Tx) (any, error) {
			return tx.Enqueue(store.NewAgent{UUID: storetest.NewUUID(t), Path: "q/" + string(rune('a'+i)), Provider: "codex",
				GCMode: store.GCAuto, Session: "orcr", DeadlineAt: deadline})
		})
	}
	if p := promote(2); len(p.Promoted) != 2 || p.Left != 1 || p.NextDeadline != far {
		t.Fatalf("three queued under a cap of two: promoted %d, left %d, next deadline %d; want 2, 1, %d", len(p.Promoted), p.Left, p.NextDeadline, far)
	}
	if p := promote(3); len(p.Promoted) != 1 || p.Left != 0 || p.NextDeadline != far {
		t.Fatalf("the last one under a cap of three: promoted %d, left %d, next deadline %d; want 1, 0, %d", len(p.Promoted), p.Left, p.NextDeadline, far)
	}
	rows, err := db.Reader().QueryContext(context.Background(), `SELECT count(*) FROM agents WHERE status = 'starting'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var n int
	for rows.Next() {
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
	}
	if n != 3 {
		t.Fatalf("%d rows starting, want 3", n)
	}
}
