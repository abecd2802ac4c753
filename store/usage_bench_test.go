package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/orcr-go/orcr/store"
	"github.com/orcr-go/orcr/store/storetest"
)

// BenchmarkUsageReport reads a usage report over 100,000 turns of 1,000 agents that each
// complete a turn every 7 hours for 30 days (the rollup's worst spread: about three
// turns per agent and day), written through the completion's own write (the turn's row
// and its day's row of usage_days). Grouped by provider, by agent, and by day since a
// moment that is not a midnight (its first day read from the turns), each beside a plain
// count of the same turns through the turns_usage index in the same run;
// ratio_vs_count is the report's time over the count's (docs/usage.md §6).
func BenchmarkUsageReport(b *testing.B) {
	db := storetest.Open(b)
	const agents, perAgent = 1000, 100
	const base, step = int64(1_700_000_000_000), int64(26_000) // 100,000 turns 26 s apart: 30 days
	storetest.Write(b, db, func(tx *store.Tx) (any, error) {
		for seq := 1; seq <= perAgent; seq++ {
			for i := range agents {
				id := fmt.Sprintf("0190000-%04d", i)
				at := base + int64((seq-1)*agents+i)*step
				if _, err := tx.Exec(`INSERT INTO turns (agent_uuid, input_seq, source, completed_at) VALUES (?, ?, 'orcr', ?)`,
					id, seq, at); err != nil {
					return nil, err
				}
				cost := new(int64(seq * 10))
				if seq%10 == 0 {
					cost = nil
				}
				u := &store.TurnUsage{Input: 10, Output: 20, CacheRead: 30, CacheWrite: 40, Reasoning: 5,
					Model: []string{"claude-sonnet-4-5", "gpt-5-codex"}[i%2], CostMicros: cost}
				if err := tx.RecordUsageAt(at, id, int64(seq), fmt.Sprintf("team%d/a%d", i%10, i),
					[]string{"claude", "codex"}[i%2], u); err != nil {
					return nil, err
				}
			}
		}
		return nil, nil
	})
	ctx := context.Background()
	var count, report time.Duration
	var since int64
	countRows := func(b *testing.B) {
		var n int
		start := time.Now()
		for b.Loop() {
			if err := db.Reader().QueryRowContext(ctx, `SELECT count(*) FROM turns WHERE usage_at IS NOT NULL AND usage_at >= ?`, since).
				Scan(&n); err != nil || n == 0 {
				b.Fatal(n, err)
			}
		}
		count += time.Since(start) / time.Duration(b.N)
	}
	read := func(by string) func(b *testing.B) {
		return func(b *testing.B) {
			var want int
			if err := db.Reader().QueryRowContext(ctx, `SELECT count(*) FROM turns WHERE usage_at >= ?`, since).Scan(&want); err != nil {
				b.Fatal(err)
			}
			start := time.Now()
			for b.Loop() {
				r, err := store.ReadUsage(ctx, db.Reader(), store.UsageQuery{By: by, Since: since})
				if err != nil || r.Total.Turns != int64(want) {
					b.Fatal(r.Total, want, err)
				}
			}
			report += time.Since(start) / time.Duration(b.N)
		}
	}
	for _, c := range []struct {
		by    string
		since int64
	}{{store.UsageByProvider, 0}, {store.UsageByAgent, 0}, {store.UsageByDay, base + 20*24*3600*1000 + 12345}} {
		count, report, since = 0, 0, c.since
		name := "by_" + c.by
		if since > 0 {
			name += "_since"
		}
		b.Run("count", countRows)
		b.Run(name, read(c.by))
		b.Logf("%s: report %v, count %v, ratio_vs_count %.2f", name, report, count, float64(report)/float64(count))
	}
}

// BenchmarkCompleteTurnUsage times a turn's completion transaction with the usage the
// transcript reported and, alternating in the same run, without it (an agent whose
// transcript reported none): ratio_vs_plain is the first over the second, the share of
// a completion's write that recording usage adds (docs/usage.md §6). Each turn is
// opened outside the timing; the two alternate which goes first.
func BenchmarkCompleteTurnUsage(b *testing.B) {
	db := storetest.Open(b)
	with, _ := usageAgent(b, db, "bench/with", "claude", "claude-sonnet-4-5")
	plain, _ := usageAgent(b, db, "bench/plain", "claude", "claude-sonnet-4-5")
	// usageAgent opened a first turn; complete both so every iteration opens its own.
	var timed [2]time.Duration
	turn := func(id string, u *store.TurnUsage) time.Duration {
		seq := storetest.Write(b, db, func(tx *store.Tx) (any, error) {
			seq, _, err := tx.OpenTurn(id, store.InputStatuses)
			return seq, err
		}).(int64)
		start := time.Now()
		res, _, err := db.Apply([]store.Op{func(tx *store.Tx) (any, error) {
			return nil, tx.CompleteTurn(store.TurnCompletion{UUID: id, Seq: seq, IdleFrom: store.StatusWorking, Usage: u})
		}})
		if err == nil {
			err = res[0].Err
		}
		if err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	for _, id := range []string{with, plain} {
		storetest.Write(b, db, func(tx *store.Tx) (any, error) {
			var seq int64
			err := tx.QueryRow(`SELECT input_seq FROM agents WHERE uuid = ?`, id).Scan(&seq)
			if err != nil {
				return nil, err
			}
			return nil, tx.CompleteTurn(store.TurnCompletion{UUID: id, Seq: seq, IdleFrom: store.StatusWorking})
		})
	}
	n := 0
	for b.Loop() {
		u := &store.TurnUsage{Input: 1200, Output: 340, CacheRead: 56000, CacheWrite: 800, Model: "claude-sonnet-4-5",
			CostMicros: new(int64(12345))}
		if n%2 == 0 { // alternate which goes first, so neither gains from the other's warm cache
			timed[0] += turn(with, u)
			timed[1] += turn(plain, nil)
		} else {
			timed[1] += turn(plain, nil)
			timed[0] += turn(with, u)
		}
		n++
	}
	b.Logf("completion with usage %v, without %v, ratio_vs_plain %.3f", timed[0]/time.Duration(n),
		timed[1]/time.Duration(n), float64(timed[0])/float64(timed[1]))
}
