package server_test

import (
	"context"
	"database/sql"
	"strconv"
	"testing"
	"time"

	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/sockettest"
)

// A quota percent budget rule (docs/usage.md §8.1) over the socket: the agent's account
// window, reported through quota.record, warns the rule at warn_at on the next turn's
// completion; at 75% of a 70% rule a send to the agent at rest pauses it and waits in the
// inbox; budget.ls shows the window's scope in percent; a token extension is refused and
// `--by 10%` resumes the agent and delivers the send.
func TestQuotaPercentBudgetPausesAndExtendDelivers(t *testing.T) {
	t.Parallel()
	_, c, rec, a := quotaRuleAgent(t, `{"q":{"path":"q/**","limit":"70%","window":"5h","warn_at":0.5}}`)
	ctx := context.Background()
	reset := time.Now().Add(3 * time.Hour).UnixMilli()
	window := func(used float64) {
		t.Helper()
		if err := c.Call(ctx, "quota.record", map[string]any{"provider": "mock", "agent": a.UUID, "windows": []any{
			map[string]any{"window": "five_hour", "used_percent": used, "window_minutes": 300, "resets_at": reset},
			map[string]any{"window": "seven_day", "used_percent": 99, "window_minutes": 10080, "resets_at": reset}}}, nil); err != nil {
			t.Fatalf("quota.record %v%%: %v", used, err)
		}
	}
	window(40)
	sendTurn(t, c, rec, a.UUID, "say=b tokens=1,0", 2) // 40% ≥ 0.5 × 70%: warned
	if evs := rec.events(); countEvents(evs, "budget.warned", a.UUID) != 1 || countEvents(evs, "budget.exceeded", a.UUID) != 0 {
		t.Fatalf("at 40%% of a 70%% rule: want one budget.warned, no budget.exceeded")
	}
	window(75)
	var queued api.SendResult
	if err := c.Call(ctx, "agent.send", map[string]any{"target": a.UUID, "prompt": "say=after tokens=1,0"}, &queued); err != nil ||
		queued.Queued != api.QueuedBudget {
		t.Fatalf("send at 75%%: %+v %v, want queued on the budget", queued, err)
	}
	if p := budgetPaused(t, c, a.UUID); p != "q" {
		t.Fatalf("budget_paused %q at 75%%, want q", p)
	}
	bs := budgets(t, c)
	scope := "mock/#five_hour@" + strconv.FormatInt(reset, 10)
	if len(bs) != 1 || bs[0].Budget != "q" || bs[0].Scope != scope || bs[0].Unit != api.BudgetUnitPercent || bs[0].Spent != 75 ||
		bs[0].Limit != 70 || bs[0].State != api.BudgetStateExceeded || len(bs[0].Paused) != 1 || bs[0].Paused[0] != "q/one" {
		t.Fatalf("budget.ls: %+v, want q's five_hour scope exceeded at 75 of 70 percent, q/one paused", bs)
	}

	extendResumes(t, c, rec, a.UUID, "q/one", "1k", "10%", 80, 3)
}

// extendResumes extends the budget that paused agent uuid at path by by, after checking
// that an amount in another unit (wrong) is refused as invalid_budget: the scope's limit
// becomes limit (warned), the agent is resumed and its queued send is delivered, its
// completed turns reaching turns.
func extendResumes(t *testing.T, c *socketapi.Client, rec *recorder, uuid, path, wrong, by string, limit float64, turns int) {
	t.Helper()
	target := path
	var ext api.BudgetExtendResult
	err := c.Call(context.Background(), "budget.extend", map[string]any{"target": target, "by": wrong}, &ext)
	if !isReason(err, "invalid_budget") {
		t.Fatalf("extend %s by %s: %v, want invalid_budget", target, wrong, err)
	}
	if err := c.Call(context.Background(), "budget.extend", map[string]any{"target": target, "by": by}, &ext); err != nil {
		t.Fatalf("budget.extend %s by %s: %v", target, by, err)
	}
	if ext.Budget.Limit != limit || ext.Budget.State != api.BudgetStateWarned || len(ext.Resumed) != 1 || ext.Resumed[0] != path {
		t.Fatalf("budget.extend: %+v, want limit %v, warned, %s resumed", ext, limit, path)
	}
	rec.waitFor(t, 30*time.Second, "the queued send delivered and completed", func(evs []ev) bool {
		return countEvents(evs, "agent.turn_completed", uuid) >= turns
	})
	if p := budgetPaused(t, c, uuid); p != "" {
		t.Fatalf("paused on %q after the extension", p)
	}
}

