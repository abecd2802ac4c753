package store_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/store"
	"github.com/orcr-go/orcr/store/storetest"
)

func TestSlug(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"w1:p2": "w1_p2", "Work-Tree": "work_tree", "": "x", "ünï": "_n_", "a_b9": "a_b9",
		strings.Repeat("A", 70): strings.Repeat("a", 64),
	} {
		if got := store.Slug(in); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
	}
}

// A discovered agent gets its row with agent.created {managed:false}; a second one on
// the same path (another terminal, the pane id reused) gets the terminal's suffix; an
// end has no exit_reason; a status change is a compare-and-set on status and input_seq.
func TestUnmanagedRows(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	s := store.Sighting{TerminalID: "term-1", PaneID: "w1:p1", Provider: "claude", Status: store.StatusIdle,
		SessionKind: "session_id", SessionValue: "abc"}
	v, evs := applyEvents(t, db, func(tx *store.Tx) (any, error) { return tx.CreateUnmanaged("Work", s) })
	row := v.(store.AgentRow)
	if row.Path != "unmanaged/work/w1_p1" || row.Managed || row.Status != store.StatusIdle {
		t.Fatalf("created %+v", row)
	}
	if len(evs) != 1 || evs[0].Kind != "agent.created" || payload(t, evs[0])["managed"] != false {
		t.Fatalf("events %v", evs)
	}
	s2 := s
	s2.TerminalID = "term-2"
	v, _ = applyEvents(t, db, func(tx *store.Tx) (any, error) { return tx.CreateUnmanaged("Work", s2) })
	if p := v.(store.AgentRow).Path; !strings.HasPrefix(p, "unmanaged/work/w1_p1_") || len(p) != len("unmanaged/work/w1_p1_")+6 {
		t.Errorf("second path %q, want the terminal's 6-hex suffix", p)
	}
	rows, err := db.UnmanagedRows(t.Context(), "Work")
	if err != nil || len(rows) != 2 || rows[0].SessionValue != "abc" || rows[0].Closing {
		t.Fatalf("rows %+v, %v", rows, err)
	}
	// A close in flight (a kill --force, an adoption) marks the row for discovery.
	storetest.Write(t, db, func(tx *store.Tx) (any, error) {
		_, _, err := tx.Intent(row.UUID, &api.AgentCloseRequested{Target: "term-1"})
		return nil, err
	})
	if rows, err = db.UnmanagedRows(t.Context(), "Work"); err != nil || !rows[0].Closing || rows[1].Closing {
		t.Fatalf("closing: %+v, %v", rows, err)
	}

	// A stale compare-and-set (a send moved the row on) changes nothing.
	res, _, err := db.Apply([]store.Op{func(tx *store.Tx) (any, error) {
		return nil, tx.SetUnmanagedStatus(row.UUID, store.StatusWorking, store.StatusIdle, 0)
	}})
	if err == nil {
		err = res[0].Err
	}
	if !errors.Is(err, store.ErrStale) {
		t.Errorf("stale status change: %v", err)
	}

	// A send's external turn, then herdr's idle ends it.
	v, _ = applyEvents(t, db, func(tx *store.Tx) (any, error) {
		seq, _, err := tx.OpenExternalTurn(row.UUID)
		return seq, err
	})
	if v.(int64) != 1 {
		t.Fatalf("external turn seq %v", v)
	}
	a := loadAgent(t, db, row.UUID)
	if a.Status != store.StatusWorking || a.Turn.Seq != 1 {
		t.Fatalf("after the send: %+v", a)
	}

	_, evs = applyEvents(t, db, func(tx *store.Tx) (any, error) { return nil, tx.EndUnmanaged(row.UUID) })
	if len(evs) != 2 || evs[0].Kind != "agent.status_changed" || evs[1].Kind != "agent.ended" {
		t.Fatalf("end events %v", evs)
	}
	if r, ok := payload(t, evs[0])["exit_reason"]; !ok || r != nil {
		t.Errorf("exit_reason %v, want null", r)
	}
	if got, _ := db.UnmanagedSessions(t.Context()); len(got) != 1 || got[0] != "Work" {
		t.Errorf("sessions %v", got)
	}
}

// Adopt turns an idle unmanaged row into a managed queued one at the new path, keeping
// its uuid and input_seq; a taken path, a busy row or a managed row are refused and
// change nothing.
func TestAdopt(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	s := store.Sighting{TerminalID: "term-1", PaneID: "w1:p1", Provider: "claude", Status: store.StatusIdle,
		SessionKind: "id", SessionValue: "abc"}
	row := storetest.Write(t, db, func(tx *store.Tx) (any, error) { return tx.CreateUnmanaged("work", s) }).(store.AgentRow)
	storetest.InsertAgent(t, db, map[string]any{"path": "team/taken", "status": "idle"})
	adopt := func(path string) error {
		res, _, err := db.Apply([]store.Op{func(tx *store.Tx) (any, error) {
			return nil, tx.Adopt(store.Adoption{UUID: row.UUID, Path: path, Session: "orcr", GCMode: store.GCAuto, LaunchToken: "tok"})
		}})
		if err == nil {
			err = res[0].Err
		}
		return err
	}
	var inUse *store.PathInUseError
	if err := adopt("team/taken"); !errors.As(err, &inUse) || inUse.Occupant == nil {
		t.Errorf("taken path: %v", err)
	}
	_, evs := applyEvents(t, db, func(tx *store.Tx) (any, error) {
		return nil, tx.Adopt(store.Adoption{UUID: row.UUID, Path: "team/api", Session: "orcr", GCMode: store.GCAuto, LaunchToken: "tok"})
	})
	a := loadAgent(t, db, row.UUID)
	if !a.Managed || a.Path != "team/api" || a.Status != store.StatusQueued || a.Session != "orcr" || a.TerminalID != "" ||
		a.SessionValue != "" {
		t.Errorf("adopted row %+v", a)
	}
	if len(evs) != 1 || evs[0].Kind != "agent.status_changed" || payload(t, evs[0])["adopted_from"] != "unmanaged/work/w1_p1" {
		t.Errorf("events %v", evs)
	}
	if err := adopt("team/api2"); !errors.Is(err, store.ErrStale) {
		t.Errorf("adopting a managed row again: %v, want ErrStale", err)
	}
}
