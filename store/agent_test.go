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
	t.Parallel()
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

// An end records why in words and the pane's last screen with the row
// (docs/lifecycle.md §4.1): the detail goes on the agent row, the screen only to
// LastScreen (the row carries when it was read). A blank screen is not kept, and an end
// that names nothing leaves what an earlier write recorded.
func TestEndAgentWithDetailAndScreen(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	ctx := t.Context()
	blank := storetest.InsertAgent(t, db, map[string]any{"status": "starting", "path": "e/blank"})
	storetest.Write(t, db, func(tx *store.Tx) (any, error) {
		return nil, tx.EndAgentWith(blank, []store.Status{store.StatusStarting}, store.ExitFailed,
			store.End{Detail: "mock exited during start", Screen: " \n ", ScreenAt: 7})
	})
	if _, _, ok, err := db.LastScreen(ctx, blank); err != nil || ok {
		t.Errorf("a blank screen was kept: ok %v, err %v", ok, err)
	}
	row, err := store.AgentByUUID(ctx, db.Reader(), blank)
	if err != nil || row.ExitDetail == nil || *row.ExitDetail != "mock exited during start" || row.ScreenAt != nil {
		t.Errorf("row after the end: %+v (%v), want the detail and no screen", row, err)
	}

	id := storetest.InsertAgent(t, db, map[string]any{"status": "working", "path": "e/kept"})
	storetest.Write(t, db, func(tx *store.Tx) (any, error) {
		return nil, tx.EndAgentWith(id, store.LiveStatuses, store.ExitFailed,
			store.End{Detail: "boom", Screen: "Error: boom\n", ScreenAt: 1234})
	})
	text, at, ok, err := db.LastScreen(ctx, id)
	if err != nil || !ok || text != "Error: boom\n" || at != 1234 {
		t.Errorf("LastScreen = %q, %d, %v, %v; want the kept screen", text, at, ok, err)
	}
	row, err = store.AgentByUUID(ctx, db.Reader(), id)
	if err != nil || row.ExitReason == nil || *row.ExitReason != "failed" || row.ScreenAt == nil || *row.ScreenAt != 1234 {
		t.Errorf("row after the end: %+v (%v), want failed with screen_at 1234", row, err)
	}
	if _, _, _, err := db.LastScreen(ctx, "no-such-agent"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("LastScreen of no agent: %v, want ErrNotFound", err)
	}
}

// A row marked lost because its provider exited (docs/lifecycle.md §8.2) keeps the exit
// and the pane's last screen, and keeps them when it then ends lost.
func TestMarkLostWithKeepsTheExit(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	ctx := t.Context()
	id := storetest.InsertAgent(t, db, map[string]any{"status": "idle", "path": "e/crash"})
	storetest.Write(t, db, func(tx *store.Tx) (any, error) {
		return nil, tx.MarkLostWith(id, store.End{Detail: "mock exited (exit status 0): bye", Screen: "bye\n", ScreenAt: 99})
	})
	storetest.Write(t, db, func(tx *store.Tx) (any, error) {
		return nil, tx.EndAgent(id, []store.Status{store.StatusLost}, store.ExitLost)
	})
	row, err := store.AgentByUUID(ctx, db.Reader(), id)
	if err != nil || row.Status != store.StatusEnded || row.ExitDetail == nil || *row.ExitDetail != "mock exited (exit status 0): bye" ||
		row.ScreenAt == nil || *row.ScreenAt != 99 {
		t.Errorf("row after lost then ended: %+v (%v), want the exit detail and screen kept", row, err)
	}
	if text, _, ok, err := db.LastScreen(ctx, id); err != nil || !ok || text != "bye\n" {
		t.Errorf("LastScreen = %q, %v, %v; want the screen kept", text, ok, err)
	}
}
