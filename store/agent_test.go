package store_test

import (
	"errors"
	"testing"

	"github.com/orcr-go/orcr/store"
	"github.com/orcr-go/orcr/store/storetest"
)

// AbandonTurn undoes the turn a failed delivery opened: the row returns to the status
// the turn opened from, input_seq steps back, the turn row goes, and the stream says so.
// A row that moved on in between is left alone (ErrStale).
func TestAbandonTurn(t *testing.T) {
	for _, was := range []store.Status{store.StatusIdle, store.StatusBlocked, store.StatusWorking, store.StatusStarting} {
		t.Run(string(was), func(t *testing.T) {
			db := storetest.Open(t)
			id := storetest.InsertAgent(t, db, map[string]any{"status": string(was), "input_seq": 2, "terminal_id": "t1", "pane_id": "w1:p1"})
			storetest.InsertTurn(t, db, id, 2, map[string]any{"delivered_at": 1, "completed_at": nil})
			seq := storetest.Write(t, db, func(tx *store.Tx) (any, error) {
				seq, _, err := tx.OpenTurn(id, []store.Status{was})
				return seq, err
			}).(int64)
			if seq != 3 {
				t.Fatalf("opened turn %d", seq)
			}
			storetest.Write(t, db, func(tx *store.Tx) (any, error) { return nil, tx.AbandonTurn(id, seq, was) })
			a := loadAgent(t, db, id)
			if a.Status != was || a.InputSeq != 2 {
				t.Errorf("after abandon: status %s input_seq %d, want %s 2", a.Status, a.InputSeq, was)
			}
			if a.Turn.Seq != 2 {
				t.Errorf("open turn after abandon: %d, want the earlier open turn 2", a.Turn.Seq)
			}
			if was == store.StatusIdle && a.IdleSince == 0 {
				t.Error("an idle row's park clock did not restart")
			}
			// Applying it again finds the row moved on.
			res, _, err := db.Apply([]store.Op{func(tx *store.Tx) (any, error) { return nil, tx.AbandonTurn(id, seq, was) }})
			if err == nil {
				err = res[0].Err
			}
			if !errors.Is(err, store.ErrStale) {
				t.Errorf("second abandon: %v, want ErrStale", err)
			}
		})
	}
}

func loadAgent(t *testing.T, db *store.DB, id string) store.Agent {
	t.Helper()
	a, err := store.LoadAgent(t.Context(), db.Reader(), id)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
