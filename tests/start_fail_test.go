package tests

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/orcr-go/orcr/tests/poll"
)

// A provider that exits during its start (docs/lifecycle.md §8.1, §8.2, §9.2): the
// mock refuses to start (ORCR_MOCK_START_FAIL) — prints its error and exits 1 at once
// — while orcr's readiness wait runs (60 s here). The exit is seen at once, not after
// the wait: the ask answers within seconds that the agent failed, with the exit status
// the pane's launcher recorded and the mock's own message, which `agent logs --screen`
// shows too; afterwards wait, logs and ls answer about the ended agent — never
// not_found — and no pane is left.
func TestStartExitEndsFailedAtOnce(t *testing.T) {
	t.Parallel() // mostly waits: see main_test.go
	h, sock := herdrHome(t, `{"integrations": {"mock": {"submit_ready_ms": 60000}}}`)
	h.env = append(h.env, "ORCR_MOCK_START_FAIL=mock: unknown model xyz")
	start := time.Now()
	r := h.run("agent", "ask", "-a", "mock", "--name", "c3", "-p", "say=hi")
	took := time.Since(start)
	const detail = "mock exited during start (exit status 1): mock: unknown model xyz"
	if r.exit != 5 || !strings.Contains(r.stderr, "ended without completing (failed): "+detail) {
		t.Fatalf("agent ask: exit %d stdout %q stderr %q, want exit 5 with %q", r.exit, r.stdout, r.stderr, detail)
	}
	if took > 20*time.Second {
		t.Errorf("agent ask took %s: the exit was not seen at once", took.Round(time.Millisecond))
	}
	rows := h.lsRows(t, "--all", "c3")
	if len(rows) != 1 || rows[0].Status != "ended" || rows[0].ExitReason == nil || *rows[0].ExitReason != "failed" ||
		rows[0].ExitDetail != detail || rows[0].ScreenAt == nil {
		t.Fatalf("agent ls --all: %+v, want ended failed with the exit as its detail", rows)
	}
	if w := h.run("agent", "wait", "c3"); w.exit != 5 || w.stdout != "c3  failed\n" {
		t.Errorf("agent wait on the ended agent: exit %d stdout %q stderr %q, want `c3  failed`, exit 5", w.exit, w.stdout, w.stderr)
	}
	_, res, _ := h.jsonRun(t, "agent.wait", 5, "agent", "wait", "c3")
	if tg := waitTargets(t, res); len(tg) != 1 || tg[0].Reason != "failed" || tg[0].ExitDetail != detail {
		t.Errorf("agent wait --json: %+v, want reason failed with the exit detail", tg)
	}
	if l := h.run("agent", "logs", "c3"); l.exit == 6 || !strings.Contains(l.stderr, "ended failed") ||
		!strings.Contains(l.stderr, "mock exited during start") {
		t.Errorf("agent logs on the ended agent: exit %d stderr %q, want its end and why", l.exit, l.stderr)
	}
	if s := h.run("agent", "logs", "c3", "--screen"); s.exit != 0 || !strings.Contains(s.stdout, "mock: unknown model xyz") {
		t.Errorf("agent logs --screen: exit %d stdout %q stderr %q, want the mock's message kept", s.exit, s.stdout, s.stderr)
	}
	if p := panesLabelled(t, sock, "c3"); len(p) != 0 {
		t.Errorf("panes left after the failed start: %+v, want the held pane closed", p)
	}
}

// A provider that stalls at start (docs/lifecycle.md §9.2): the mock takes its terminal
// and draws nothing. While the readiness wait runs the agent is starting in `agent ls`
// and in `server status`; once timings.max_starting has passed with nothing on the
// screen it ends failed with a reason naming the readiness wait, and its pane is closed.
func TestStartStallEndsFailed(t *testing.T) {
	t.Parallel() // mostly waits: see main_test.go
	h, _ := herdrHome(t, `{"timings": {"max_starting": "6s"}, "integrations": {"mock": {"submit_ready_ms": 1000}}}`)
	h.env = append(h.env, "ORCR_MOCK_START_DELAY_MS=600000")
	start := time.Now()
	uid, _ := runAgent(t, h, "-a", "mock", "--name", "st", "-p", "say=hi")
	poll.Eventually(t, 5*time.Second, "st to have a pane", func() bool {
		rows := h.lsRows(t, "st")
		return len(rows) == 1 && rows[0].PaneID != nil
	})
	if rows := h.lsRows(t, "st"); len(rows) != 1 || rows[0].Status != "starting" {
		t.Errorf("agent ls while the readiness wait runs: %+v, want starting", rows)
	}
	if r := h.run("server", "status"); r.exit != 0 || !strings.Contains(r.stdout, " starting=1 ") {
		t.Errorf("server status while the readiness wait runs: exit %d stdout %q, want starting=1", r.exit, r.stdout)
	}
	if w := h.run("agent", "wait", "st"); w.exit != 5 || w.stdout != "st  failed\n" {
		t.Errorf("agent wait: exit %d stdout %q stderr %q, want `st  failed`", w.exit, w.stdout, w.stderr)
	}
	wantEndedFailed(t, h, "st", uid, start, 30*time.Second, "readiness wait")
	rows := h.lsRows(t, "--all", "st")
	if len(rows) != 1 || !strings.Contains(rows[0].ExitDetail, "showed nothing within the readiness wait") ||
		!strings.Contains(rows[0].ExitDetail, "timings.max_starting") {
		t.Errorf("agent ls --all: %+v, want a detail naming the readiness wait and timings.max_starting", rows)
	}
}

