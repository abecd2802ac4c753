package store_test

import (
	"errors"
	"testing"

	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/store"
	"github.com/orcr-go/orcr/store/storetest"
)

func createLoop(t *testing.T, db *store.DB, name string, max int64, overlap string) string {
	t.Helper()
	id := storetest.NewUUID(t)
	storetest.Write(t, db, func(tx *store.Tx) (any, error) {
		return tx.CreateLoop(store.NewLoop{UUID: id, Name: name, CadenceKind: "cron", CadenceValue: "* * * * *", TZ: "UTC",
			Cwd: "/tmp", Overlap: overlap, Argv: []string{"true"}, MaxConcurrency: max, NextFireAt: 1000})
	})
	return id
}

func fire(t *testing.T, db *store.DB, f store.Fire) (store.Fired, []store.Event) {
	t.Helper()
	v, evs := applyEvents(t, db, func(tx *store.Tx) (any, error) { return tx.FireLoop(f) })
	return v.(store.Fired), evs
}

func kinds(evs []store.Event) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e.Kind)
	}
	return out
}

// A definition's name is unique among active and paused loops; its argv lives in the
// store (docs/loops.md L1).
func TestCreateLoop(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	id := createLoop(t, db, "nightly", 1, "queue")
	d, err := store.LoopDefByUUID(t.Context(), db.Reader(), id)
	if err != nil || d.Name != "nightly" || len(d.Argv) != 1 || d.Argv[0] != "true" || d.Status != store.LoopActive {
		t.Fatalf("def %+v %v", d, err)
	}
	res, _, err := db.Apply([]store.Op{func(tx *store.Tx) (any, error) {
		return tx.CreateLoop(store.NewLoop{UUID: storetest.NewUUID(t), Name: "nightly", CadenceKind: "cron",
			CadenceValue: "0 * * * *", TZ: "UTC", Overlap: "queue", Argv: []string{"evil"}, MaxConcurrency: 1})
	}})
	if err == nil {
		err = res[0].Err
	}
	var inUse *store.LoopNameInUseError
	if !errors.As(err, &inUse) || inUse.Occupant.UUID != id {
		t.Fatalf("duplicate name: %v", err)
	}
	if d, _ := store.LoopDefByUUID(t.Context(), db.Reader(), id); d.Argv[0] != "true" {
		t.Errorf("the live definition's argv changed: %v", d.Argv)
	}
}

