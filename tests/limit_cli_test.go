package tests

import (
	"strings"
	"testing"
	"time"

	"github.com/orcr-go/orcr/actors/provider"
	"github.com/orcr-go/orcr/tests/poll"
)

// Rate-limit-aware admission through the real binary (docs/lifecycle.md §7.6): a mock
// agent stops at a usage limit whose message names a reset 15 s away (at 4 s, a loaded
// machine once recorded the pause so late that it ended between two polls); `server status`
// shows the provider paused and when it resumes, the next agent of that provider stays
// queued — also across `server stop` and an auto-started server — and its `agent wait`
// settles once the reset passed.
func TestLimitPauseShownAndDurable(t *testing.T) {
	t.Parallel()
	h, _ := herdrHome(t, `{"timings":{"limit_backoff":"1h"}}`)
	h.jsonRun(t, "agent.run", 0, "agent", "run", "-a", "mock", "--path", "lim/cli", "-p", "limit=Usage_limit_reached,_try_again_in_15_seconds")
	var until int64
	poll.Eventually(t, 30*time.Second, "mock paused in server status --json", func() bool {
		_, res, _ := h.run("server", "status", "--json").envelope(t)
		paused, _ := res["paused"].([]any)
		if len(paused) != 1 {
			return false
		}
		p := paused[0].(map[string]any)
		until = int64(p["until"].(float64))
		return p["provider"] == "mock" && p["source"] == "reset"
	})
	if r := h.run("server", "status"); r.exit != 0 || !strings.Contains(r.stdout, "  paused    mock until=") {
		t.Errorf("server status: exit %d stdout %q, want the paused provider", r.exit, r.stdout)
	}
	h.jsonRun(t, "agent.run", 0, "agent", "run", "-a", "mock", "--path", "lim/next", "-p", "say=later")
	if r := h.run("server", "stop"); r.exit != 0 {
		t.Fatalf("server stop: %d %s", r.exit, r.stderr)
	}
	rows := h.lsRows(t, "lim/next") // auto-starts a server
	if time.Now().UnixMilli() < until && (len(rows) != 1 || rows[0].Status != "queued") {
		t.Fatalf("after the restart, before the reset: %+v, want queued", rows)
	}
	if w := h.run("agent", "wait", "lim/next"); w.exit != 0 || w.stdout != "lim/next  turn_complete\n" {
		t.Fatalf("agent wait: exit %d stdout %q stderr %q", w.exit, w.stdout, w.stderr)
	}
	if now := time.Now().UnixMilli(); now < until {
		t.Errorf("lim/next finished %d ms before the reset", until-now)
	}
	if _, res, _ := h.run("server", "status", "--json").envelope(t); len(res["paused"].([]any)) != 0 {
		t.Errorf("still paused after the reset: %v", res["paused"])
	}
	h.run("agent", "kill", "-y", "lim/cli", "lim/next")
}

// routing.fallback through the real binary to the real claude (docs/lifecycle.md §7.6):
// a mock agent stops at a usage limit (the mock's limit directive) and pauses the mock
// provider; the next mock agent waits in the queue, is rerouted to claude (agent.rerouted
// mock → claude; its row claude, routed_from mock) and promoted, and the spawn runs it as
// claude: its stand-in pane runs the real claude with claude's launch argv for the route
// the reroute gave it (set up as TestClaudeTUIInStandinPaneLive does), its prompt reaches
// claude's transcript, and its kill leaves no process. The CLI is found as the other
// live tests find it: skipped without it, a failure under CI=1.
func TestLimitFallbackRunsClaudeLive(t *testing.T) {
	t.Parallel() // mostly waits (claude's TUI booting): see main_test.go
	heavy(t)
	h, sock := claudeHome(t, `{"timings": {"limit_backoff": "1h", "max_starting": "60s"}, "routing": {"fallback": {"mock": "claude"}}}`)
	claudeSandbox(h)
	_, work := trustClaude(t, h)
	limited, _ := runAgent(t, h, "-a", "mock", "--name", "lim", "-p", "limit=usage_limit_reached")
	evs := followEvents(t, h) // the run started the server
	evs.waitFor(t, 20*time.Second, "the mock paused at its limit", func(e streamEvent) bool { return e.Kind == "provider.paused" })

	start := time.Now()
	uid, cwd := runAgent(t, h, "-a", "mock", "--name", "fb", "--cwd", work, "-p", "hello from orcr")
	rr := evs.waitFor(t, 20*time.Second, "agent.rerouted", func(e streamEvent) bool { return e.Kind == "agent.rerouted" && e.UUID == uid })
	if rr.From != "mock" || rr.To != provider.Claude || rr.Model == "" {
		t.Fatalf("agent.rerouted: %+v, want mock → claude with claude's route", rr)
	}
	rows := h.lsRows(t, "fb")
	if len(rows) != 1 || rows[0].Agent == nil || *rows[0].Agent != provider.Claude || rows[0].RoutedFrom == nil || *rows[0].RoutedFrom != "mock" {
		t.Fatalf("the rerouted row: %+v, want claude routed from mock", rows)
	}
	t.Logf("rerouted to claude %s %s %s after the run", rr.Model, rr.Effort, time.Since(start).Round(time.Millisecond))
	route := provider.Route{Provider: provider.Claude, Model: rr.Model, Effort: rr.Effort}
	claudeTookPrompt(t, h, sock, "fb", uid, cwd, route, "hello from orcr", start)
	killAndCheck(t, h, "fb", uid)
	killAndCheck(t, h, "lim", limited)
}
