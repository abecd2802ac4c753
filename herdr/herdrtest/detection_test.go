package herdrtest_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/orcr-go/orcr/tests/poll"
)

// fakeClaude is a program named claude that draws claude 2.1.328's chrome (its title,
// input box and permission question, as in testdata/screens) one phase per line it
// reads: "work", "idle", "ask", "quit".
const fakeClaude = `#!/bin/sh
rule='────────────────────────────────────────'
box() { printf '\033[2J\033[H\033]0;✳ Claude Code\007❯ hi\r\n\r\n%s\r\n❯ \r\n%s\r\n  ? for shortcuts\r\n' "$rule" "$rule"; }
box
while read -r cmd; do
  case "$cmd" in
  work) printf '\033[2J\033[H\033]0;◐ Claude Code\007● word0 word1\r\n\r\n%s\r\n❯ \r\n%s\r\n  esc to interrupt\r\n' "$rule" "$rule" ;;
  idle) box ;;
  ask) printf '\033[2J\033[H\033]0;✳ Claude Code\007%s\r\n Bash command\r\n Do you want to proceed?\r\n ❯ 1. Yes\r\n   2. No\r\n\r\n Esc to cancel · Tab to amend\r\n' "$rule" ;;
  quit) exit 0 ;;
  esac
done
`

func writeFakeClaude(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "claude")
	if err := os.WriteFile(path, []byte(fakeClaude), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestDetectionFollowsClaudeScreens runs a program named claude in a pane: process
// detection labels the pane claude (status unknown through the startup grace), its
// screen rules then take it idle → working → idle → blocked; a custom reporter's state
// wins over the screen, except a permission question the screen shows;
// releasing the reporter gives the pane back to the screen.
func TestDetectionFollowsClaudeScreens(t *testing.T) {
	f := start(t)
	sock := f.Sessions["default"].SocketPath()
	ws, _ := createWorkspace(t, sock, "det")
	claude := writeFakeClaude(t)
	pane := spawn(t, sock, ws, []string{claude}, nil, "det/claude")
	status := func() (agent, st string) {
		a := call(t, sock, "agent.get", map[string]any{"target": pane})
		return str(a, "agent", "agent"), str(a, "agent", "agent_status")
	}
	waitStatus := func(want string) {
		t.Helper()
		var agent, st string
		poll.Eventually(t, 10*time.Second, "claude "+want, func() bool {
			agent, st = status()
			return agent == "claude" && (st == want || want == "idle" && st == "done")
		}, func() string { return agent + " " + st + "\n" + readVisible(t, sock, pane) })
	}
	send := func(line string) {
		t.Helper()
		call(t, sock, "pane.send_text", map[string]any{"pane_id": pane, "text": line + "\r"})
	}
	poll.Eventually(t, 10*time.Second, "the claude label", func() bool {
		a := call(t, sock, "agent.list", map[string]any{})
		agents, _ := obj(a, "agents").([]any)
		return len(agents) == 1 && str(agents[0], "agent") == "claude"
	})
	if _, st := status(); st != "unknown" {
		t.Errorf("status in the startup grace: %s, want unknown", st)
	}
	waitStatus("idle")
	send("work")
	waitStatus("working")
	send("idle")
	waitStatus("idle")
	send("ask")
	waitStatus("blocked")

	send("idle")
	waitStatus("idle")

	// A custom reporter's state wins over the screen's…
	call(t, sock, "pane.report_agent", map[string]any{"pane_id": pane, "source": "orcr:test", "agent": "claude", "state": "working"})
	if _, st := status(); st != "working" {
		t.Fatalf("after a custom working report: %s", st)
	}
	// …but not over a permission question the screen shows.
	send("ask")
	waitStatus("blocked")
	// A report for another known agent is ignored: the process is claude.
	call(t, sock, "pane.report_agent", map[string]any{"pane_id": pane, "source": "orcr:test", "agent": "codex", "state": "idle"})
	if agent, st := status(); agent != "claude" || st != "blocked" {
		t.Fatalf("after a codex report on the claude pane: %s %s", agent, st)
	}
	call(t, sock, "pane.release_agent", map[string]any{"pane_id": pane, "source": "orcr:test", "agent": "claude"})
	send("work")
	waitStatus("working")
}

// TestDetectionAgentLeavesShell runs the claude program from a shell in the pane: when
// it exits the shell is in front again and the pane becomes a plain pane (the idle in
// between is checked by TestAgentWatchProbes).
func TestDetectionAgentLeavesShell(t *testing.T) {
	f := start(t)
	sock := f.Sessions["default"].SocketPath()
	ws, _ := createWorkspace(t, sock, "det")
	claude := writeFakeClaude(t)
	pane := spawn(t, sock, ws, []string{"/bin/sh", "-c", claude + "; echo back; exec cat"}, nil, "det/claude")
	agentOf := func() (agent, st string) {
		p := call(t, sock, "pane.get", map[string]any{"pane_id": pane})
		return str(p, "pane", "agent"), str(p, "pane", "agent_status")
	}
	poll.Eventually(t, 10*time.Second, "claude at work", func() bool {
		call(t, sock, "pane.send_text", map[string]any{"pane_id": pane, "text": "work\r"})
		a, st := agentOf()
		return a == "claude" && st == "working"
	})
	call(t, sock, "pane.send_text", map[string]any{"pane_id": pane, "text": "quit\r"})
	waitScreen(t, sock, pane, "back")
	poll.Eventually(t, 10*time.Second, "a plain pane", func() bool {
		a, st := agentOf()
		return a == "" && st == "unknown"
	})
}
