package store_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/store"
	"github.com/orcr-go/orcr/store/storetest"
)

// Config rules counted in the completion's transaction (docs/usage.md §7): a cost rule
// per day on one provider and a token rule in total on one loop. Cache reads count no
// tokens; a turn of another provider or outside the loop counts nothing; the scope warns
// once, then the turn that reaches the limit pauses its agent and no other, and the
// loop's spent budget stops its fires.
func TestBudgetRulesCountTheirTurns(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	loop := storetest.InsertLoop(t, db, map[string]any{"name": "nightly"})
	storetest.InsertRun(t, db, loop, map[string]any{"run_id": "r00001"})
	rules := []store.BudgetRule{
		{Name: "claude-day", Limit: api.BudgetLimit{CostMicros: 1000}, Per: api.BudgetPerDay, WarnAt: 0.5,
			Match: func(_, provider, _ string) bool { return provider == "claude" }},
		{Name: "nightly", Limit: api.BudgetLimit{Tokens: 100}, Per: api.BudgetTotal, WarnAt: 0.8,
			Match: func(_, _, loop string) bool { return loop == "nightly" }, Loop: "nightly"},
	}
	db.SetBudgets(rules)
	complete := func(id string, seq int64, u store.TurnUsage) {
		t.Helper()
		storetest.Write(t, db, func(tx *store.Tx) (any, error) {
			return nil, tx.CompleteTurn(store.TurnCompletion{UUID: id, Seq: seq, IdleFrom: store.StatusWorking, Usage: &u})
		})
	}
	paused := func(id string) string {
		t.Helper()
		a, err := store.LoadAgent(context.Background(), db.Reader(), id)
		if err != nil {
			t.Fatal(err)
		}
		return a.BudgetPaused
	}
	a, sa := usageAgent(t, db, "proj/a", "claude", "sonnet")
	b, sb := usageAgent(t, db, "proj/b", "codex", "")
	c, sc := usageAgent(t, db, "nightly/r00001/x", "claude", "")
	complete(b, sb, store.TurnUsage{Input: 500, Output: 500, CostMicros: micros(5000)}) // codex: neither rule
	complete(a, sa, store.TurnUsage{Input: 10, CacheRead: 1000, CostMicros: micros(600)})
	complete(c, sc, store.TurnUsage{Input: 50, Output: 40, CacheRead: 10000, CostMicros: micros(300)})
	if paused(a) != "" || paused(b) != "" || paused(c) != "" {
		t.Fatalf("paused below every limit: %q %q %q", paused(a), paused(b), paused(c))
	}
	rows, err := store.ReadBudgets(context.Background(), db.Reader(), rules, time.Now().UnixMilli())
	if err != nil {
		t.Fatal(err)
	}
	day := time.Now().Format(time.DateOnly)
	want := []api.BudgetRow{
		{Budget: "claude-day", Scope: day, Unit: "usd", Spent: 0.0009, Limit: 0.001, WarnAt: 0.5, State: "warned", Paused: []string{}},
		{Budget: "nightly", Unit: "tokens", Spent: 90, Limit: 100, WarnAt: 0.8, State: "warned", Paused: []string{}},
	}
	if diff := cmp.Diff(want, rows); diff != "" {
		t.Fatalf("budget rows (-want +got):\n%s", diff)
	}
	// c's next turn (10 tokens, $0.0001) reaches both limits: c pauses, a does not yet.
	seq := storetest.Write(t, db, func(tx *store.Tx) (any, error) {
		s, _, err := tx.OpenTurn(c, store.InputStatuses)
		return s, err
	}).(int64)
	complete(c, seq, store.TurnUsage{Input: 5, Output: 5, CostMicros: micros(100)})
	if p := paused(c); p != "claude-day" && p != "nightly" {
		t.Fatalf("c paused on %q at both limits", p)
	}
	if p := paused(a); p != "" {
		t.Fatalf("a paused on %q before its next turn boundary", p)
	}
	// The loop's spent budget stops its fires; another loop's do not stop.
	for loop, want := range map[string]string{"nightly": "nightly", "weekly": ""} {
		got := storetest.Write(t, db, func(tx *store.Tx) (any, error) { return tx.LoopBudgetSpent(loop) }).(string)
		if got != want {
			t.Errorf("LoopBudgetSpent(%s) = %q, want %q", loop, got, want)
		}
	}
	var kinds string
	if err := db.Reader().QueryRowContext(context.Background(), `SELECT group_concat(kind, ' ') FROM events`).Scan(&kinds); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(kinds, "budget.warned"); n != 2 {
		t.Errorf("%d budget.warned, want one per rule (events %s)", n, kinds)
	}
	if n := strings.Count(kinds, "budget.exceeded"); n != 1 {
		t.Errorf("%d budget.exceeded, want one: the agent pauses once (events %s)", n, kinds)
	}
}
