package tests

import (
	"strings"
	"testing"
	"time"

	"github.com/orcr-go/orcr/tests/poll"
)

// The stall signal through the real binary (docs/lifecycle.md §10.7): a mock turn that
// draws nothing for longer than stall_after shows as stalled in `agent ls` (--json and
// the table's "working!"), in `server status`, and is left alone: its `agent wait`
// settles on the turn's real end, which clears the mark.
func TestStallShownInLsAndStatus(t *testing.T) {
	t.Parallel()
	h, _ := herdrHome(t, `{"timings":{"stall_after":"1s"},"integrations":{"mock":{"idle_stable_ms":300}}}`)
	h.jsonRun(t, "agent.run", 0, "agent", "run", "-a", "mock", "--path", "stall/cli", "-p", "say=slow turn_ms=4000")
	poll.Eventually(t, 20*time.Second, "stall/cli stalled in agent ls --json", func() bool {
		rows := h.lsRows(t, "stall/cli")
		return len(rows) == 1 && rows[0].Stalled && rows[0].Status == "working"
	})
	if r := h.run("agent", "ls", "stall/cli"); r.exit != 0 || !strings.Contains(r.stdout, " working! ") {
		t.Errorf("agent ls while stalled: exit %d stdout %q, want a working! row", r.exit, r.stdout)
	}
	if r := h.run("server", "status"); r.exit != 0 || !strings.Contains(r.stdout, " stalled=1 ") ||
		!strings.Contains(r.stdout, "    stalled stall/cli stalled_at=") {
		t.Errorf("server status while stalled: exit %d stdout %q", r.exit, r.stdout)
	}
	if w := h.run("agent", "wait", "stall/cli"); w.exit != 0 || w.stdout != "stall/cli  turn_complete\n" {
		t.Fatalf("agent wait: exit %d stdout %q stderr %q, want the turn's completion", w.exit, w.stdout, w.stderr)
	}
	if rows := h.lsRows(t, "stall/cli"); len(rows) != 1 || rows[0].Stalled || rows[0].Status != "idle" {
		t.Errorf("after the turn: %+v, want idle and not stalled", rows)
	}
	h.run("agent", "kill", "-y", "stall/cli")
}
