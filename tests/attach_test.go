package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/orcr-go/orcr/herdr"
	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/sockettest"
	"github.com/orcr-go/orcr/tests/poll"
)

// tmuxTerm is a real terminal for `orcr agent attach`: one detached tmux session on a
// tmux server of its own (a private socket, no user config), killed at cleanup.
type tmuxTerm struct {
	t    *testing.T
	sock string
	name string
}

// newTmux starts shellCmd in a 100×30 tmux session with environment env.
func newTmux(t *testing.T, env []string, name, shellCmd string) *tmuxTerm {
	t.Helper()
	return newTmuxSize(t, env, name, shellCmd, 100, 30)
}

// newTmuxSize is [newTmux] with a terminal of cols×rows.
func newTmuxSize(t *testing.T, env []string, name, shellCmd string, cols, rows int) *tmuxTerm {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("tmux is not installed (.ci/run installs it; locally: apt-get install tmux)")
	}
	dir, err := os.MkdirTemp("", "tm")
	if err != nil {
		t.Fatal(err)
	}
	tt := &tmuxTerm{t: t, sock: filepath.Join(dir, "s"), name: name}
	t.Cleanup(func() {
		tt.tmux("kill-server")
		os.RemoveAll(dir)
	})
	cmd := exec.Command("tmux", "-S", tt.sock, "-f", "/dev/null", "new-session", "-d", "-s", name, "-x", strconv.Itoa(cols), "-y", strconv.Itoa(rows), shellCmd)
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tmux new-session: %v %s", err, out)
	}
	return tt
}

func (tt *tmuxTerm) tmux(args ...string) (string, error) {
	out, err := exec.Command("tmux", append([]string{"-S", tt.sock}, args...)...).CombinedOutput()
	return string(out), err
}

// screen is what the terminal shows now.
func (tt *tmuxTerm) screen() string {
	out, _ := tt.tmux("capture-pane", "-p", "-t", tt.name)
	return out
}

// keys sends tmux key names (C-b, Enter) or, with literal, text as typed.
func (tt *tmuxTerm) keys(literal bool, keys ...string) {
	tt.t.Helper()
	args := []string{"send-keys", "-t", tt.name}
	if literal {
		args = append(args, "-l")
	}
	if out, err := tt.tmux(append(args, keys...)...); err != nil {
		tt.t.Fatalf("tmux send-keys %v: %v %s", keys, err, out)
	}
}

// type_ types text and then Enter.
func (tt *tmuxTerm) type_(text string) {
	tt.t.Helper()
	tt.keys(true, text)
	tt.keys(false, "Enter")
}

func (tt *tmuxTerm) waitScreen(d time.Duration, what string, cond func(string) bool) string {
	tt.t.Helper()
	var s string
	poll.Eventually(tt.t, d, what, func() bool {
		s = tt.screen()
		return cond(s)
	}, func() string { return "the terminal shows:\n" + s })
	return s
}

// attachCmd is the shell command a tmux session runs: the attach, then its exit status
// on the screen, and the pane kept open for capture.
func attachCmd(args ...string) string {
	return strings.Join(append([]string{bins.orcr, "agent", "attach"}, args...), " ") + "; echo EXIT=$?; sleep 600"
}

// streamEvent is one event of the home's stream, with the fields these tests read.
type streamEvent struct {
	Seq      int64
	Kind     string `json:"kind"`
	UUID     string `json:"uuid"`
	LeaseID  string `json:"lease_id"`
	Mode     string `json:"mode"`
	Reason   string `json:"reason"`
	Status   string `json:"status"`
	InputSeq int64  `json:"input_seq"`
	From     string `json:"from"` // agent.rerouted: from provider, to provider, with to's route
	To       string `json:"to"`
	Model    string `json:"model"`
	Effort   string `json:"effort"`
}

// eventLog follows a home's events.subscribe from seq 0.
type eventLog struct {
	mu  sync.Mutex
	evs []streamEvent
}

func followEvents(t *testing.T, h *home) *eventLog {
	t.Helper()
	c := &socketapi.Client{Socket: filepath.Join(h.dir, "orcr.sock")}
	ctx, cancel := context.WithCancel(context.Background())
	st, err := c.Subscribe(ctx, "events.subscribe", map[string]any{"since_seq": 0})
	if err != nil {
		t.Fatalf("events.subscribe: %v", err)
	}
	l := &eventLog{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			f, err := st.Next()
			if err != nil {
				return
			}
			if f.Seq == 0 {
				continue
			}
			e := streamEvent{Seq: f.Seq}
			json.Unmarshal(f.Event, &e)
			l.mu.Lock()
			l.evs = append(l.evs, e)
			l.mu.Unlock()
		}
	}()
	t.Cleanup(func() { cancel(); st.Close(); <-done })
	return l
}

