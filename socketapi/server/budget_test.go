package server_test

// Budgets (docs/usage.md §7) against the herdr stand-in and the mock agent's tokens=
// directive, which makes each turn report exact usage: a budget warns at warn_at and
// pauses its agent exactly at the turn that reaches its limit; a send during the pause
// waits in the inbox, across a server restart, and is delivered after budget.extend; a
// run budget counts the agents its agent spawns.

import (
	"context"
	"testing"
	"time"

	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/socketapi/sockettest"
)

// sendTurn sends prompt to uuid and waits until its turn n completed.
func sendTurn(t *testing.T, c *socketapi.Client, rec *recorder, uuid, prompt string, n int) api.SendResult {
	t.Helper()
	var res api.SendResult
	if err := c.Call(context.Background(), "agent.send", map[string]any{"target": uuid, "prompt": prompt}, &res); err != nil {
		t.Fatalf("agent.send %q: %v", prompt, err)
	}
	rec.waitFor(t, 30*time.Second, "turn completed", func(evs []ev) bool {
		return countEvents(evs, "agent.turn_completed", uuid) >= n
	})
	return res
}

// budgetPaused is uuid's budget_paused.
func budgetPaused(t *testing.T, c *socketapi.Client, uuid string) string {
	t.Helper()
	var res struct{ Agents []api.AgentRow }
	if err := c.Call(context.Background(), "agent.ls", map[string]any{"pattern": uuid}, &res); err != nil || len(res.Agents) != 1 {
		t.Fatalf("agent.ls %s: %+v %v", uuid, res, err)
	}
	if p := res.Agents[0].BudgetPaused; p != nil {
		return *p
	}
	return ""
}

// isReason reports whether err is invalid_request with reason.
func isReason(err error, reason string) bool {
	pe, ok := wire.As(err)
	return ok && pe.Code == wire.InvalidRequest && pe.Reason() == reason
}

func budgets(t *testing.T, c *socketapi.Client) []api.BudgetRow {
	t.Helper()
	var res api.BudgetLsResult
	if err := c.Call(context.Background(), "budget.ls", nil, &res); err != nil {
		t.Fatalf("budget.ls: %v", err)
	}
	return res.Budgets
}

func TestBudgetPausesAtTheCrossingTurnAndExtendDelivers(t *testing.T) {
	t.Parallel()
	home := sockettest.TempHome(t)
	withHerdr := sockettest.WithHerdr(t)
	cfg := sockettest.WithConfig(`{"budgets":{"cap":{"path":"bud/**","limit":"250","per":"agent","warn_at":0.5}}}`)
	srv1 := sockettest.NewServer(t, withHerdr, sockettest.WithHome(home), cfg)
	c := srv1.Client(t)
	rec := record(t, c)
	a := runOK(t, c, map[string]any{"path": "bud/one", "prompt": "say=a tokens=100,0"})
	rec.waitFor(t, 30*time.Second, "the first turn", func(evs []ev) bool {
		return countEvents(evs, "agent.turn_completed", a.UUID) == 1
	})
	if n := countEvents(rec.events(), "budget.warned", a.UUID); n != 0 {
		t.Fatalf("100 of 250 tokens warned")
	}
	sendTurn(t, c, rec, a.UUID, "say=b tokens=20,30", 2) // 150: past warn_at 0.5
	evs := rec.events()
	if countEvents(evs, "budget.warned", a.UUID) != 1 || countEvents(evs, "budget.exceeded", a.UUID) != 0 {
		t.Fatalf("at 150 of 250: want one budget.warned and no budget.exceeded")
	}
	if p := budgetPaused(t, c, a.UUID); p != "" {
		t.Fatalf("paused on %q below the limit", p)
	}
	sendTurn(t, c, rec, a.UUID, "say=c tokens=100,0", 3) // 250: the limit
	evs = rec.events()
	if countEvents(evs, "budget.exceeded", a.UUID) != 1 {
		t.Fatalf("at 250 of 250: no budget.exceeded")
	}
	if p := budgetPaused(t, c, a.UUID); p != "cap" {
		t.Fatalf("budget_paused %q after the crossing turn, want cap", p)
	}
	waitStatus(t, c, a.UUID, "idle")

	// A send while paused types nothing: it waits in the inbox.
	var queued api.SendResult
	if err := c.Call(context.Background(), "agent.send", map[string]any{"target": a.UUID, "prompt": "say=after tokens=1,0"},
		&queued); err != nil || queued.Queued != api.QueuedBudget || queued.InputSeq != 0 {
		t.Fatalf("send while paused: %+v %v, want queued on the budget", queued, err)
	}
	if n := countEvents(rec.events(), "agent.input_requested", a.UUID); n != 3 {
		t.Fatalf("%d inputs requested, want the 3 turns before the pause", n)
	}

	// The pause and the queued send survive a restart.
	srv1.Stop()
	if err := srv1.Wait(); err != nil {
		t.Fatal(err)
	}
	srv2 := sockettest.NewServer(t, withHerdr, sockettest.WithHome(home), cfg)
	c2 := srv2.Client(t)
	rec2 := record(t, c2)
	if p := budgetPaused(t, c2, a.UUID); p != "cap" {
		t.Fatalf("after the restart: budget_paused %q, want cap", p)
	}
	bs := budgets(t, c2)
	if len(bs) != 1 || bs[0].Budget != "cap" || bs[0].Spent != 250 || bs[0].Limit != 250 || bs[0].State != api.BudgetStateExceeded ||
		len(bs[0].Paused) != 1 || bs[0].Paused[0] != "bud/one" || bs[0].Unit != api.BudgetUnitTokens {
		t.Fatalf("budget.ls after the restart: %+v", bs)
	}

	// A wrong unit changes nothing; the right one resumes and delivers.
	extendResumes(t, c2, rec2, a.UUID, "bud/one", "1usd", "100", 350, 4)
	if bs := budgets(t, c2); len(bs) != 1 || bs[0].Spent != 251 {
		t.Fatalf("budget.ls after the queued turn: %+v, want 251 spent", bs)
	}
}

