package tests

import (
	"context"
	"github.com/orcr-go/orcr/tests/poll"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/api"
)

// A budget's pause through the real binary, across kill -9 of the server
// (docs/usage.md §7): `agent run --budget 100` whose first turn reports exactly 100
// tokens (the mock's tokens=) is paused at that turn; `agent send` queues; the server
// is killed with SIGKILL and started again; `budget ls` still shows the budget exceeded
// and the agent paused; `budget extend` resumes it and the queued prompt is answered.
func TestBudgetPauseSurvivesKill9(t *testing.T) {
	t.Parallel() // mostly waits: see main_test.go
	h, _ := herdrHome(t, "")
	srv := startCrashServer(t, h)
	h.jsonRun(t, "agent.run", 0, "agent", "run", "-a", "mock", "--path", "bud/cli", "--budget", "100", "-p", "say=first tokens=60,40")
	budgetLs := func() map[string]any {
		_, res, _ := h.jsonRun(t, "budget.ls", 0, "budget", "ls")
		bs, _ := res["budgets"].([]any)
		if len(bs) != 1 {
			t.Fatalf("budget ls: %v, want the run budget alone", res)
		}
		return bs[0].(map[string]any)
	}
	poll.Eventually(t, 30*time.Second, "the run budget exceeded by the first turn", func() bool {
		return budgetLs()["state"] == "exceeded"
	})
	if r := h.run("agent", "send", "bud/cli", "say=second tokens=1,0"); r.exit != 0 || !strings.Contains(r.stdout, "bud/cli queued (paused on budget") {
		t.Fatalf("send while paused: exit %d stdout %q stderr %q", r.exit, r.stdout, r.stderr)
	}
	srv.kill9(t)
	srv = startCrashServer(t, h)
	t.Cleanup(func() { srv.stop(t, h) })
	b := budgetLs()
	if b["budget"] != "run:bud/cli" || b["state"] != "exceeded" || b["spent"] != float64(100) || b["limit"] != float64(100) {
		t.Fatalf("after kill -9: %v", b)
	}
	if p, _ := b["paused"].([]any); len(p) != 1 || p[0] != "bud/cli" {
		t.Fatalf("after kill -9: paused %v, want bud/cli", b["paused"])
	}
	if r := h.run("budget", "ls"); r.exit != 0 || !strings.Contains(r.stdout, "run:bud/cli") || !strings.Contains(r.stdout, "exceeded") {
		t.Fatalf("budget ls: %q", r.stdout)
	}
	if r := h.run("budget", "extend", "bud/cli", "--by", "1k"); r.exit != 0 || !strings.Contains(r.stdout, "bud/cli resumed") {
		t.Fatalf("budget extend: exit %d stdout %q stderr %q", r.exit, r.stdout, r.stderr)
	}
	poll.Eventually(t, 30*time.Second, "the queued prompt answered", func() bool {
		r := h.run("agent", "logs", "bud/cli", "--last-response")
		return strings.Contains(r.stdout, "second")
	})
	poll.Eventually(t, 30*time.Second, "the queued turn counted: 101 of 1100, ok", func() bool {
		b := budgetLs()
		return b["spent"] == float64(101) && b["limit"] == float64(1100) && b["state"] == "ok"
	})
}

// A loop whose budget is spent skips its fire with the reason (docs/usage.md §7.3): a
// fleet budget of 100 tokens is spent by a mock agent's turn; the once loop due next
// ends without a run, and its orcr log says loop.skipped budget.
func TestSpentBudgetSkipsLoopFires(t *testing.T) {
	t.Parallel() // mostly waits: see main_test.go
	h, _ := herdrHome(t, `{"timings": {"loop_tick": "100ms"}, "budgets": {"fleet": {"limit": "100"}}}`)
	h.env = append(h.env, "PATH="+bins.dir+":"+os.Getenv("PATH"))
	if r := h.run("server", "start"); r.exit != 0 {
		t.Fatalf("server start: %d %s %s", r.exit, r.stdout, r.stderr)
	}
	c := &socketapi.Client{Socket: filepath.Join(h.dir, "orcr.sock"), Timeout: 60 * time.Second}
	ctx := context.Background()
	h.jsonRun(t, "agent.run", 0, "agent", "run", "-a", "mock", "--path", "spend/a", "-p", "say=spent tokens=100,0")
	poll.Eventually(t, 30*time.Second, "the fleet budget exceeded", func() bool {
		res, err := c.BudgetLs(ctx)
		return err == nil && len(res.Budgets) == 1 && res.Budgets[0].State == api.BudgetStateExceeded
	})
	if _, err := c.LoopCreate(ctx, api.LoopCreateRequest{Name: "capped", OnceAt: "1s", Cwd: h.dir,
		Command: []string{"true"}}); err != nil {
		t.Fatal(err)
	}
	poll.Eventually(t, 20*time.Second, "the once loop ended", func() bool {
		ls, err := c.LoopLs(ctx, api.LoopLsRequest{Names: []string{"capped"}})
		return err == nil && len(ls.Loops) == 1 && ls.Loops[0].Status == "ended"
	})
	if runs := runsOf(t, c, "capped"); len(runs) != 0 {
		t.Errorf("a fire ran on a spent budget: %+v", runs)
	}
	logs, err := c.LoopLogs(ctx, api.LoopLogsRequest{Name: "capped", Source: "orcr"})
	if err != nil {
		t.Fatal(err)
	}
	skipped := 0
	for _, l := range logs.Lines {
		if strings.HasPrefix(l.Text, "loop.skipped") && strings.Contains(l.Text, "budget") {
			skipped++
		}
	}
	if skipped != 1 {
		t.Errorf("%d loop.skipped budget lines, want 1: %+v", skipped, logs.Lines)
	}
}
