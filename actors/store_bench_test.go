package actors_test

import (
	"database/sql"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/orcr-go/orcr/actors"
	"github.com/orcr-go/orcr/actors/actorkit"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/store"
	"github.com/orcr-go/orcr/store/storetest"
)

// stBenchPayload is a realistic agent.status_changed payload with its embedded row (docs/decisions.md D2).
var stBenchPayload = json.RawMessage(`{"uuid":"01920000-0000-7000-8000-000000000001","status":"idle",` +
	`"agent":{"uuid":"01920000-0000-7000-8000-000000000001","path":"ws/alpha","status":"idle","managed":true,` +
	`"agent":"claude","model":"opus","effort":"high","cwd":"/work","pane_id":"p-1","move_state":"none",` +
	`"created_at":1730000000000,"last_status_change_at":1730000001000,"idle_since":1730000001000}}`)

// BenchmarkStoreActorEvents measures events committed per second through the store actor,
// with many concurrent writers (so writes batch into shared transactions), and compares
// it with raw INSERTs of the same rows in one transaction on a store file opened the same
// way, in the same run. Metrics: events/s (actor), raw_events/s, ratio_vs_raw.
func BenchmarkStoreActorEvents(b *testing.B) {
	// retention=10000 is the server's default (every commit also trims the head of the
	// table once it holds 10,000 rows); no_trim isolates the actor's own overhead.
	b.Run("retention=10000", func(b *testing.B) { stBenchStoreActor(b, actors.DefaultRetention) })
	b.Run("no_trim", func(b *testing.B) { stBenchStoreActor(b, 1<<40) })
}

func stBenchStoreActor(b *testing.B, retention int) {
	sys := actorkit.NewSystem(nil, 10*time.Millisecond)
	defer sys.Shutdown()
	db := storetest.Open(b)
	pid, err := sys.Root.SpawnNamed(actors.NewStoreProps(db, nil, actors.StoreOptions{Retention: retention}), "store")
	if err != nil {
		b.Fatal(err)
	}
	defer func() { sys.Root.PoisonFuture(pid).Wait() }()
	op := func(tx *store.Tx) (any, error) {
		return tx.Emit("01920000-0000-7000-8000-000000000001", api.RawEvent{Kind: "agent.status_changed", Fields: stBenchPayload})
	}

	rawBefore := stRawInserts(b, b.N)
	b.SetParallelism(64) // 64 writers per CPU: enough outstanding writes to fill batches
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			res, err := sys.Root.RequestFuture(pid, actors.Write{Op: op}, 30*time.Second).Result()
			if err != nil {
				b.Error(err)
				return
			}
			if wr := res.(actors.WriteResult); wr.Err != nil {
				b.Error(wr.Err)
				return
			}
		}
	})
	actorDur := time.Since(start)
	b.StopTimer()
	st, err := sys.Root.RequestFuture(pid, actors.StoreStats{}, time.Second).Result()
	if err != nil {
		b.Fatal(err)
	}
	stats := st.(actors.StoreStatsResult)

	rawDur := (rawBefore + stRawInserts(b, b.N)) / 2 // before and after, against drift in machine load
	perTx := float64(stats.Writes) / float64(max(stats.Transactions, 1))
	directDur := stDirectApply(b, b.N, max(int(perTx+0.5), 1), op)
	actorRate := float64(b.N) / actorDur.Seconds()
	rawRate := float64(b.N) / rawDur.Seconds()
	directRate := float64(b.N) / directDur.Seconds()
	b.ReportMetric(actorRate, "events/s")
	b.ReportMetric(rawRate, "raw_events/s")
	b.ReportMetric(actorRate/rawRate, "ratio_vs_raw")
	b.ReportMetric(directRate, "direct_events/s")
	b.ReportMetric(actorRate/directRate, "ratio_vs_direct")
	b.ReportMetric(perTx, "writes/tx")
}

// stDirectApply times n of the actor's ops applied by one goroutine straight to the store
// (store.DB.Apply, no actor, no futures) in transactions of perTx ops, the batch size the
// actor reached: what the store's own work per event costs (the event's insert, its
// session-log lookups, the retention trim when on). The actor's rate against this one is
// the actor's own overhead; this one against raw INSERTs is the store's.
func stDirectApply(b *testing.B, n, perTx int, op store.Op) time.Duration {
	b.Helper()
	db := storetest.Open(b)
	ops := make([]store.Op, perTx)
	for i := range ops {
		ops[i] = op
	}
	start := time.Now()
	for done := 0; done < n; done += perTx {
		batch := ops[:min(perTx, n-done)]
		if _, _, err := db.Apply(batch); err != nil {
			b.Fatal(err)
		}
	}
	return time.Since(start)
}

// stRawInserts times n plain INSERTs into events, prepared once, in one transaction, on a
// fresh store file opened with the store's writer DSN.
func stRawInserts(b *testing.B, n int) time.Duration {
	b.Helper()
	path := filepath.Join(storetest.Dir(b), "orcr.db")
	sdb, err := store.Open(path) // creates the schema
	if err != nil {
		b.Fatal(err)
	}
	sdb.Close()
	raw, err := sql.Open("sqlite", "file:"+path+
		"?_pragma=journal_mode(WAL)&_pragma=busy_timeout(5000)&_pragma=synchronous(NORMAL)&_txlock=immediate")
	if err != nil {
		b.Fatal(err)
	}
	defer raw.Close()
	raw.SetMaxOpenConns(1)
	payload := string(stBenchPayload)
	start := time.Now()
	tx, err := raw.Begin()
	if err != nil {
		b.Fatal(err)
	}
	stmt, err := tx.Prepare(`INSERT INTO events (ts, kind, ref_uuid, payload_json) VALUES (?, ?, ?, ?)`)
	if err != nil {
		b.Fatal(err)
	}
	ts := time.Now().UnixMilli()
	for range n {
		if _, err := stmt.Exec(ts, "agent.status_changed", "01920000-0000-7000-8000-000000000001", payload); err != nil {
			b.Fatal(err)
		}
	}
	stmt.Close()
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	return time.Since(start)
}