// docs/loops.md §6.2: a free slot runs at once; at capacity a scheduled fire queues one
// pending run and later ones fold into it keeping the earliest due_at; overlap skip
// drops; manual runs are never folded; the advance commits with the fire.
func TestFireLoop(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	q := createLoop(t, db, "q", 1, "queue")
	f1, evs := fire(t, db, store.Fire{Loop: q, DueAt: 1000, Advance: &store.Advance{Next: 2000}})
	if !f1.Start || f1.Run.Status != store.RunRunning || len(evs) != 1 || evs[0].Kind != "loop.fired" {
		t.Fatalf("first fire %+v %v", f1, kinds(evs))
	}
	if d, _ := store.LoopDefByUUID(t.Context(), db.Reader(), q); *d.NextFireAt != 2000 || d.LastFireAt == nil {
		t.Errorf("advance: %+v", d.LoopRow)
	}
	f2, _ := fire(t, db, store.Fire{Loop: q, DueAt: 3000, Advance: &store.Advance{Next: 4000}})
	if f2.Start || f2.Run.Status != store.RunPending {
		t.Fatalf("fire at capacity %+v", f2)
	}
	f3, evs := fire(t, db, store.Fire{Loop: q, DueAt: 2000, Advance: &store.Advance{Next: 5000}})
	if !f3.Coalesced || f3.Run.UUID != f2.Run.UUID || *f3.Run.DueAt != 2000 || kinds(evs)[0] != "loop.coalesced" {
		t.Fatalf("coalesce %+v %v", f3, kinds(evs))
	}
	m, _ := fire(t, db, store.Fire{Loop: q, Manual: true, DueAt: 6000})
	if m.Coalesced || m.Run.Status != store.RunPending || m.Run.Kind != "manual" {
		t.Fatalf("manual at capacity %+v", m)
	}
	// Promotion takes the lowest due_at first once the slot frees.
	storetest.Write(t, db, func(tx *store.Tx) (any, error) {
		return nil, tx.EndRun(store.RunEnd{Run: f1.Run.UUID, Status: store.RunOK, ExitCode: new(int64)})
	})
	p := storetest.Write(t, db, func(tx *store.Tx) (any, error) { return tx.PromoteRun(q) }).(*store.RunRow)
	if p == nil || p.UUID != f2.Run.UUID || p.Status != store.RunRunning {
		t.Fatalf("promoted %+v", p)
	}
	if p := storetest.Write(t, db, func(tx *store.Tx) (any, error) { return tx.PromoteRun(q) }).(*store.RunRow); p != nil {
		t.Errorf("promoted past the cap: %+v", p)
	}

	s := createLoop(t, db, "s", 1, "skip")
	fire(t, db, store.Fire{Loop: s, DueAt: 1000, Advance: &store.Advance{Next: 2000}})
	sk, evs := fire(t, db, store.Fire{Loop: s, DueAt: 2000, Advance: &store.Advance{Next: 3000}})
	if !sk.Skipped || sk.Run != nil || kinds(evs)[0] != "loop.skipped" {
		t.Fatalf("skip %+v %v", sk, kinds(evs))
	}

	o := createLoop(t, db, "o", 1, "queue")
	_, evs = fire(t, db, store.Fire{Loop: o, DueAt: 1000, Advance: &store.Advance{Once: true}})
	if d, _ := store.LoopDefByUUID(t.Context(), db.Reader(), o); d.Status != store.LoopEnded || *d.EndedReason != "fired" {
		t.Errorf("once loop after its fire: %+v", d.LoopRow)
	}
	if got := kinds(evs); len(got) != 2 || got[1] != "loop.ended" {
		t.Errorf("once events %v", got)
	}
	res, _, _ := db.Apply([]store.Op{func(tx *store.Tx) (any, error) { return tx.FireLoop(store.Fire{Loop: o, DueAt: 1}) }})
	if !errors.Is(res[0].Err, store.ErrStale) {
		t.Errorf("fire of an ended loop: %v", res[0].Err)
	}
}

// A run's process is recorded only while it is live; a stop barrier, an end once; a
// removed loop cancels its pending runs.
func TestRunLifecycle(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	l := createLoop(t, db, "l", 1, "queue")
	r, _ := fire(t, db, store.Fire{Loop: l, DueAt: 1000})
	p, _ := fire(t, db, store.Fire{Loop: l, DueAt: 1000, Manual: true})
	_, evs := applyEvents(t, db, func(tx *store.Tx) (any, error) {
		return nil, tx.StartedRun(store.RunStart{Run: r.Run.UUID, PID: 4242, StartTime: 77, TimeoutS: 5})
	})
	if len(evs) != 1 || evs[0].Kind != "loop_run.started" || payload(t, evs[0])["pgid"] != float64(4242) {
		t.Fatalf("started %v", kinds(evs))
	}
	id, err := store.RunIdentityOf(t.Context(), db.Reader(), r.Run.UUID)
	if err != nil || id.PGID != 4242 || id.StartTime != 77 || id.TimeoutAt == 0 {
		t.Fatalf("identity %+v %v", id, err)
	}
	storetest.Write(t, db, func(tx *store.Tx) (any, error) { return nil, tx.StopBarrier(r.Run.UUID) })
	storetest.Write(t, db, func(tx *store.Tx) (any, error) {
		return nil, tx.EndRun(store.RunEnd{Run: r.Run.UUID, Status: store.RunStopped})
	})
	res, _, _ := db.Apply([]store.Op{func(tx *store.Tx) (any, error) {
		return nil, tx.EndRun(store.RunEnd{Run: r.Run.UUID, Status: store.RunOK})
	}})
	if !errors.Is(res[0].Err, store.ErrStale) {
		t.Errorf("second end: %v", res[0].Err)
	}
	res, _, _ = db.Apply([]store.Op{func(tx *store.Tx) (any, error) {
		return nil, tx.StartedRun(store.RunStart{Run: r.Run.UUID, PID: 1})
	}})
	if !errors.Is(res[0].Err, store.ErrStale) {
		t.Errorf("start of an ended run: %v", res[0].Err)
	}
	_, evs = applyEvents(t, db, func(tx *store.Tx) (any, error) { return nil, tx.EndLoop(l, "removed", &api.LoopRemoved{}) })
	if got := kinds(evs); len(got) != 2 || got[0] != "loop_run.ended" || got[1] != "loop.removed" {
		t.Errorf("rm events %v", got)
	}
	if id, _ := store.RunIdentityOf(t.Context(), db.Reader(), p.Run.UUID); id.Status != store.RunCanceled {
		t.Errorf("pending run after rm: %s", id.Status)
	}
}

