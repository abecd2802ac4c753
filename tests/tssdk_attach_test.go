package tests

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/sockettest"
)

// The TypeScript SDK's AttachHandle.run() in a real terminal (tmux): it attaches the
// terminal to the agent's pane under a takeover lease, a prompt typed there reaches the
// agent as an external turn, heartbeats keep the lease past its TTL, and ctrl+b q ends
// the attach: run() resolves 0 and releases the lease.
func TestTypeScriptSDKAttachRun(t *testing.T) {
	t.Parallel()
	tsxBin := tsx(t)
	b := sockettest.BuildBinaries(t)
	// A 4 s lease, renewed every 2 s: node under the suite's load has missed a 1 s beat.
	h, _ := herdrHome(t, `{"timings": {"attach_lease_ttl": "4s"}}`)
	idleMock(t, h, "tsatt/one")
	evs := followEvents(t, h)
	script, err := filepath.Abs(filepath.Join(tsDir, "test", "term", "attach_run.ts"))
	if err != nil {
		t.Fatal(err)
	}
	env := append(h.env, "ORCR_BIN="+b.Orcr, "NODE_NO_WARNINGS=1")
	term := newTmux(t, env, "tsrun", "cd "+tsDir+" && "+tsxBin+" "+script+" tsatt/one; echo EXIT=$?; sleep 600")
	term.waitScreen(30*time.Second, "the agent's pane", func(s string) bool { return strings.Contains(s, "say=first") })
	started := evs.waitFor(t, 10*time.Second, "attach.started", func(e streamEvent) bool { return e.Kind == "attach.started" })
	if started.Mode != "takeover" {
		t.Errorf("attach.started %+v, want a takeover lease", started)
	}
	// Working longer than the monitor's idle pace (2 s): a shorter external turn can go
	// unseen (docs/lifecycle.md §10.2).
	term.type_("say=typed_through_ts turn_ms=2500")
	evs.waitFor(t, 20*time.Second, "the external turn", func(e streamEvent) bool {
		return e.Kind == "agent.status_changed" && e.UUID == started.UUID && e.Status == "working" && e.InputSeq == 2
	}, func() string { return "the terminal shows:\n" + term.screen() })
	if w := h.run("agent", "wait", "tsatt/one"); w.exit != 0 {
		t.Fatalf("agent wait: exit %d %q %q", w.exit, w.stdout, w.stderr)
	}
	if lr := h.run("agent", "logs", "tsatt/one", "--last-response"); lr.stdout != "typed_through_ts\nDONE\n" {
		t.Errorf("last response %q, want the typed prompt's answer", lr.stdout)
	}
	time.Sleep(4500 * time.Millisecond) // past one TTL: only run()'s heartbeats keep the lease
	term.keys(false, "C-b")
	term.keys(true, "q")
	screen := term.waitScreen(20*time.Second, "run() resolving", func(s string) bool { return strings.Contains(s, "EXIT=0") })
	m := regexp.MustCompile(`RUN_EXIT=(\d+) LEASE=(\S+)`).FindStringSubmatch(screen)
	if m == nil || m[1] != "0" || m[2] != started.LeaseID {
		t.Fatalf("run() printed %q, want RUN_EXIT=0 for lease %s", screen, started.LeaseID)
	}
	ended := evs.waitFor(t, 10*time.Second, "the lease released", func(e streamEvent) bool {
		return e.Kind == "attach.ended" && e.LeaseID == started.LeaseID
	})
	if ended.Reason != "" {
		t.Errorf("the lease ended by %s, want it released (heartbeats kept it alive)", ended.Reason)
	}
	c := &socketapi.Client{Socket: filepath.Join(h.dir, "orcr.sock")}
	if res, err := c.AttachHeartbeat(context.Background(), started.LeaseID); err != nil || res.OK {
		t.Errorf("heartbeat after run() ended: %+v %v, want the lease gone", res, err)
	}
}
