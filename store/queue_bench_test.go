package store_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/orcr-go/orcr/store"
	"github.com/orcr-go/orcr/store/storetest"
)

// BenchmarkIdleQueuePass measures one queue pass with nothing to do (docs/lifecycle.md
// §7.2) — 100 idle agents, nothing queued — on a store with 10,000 ended rows (each with
// a deadline long past, as `--timeout` agents leave) against the same pass on a store
// without them, alternating in each iteration so machine load hits both alike. The
// ratio ended/none is what ten thousand ended agents add to an idle pass.
func BenchmarkIdleQueuePass(b *testing.B) {
	fleet := func(ended int) *store.DB {
		db := storetest.Open(b)
		storetest.Write(b, db, func(tx *store.Tx) (any, error) {
			for i := range 100 {
				if _, err := tx.Exec(`INSERT INTO agents (uuid, path, managed, origin, status, move_state, agent, created_at, updated_at,
					terminal_id, pane_id, herdr_session, idle_since) VALUES (?, ?, 1, 'run', 'idle', 'none', 'mock', 1000, 1000, ?, ?, 'orcr', 1000)`,
					fmt.Sprintf("live-%d", i), fmt.Sprintf("rest/a%d", i), fmt.Sprintf("t%d", i), fmt.Sprintf("w1:p%d", i)); err != nil {
					return nil, err
				}
			}
			for i := range ended {
				if _, err := tx.Exec(`INSERT INTO agents (uuid, path, managed, origin, status, move_state, agent, created_at, updated_at,
					herdr_session, deadline_at, ended_at) VALUES (?, ?, 1, 'run', 'ended', 'none', 'mock', 1000, 1000, 'orcr', 2000, 3000)`,
					fmt.Sprintf("ended-%d", i), fmt.Sprintf("ended/e%d", i)); err != nil {
					return nil, err
				}
			}
			return nil, nil
		})
		return db
	}
	none, ended := fleet(0), fleet(10_000)
	pass := func(db *store.DB) time.Duration {
		start := time.Now()
		p := storetest.Write(b, db, func(tx *store.Tx) (any, error) {
			return tx.Promote(store.Admission{Max: 1000, MaxStartingMS: 60_000})
		}).(store.Promotion)
		if len(p.Promoted)+len(p.Failed)+len(p.Canceled)+len(p.TimedOut) != 0 {
			b.Fatalf("an idle pass did something: %+v", p)
		}
		return time.Since(start)
	}
	var tNone, tEnded time.Duration
	for b.Loop() {
		tNone += pass(none)
		tEnded += pass(ended)
	}
	b.ReportMetric(float64(tNone.Nanoseconds())/float64(b.N), "ns/pass-none")
	b.ReportMetric(float64(tEnded.Nanoseconds())/float64(b.N), "ns/pass-ended")
	b.ReportMetric(float64(tEnded)/float64(tNone), "ratio_ended_vs_none")
}