// A run budget counts the turns of the agents its agent spawns (lineage by parent_id):
// the child's turn that brings the lineage to the limit pauses the child, and the idle
// parent at its next send; the extension resumes both and delivers the queued send.
func TestRunBudgetCountsTheSpawnedAgents(t *testing.T) {
	t.Parallel()
	srv := sockettest.NewServer(t, sockettest.WithHerdr(t))
	c := srv.Client(t)
	rec := record(t, c)
	if _, err := run(t, c, map[string]any{"path": "rb/bad", "budget": "2eur"}); !isReason(err, "invalid_budget") {
		t.Fatalf("agent.run budget 2eur: %v, want invalid_budget", err)
	}
	parent := runOK(t, c, map[string]any{"path": "rb/parent", "prompt": "say=p tokens=100,0", "budget": "150"})
	rec.waitFor(t, 30*time.Second, "the parent's turn", func(evs []ev) bool {
		return countEvents(evs, "agent.turn_completed", parent.UUID) == 1
	})
	child := runOK(t, c, map[string]any{"name": "child", "prompt": "say=c tokens=30,30", "caller_id": parent.UUID,
		"caller_path": "rb/parent"})
	rec.waitFor(t, 30*time.Second, "the child's turn", func(evs []ev) bool {
		return countEvents(evs, "agent.turn_completed", child.UUID) == 1
	})
	if p := budgetPaused(t, c, child.UUID); p != "run:rb/parent" {
		t.Fatalf("the child at 160 of the parent's 150: budget_paused %q, want run:rb/parent", p)
	}
	if p := budgetPaused(t, c, parent.UUID); p != "" {
		t.Fatalf("the parent paused (%q) before its next turn boundary", p)
	}
	// The idle parent is at a boundary: a send to it finds the budget spent and queues.
	var queued api.SendResult
	if err := c.Call(context.Background(), "agent.send", map[string]any{"target": parent.UUID, "prompt": "say=later"},
		&queued); err != nil || queued.Queued != api.QueuedBudget {
		t.Fatalf("send to the idle parent of a spent budget: %+v %v, want queued", queued, err)
	}
	if p := budgetPaused(t, c, parent.UUID); p != "run:rb/parent" {
		t.Fatalf("the parent after the send: budget_paused %q, want run:rb/parent", p)
	}
	bs := budgets(t, c)
	if len(bs) != 1 || bs[0].Budget != "run:rb/parent" || bs[0].Spent != 160 || bs[0].Limit != 150 ||
		len(bs[0].Paused) != 2 || bs[0].Paused[0] != "rb/child" || bs[0].Paused[1] != "rb/parent" {
		t.Fatalf("budget.ls: %+v", bs)
	}
	var ext api.BudgetExtendResult
	if err := c.Call(context.Background(), "budget.extend", map[string]any{"target": "run:rb/parent", "by": "1k"}, &ext); err != nil ||
		len(ext.Resumed) != 2 || ext.Resumed[1] != "rb/parent" || ext.Budget.State != api.BudgetStateOK {
		t.Fatalf("budget.extend run:rb/parent: %+v %v", ext, err)
	}
	rec.waitFor(t, 30*time.Second, "the parent's queued prompt answered", func(evs []ev) bool {
		return countEvents(evs, "agent.turn_completed", parent.UUID) == 2
	})
}

