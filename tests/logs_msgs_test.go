package tests

import (
	"strings"
	"testing"
	"time"

	"github.com/orcr-go/orcr/tests/poll"
)

// Issue 33 item 9: `orcr agent logs --last-response` while the agent's turn runs says the
// agent is still working (and how to wait), not just that there is no final response.
func TestLastResponseWhileWorkingSaysStillWorking(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, env string }{
		{"transcript written", ""},
		// The provider has not written its transcript yet while it works (a loaded run
		// found the mock there): still working, not "never created".
		{"no transcript yet", "ORCR_MOCK_NO_TRANSCRIPT=1"},
	} {
		t.Run(c.name, func(t *testing.T) { lastResponseMidTurn(t, c.env) })
	}
}

func lastResponseMidTurn(t *testing.T, env string) {
	h, _ := herdrHome(t, "")
	if env != "" {
		h.env = append(h.env, env) // before the first run starts the server
	}
	h.jsonRun(t, "agent.run", 0, "agent", "run", "-a", "mock", "--path", "busy/one", "-p", "say=later turn_ms=8000")
	poll.Eventually(t, 30*time.Second, "busy/one working", func() bool {
		rows := h.lsRows(t, "busy/one")
		return len(rows) == 1 && rows[0].Status == "working"
	})
	r := h.run("agent", "logs", "busy/one", "--last-response")
	if r.exit != 1 || r.stdout != "" || !strings.Contains(r.stderr, "still working") ||
		!strings.Contains(r.stderr, "orcr agent wait busy/one") {
		t.Errorf("last response mid-turn: exit %d stdout %q stderr %q, want exit 1 saying the agent is still working and how to wait", r.exit, r.stdout, r.stderr)
	}
	h.run("agent", "kill", "-y", "busy/one")
}

// Issue 33 item 9: a transcript the provider never wrote (here a mock that writes none,
// started without a prompt, so no turn ever completed) is reported as not written yet,
// not as rotated or deleted.
func TestLogsOfUnwrittenTranscriptSaysNotWrittenYet(t *testing.T) {
	h, _ := herdrHome(t, "")
	h.env = append(h.env, "ORCR_MOCK_NO_TRANSCRIPT=1") // before the first run starts the server
	h.jsonRun(t, "agent.run", 0, "agent", "run", "-a", "mock", "--path", "fresh/one")
	poll.Eventually(t, 30*time.Second, "fresh/one idle", func() bool {
		rows := h.lsRows(t, "fresh/one")
		return len(rows) == 1 && rows[0].Status == "idle"
	})
	for _, args := range [][]string{{"agent", "logs", "fresh/one"}, {"agent", "logs", "fresh/one", "--last-response"}} {
		r := h.run(args...)
		if r.exit != 1 || r.stdout != "" || strings.Contains(r.stderr, "rotated") ||
			!strings.Contains(r.stderr, "not_found") || !strings.Contains(r.stderr, "never created") {
			t.Errorf("orcr %v: exit %d stdout %q stderr %q, want exit 1, not_found, saying the transcript was never created", args, r.exit, r.stdout, r.stderr)
		}
	}
	h.run("agent", "kill", "-y", "fresh/one")
}
