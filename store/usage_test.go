package store_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/store"
	"github.com/orcr-go/orcr/store/storetest"
)

// usageAgent enqueues an agent at path with provider and model and opens its first turn.
func usageAgent(t testing.TB, db *store.DB, path, provider, model string) (string, int64) {
	t.Helper()
	return storetest.TurnAgent(t, db, path, provider, model)
}

func micros(n int64) *int64 { return &n }

// A turn's usage is recorded once, with the provider, path, loop and model a report
// groups by; completing it again (a restart's monitor seeing the same idle) is stale
// and counts nothing twice, even after the store is closed and opened again.
func TestUsageRecordedOnceAndReported(t *testing.T) {
	t.Parallel()
	dir := storetest.Dir(t)
	path := filepath.Join(dir, "orcr.db")
	db, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	loop := storetest.InsertLoop(t, db, map[string]any{"name": "nightly"})
	storetest.InsertRun(t, db, loop, map[string]any{"run_id": "r00001"})
	a, sa := usageAgent(t, db, "proj/a", "claude", "sonnet")
	b, sb := usageAgent(t, db, "proj/b/c", "codex", "")
	c, sc := usageAgent(t, db, "nightly/r00001/x", "claude", "")
	complete := func(db *store.DB, id string, seq int64, u store.TurnUsage) error {
		res, _, err := db.Apply([]store.Op{func(tx *store.Tx) (any, error) {
			return nil, tx.CompleteTurn(store.TurnCompletion{UUID: id, Seq: seq, IdleFrom: store.StatusWorking, Usage: &u})
		}})
		if err != nil {
			return err
		}
		return res[0].Err
	}
	for _, tc := range []struct {
		id  string
		seq int64
		u   store.TurnUsage
	}{
		{a, sa, store.TurnUsage{Input: 10, Output: 20, CacheRead: 30, CacheWrite: 40, CostMicros: micros(1500)}},
		{b, sb, store.TurnUsage{Input: 1, Output: 2, CacheRead: 3, Reasoning: 1, Model: "gpt-9"}},
		{c, sc, store.TurnUsage{Input: 100, Output: 200, Model: "claude-haiku-4-5", CostMicros: micros(1100)}},
	} {
		if err := complete(db, tc.id, tc.seq, tc.u); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	if db, err = store.Open(path); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := complete(db, a, sa, store.TurnUsage{Input: 999, CostMicros: micros(999)}); !errors.Is(err, store.ErrStale) {
		t.Errorf("completing the turn again: %v, want stale", err)
	}

	ctx := context.Background()
	report := func(q store.UsageQuery) store.UsageReport {
		t.Helper()
		before := db.Statements()
		r, err := store.ReadUsage(ctx, db.Reader(), q)
		if err != nil {
			t.Fatal(err)
		}
		if n := db.Statements() - before; n > 3 {
			t.Errorf("%+v: %d statements, want at most 3", q, n)
		}
		return r
	}
	all := report(store.UsageQuery{})
	wantTotal := store.UsageSum{Turns: 3, Input: 111, Output: 222, CacheRead: 33, CacheWrite: 40, Reasoning: 1, CostMicros: 2600, Unpriced: 1}
	if diff := cmp.Diff(store.UsageReport{Total: wantTotal, Unpriced: []string{"gpt-9"}}, all); diff != "" {
		t.Errorf("totals (-want +got):\n%s", diff)
	}
	keys := func(r store.UsageReport) map[string]int64 {
		m := map[string]int64{}
		for _, g := range r.Groups {
			m[g.Key] = g.Input
		}
		return m
	}
	// A since inside a day reads that day from the turns, one at a local midnight reads
	// whole days of usage_days alone.
	var first, last int64
	if err := db.Reader().QueryRow(`SELECT MIN(usage_at), MAX(usage_at) FROM turns`).Scan(&first, &last); err != nil {
		t.Fatal(err)
	}
	f := time.UnixMilli(first)
	midnight := time.Date(f.Year(), f.Month(), f.Day(), 0, 0, 0, 0, time.Local).UnixMilli()
	for _, tc := range []struct {
		q    store.UsageQuery
		want map[string]int64
	}{
		{store.UsageQuery{By: store.UsageByProvider}, map[string]int64{"claude": 110, "codex": 1}},
		{store.UsageQuery{By: store.UsageByProvider, Since: first}, map[string]int64{"claude": 110, "codex": 1}},
		{store.UsageQuery{By: store.UsageByProvider, Since: midnight}, map[string]int64{"claude": 110, "codex": 1}},
		{store.UsageQuery{By: store.UsageByProvider, Since: last + 1}, map[string]int64{}},
		{store.UsageQuery{By: store.UsageByModel}, map[string]int64{"sonnet": 10, "gpt-9": 1, "claude-haiku-4-5": 100}},
		{store.UsageQuery{By: store.UsageByLoop}, map[string]int64{"": 11, "nightly": 100}},
		{store.UsageQuery{By: store.UsageByPath}, map[string]int64{"proj": 11, "nightly": 100}},
		{store.UsageQuery{By: store.UsageByPath, Depth: 2}, map[string]int64{"proj/a": 10, "proj/b": 1, "nightly/r00001": 100}},
		{store.UsageQuery{By: store.UsageByPath, Depth: 5, Path: "proj/b"}, map[string]int64{"proj/b/c": 1}},
		{store.UsageQuery{By: store.UsageByAgent, Path: "proj"}, map[string]int64{a: 10, b: 1}},
		{store.UsageQuery{By: store.UsageByDay, Since: 1 << 50}, map[string]int64{}},
	} {
		if diff := cmp.Diff(tc.want, keys(report(tc.q))); diff != "" {
			t.Errorf("%+v (-want +got):\n%s", tc.q, diff)
		}
	}
	if g := report(store.UsageQuery{By: store.UsageByAgent, Path: "proj/a"}).Groups; len(g) != 1 || g[0].Path != "proj/a" || g[0].CostMicros != 1500 {
		t.Errorf("by agent under proj/a: %+v", g)
	}
	if d := report(store.UsageQuery{By: store.UsageByDay}).Groups; len(d) != 1 || d[0].Turns != 3 || len(d[0].Key) != len("2006-01-02") {
		t.Errorf("by day: %+v", d)
	}

	// The session log of the turn carries its usage before turn/end.
	var got map[string]any
	for _, e := range logOf(t, db, a) {
		if e.Type == store.LogUsageReported {
			got = logPayload(t, e)
		}
	}
	want := map[string]any{"input_seq": float64(sa), "input_tokens": 10.0, "output_tokens": 20.0, "cache_read_tokens": 30.0,
		"cache_write_tokens": 40.0, "reasoning_tokens": 0.0, "model": "sonnet", "cost_usd": 0.0015}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("usage/reported (-want +got):\n%s", diff)
	}
	// Each agent's row carries its totals, the stale repeat not counted; b's turn had no price.
	for id, want := range map[string]*api.AgentUsage{
		a: {Turns: 1, Tokens: 100, CostUSD: 0.0015},
		b: {Turns: 1, Tokens: 6, UnpricedTurns: 1},
	} {
		r, err := store.AgentByUUID(ctx, db.Reader(), id)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, r.Usage); diff != "" {
			t.Errorf("agent %s row's usage (-want +got):\n%s", r.Path, diff)
		}
	}
}

