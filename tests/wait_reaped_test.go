package tests

import (
	"testing"
	"time"

	"github.com/orcr-go/orcr/tests/poll"
)

// Issue 33 item 10: `agent wait` on an agent that GC reaped answers reaped (ok, exit 0),
// by path and by uuid, as docs/cli.md §5.5 promises; it answered not_found.
func TestWaitAfterReapAnswersReaped(t *testing.T) {
	t.Parallel() // mostly waits (GC ticks): see main_test.go
	h, _ := herdrHome(t, `{"timings": {"gc_tick": "200ms", "idle_after": "1s", "kill_after": "1s"}}`)
	ok, res, _ := h.jsonRun(t, "agent.run", 0, "agent", "run", "-a", "mock", "--path", "rp/a", "-p", "say=hi")
	if !ok {
		t.Fatal("agent run failed")
	}
	uuid := res["agent"].(map[string]any)["uuid"].(string)
	poll.Eventually(t, 60*time.Second, "rp/a to be reaped", func() bool {
		rows := h.lsRows(t, "--all", "rp/a")
		return len(rows) == 1 && rows[0].Status == "ended"
	})
	if rows := h.lsRows(t, "--all", "rp/a"); rows[0].ExitReason == nil || *rows[0].ExitReason != "reaped" {
		t.Fatalf("rp/a ended with %v, want reaped", rows[0].ExitReason)
	}
	for _, target := range []string{"rp/a", uuid} {
		_, res, _ = h.jsonRun(t, "agent.wait", 0, "agent", "wait", target)
		tg, _ := res["targets"].([]any)
		if len(tg) != 1 {
			t.Fatalf("agent wait %s: %v", target, res)
		}
		got := tg[0].(map[string]any)
		next, _ := got["next"].(map[string]any)
		if got["uuid"] != uuid || got["reason"] != "reaped" || got["ok"] != true || got["status"] != "ended" ||
			next["kind"] != "logs_history" || res["all_ok"] != true {
			t.Errorf("agent wait %s: %v, want rp/a reaped ok with next logs_history", target, got)
		}
	}
	if r := h.run("agent", "wait", "rp/a"); r.exit != 0 || r.stdout != "rp/a  reaped\n" {
		t.Errorf("human agent wait: exit %d stdout %q stderr %q, want `rp/a  reaped`", r.exit, r.stdout, r.stderr)
	}

	// A path held by an active agent again is waited on as that agent.
	h.jsonRun(t, "agent.run", 0, "agent", "run", "-a", "mock", "--path", "rp/a", "-p", "say=again")
	_, res, _ = h.jsonRun(t, "agent.wait", 0, "agent", "wait", "rp/a", "rp/none")
	if tg, _ := res["targets"].([]any); len(tg) != 1 || tg[0].(map[string]any)["uuid"] == uuid {
		t.Errorf("agent wait on a reused path: %v, want only the new agent", res)
	}

}
