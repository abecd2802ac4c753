package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/orcr-go/orcr/store"
	"github.com/orcr-go/orcr/store/storetest"
)

// BenchmarkUsageReport reads a usage report over 100,000 turns of 1,000 agents (grouped
// by provider, and by agent) and, in the same run, a plain count of the same rows
// through the same index; ratio_vs_count is the report's time over the count's
// (docs/usage.md §6).
func BenchmarkUsageReport(b *testing.B) {
	db := storetest.Open(b)
	const agents, perAgent = 1000, 100
	storetest.Write(b, db, func(tx *store.Tx) (any, error) {
		for i := range agents {
			id := fmt.Sprintf("0190000-%04d", i)
			for seq := 1; seq <= perAgent; seq++ {
				at := int64(1_700_000_000_000 + (i*perAgent+seq)*1000)
				cost := any(int64(seq * 10))
				if seq%10 == 0 {
					cost = nil
				}
				if _, err := tx.Exec(`INSERT INTO turns (agent_uuid, input_seq, source, completed_at, input_tokens, output_tokens,
					cache_read_tokens, cache_write_tokens, reasoning_tokens, model, provider, path, loop, cost_micros, usage_at)
					VALUES (?, ?, 'orcr', ?, 10, 20, 30, 40, 5, ?, ?, ?, NULL, ?, ?)`, id, seq, at,
					[]string{"claude-sonnet-4-5", "gpt-5-codex"}[i%2], []string{"claude", "codex"}[i%2],
					fmt.Sprintf("team%d/a%d", i%10, i), cost, at); err != nil {
					return nil, err
				}
			}
		}
		return nil, nil
	})
	ctx := context.Background()
	var count, report time.Duration
	countRows := func(b *testing.B) {
		var n int
		start := time.Now()
		for b.Loop() {
			if err := db.Reader().QueryRowContext(ctx, `SELECT count(*) FROM turns WHERE usage_at IS NOT NULL AND usage_at >= ?`, 0).
				Scan(&n); err != nil || n != agents*perAgent {
				b.Fatal(n, err)
			}
		}
		count += time.Since(start) / time.Duration(b.N)
	}
	read := func(by string) func(b *testing.B) {
		return func(b *testing.B) {
			start := time.Now()
			for b.Loop() {
				r, err := store.ReadUsage(ctx, db.Reader(), store.UsageQuery{By: by})
				if err != nil || r.Total.Turns != agents*perAgent {
					b.Fatal(r.Total, err)
				}
			}
			report += time.Since(start) / time.Duration(b.N)
		}
	}
	for _, by := range []string{store.UsageByProvider, store.UsageByAgent} {
		count, report = 0, 0
		b.Run("count", countRows)
		b.Run("by_"+by, read(by))
		b.Logf("by %s: report %v, count %v, ratio_vs_count %.2f", by, report, count, float64(report)/float64(count))
	}
}
