package tests

import (
	"bufio"
	"bytes"
	"context"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/orcr-go/orcr/actors"
	"github.com/orcr-go/orcr/herdr"
	"github.com/orcr-go/orcr/tests/poll"
)

// panesLabelled lists the stand-in's panes orcr labelled with path (herdr pane.list,
// actors.PanePath).
func panesLabelled(t *testing.T, sock, path string) []herdr.PaneInfo {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	panes, err := herdr.NewRemote(sock).PaneList(ctx, "")
	if err != nil {
		t.Fatalf("herdr pane.list: %v", err)
	}
	var out []herdr.PaneInfo
	for _, p := range panes {
		if at, _ := actors.PanePath(p.Label); at == path {
			out = append(out, p)
		}
	}
	return out
}

// Acceptance 6 of the completion issue: kill -9 of the server while an agent works.
// After the restart (any verb brings a server back) the agent is still working in its one
// pane, and an `orcr agent wait` started after the restart settles when the turn ends,
// with the turn's answer readable.
func TestCrashMidTurnResumes(t *testing.T) {
	t.Parallel() // mostly waits (turn windows, TUIs booting): see main_test.go
	h, sock := herdrHome(t, "")
	r := h.run("server", "status", "--json")
	if r.exit != 0 {
		t.Fatalf("server status: %d %s %s", r.exit, r.stdout, r.stderr)
	}
	_, res, _ := r.envelope(t)
	pid := int(res["pid"].(float64))

	h.jsonRun(t, "agent.run", 0, "agent", "run", "-a", "mock", "--path", "crash/one", "-p", "say=survived turn_ms=7000")
	// Strike while the provider is working (herdr says so) and orcr shows working.
	var before cliRow
	poll.Eventually(t, 30*time.Second, "crash/one working in its pane", func() bool {
		rows := h.lsRows(t, "crash/one")
		if len(rows) != 1 || rows[0].Status != "working" || rows[0].PaneID == nil {
			return false
		}
		before = rows[0]
		ps := panesLabelled(t, sock, "crash/one")
		return len(ps) == 1 && ps[0].AgentStatus == herdr.StatusWorking
	})
	struck := time.Now()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitGone(t, pid)

	rows := h.lsRows(t, "crash/one") // auto-starts a new server
	if len(rows) != 1 || rows[0].Status != "working" || rows[0].UUID != before.UUID ||
		rows[0].PaneID == nil || *rows[0].PaneID != *before.PaneID {
		t.Fatalf("after the restart: %+v, want %s still working in pane %s", rows, before.UUID, *before.PaneID)
	}
	if ps := panesLabelled(t, sock, "crash/one"); len(ps) != 1 {
		t.Fatalf("%d panes labelled crash/one after the restart, want 1: %+v", len(ps), ps)
	}
	if srvs := h.serverPIDs(); len(srvs) != 1 || srvs[pid] {
		t.Errorf("server processes after the restart: %v (killed %d)", srvs, pid)
	}

	start := time.Now()
	w := h.run("agent", "wait", "crash/one")
	if w.exit != 0 || w.stdout != "crash/one  turn_complete\n" {
		t.Fatalf("orcr agent wait: exit %d stdout %q stderr %q, want 0 and turn_complete", w.exit, w.stdout, w.stderr)
	}
	// The wait settled on the turn's real end: its answer (the agent's first) is there.
	lr := h.run("agent", "logs", "crash/one", "--last-response")
	if lr.exit != 0 || lr.stdout != "survived\nDONE\n" {
		t.Errorf("last response after the wait: exit %d stdout %q stderr %q", lr.exit, lr.stdout, lr.stderr)
	}
	t.Logf("killed the server, restarted it in %v; the wait took %v", start.Sub(struck), time.Since(start))
	// The restart did not type the prompt again: one user and one assistant entry.
	_, logs, _ := h.jsonRun(t, "agent.logs", 0, "agent", "logs", "crash/one")
	if entries, _ := logs["entries"].([]any); len(entries) != 2 {
		t.Errorf("transcript after the restart: %v, want one user and one assistant entry", logs["entries"])
	}
	if ps := panesLabelled(t, sock, "crash/one"); len(ps) != 1 {
		t.Errorf("%d panes labelled crash/one after the turn, want 1", len(ps))
	}
	h.run("agent", "kill", "-y", "crash/one")
}

// Acceptance 8: `orcr agent logs <path> --follow` prints the entries already there, then
// streams the new entries of a second turn, and exits 0 once the agent has ended.
func TestLogsFollowStreamsSecondTurnAndEnds(t *testing.T) {
	t.Parallel()
	h, _ := herdrHome(t, "")
	h.jsonRun(t, "agent.run", 0, "agent", "run", "-a", "mock", "--path", "follow/one", "-p", "say=first turn_ms=200")
	if w := h.run("agent", "wait", "follow/one"); w.exit != 0 {
		t.Fatalf("first wait: exit %d %q %q", w.exit, w.stdout, w.stderr)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bins.orcr, "agent", "logs", "follow/one", "--follow")
	cmd.Env = h.env
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 64)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	var got []string
	expect := func(want []string, what string) {
		t.Helper()
		timeout := time.After(30 * time.Second)
		for _, w := range want {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("%s: follow output ended early; got %q (stderr %q)", what, got, errb.String())
				}
				got = append(got, l)
				if l != w {
					t.Fatalf("%s: line %q, want %q (all so far %q)", what, l, w, got)
				}
			case <-timeout:
				t.Fatalf("%s: no line %q within 30 s; got %q", what, w, got)
			}
		}
	}
	expect([]string{"user [text] say=first turn_ms=200", "assistant [text] first", "DONE"}, "first batch")

	if r := h.run("agent", "send", "follow/one", "say=second turn_ms=300"); r.exit != 0 {
		t.Fatalf("agent send: %d %q %q", r.exit, r.stdout, r.stderr)
	}
	expect([]string{"user [text] say=second turn_ms=300", "assistant [text] second", "DONE"}, "second turn")

	if r := h.run("agent", "kill", "-y", "follow/one"); r.exit != 0 {
		t.Fatalf("agent kill: %d %q %q", r.exit, r.stdout, r.stderr)
	}
	// The follow ends by itself once the agent ended, printing nothing more.
	deadline := time.After(15 * time.Second)
	for open := true; open; {
		select {
		case l, ok := <-lines:
			if !ok {
				open = false
				break
			}
			got = append(got, l)
			t.Errorf("unexpected line after the second turn: %q", l)
		case <-deadline:
			t.Fatalf("agent logs --follow still running 15 s after the agent ended; got %q", got)
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("agent logs --follow: %v (stderr %q), want exit 0", err, errb.String())
	}
	if s := strings.TrimSpace(errb.String()); s != "" {
		t.Logf("follow stderr: %s", s)
	}
}