// The screen a start failed at is kept with the row (docs/lifecycle.md §4.1): a mock at
// its login screen ends failed, and `agent logs --screen` shows that screen after the
// pane is gone, across a server restart too; the row carries when it was read.
func TestStartScreenKeptWithRow(t *testing.T) {
	t.Parallel() // mostly waits: see main_test.go
	h, _ := herdrHome(t, `{"integrations": {"mock": {"submit_ready_ms": 5000}}}`)
	h.env = append(h.env, "ORCR_MOCK_BANNER=Please Log In to the mock", "ORCR_MOCK_LOGIN_SCREEN=log in to the mock")
	start := time.Now()
	uid, _ := runAgent(t, h, "-a", "mock", "--name", "lg", "-p", "say=hi")
	wantEndedFailed(t, h, "lg", uid, start, 30*time.Second, "login screen")
	rows := h.lsRows(t, "--all", "lg")
	if len(rows) != 1 || !strings.Contains(rows[0].ExitDetail, "login screen") || rows[0].ScreenAt == nil {
		t.Fatalf("agent ls --all: %+v, want the login screen as the detail and a kept screen", rows)
	}
	for round := range 2 {
		s := h.run("agent", "logs", "lg", "--screen")
		if s.exit != 0 || !strings.Contains(s.stdout, "Please Log In to the mock") {
			t.Errorf("round %d: agent logs --screen: exit %d stdout %q stderr %q, want the login screen", round, s.exit, s.stdout, s.stderr)
		}
		_, res, _ := h.jsonRun(t, "agent.logs", 0, "agent", "logs", "lg", "--screen")
		scr, _ := res["screen"].(map[string]any)
		if text, _ := scr["text"].(string); !strings.Contains(text, "Please Log In to the mock") || scr["live"] != false {
			t.Errorf("round %d: agent logs --screen --json: %v, want the kept screen", round, res)
		}
		if round == 0 {
			stopServer(t, h)
		}
	}
}

// waitTarget is one target of an agent.wait result.
type waitTarget struct {
	Path       string `json:"path"`
	Reason     string `json:"reason"`
	ExitReason string `json:"exit_reason"`
	ExitDetail string `json:"exit_detail"`
}

func waitTargets(t *testing.T, res map[string]any) []waitTarget {
	t.Helper()
	b, _ := json.Marshal(res["targets"])
	var tg []waitTarget
	if err := json.Unmarshal(b, &tg); err != nil {
		t.Fatalf("agent wait targets: %v", err)
	}
	return tg
}

// A provider that exits mid-life (docs/lifecycle.md §8.2, §13.2): the mock answers its
// one turn and exits (ORCR_MOCK_EXIT_AFTER). Its pane's launcher records the exit and
// holds the pane, which must not keep the agent looking alive: within seconds (not the
// launcher's 60 s hold) the agent is lost with the exit status as its detail and its
// last screen kept, the held pane is closed, and the row ends lost keeping both.
func TestMidLifeExitIsLostAtOnce(t *testing.T) {
	t.Parallel() // mostly waits: see main_test.go
	h, sock := herdrHome(t, `{"timings": {"gc_tick": "1s"}}`)
	h.env = append(h.env, "ORCR_MOCK_EXIT_AFTER=1")
	start := time.Now()
	uid, _ := runAgent(t, h, "-a", "mock", "--name", "ex", "-p", "say=last words")
	var rows []cliRow
	poll.Eventually(t, 20*time.Second, "ex to end", func() bool {
		rows = h.lsRows(t, "--all", "ex")
		return len(rows) == 1 && rows[0].Status == "ended"
	})
	if took := time.Since(start); took > 15*time.Second {
		t.Errorf("ex ended %s after its run: the held pane kept it alive", took.Round(time.Millisecond))
	}
	if r := rows[0]; r.ExitReason == nil || *r.ExitReason != "lost" || !strings.HasPrefix(r.ExitDetail, "mock exited (exit status 0)") ||
		r.ScreenAt == nil {
		t.Errorf("agent ls --all: %+v, want ended lost with the exit status as its detail and a kept screen", r)
	}
	if s := h.run("agent", "logs", uid, "--screen"); s.exit != 0 || !strings.Contains(s.stdout, "last words") {
		t.Errorf("agent logs --screen: exit %d stdout %q stderr %q, want the mock's last screen", s.exit, s.stdout, s.stderr)
	}
	if p := panesLabelled(t, sock, "ex"); len(p) != 0 {
		t.Errorf("panes left: %+v, want the held pane closed", p)
	}
}
