package actors_test

import (
	"testing"
	"time"

	"github.com/orcr-go/orcr/actors"
	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/herdr"
	"github.com/orcr-go/orcr/store"
	"github.com/orcr-go/orcr/store/storetest"
	"github.com/orcr-go/orcr/tests/poll"
)

// liveAgent walks a fresh row through the real lifecycle operations to working with an
// open turn whose working was seen: queued → starting (promotion) → a pane recorded →
// idle → a turn opened and delivered → herdr reported working.
func liveAgent(t *testing.T, db *store.DB, path string) string {
	t.Helper()
	uuid := storetest.NewUUID(t)
	storetest.Write(t, db, func(tx *store.Tx) (any, error) {
		if _, err := tx.Enqueue(store.NewAgent{UUID: uuid, Path: path, Provider: "mock", GCMode: store.GCNever}); err != nil {
			return nil, err
		}
		if _, err := tx.Promote(store.Admission{Max: 100}); err != nil {
			return nil, err
		}
		if err := tx.RecordLocation(uuid, "orcr", "term-"+path, "pane-"+path); err != nil {
			return nil, err
		}
		if err := tx.SettleIdle(uuid); err != nil {
			return nil, err
		}
		seq, _, err := tx.OpenTurn(uuid, store.InputStatuses)
		if err != nil {
			return nil, err
		}
		if err := tx.MarkDelivered(uuid, seq, 0); err != nil {
			return nil, err
		}
		return nil, tx.SeeWorking(uuid)
	})
	return uuid
}

// slowTuning is the built-in providers with a tuning under which an idle streak never
// becomes stable: no timer fires during the test.
type slowTuning struct{ actors.BuiltinProviders }

func (slowTuning) Tuning(string) config.Tuning {
	return config.Tuning{FastTurnGrace: time.Hour, IdleStable: time.Hour}
}

// Acceptance: a status report that changes nothing costs no SQL statement, no write
// and no op goroutine. The agent actor decides it in memory.
func TestUnchangedStatusReportCostsNothing(t *testing.T) {
	db := storetest.Open(t)
	sys := stSystem(t)
	storePID := stSpawnStore(t, sys, db, actors.StoreOptions{})
	uuid := liveAgent(t, db, "quiet/one")
	env := &actors.AgentEnv{Store: storePID, DB: db, Home: t.TempDir(), Providers: slowTuning{}}
	agents, err := sys.Root.SpawnNamed(actors.NewAgentsProps(env), "agents")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sys.Root.PoisonFuture(agents).Wait(); env.Ops.Wait() })

	report := func(st herdr.Status) actors.StatusReport {
		return actors.StatusReport{UUID: uuid, Status: st, At: time.Now()}
	}
	// The first idle report starts the idle streak: a change, one write.
	sys.Root.Send(agents, report(herdr.StatusIdle))
	poll.Eventually(t, stTimeout, "the idle streak recorded", func() bool {
		a, err := store.LoadAgent(t.Context(), db.Reader(), uuid)
		return err == nil && a.IdleSince != 0
	})
	// Wait until the actor is idle again: restart recovery and the streak op are done.
	poll.Eventually(t, stTimeout, "ops done", func() bool { return actors.OpsIdle(env) })

	before, opsBefore := db.Statements(), actors.OpsStarted(env)
	for range 500 {
		sys.Root.Send(agents, report(herdr.StatusIdle))
	}
	// Poison is a user message: every report before it has been handled when it stops.
	sys.Root.PoisonFuture(agents).Wait()
	if got := db.Statements() - before; got != 0 {
		t.Errorf("500 unchanged idle reports ran %d SQL statements, want 0", got)
	}
	if got := actors.OpsStarted(env) - opsBefore; got != 0 {
		t.Errorf("500 unchanged idle reports started %d op goroutines, want 0", got)
	}
}
