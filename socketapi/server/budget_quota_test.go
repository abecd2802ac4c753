package server_test

import (
	"context"
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
	cfg := sockettest.WithConfig(`{"budgets":{"q":{"path":"q/**","limit":"70%","window":"5h","warn_at":0.5}}}`)
	srv := sockettest.NewServer(t, sockettest.WithHerdr(t), cfg)
	c := srv.Client(t)
	rec := record(t, c)
	ctx := context.Background()
	a := runOK(t, c, map[string]any{"path": "q/one", "prompt": "say=a tokens=1,0"})
	rec.waitFor(t, 30*time.Second, "the first turn", func(evs []ev) bool {
		return countEvents(evs, "agent.turn_completed", a.UUID) == 1
	})
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