// A loop's name is refused while active agents live at or under it (their paths would
// fall into the loop's namespace); an agent whose path only starts with the name is not
// under it.
func TestCreateLoopRefusesANameWithAgents(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	storetest.InsertAgent(t, db, map[string]any{"path": "nightlyx/a", "status": "idle"})
	createLoop(t, db, "nightly", 1, "queue") // "nightlyx/a" is not under "nightly"
	id := storetest.InsertAgent(t, db, map[string]any{"path": "team/a", "status": "idle"})
	res, _, err := db.Apply([]store.Op{func(tx *store.Tx) (any, error) {
		return tx.CreateLoop(store.NewLoop{UUID: storetest.NewUUID(t), Name: "team", CadenceKind: "cron",
			CadenceValue: "* * * * *", TZ: "UTC", Overlap: "queue", Argv: []string{"true"}, MaxConcurrency: 1})
	}})
	if err == nil {
		err = res[0].Err
	}
	var inUse *store.PathInUseError
	if !errors.As(err, &inUse) || inUse.Occupant == nil || inUse.Occupant.UUID != id {
		t.Fatalf("a name with agents under it: %v", err)
	}
}

// The loop scheduler's next wake (docs/loops.md §6.1) is the earliest fire of an active
// loop or timeout of a running run: a paused loop's fire and an ended run's timeout do
// not count.
func TestNextLoopWake(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	wake := func() int64 {
		t.Helper()
		n, err := db.NextLoopWake(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := wake(); n != 0 {
		t.Fatalf("no loop: next wake %d, want 0", n)
	}
	a := createLoop(t, db, "a", 1, "queue") // next fire 1000
	if n := wake(); n != 1000 {
		t.Fatalf("one loop due at 1000: next wake %d", n)
	}
	const far = int64(1) << 50 // ms, far past any run's timeout
	r, _ := fire(t, db, store.Fire{Loop: a, DueAt: 1000, Advance: &store.Advance{Next: far}})
	if n := wake(); n != far {
		t.Fatalf("after its fire advanced it to %d: next wake %d", far, n)
	}
	storetest.Write(t, db, func(tx *store.Tx) (any, error) {
		return nil, tx.StartedRun(store.RunStart{Run: r.Run.UUID, PID: 4242, StartTime: 77, TimeoutS: 5})
	})
	id, err := store.RunIdentityOf(t.Context(), db.Reader(), r.Run.UUID)
	if err != nil || id.TimeoutAt == 0 {
		t.Fatalf("identity %+v %v", id, err)
	}
	if n := wake(); n != id.TimeoutAt {
		t.Fatalf("a running run timing out at %d before the next fire: next wake %d", id.TimeoutAt, n)
	}
	storetest.Write(t, db, func(tx *store.Tx) (any, error) {
		return nil, tx.EndRun(store.RunEnd{Run: r.Run.UUID, Status: store.RunOK, ExitCode: new(int64)})
	})
	storetest.Write(t, db, func(tx *store.Tx) (any, error) {
		return nil, tx.SetLoopStatus(a, store.LoopPaused, &api.LoopPaused{}, nil)
	})
	if n := wake(); n != 0 {
		t.Fatalf("the run ended and the loop paused: next wake %d, want 0", n)
	}
}
