package store_test

import (
	"context"
	"path/filepath"
	"strconv"
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

// budgetFixture is a store with rules and helpers to run agents' turns against them.
type budgetFixture struct {
	t  *testing.T
	db *store.DB
}

// agent enqueues n and settles it idle; n.Cwd and the rest are filled in.
func (f budgetFixture) agent(n store.NewAgent) string {
	f.t.Helper()
	n.UUID, n.GCMode, n.Cwd, n.Session = storetest.NewUUID(f.t), store.GCAuto, "/tmp", "orcr"
	storetest.Write(f.t, f.db, func(tx *store.Tx) (any, error) {
		if _, err := tx.Enqueue(n); err != nil {
			return nil, err
		}
		if _, err := tx.Exec(`UPDATE agents SET status = 'starting' WHERE uuid = ?`, n.UUID); err != nil {
			return nil, err
		}
		return nil, tx.SettleIdle(n.UUID)
	})
	return n.UUID
}

// open opens a turn of agent id (it works).
func (f budgetFixture) open(id string) int64 {
	f.t.Helper()
	return storetest.Write(f.t, f.db, func(tx *store.Tx) (any, error) {
		seq, _, err := tx.OpenTurn(id, store.InputStatuses)
		if err != nil {
			return nil, err
		}
		return seq, tx.LogInput(id, seq, store.SourceOrcr, "go")
	}).(int64)
}

// complete completes turn seq of agent id with tokens input tokens and returns the turns
// the completion cut.
func (f budgetFixture) complete(id string, seq, tokens int64) []store.BudgetCut {
	f.t.Helper()
	v := storetest.Write(f.t, f.db, func(tx *store.Tx) (any, error) {
		err := tx.CompleteTurn(store.TurnCompletion{UUID: id, Seq: seq, IdleFrom: store.StatusWorking,
			Usage: &store.TurnUsage{Input: tokens}})
		return tx.BudgetCuts(), err
	})
	cuts, _ := v.([]store.BudgetCut)
	return cuts
}

func (f budgetFixture) turn(id string, tokens int64) []store.BudgetCut {
	f.t.Helper()
	return f.complete(id, f.open(id), tokens)
}

func (f budgetFixture) paused(id string) string {
	f.t.Helper()
	a, err := store.LoadAgent(context.Background(), f.db.Reader(), id)
	if err != nil {
		f.t.Fatal(err)
	}
	return a.BudgetPaused
}

func (f budgetFixture) rows(rules []store.BudgetRule) []api.BudgetRow {
	f.t.Helper()
	rows, err := store.ReadBudgets(context.Background(), f.db.Reader(), rules, time.Now().UnixMilli())
	if err != nil {
		f.t.Fatal(err)
	}
	return rows
}

func (f budgetFixture) extend(b store.BudgetTarget, by api.BudgetLimit) (api.BudgetRow, []store.Resumed) {
	f.t.Helper()
	type out struct {
		row     api.BudgetRow
		resumed []store.Resumed
	}
	v := storetest.Write(f.t, f.db, func(tx *store.Tx) (any, error) {
		row, resumed, err := tx.ExtendBudget(b, by)
		return out{row, resumed}, err
	}).(out)
	return v.row, v.resumed
}

func anyTurn(string, string, string) bool { return true }

// A per-turn rule (docs/usage.md §8.1) holds each turn to the limit on its own: turns
// under it leave no trace however many, the one over it pauses its agent alone and is
// listed by budget ls, and extending through the agent raises that turn's scope and
// resumes it; the next turn starts from nothing.
func TestPerTurnBudget(t *testing.T) {
	f := budgetFixture{t, storetest.Open(t)}
	rules := []store.BudgetRule{{Name: "turn-cap", Limit: api.BudgetLimit{Tokens: 100}, Per: api.BudgetPerTurn, WarnAt: 0.9,
		Match: anyTurn}}
	f.db.SetBudgets(rules)
	a := f.agent(store.NewAgent{Path: "proj/a", Provider: "claude"})
	b := f.agent(store.NewAgent{Path: "proj/b", Provider: "claude"})
	for range 3 {
		f.turn(a, 60) // 180 in all: no single turn reaches 100
	}
	if p := f.paused(a); p != "" {
		t.Fatalf("a paused on %q with every turn under the per-turn limit", p)
	}
	if rows := f.rows(rules); len(rows) != 0 {
		t.Fatalf("rows %+v, want none: no turn reached warn_at", rows)
	}
	seq := f.open(a)
	f.complete(a, seq, 120)
	if p := f.paused(a); p != "turn-cap" {
		t.Fatalf("a paused on %q, want turn-cap after its 120-token turn", p)
	}
	f.turn(b, 50)
	if p := f.paused(b); p != "" {
		t.Fatalf("b paused on %q by a's turn", p)
	}
	scope := a + "#" + strconv.FormatInt(seq, 10)
	want := []api.BudgetRow{{Budget: "turn-cap", Scope: scope, Path: "proj/a", Unit: "tokens", Spent: 120, Limit: 100,
		WarnAt: 0.9, State: "exceeded", Paused: []string{"proj/a"}}}
	if diff := cmp.Diff(want, f.rows(rules)); diff != "" {
		t.Fatalf("budget rows (-want +got):\n%s", diff)
	}
	row, resumed := f.extend(store.BudgetTarget{Rule: &rules[0], Agent: a}, api.BudgetLimit{Tokens: 50})
	if row.Scope != scope || row.Limit != 150 || row.State != "ok" || len(resumed) != 1 || resumed[0].UUID != a {
		t.Fatalf("extend: %+v resumed %+v; want the turn's scope at 150, a resumed", row, resumed)
	}
	f.turn(a, 99)
	if p := f.paused(a); p != "" {
		t.Fatalf("a paused on %q by a 99-token turn after the extension", p)
	}
}

// An interrupt rule (docs/usage.md §8.3): the turn that reaches its limit pauses its
// agent, and every other running turn the rule counts is cut in the same transaction —
// paused, its session-log turn closed as cancelled, budget.exceeded interrupted, a cut for
// the keys — while an agent at rest and one the rule does not count are left alone. A
// rule without interrupt cuts nothing.
func TestInterruptBudgetCutsRunningTurns(t *testing.T) {
	f := budgetFixture{t, storetest.Open(t)}
	rules := []store.BudgetRule{
		{Name: "proj", Limit: api.BudgetLimit{Tokens: 100}, Per: api.BudgetTotal, WarnAt: 0.8, Interrupt: true,
			Match: func(path, _, _ string) bool { return strings.HasPrefix(path, "proj/") }},
		{Name: "other", Limit: api.BudgetLimit{Tokens: 100}, Per: api.BudgetTotal, WarnAt: 0.8,
			Match: func(path, _, _ string) bool { return strings.HasPrefix(path, "other/") }},
	}
	f.db.SetBudgets(rules)
	a := f.agent(store.NewAgent{Path: "proj/a", Provider: "claude"})
	b := f.agent(store.NewAgent{Path: "proj/b", Provider: "codex"})
	idle := f.agent(store.NewAgent{Path: "proj/idle", Provider: "claude"})
	out := f.agent(store.NewAgent{Path: "elsewhere/c", Provider: "claude"})
	o1 := f.agent(store.NewAgent{Path: "other/1", Provider: "claude"})
	o2 := f.agent(store.NewAgent{Path: "other/2", Provider: "claude"})
	sa, sb, sout := f.open(a), f.open(b), f.open(out)
	cuts := f.complete(a, sa, 150)
	if diff := cmp.Diff([]store.BudgetCut{{UUID: b, Provider: "codex"}}, cuts); diff != "" {
		t.Fatalf("cuts (-want +got):\n%s", diff)
	}
	for id, want := range map[string]string{a: "proj", b: "proj", idle: "", out: ""} {
		if p := f.paused(id); p != want {
			t.Errorf("%s paused on %q, want %q", id, p, want)
		}
	}
	var interrupted string
	var open bool
	if err := f.db.Reader().QueryRowContext(context.Background(), `SELECT COALESCE(group_concat(ref_uuid), '') FROM events
		WHERE kind = 'budget.exceeded' AND json_extract(payload_json, '$.interrupted') = 1`).Scan(&interrupted); err != nil {
		t.Fatal(err)
	}
	if interrupted != b {
		t.Errorf("budget.exceeded interrupted on %q, want b only", interrupted)
	}
	if err := f.db.Reader().QueryRowContext(context.Background(), `SELECT turn_start_seq IS NOT NULL FROM sessions
		WHERE agent_uuid = ?`, b).Scan(&open); err != nil {
		t.Fatal(err)
	}
	if open {
		t.Errorf("b's session log still works after its turn was cut")
	}
	// The cut turn's own completion still counts its tokens; b stays paused.
	f.complete(b, sb, 10)
	f.complete(out, sout, 500)
	if p := f.paused(b); p != "proj" {
		t.Errorf("b paused on %q after its cut turn completed, want proj", p)
	}
	// Without interrupt the other running turn finishes: paused at its own boundary.
	s2 := f.open(o2)
	if cuts := f.turn(o1, 150); len(cuts) != 0 {
		t.Fatalf("a rule without interrupt cut %+v", cuts)
	}
	if p := f.paused(o2); p != "" {
		t.Fatalf("o2 paused on %q mid-turn by a rule without interrupt", p)
	}
	f.complete(o2, s2, 1)
	if p := f.paused(o2); p != "other" {
		t.Fatalf("o2 paused on %q at its boundary, want other", p)
	}
}

// Run budgets nest (docs/usage.md §8.2): an agent spawned under a run budget with a
// budget of its own counts against both, and so does every agent it spawns. Its
// budget exceeded pauses its lineage only; the enclosing budget exceeded pauses the
// whole subtree, each agent at its boundary, and one extension resumes them all.
func TestNestedRunBudgets(t *testing.T) {
	f := budgetFixture{t, storetest.Open(t)}
	outer := f.agent(store.NewAgent{Path: "job", Provider: "claude", Budget: api.BudgetLimit{Tokens: 1000}})
	inner := f.agent(store.NewAgent{Path: "job/sub", ParentID: outer, Provider: "claude", Budget: api.BudgetLimit{Tokens: 100}})
	leaf := f.agent(store.NewAgent{Path: "job/sub/leaf", ParentID: inner, Provider: "claude"})
	sibling := f.agent(store.NewAgent{Path: "job/other", ParentID: outer, Provider: "codex"})
	f.turn(leaf, 120) // the inner budget's limit; the outer one at 120
	for id, want := range map[string]string{leaf: "run:job/sub", inner: "", outer: "", sibling: ""} {
		if p := f.paused(id); p != want {
			t.Errorf("after leaf's turn %s paused on %q, want %q", id, p, want)
		}
	}
	f.turn(sibling, 850) // 970 in the outer budget: warned
	f.turn(inner, 40)    // inner: its own budget is spent, outer reaches 1010
	if p := f.paused(inner); p != "run:job/sub" {
		t.Errorf("inner paused on %q, want its own budget", p)
	}
	rows := f.rows(nil)
	got := map[string]api.BudgetRow{}
	for _, r := range rows {
		got[r.Budget] = r
	}
	if r := got["run:job"]; r.Spent != 1010 || r.State != "exceeded" {
		t.Errorf("run:job %+v, want 1010 spent by the whole subtree, exceeded", r)
	}
	if r := got["run:job/sub"]; r.Spent != 160 || r.State != "exceeded" {
		t.Errorf("run:job/sub %+v, want 160 spent by its lineage only", r)
	}
	// The outer budget pauses the rest of the subtree at each one's next boundary.
	for _, id := range []string{outer, sibling} {
		name := storetest.Write(t, f.db, func(tx *store.Tx) (any, error) { return tx.QueueIfBudgetPaused(id, "hi", store.SourceOrcr, true) })
		if name != "run:job" {
			t.Errorf("%s at rest paused on %q, want run:job", id, name)
		}
	}
	_, resumed := f.extend(store.BudgetTarget{RunPath: "job"}, api.BudgetLimit{Tokens: 500})
	var paths []string
	for _, r := range resumed {
		paths = append(paths, r.Path)
	}
	if diff := cmp.Diff([]string{"job", "job/other"}, paths); diff != "" {
		t.Errorf("resumed (-want +got):\n%s", diff)
	}
	if p := f.paused(leaf); p != "run:job/sub" {
		t.Errorf("leaf paused on %q after the outer extension, want still its own budget", p)
	}
}

// A budget pause's id (docs/remote.md §7.1) is the seq of its budget/exceeded entry, read
// back after the store is closed and opened again; an Approve (a zero extension) raises
// the scope's limit to what is spent plus the limit once more, logs budget/resumed with
// the id and leaves no standing pause.
func TestBudgetPauseIDSurvivesAndApproveResumes(t *testing.T) {
	path := filepath.Join(storetest.Dir(t), "orcr.db")
	rules := []store.BudgetRule{{Name: "cap", Limit: api.BudgetLimit{Tokens: 100}, Per: api.BudgetTotal, WarnAt: 0.8, Match: anyTurn}}
	db, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	db.SetBudgets(rules)
	f := budgetFixture{t, db}
	a := f.agent(store.NewAgent{Path: "proj/a", Provider: "claude"})
	f.turn(a, 130)
	id, err := store.BudgetPauseID(context.Background(), db.Reader(), a)
	if err != nil || !store.IsBudgetPauseID(id) {
		t.Fatalf("pause id %q %v", id, err)
	}
	var typ string
	seq, _ := strconv.ParseInt(strings.TrimPrefix(id, store.BudgetPausePrefix), 10, 64)
	if err := db.Reader().QueryRowContext(context.Background(), `SELECT type FROM session_log WHERE agent_uuid = ? AND seq = ?`,
		a, seq).Scan(&typ); err != nil || typ != store.LogBudgetExceeded {
		t.Fatalf("entry %d of the log: %q %v, want budget/exceeded", seq, typ, err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if db, err = store.Open(path); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.SetBudgets(rules)
	f = budgetFixture{t, db}
	if again, err := store.BudgetPauseID(context.Background(), db.Reader(), a); err != nil || again != id {
		t.Fatalf("pause id after reopening %q %v, want %q", again, err, id)
	}
	row, resumed := f.extend(store.BudgetTarget{Rule: &rules[0]}, api.BudgetLimit{})
	if row.Limit != 230 || row.State != api.BudgetStateOK || len(resumed) != 1 {
		t.Fatalf("approve: %+v resumed %+v, want limit 130 + 100, ok, a resumed", row, resumed)
	}
	var p string
	if err := db.Reader().QueryRowContext(context.Background(), `SELECT payload_json FROM session_log WHERE agent_uuid = ?
		AND type = ?`, a, store.LogBudgetResumed).Scan(&p); err != nil || !strings.Contains(p, `"pause_id":"`+id+`"`) {
		t.Fatalf("budget/resumed %s %v, want pause_id %s", p, err, id)
	}
	if now, err := store.BudgetPauseID(context.Background(), db.Reader(), a); err != nil || now != "" {
		t.Fatalf("pause id after approve %q %v, want none", now, err)
	}
}

// Quota percent rules (docs/usage.md §8.1): each agent is counted against the window of
// its own account; the loops' rule pauses the loop's agent at 70% of the weekly window
// and stops the loop's fires while the interactive rule lets another agent of that
// account go on to 95%; an agent of another account over 95% pauses alone; extending
// through it resumes it; the window's next period is a new scope.
func TestQuotaPercentBudgetRules(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	ctx := context.Background()
	loop := storetest.InsertLoop(t, db, map[string]any{"name": "nightly"})
	storetest.InsertRun(t, db, loop, map[string]any{"run_id": "r00001"})
	codex := func(_, provider, _ string) bool { return provider == "codex" }
	rules := []store.BudgetRule{
		{Name: "night", Limit: api.BudgetLimit{Centipercent: 7000}, Per: api.BudgetTotal, WarnAt: 0.8, Window: api.BudgetWindow7d,
			Provider: "codex", Loop: "nightly",
			Match: func(_, provider, loop string) bool { return provider == "codex" && loop == "nightly" }},
		{Name: "all", Limit: api.BudgetLimit{Centipercent: 9500}, Per: api.BudgetTotal, WarnAt: 0.8, Window: api.BudgetWindow7d,
			Provider: "codex", Match: codex},
	}
	db.SetBudgets(rules)
	reset := time.Now().Add(24 * time.Hour).UnixMilli()
	agent := func(path, account string) (string, int64) {
		id, seq := usageAgent(t, db, path, "codex", "")
		storetest.Write(t, db, func(tx *store.Tx) (any, error) {
			return tx.Exec(`UPDATE agents SET account = ? WHERE uuid = ?`, account, id)
		})
		return id, seq
	}
	complete := func(id string, seq int64, weekly float64, reset int64) {
		t.Helper()
		storetest.Write(t, db, func(tx *store.Tx) (any, error) {
			return nil, tx.CompleteTurn(store.TurnCompletion{UUID: id, Seq: seq, IdleFrom: store.StatusWorking,
				Usage: &store.TurnUsage{Input: 1, Quota: []store.QuotaWindow{
					{Window: "primary", UsedPercent: 99, ResetsAt: reset}, // the 5h window: no rule watches it
					{Window: "secondary", UsedPercent: weekly, ResetsAt: reset}}}})
		})
	}
	paused := func(id string) string {
		t.Helper()
		a, err := store.LoadAgent(ctx, db.Reader(), id)
		if err != nil {
			t.Fatal(err)
		}
		return a.BudgetPaused
	}
	a, sa := agent("nightly/r00001/x", "ada@example.com")
	b, sb := agent("proj/b", "ada@example.com")
	c, sc := agent("proj/c", "/home/u/.codex")

	complete(a, sa, 75, reset) // the loop's agent at 75% ≥ 70%: paused on night
	complete(b, sb, 90, reset) // the same account at 90%: all warns (≥ 76%), nothing pauses b
	complete(c, sc, 96, reset) // another account at 96%: paused on all, alone
	if paused(a) != "night" || paused(b) != "" || paused(c) != "all" {
		t.Fatalf("paused a=%q b=%q c=%q, want night, none, all", paused(a), paused(b), paused(c))
	}
	if name := storetest.Write(t, db, func(tx *store.Tx) (any, error) { return tx.LoopBudgetSpent("nightly") }); name != "night" {
		t.Fatalf("LoopBudgetSpent(nightly) = %q, want night", name)
	}
	ada := "codex/ada@example.com#secondary@" + strconv.FormatInt(reset, 10)
	other := "codex//home/u/.codex#secondary@" + strconv.FormatInt(reset, 10)
	rows, err := store.ReadBudgets(ctx, db.Reader(), rules, time.Now().UnixMilli())
	if err != nil {
		t.Fatal(err)
	}
	want := []store.BudgetRow{
		{Budget: "night", Scope: other, Unit: "percent", Spent: 96, Limit: 70, WarnAt: 0.8, State: "exceeded", Paused: []string{}},
		{Budget: "night", Scope: ada, Unit: "percent", Spent: 90, Limit: 70, WarnAt: 0.8, State: "exceeded", Paused: []string{"nightly/r00001/x"}},
		{Budget: "all", Scope: other, Unit: "percent", Spent: 96, Limit: 95, WarnAt: 0.8, State: "exceeded", Paused: []string{"proj/c"}},
		{Budget: "all", Scope: ada, Unit: "percent", Spent: 90, Limit: 95, WarnAt: 0.8, State: "warned", Paused: []string{}},
	}
	if d := cmp.Diff(want, rows); d != "" {
		t.Fatalf("budget ls (-want +got):\n%s", d)
	}
	var kinds string
	if err := db.Reader().QueryRowContext(ctx, `SELECT group_concat(kind || ' ' || json_extract(payload_json, '$.budget'), ', ')
		FROM events WHERE kind LIKE 'budget.%'`).Scan(&kinds); err != nil {
		t.Fatal(err)
	}
	if want := "budget.exceeded night, budget.warned all, budget.exceeded all"; kinds != want {
		t.Fatalf("budget events %q, want %q", kinds, want)
	}

	// Extending through the paused agent raises its account's scope and resumes it.
	res, _, err := db.Apply([]store.Op{func(tx *store.Tx) (any, error) {
		_, _, err := tx.ExtendBudget(store.BudgetTarget{Rule: &rules[1], Agent: c}, api.BudgetLimit{Tokens: 5})
		return nil, err
	}})
	if err == nil {
		err = res[0].Err
	}
	if err == nil || !strings.Contains(err.Error(), "counts percent, not tokens") {
		t.Fatalf("a token extension of a percent budget: %v", err)
	}
	got := storetest.Write(t, db, func(tx *store.Tx) (any, error) {
		row, resumed, err := tx.ExtendBudget(store.BudgetTarget{Rule: &rules[1], Agent: c}, api.BudgetLimit{Centipercent: 200})
		return []any{row, resumed}, err
	}).([]any)
	if row := got[0].(store.BudgetRow); row.Scope != other || row.Limit != 97 || row.State != "warned" ||
		len(got[1].([]store.Resumed)) != 1 || paused(c) != "" {
		t.Fatalf("extend all through c: %+v, want limit 97 warned and c resumed", got)
	}

	resumeResets := func() []store.Resumed {
		t.Helper()
		r, _ := storetest.Write(t, db, func(tx *store.Tx) (any, error) { return tx.ResumeQuotaResets() }).([]store.Resumed)
		return r
	}
	if r := resumeResets(); len(r) != 0 {
		t.Fatalf("ResumeQuotaResets with ada's window still at 90%%: resumed %+v", r)
	}

	// The window's next period is a new scope: the loops' rule is ok again for ada.
	sb2 := storetest.Write(t, db, func(tx *store.Tx) (any, error) {
		seq, _, err := tx.OpenTurn(b, store.InputStatuses)
		return seq, err
	}).(int64)
	complete(b, sb2, 5, reset+7*24*3600*1000)
	if name := storetest.Write(t, db, func(tx *store.Tx) (any, error) { return tx.LoopBudgetSpent("nightly") }); name != "night" {
		t.Fatalf("LoopBudgetSpent after ada's reset = %q: the other account's window is still at 96%%", name)
	}
	if rows, err = store.ReadBudgets(ctx, db.Reader(), rules, time.Now().UnixMilli()); err != nil {
		t.Fatal(err)
	}
	if r := rows[1]; r.Budget != "night" || !strings.HasPrefix(r.Scope, "codex/ada@example.com#secondary@") || r.Scope == ada ||
		r.Spent != 5 || r.State != "ok" {
		t.Fatalf("night for ada after the reset: %+v, want a new scope at 5%%, ok", r)
	}
	// ...so the queue pass lifts the loop agent's pause, in the new period's scope.
	if r := resumeResets(); len(r) != 1 || r[0].UUID != a || paused(a) != "" {
		t.Fatalf("ResumeQuotaResets after ada's next period at 5%%: %+v, a paused on %q; want a resumed", r, paused(a))
	}

	// c's account reaches the extended 97% and pauses again; once its reset is past
	// (spent 0, no report since) the pass resumes it, and nothing else.
	sc2 := storetest.Write(t, db, func(tx *store.Tx) (any, error) {
		seq, _, err := tx.OpenTurn(c, store.InputStatuses)
		return seq, err
	}).(int64)
	complete(c, sc2, 98, reset)
	if paused(c) != "all" {
		t.Fatalf("c at 98%% of an extended 97%%: paused on %q, want all", paused(c))
	}
	if r := resumeResets(); len(r) != 0 {
		t.Fatalf("ResumeQuotaResets before c's reset: %+v", r)
	}
	past := time.Now().Add(-time.Second).UnixMilli()
	storetest.Write(t, db, func(tx *store.Tx) (any, error) {
		return tx.Exec(`UPDATE quota_windows SET resets_at = ? WHERE account = '/home/u/.codex'`, past)
	})
	if r := resumeResets(); len(r) != 1 || r[0].Path != "proj/c" || paused(c) != "" {
		t.Fatalf("ResumeQuotaResets after c's reset: %+v, c paused on %q; want c resumed", r, paused(c))
	}
	var scope string
	if err := db.Reader().QueryRowContext(ctx, `SELECT json_extract(payload_json, '$.scope') FROM events
		WHERE kind = 'budget.resumed' AND ref_uuid = ? ORDER BY seq DESC LIMIT 1`, c).Scan(&scope); err != nil ||
		scope != "codex//home/u/.codex#secondary@"+strconv.FormatInt(past, 10) {
		t.Fatalf("c's budget.resumed scope %q (%v), want the window's period that ended", scope, err)
	}
}