func (l *eventLog) find(match func(streamEvent) bool) []streamEvent {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []streamEvent
	for _, e := range l.evs {
		if match(e) {
			out = append(out, e)
		}
	}
	return out
}

func (l *eventLog) waitFor(t *testing.T, d time.Duration, what string, match func(streamEvent) bool, detail ...func() string) streamEvent {
	t.Helper()
	var got []streamEvent
	seen := func() string {
		l.mu.Lock()
		defer l.mu.Unlock()
		var b strings.Builder
		b.WriteString("the events so far:")
		for _, e := range l.evs {
			fmt.Fprintf(&b, "\n  %d %s %s status=%s input_seq=%d lease=%s reason=%s", e.Seq, e.Kind, e.UUID, e.Status, e.InputSeq, e.LeaseID, e.Reason)
		}
		return b.String()
	}
	poll.Eventually(t, d, what, func() bool { got = l.find(match); return len(got) > 0 }, append([]func() string{seen}, detail...)...)
	return got[0]
}

func (l *eventLog) leases(kind string) []streamEvent {
	return l.find(func(e streamEvent) bool { return e.Kind == kind })
}

// idleMock runs a mock agent at path and waits for its first turn.
func idleMock(t *testing.T, h *home, path string) {
	t.Helper()
	h.jsonRun(t, "agent.run", 0, "agent", "run", "-a", "mock", "--path", path, "-p", "say=first turn_ms=100")
	if w := h.run("agent", "wait", path); w.exit != 0 {
		t.Fatalf("first wait: exit %d %q %q", w.exit, w.stdout, w.stderr)
	}
}

// Acceptance 5 (attach): `orcr agent attach --takeover` in a real terminal shows the
// agent's pane; a prompt typed into it reaches the mock, which opens an external turn
// that completion follows (agent.wait settles, the answer is in the logs); a second
// takeover attach ends the first (its CLI exits 1 with herdr, its lease released) and types on;
// ctrl+b q detaches, the CLI prints `detached <path>`, exits 0 and releases its lease,
// renewed by heartbeats all along (it never expired although the session outlived the
// 2 s TTL several times).
func TestAttachTakeoverInATerminal(t *testing.T) {
	t.Parallel()
	h, _ := herdrHome(t, `{"timings": {"gc_tick": "200ms", "attach_lease_ttl": "2s"}}`)
	idleMock(t, h, "att/one")
	evs := followEvents(t, h)
	uuid := h.lsRows(t, "att/one")[0].UUID

	first := newTmux(t, h.env, "first", attachCmd("att/one", "--takeover"))
	first.waitScreen(20*time.Second, "the agent's pane", func(s string) bool { return strings.Contains(s, "say=first") })
	started := evs.waitFor(t, 10*time.Second, "attach.started", func(e streamEvent) bool { return e.Kind == "attach.started" })
	if started.UUID != uuid || started.Mode != "takeover" {
		t.Errorf("attach.started %+v, want agent %s mode takeover", started, uuid)
	}

	// Working longer than the monitor's idle pace (2 s), so that it is seen however
	// late the poll comes (docs/lifecycle.md §10.2).
	first.type_("say=typed turn_ms=2500")
	evs.waitFor(t, 20*time.Second, "the external turn", func(e streamEvent) bool {
		return e.Kind == "agent.status_changed" && e.UUID == uuid && e.Status == "working" && e.InputSeq == 2
	})
	if w := h.run("agent", "wait", "att/one"); w.exit != 0 || w.stdout != "att/one  turn_complete\n" {
		t.Fatalf("agent wait after the typed prompt: exit %d %q %q", w.exit, w.stdout, w.stderr)
	}
	if lr := h.run("agent", "logs", "att/one", "--last-response"); lr.stdout != "typed\nDONE\n" {
		t.Errorf("last response of the external turn: %q %q, want typed/DONE", lr.stdout, lr.stderr)
	}
	first.waitScreen(10*time.Second, "the answer on the attached terminal", func(s string) bool { return strings.Contains(s, "typed") })

	// A second takeover attach ends the first.
	second := newTmux(t, h.env, "second", attachCmd("att/one", "--takeover"))
	// herdr ends a taken-over attach with status 1, which the CLI passes on (docs/cli.md
	// §5.6).
	first.waitScreen(20*time.Second, "the first attach taken over", func(s string) bool {
		return strings.Contains(s, "attach taken over") && strings.Contains(s, "detached att/one") && strings.Contains(s, "EXIT=1")
	})
	second.waitScreen(10*time.Second, "the agent's pane in the second terminal", func(s string) bool { return strings.Contains(s, "typed") })
	if got := evs.leases("attach.started"); len(got) != 2 || got[1].LeaseID == got[0].LeaseID {
		t.Fatalf("attach.started events %+v, want two leases", got)
	}
	firstLease := started.LeaseID
	evs.waitFor(t, 10*time.Second, "the first lease released", func(e streamEvent) bool {
		return e.Kind == "attach.ended" && e.LeaseID == firstLease
	})
	second.type_("say=again turn_ms=2500")
	evs.waitFor(t, 20*time.Second, "the second external turn", func(e streamEvent) bool {
		return e.Kind == "agent.status_changed" && e.UUID == uuid && e.Status == "working" && e.InputSeq == 3
	})
	if w := h.run("agent", "wait", "att/one"); w.exit != 0 {
		t.Fatalf("agent wait after the second attach's prompt: exit %d %q %q", w.exit, w.stdout, w.stderr)
	}

	time.Sleep(2500 * time.Millisecond) // past one more TTL: only heartbeats keep the lease
	second.keys(false, "C-b")
	second.keys(true, "q")
	s := second.waitScreen(20*time.Second, "the detach", func(s string) bool {
		return strings.Contains(s, "detached att/one") && strings.Contains(s, "EXIT=0")
	})
	// Before attaching, the CLI said how to detach (issue 33, 9).
	if !strings.Contains(s, "attaching to att/one: detach with ctrl+b q") {
		t.Errorf("no detach hint before the attach; the terminal shows:\n%s", s)
	}
	secondLease := evs.leases("attach.started")[1].LeaseID
	evs.waitFor(t, 10*time.Second, "the second lease released", func(e streamEvent) bool {
		return e.Kind == "attach.ended" && e.LeaseID == secondLease
	})
	for _, e := range evs.leases("attach.ended") {
		if e.Reason != "" {
			t.Errorf("attach.ended %+v: a lease ended by %s, want every lease released", e, e.Reason)
		}
	}
	c := &socketapi.Client{Socket: filepath.Join(h.dir, "orcr.sock")}
	for _, id := range []string{firstLease, secondLease} {
		if res, err := c.AttachHeartbeat(context.Background(), id); err != nil || res.OK {
			t.Errorf("heartbeat of lease %s after the detach: %+v %v, want it gone", id, res, err)
		}
	}
}

