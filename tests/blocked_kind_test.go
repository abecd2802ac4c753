package tests

import (
	"strings"
	"testing"
	"time"

	"github.com/orcr-go/orcr/tests/poll"
)

// Issue 33 item 9: an agent blocked on a tool call that waits for approval
// (remote.approvals on, the provider asking before the call) reads blocked_kind
// `permission`, in `agent ls` and in what `agent wait` answers, not `unknown`.
func TestBlockedOnApprovalReadsPermission(t *testing.T) {
	t.Parallel()
	h, _ := herdrHome(t, `{"remote": {"listen": "127.0.0.1:0", "approvals": true}}`)
	h.jsonRun(t, "agent.run", 0, "agent", "run", "-a", "mock", "--path", "perm/one")
	if w := h.run("agent", "wait", "perm/one", "--timeout", "60s"); w.exit != 0 {
		t.Fatalf("first wait: exit %d %q %q", w.exit, w.stdout, w.stderr)
	}
	if r := h.run("agent", "send", "perm/one", "tool=Bash say=ran"); r.exit != 0 {
		t.Fatalf("agent send: exit %d %q %q", r.exit, r.stdout, r.stderr)
	}
	var kind string
	poll.Eventually(t, 30*time.Second, "perm/one blocked", func() bool {
		rows := h.lsRows(t, "perm/one")
		if len(rows) != 1 || rows[0].Status != "blocked" || rows[0].BlockedKind == nil {
			return false
		}
		kind = *rows[0].BlockedKind
		return true
	})
	if kind != "permission" {
		t.Errorf("blocked_kind while the tool call waits for approval: %q, want permission", kind)
	}
	w := h.run("agent", "wait", "perm/one", "--timeout", "10s")
	if w.exit != 4 || !strings.Contains(w.stdout+w.stderr, "blocked:permission") {
		t.Errorf("agent wait on the blocked agent: exit %d stdout %q stderr %q, want exit 4 and blocked:permission", w.exit, w.stdout, w.stderr)
	}
	h.run("agent", "kill", "-y", "perm/one")
}
