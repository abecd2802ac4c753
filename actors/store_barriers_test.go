package actors_test

import (
	"testing"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/orcr-go/orcr/actors"
	"github.com/orcr-go/orcr/store"
	"github.com/orcr-go/orcr/store/agentpath"
	"github.com/orcr-go/orcr/store/storetest"
)

type stSys struct {
	sys   *actor.ActorSystem
	store *actor.PID
}

// covered asks the store actor, through a guarded write, which barrier covers path.
func covered(t *testing.T, sys *stSys, path string) string {
	t.Helper()
	res := stRequest[actors.WriteResult](t, sys.sys, sys.store, actors.Write{Guarded: func(_ *store.Tx, b actors.BarrierView) (any, error) {
		target, _ := b.Covering(path)
		return target, nil
	}})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	return res.Value.(string)
}

// Kill barriers live in the store actor: installed and lifted by messages, read by the
// ops it runs, and never left standing by a write that failed.
func TestStoreActorKillBarriers(t *testing.T) {
	db := storetest.Open(t)
	s := &stSys{sys: stSystem(t)}
	s.store = stSpawnStore(t, s.sys, db, actors.StoreOptions{})
	pat, err := agentpath.CompilePattern("", "team/*")
	if err != nil {
		t.Fatal(err)
	}
	stRequest[actors.BarriersAdded](t, s.sys, s.store, actors.AddBarriers{Key: 1, Barriers: []actors.Barrier{{Target: "team/*", M: pat}}})
	if got := covered(t, s, "team/a"); got != "team/*" {
		t.Errorf("team/a under the barrier: covered by %q, want team/*", got)
	}
	if got := covered(t, s, "other/a"); got != "" {
		t.Errorf("other/a: covered by %q, want none", got)
	}
	// A write that fails does not touch the barriers.
	if res := stWrite(t, s.sys, s.store, func(*store.Tx) (any, error) { return nil, store.ErrStale }); res.Err == nil {
		t.Fatal("failing write: no error")
	}
	s.sys.Root.Send(s.store, actors.LiftBarriers{Key: 1})
	if got := covered(t, s, "team/a"); got != "" {
		t.Errorf("after the lift: team/a covered by %q, want none", got)
	}
	// A lift that overtook its add (the caller gave up waiting) cancels it.
	s.sys.Root.Send(s.store, actors.LiftBarriers{Key: 2})
	stRequest[actors.BarriersAdded](t, s.sys, s.store, actors.AddBarriers{Key: 2, Barriers: []actors.Barrier{{Target: "team/*", M: pat}}})
	if got := covered(t, s, "team/a"); got != "" {
		t.Errorf("add after its lift: team/a covered by %q, want none", got)
	}
	if st := stRequest[actors.StoreStatsResult](t, s.sys, s.store, actors.StoreStats{}); st.Barriers != 0 {
		t.Errorf("barriers standing: %d, want 0", st.Barriers)
	}
}