// A quota percent rule's pause lifts itself when the window resets (docs/usage.md §8.1):
// paused at 75% of a 70% rule, the agent stays paused while a later report puts the
// same 75% in a period ending two seconds on; once that reset is past the queue pass
// resumes it — budget.resumed no earlier than the reset — and delivers the send that
// waited, with no budget extend.
func TestQuotaPercentPauseLiftsAtTheWindowReset(t *testing.T) {
	t.Parallel()
	srv, c, rec, a := quotaRuleAgent(t, `{"q":{"path":"q/**","limit":"70%","window":"5h"}}`)
	ctx := context.Background()
	window := func(used float64, reset int64) {
		t.Helper()
		if err := c.Call(ctx, "quota.record", map[string]any{"provider": "mock", "agent": a.UUID, "windows": []any{
			map[string]any{"window": "five_hour", "used_percent": used, "window_minutes": 300, "resets_at": reset}}}, nil); err != nil {
			t.Fatalf("quota.record %v%%: %v", used, err)
		}
	}
	window(75, time.Now().Add(time.Hour).UnixMilli())
	var queued api.SendResult
	if err := c.Call(ctx, "agent.send", map[string]any{"target": a.UUID, "prompt": "say=after tokens=1,0"}, &queued); err != nil ||
		queued.Queued != api.QueuedBudget {
		t.Fatalf("send at 75%%: %+v %v, want queued on the budget", queued, err)
	}
	reset := time.Now().Add(2 * time.Second).UnixMilli()
	window(75, reset)
	rec.waitFor(t, 60*time.Second, "the pause lifted at the reset and the send delivered", func(evs []ev) bool {
		return countEvents(evs, "agent.turn_completed", a.UUID) >= 2
	})
	// The session log's budget/resumed entry says when the pause lifted.
	db, err := sql.Open("sqlite", "file:"+srv.Home+"/orcr.db?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var resumedUS int64
	if err := db.QueryRow(`SELECT at_us FROM session_log WHERE agent_uuid = ? AND type = 'budget/resumed'`, a.UUID).
		Scan(&resumedUS); err != nil || resumedUS/1000 < reset {
		t.Fatalf("budget/resumed at %d µs (%v), want one at the window's reset %d ms or later", resumedUS, err, reset)
	}
	if countEvents(rec.events(), "budget.resumed", a.UUID) != 1 {
		t.Fatalf("want one budget.resumed event for the agent")
	}
	if n := countEvents(rec.events(), "budget.extended", ""); n != 0 {
		t.Fatalf("%d budget.extended events: the pause lifted itself", n)
	}
	if p := budgetPaused(t, c, a.UUID); p != "" {
		t.Fatalf("still paused on %q after the reset", p)
	}
}

// quotaRuleAgent starts a server with the budget rules budgets and a mock agent q/one
// whose first turn has completed.
func quotaRuleAgent(t *testing.T, budgets string) (*sockettest.Server, *socketapi.Client, *recorder, agentRow) {
	t.Helper()
	srv := sockettest.NewServer(t, sockettest.WithHerdr(t), sockettest.WithConfig(`{"budgets":`+budgets+`}`))
	c := srv.Client(t)
	rec := record(t, c)
	a := runOK(t, c, map[string]any{"path": "q/one", "prompt": "say=a tokens=1,0"})
	rec.waitFor(t, 30*time.Second, "the first turn", func(evs []ev) bool {
		return countEvents(evs, "agent.turn_completed", a.UUID) == 1
	})
	return srv, c, rec, a
}