// Acceptance 5 (attach): without --takeover the attach only observes — a prompt typed
// into it never reaches the agent. The herdr here refuses `agent attach <pane_id>`, so
// the CLI falls back to `terminal attach <terminal_id>` (docs/decisions.md D6). SIGTERM
// to the CLI is forwarded to the attach, the lease released, and the CLI exits 143.
func TestAttachObserveFallbackAndSIGTERM(t *testing.T) {
	t.Parallel()
	sockettest.StandinOnly(t, "HERDR_STANDIN_REFUSE_AGENT_ATTACH makes it refuse agent attach")
	h, sock := herdrHome(t, "")
	idleMock(t, h, "att/obs")
	evs := followEvents(t, h)
	pidFile := filepath.Join(t.TempDir(), "pid")
	env := append(append([]string(nil), h.env...), "HERDR_STANDIN_REFUSE_AGENT_ATTACH=1")
	obs := newTmux(t, env, "obs", fmt.Sprintf("sh -c 'echo $$ > %s; exec %s agent attach att/obs'; echo EXIT=$?; sleep 600", pidFile, bins.orcr))
	obs.waitScreen(20*time.Second, "the agent's pane through terminal attach", func(s string) bool { return strings.Contains(s, "say=first") })
	if s := evs.waitFor(t, 10*time.Second, "attach.started", func(e streamEvent) bool { return e.Kind == "attach.started" }); s.Mode != "observe" {
		t.Errorf("attach.started %+v, want mode observe", s)
	}

	obs.type_("say=ignored")
	time.Sleep(1500 * time.Millisecond) // nothing may happen: an observer's keys must not reach the pane within this while
	panes := panesLabelled(t, sock, "att/obs")
	if len(panes) != 1 {
		t.Fatalf("panes labelled att/obs: %+v", panes)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	read, err := herdr.NewRemote(sock).Read(ctx, panes[0].PaneID, "visible", 0)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(read.Text, "ignored") {
		t.Errorf("an observe attach typed into the pane:\n%s", read.Text)
	}
	if got := evs.find(func(e streamEvent) bool { return e.Kind == "agent.status_changed" && e.InputSeq == 2 }); len(got) != 0 {
		t.Errorf("a turn opened from an observe attach: %+v", got)
	}

	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	obs.waitScreen(20*time.Second, "the CLI's exit after SIGTERM", func(s string) bool { return strings.Contains(s, "EXIT=143") })
	lease := evs.leases("attach.started")[0].LeaseID
	if e := evs.waitFor(t, 10*time.Second, "the lease released", func(e streamEvent) bool {
		return e.Kind == "attach.ended" && e.LeaseID == lease
	}); e.Reason != "" {
		t.Errorf("attach.ended %+v, want a release, not %s", e, e.Reason)
	}
}