// Migrating to schema 12 (then 13, 14) sums the usage already recorded into usage_days and each
// agent's totals: a store whose turns were recorded before it reports what it reported
// before, and its rows carry their totals.
func TestUsageMigrationSumsRecordedTurns(t *testing.T) {
	t.Parallel()
	path := filepath.Join(storetest.Dir(t), "orcr.db")
	db, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	a, sa := usageAgent(t, db, "proj/a", "claude", "sonnet")
	b, sb := usageAgent(t, db, "proj/b", "codex", "")
	for _, c := range []struct {
		id  string
		seq int64
		u   store.TurnUsage
	}{
		{a, sa, store.TurnUsage{Input: 10, Output: 20, CacheRead: 30, CacheWrite: 40, CostMicros: micros(1500)}},
		{b, sb, store.TurnUsage{Input: 1, Output: 2, Reasoning: 1, Model: "gpt-9"}},
	} {
		storetest.Write(t, db, func(tx *store.Tx) (any, error) {
			return nil, tx.CompleteTurn(store.TurnCompletion{UUID: c.id, Seq: c.seq, IdleFrom: store.StatusWorking, Usage: &c.u})
		})
	}
	ctx := context.Background()
	want, err := store.ReadUsage(ctx, db.Reader(), store.UsageQuery{By: store.UsageByAgent})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	// Back to schema 11: the turns keep their usage, the sums are gone (and what the
	// later migrations add, which run again).
	raw, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`DROP TABLE usage_days; ALTER TABLE agents DROP COLUMN usage_turns;
		ALTER TABLE agents DROP COLUMN usage_tokens; ALTER TABLE agents DROP COLUMN usage_cost_micros;
		ALTER TABLE agents DROP COLUMN usage_unpriced; DROP TABLE quota_windows; DROP TABLE run_budgets;
		DROP TABLE budget_scopes; DROP INDEX agents_run_budget; DROP INDEX agents_budget_paused; DROP INDEX agents_ended; ALTER TABLE agents DROP COLUMN run_budget;
		ALTER TABLE agents DROP COLUMN budget_paused; ALTER TABLE inbox DROP COLUMN source;
		ALTER TABLE agents DROP COLUMN account;
		UPDATE meta SET value = '11' WHERE key = 'schema_version'`); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	if db, err = store.Open(path); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got, err := store.ReadUsage(ctx, db.Reader(), store.UsageQuery{By: store.UsageByAgent})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" || len(got.Groups) != 2 {
		t.Errorf("report after the migration (-before +after):\n%s", diff)
	}
	for id, want := range map[string]*api.AgentUsage{a: {Turns: 1, Tokens: 100, CostUSD: 0.0015}, b: {Turns: 1, Tokens: 3, UnpricedTurns: 1}} {
		r, err := store.AgentByUUID(ctx, db.Reader(), id)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, r.Usage); diff != "" {
			t.Errorf("%s's usage after the migration (-want +got):\n%s", r.Path, diff)
		}
	}
}