// An interrupt rule (docs/usage.md §8.3) cuts the other running turn it counts: b's
// minute-long turn ends within the test's deadline once a's turn reaches the limit, b is
// paused with budget.exceeded, and a send to it waits in the inbox until an extension.
func TestInterruptBudgetCutsTheRunningTurn(t *testing.T) {
	t.Parallel()
	cfg := sockettest.WithConfig(`{"budgets":{"cut":{"path":"cut/**","limit":"100","interrupt":true}}}`)
	srv := sockettest.NewServer(t, sockettest.WithHerdr(t), cfg)
	c := srv.Client(t)
	rec := record(t, c)
	b := runOK(t, c, map[string]any{"path": "cut/long", "prompt": "say=long turn_ms=120000 tokens=5,0"})
	waitStatus(t, c, b.UUID, "working")
	a := runOK(t, c, map[string]any{"path": "cut/short", "prompt": "say=short tokens=150,0"})
	rec.waitFor(t, 30*time.Second, "the long turn cut", func(evs []ev) bool {
		return countEvents(evs, "agent.turn_completed", a.UUID) == 1 && countEvents(evs, "agent.turn_completed", b.UUID) == 1
	})
	for _, id := range []string{a.UUID, b.UUID} {
		if p := budgetPaused(t, c, id); p != "cut" {
			t.Fatalf("%s: budget_paused %q, want cut", id, p)
		}
		if n := countEvents(rec.events(), "budget.exceeded", id); n != 1 {
			t.Fatalf("%s: %d budget.exceeded, want 1", id, n)
		}
	}
	waitStatus(t, c, b.UUID, "idle")
	var queued api.SendResult
	if err := c.Call(context.Background(), "agent.send", map[string]any{"target": b.UUID, "prompt": "say=again tokens=1,0"},
		&queued); err != nil || queued.Queued != api.QueuedBudget {
		t.Fatalf("send to the cut agent: %+v %v, want queued on the budget", queued, err)
	}
	var ext api.BudgetExtendResult
	if err := c.Call(context.Background(), "budget.extend", map[string]any{"target": "cut", "by": "1k"}, &ext); err != nil ||
		len(ext.Resumed) != 2 {
		t.Fatalf("budget.extend cut: %+v %v", ext, err)
	}
	rec.waitFor(t, 30*time.Second, "the queued prompt answered", func(evs []ev) bool {
		return countEvents(evs, "agent.turn_completed", b.UUID) == 2
	})
}

// Nested run budgets (docs/usage.md §8.2): a child spawned from inside a budgeted agent
// (caller_id, as ORCR_ID sets it) with a budget of its own, and a grandchild it spawns,
// count against the child's budget and the parent's; the parent's counts the subtree.
// The child's spent pauses its lineage only; the parent's sibling branch goes on.
func TestNestedRunBudgetsCountTheSubtree(t *testing.T) {
	t.Parallel()
	srv := sockettest.NewServer(t, sockettest.WithHerdr(t))
	c := srv.Client(t)
	rec := record(t, c)
	parent := runOK(t, c, map[string]any{"path": "nest/top", "prompt": "say=p tokens=10,0", "budget": "1k"})
	rec.waitFor(t, 30*time.Second, "the parent's turn", func(evs []ev) bool {
		return countEvents(evs, "agent.turn_completed", parent.UUID) == 1
	})
	child := runOK(t, c, map[string]any{"name": "sub", "prompt": "say=c tokens=20,0", "budget": "100",
		"caller_id": parent.UUID, "caller_path": "nest/top"})
	rec.waitFor(t, 30*time.Second, "the child's turn", func(evs []ev) bool {
		return countEvents(evs, "agent.turn_completed", child.UUID) == 1
	})
	grand := runOK(t, c, map[string]any{"name": "leaf", "prompt": "say=g tokens=90,0", "caller_id": child.UUID,
		"caller_path": "nest/sub"})
	other := runOK(t, c, map[string]any{"name": "other", "prompt": "say=o tokens=5,0", "caller_id": parent.UUID,
		"caller_path": "nest/top"})
	rec.waitFor(t, 30*time.Second, "the grandchild's and the sibling's turns", func(evs []ev) bool {
		return countEvents(evs, "agent.turn_completed", grand.UUID) == 1 && countEvents(evs, "agent.turn_completed", other.UUID) == 1
	})
	got := map[string]api.BudgetRow{}
	for _, b := range budgets(t, c) {
		got[b.Budget] = b
	}
	if b := got["run:nest/top"]; b.Spent != 125 || b.State != api.BudgetStateOK {
		t.Errorf("run:nest/top %+v, want 125 spent by the whole subtree", b)
	}
	if b := got["run:nest/sub"]; b.Spent != 110 || b.State != api.BudgetStateExceeded {
		t.Errorf("run:nest/sub %+v, want 110 spent by its lineage, exceeded", b)
	}
	if p := budgetPaused(t, c, grand.UUID); p != "run:nest/sub" {
		t.Errorf("the grandchild paused on %q, want run:nest/sub", p)
	}
	sendTurn(t, c, rec, other.UUID, "say=more tokens=5,0", 2)
	if p := budgetPaused(t, c, other.UUID); p != "" {
		t.Errorf("the sibling branch paused on %q by the child's budget", p)
	}
}
