package store_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/orcr-go/orcr/store"
	"github.com/orcr-go/orcr/store/storetest"
)

// BenchmarkSchedulerTick is the store side of one loop-scheduler tick (docs/loops.md
// §6.1): the due-loops and timed-out-runs reads, and a fire for every due loop (here at
// capacity with overlap skip, so each fire is one small transaction and the loops stay
// due). With 1,000 loops defined, none due and 1% due; the metric x_raw is the tick's
// cost over a raw one-row SQLite read on the same pool, measured in the same process.
// The aim: the cost follows the loops that fire, not the loops that exist.
func BenchmarkSchedulerTick(b *testing.B) {
	for _, tc := range []struct{ loops, due int }{{10, 0}, {1000, 0}, {1000, 10}} {
		b.Run(fmt.Sprintf("loops=%d/due=%d", tc.loops, tc.due), func(b *testing.B) {
			db := storetest.Open(b)
			now := time.Now().UnixMilli()
			var due []string
			var ops []store.Op
			for i := 0; i < tc.loops; i++ {
				id := storetest.NewUUID(b)
				next := now + int64(time.Hour/time.Millisecond)
				if i < tc.due {
					next = now - 1000
					due = append(due, id)
				}
				ops = append(ops, func(tx *store.Tx) (any, error) {
					return tx.CreateLoop(store.NewLoop{UUID: id, Name: fmt.Sprintf("l%d", i), CadenceKind: "cron",
						CadenceValue: "0 * * * *", TZ: "UTC", Cwd: "/", Overlap: "skip", Argv: []string{"true"},
						MaxConcurrency: 1, NextFireAt: next})
				})
			}
			for _, id := range due { // each due loop is at capacity
				ops = append(ops, func(tx *store.Tx) (any, error) { return tx.FireLoop(store.Fire{Loop: id, Manual: true, DueAt: now}) })
			}
			if res, _, err := db.Apply(ops); err != nil {
				b.Fatal(err)
			} else {
				for _, r := range res {
					if r.Err != nil {
						b.Fatal(r.Err)
					}
				}
			}
			raw := rawRead(b, db)
			ctx := b.Context()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				loops, err := db.DueLoops(ctx, now)
				if err != nil || len(loops) != tc.due {
					b.Fatalf("due loops: %d, %v", len(loops), err)
				}
				if _, err := db.TimedOutRuns(ctx, now); err != nil {
					b.Fatal(err)
				}
				var fires []store.Op
				for _, l := range loops {
					fires = append(fires, func(tx *store.Tx) (any, error) {
						return tx.FireLoop(store.Fire{Loop: l.UUID, DueAt: now, Advance: &store.Advance{Next: now - 1000}})
					})
				}
				if len(fires) > 0 {
					if _, _, err := db.Apply(fires); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/raw, "x_raw")
		})
	}
}

// rawRead is the time of one raw one-row read on the store's read pool, in ns.
func rawRead(b *testing.B, db *store.DB) float64 {
	b.Helper()
	const n = 2000
	start := time.Now()
	for i := 0; i < n; i++ {
		var v string
		if err := db.Reader().QueryRow(`SELECT value FROM meta WHERE key = 'schema_version'`).Scan(&v); err != nil {
			b.Fatal(err)
		}
	}
	return float64(time.Since(start).Nanoseconds()) / n
}
