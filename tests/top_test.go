package tests

import (
	"fmt"
	"maps"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/orcr-go/orcr/tests/poll"
)

// topCmd is the shell command of a tmux session running `orcr top`, then its exit
// status on the screen.
func topCmd(args ...string) string {
	return strings.Join(append([]string{bins.orcr, "top"}, args...), " ") + "; echo EXIT=$?; sleep 600"
}

// glyphOf is the glyph top shows for an agent status (docs/top.md §3).
var glyphOf = map[string]string{"working": "●", "idle": "✓", "parked": "✓", "blocked": "◐", "queued": "◌", "starting": "◌", "lost": "✗"}

var agentCell = regexp.MustCompile(`([●✓◐◌✗]) (\S+)`)

// screenAgents reads the agent rows off top's screen: label → glyph.
func screenAgents(screen string) map[string]string {
	out := map[string]string{}
	lines := strings.Split(screen, "\n")
	for _, l := range lines[min(2, len(lines)):] {
		if strings.HasPrefix(l, "────") {
			break // the detail pane
		}
		if m := agentCell.FindStringSubmatch(l); m != nil && m[2] != "done" {
			out[m[2]] = m[1]
		}
	}
	return out
}

// lsAgents is what the screen must show for `agent ls --managed`: last segment → glyph.
func lsAgents(t *testing.T, h *home, pattern string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, r := range h.lsRows(t, pattern, "--managed") {
		out[r.Path[strings.LastIndexByte(r.Path, '/')+1:]] = glyphOf[r.Status]
	}
	return out
}

// sameAsLs waits until top's screen shows exactly the agents `agent ls` lists, each
// with its status glyph.
func sameAsLs(t *testing.T, h *home, term *tmuxTerm, pattern, what string) {
	t.Helper()
	var (
		want, got map[string]string
		screen    string
	)
	poll.Eventually(t, 60*time.Second, what+": top to match agent ls", func() bool {
		want = lsAgents(t, h, pattern)
		screen = term.screen()
		got = screenAgents(screen)
		return maps.Equal(want, got)
	}, func() string {
		var diff []string
		for _, k := range slices.Sorted(maps.Keys(want)) {
			if got[k] != want[k] {
				diff = append(diff, fmt.Sprintf("%s: ls %q top %q", k, want[k], got[k]))
			}
		}
		for k := range got {
			if _, ok := want[k]; !ok {
				diff = append(diff, fmt.Sprintf("%s: only on the screen (%s)", k, got[k]))
			}
		}
		return fmt.Sprintf("%d vs %d agents:\n%s\nscreen:\n%s", len(want), len(got), strings.Join(diff, "\n"), screen)
	})
}

// launch runs `agent run` for each spec, eight at a time.
func launch(t *testing.T, h *home, specs [][]string) {
	t.Helper()
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for _, args := range specs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if r := h.run(append([]string{"agent", "run", "-a", "mock"}, args...)...); r.exit != 0 {
				t.Errorf("agent run %v: exit %d %s", args, r.exit, r.stderr)
			}
		}()
	}
	wg.Wait()
}

// fleet returns the agent run arguments of agents from..to-1 under fleet/: every tenth
// asks a question (blocked), every tenth ends after its turn (gc immediate), the rest
// run a turn of 0.5–3 s and stay idle.
func fleet(from, to int) [][]string {
	var out [][]string
	for i := from; i < to; i++ {
		path := fmt.Sprintf("fleet/a%03d", i)
		turn := fmt.Sprintf("turn_ms=%d", 500+(i*277)%2500)
		switch i % 10 {
		case 0:
			out = append(out, []string{"--path", path, "-p", "block"})
		case 1:
			out = append(out, []string{"--path", path, "--gc", "immediate", "-p", turn})
		default:
			out = append(out, []string{"--path", path, "-p", turn})
		}
	}
	return out
}

// Acceptance 2: `orcr top` in a real terminal against the stand-in, with 100 mock
// agents churning (a cap of 60, so some stay queued), shows the tree `agent ls` lists —
// after the churn settles, after a server restart in the middle of it (reconnecting…,
// then the new server's state), and after `K` killed a subtree.
func TestTopFleetInATerminal(t *testing.T) {
	t.Parallel()
	h, _ := herdrHome(t, `{"concurrency": {"max": 60}, "timings": {"gc_tick": "200ms", "idle_after": "1h"}}`)
	if r := h.run("server", "start"); r.exit != 0 {
		t.Fatalf("server start: %d %s", r.exit, r.stderr)
	}
	term := newTmuxSize(t, h.env, "top", topCmd(), 120, 125)
	term.waitScreen(20*time.Second, "the empty dashboard", func(s string) bool { return strings.Contains(s, "0 agents") })

	launch(t, h, append(fleet(0, 50), [][]string{
		{"--path", "fleet/k/k0", "-p", "turn_ms=100"}, {"--path", "fleet/k/k1", "-p", "turn_ms=100"},
		{"--path", "fleet/k/k2", "-p", "turn_ms=100"}}...))

	// A restart in the middle: turns are still running.
	if r := h.run("server", "stop"); r.exit != 0 {
		t.Fatalf("server stop: %d %s", r.exit, r.stderr)
	}
	term.waitScreen(20*time.Second, "reconnecting…", func(s string) bool { return strings.Contains(s, "reconnecting…") })
	if got := screenAgents(term.screen()); len(got) < 40 {
		t.Errorf("the tree was dropped while reconnecting: %d agents shown", len(got))
	}
	if r := h.run("server", "start"); r.exit != 0 {
		t.Fatalf("server start: %d %s", r.exit, r.stderr)
	}
	term.waitScreen(20*time.Second, "the reconnect", func(s string) bool { return !strings.Contains(s, "reconnecting") })
	launch(t, h, fleet(50, 100))

	// Settled: nothing starting or working any more.
	poll.Eventually(t, 120*time.Second, "the churn settled", func() bool {
		for _, r := range h.lsRows(t, "--managed") {
			if r.Status == "starting" || r.Status == "working" {
				return false
			}
		}
		return true
	})
	sameAsLs(t, h, term, "", "after the churn and a restart")
	counts := map[string]int{}
	for _, r := range h.lsRows(t, "--managed") {
		counts[r.Status]++
	}
	if counts["queued"] == 0 || counts["blocked"] == 0 || counts["idle"] == 0 {
		t.Errorf("the settled fleet should hold queued, blocked and idle agents: %v", counts)
	}
	t.Logf("settled fleet: %v", counts)
	if n := len(lsAgents(t, h, "fleet/*")); n < 80 {
		t.Errorf("only %d fleet agents are left; the churn should leave about 90", n)
	}

	// K on the fleet/k subtree: the `/` filter puts it second (after fleet), K names it
	// and its agent count, y kills it.
	term.keys(true, "/")
	term.keys(true, "fleet/k/**")
	term.keys(false, "Enter")
	term.waitScreen(10*time.Second, "the filtered tree", func(s string) bool { return strings.Contains(s, "· /fleet/k/**") })
	term.keys(true, "j")
	term.keys(true, "K")
	term.waitScreen(10*time.Second, "the kill confirmation", func(s string) bool { return strings.Contains(s, "kill fleet/k/** (3 agents)? y/n") })
	term.keys(true, "y")
	term.waitScreen(30*time.Second, "the kill's result", func(s string) bool { return strings.Contains(s, "killed 3") })
	if left := h.lsRows(t, "fleet/k/**"); len(left) != 0 {
		t.Errorf("after K: %d fleet/k agents left", len(left))
	}
	term.keys(true, "/")
	for range len("fleet/k/**") {
		term.keys(false, "BSpace")
	}
	term.keys(false, "Enter")
	sameAsLs(t, h, term, "", "after K")

	term.keys(true, "q")
	term.waitScreen(10*time.Second, "top's exit", func(s string) bool { return strings.Contains(s, "EXIT=0") })
}

// selectedLine is the row of the screen that carries the selection marker.
func selectedLine(screen string) string {
	for l := range strings.SplitSeq(screen, "\n") {
		if strings.HasPrefix(l, "▌ ") {
			return l
		}
	}
	return ""
}

// Acceptance 3: each action of top through the real binary in a terminal — `n` jumps to
// the blocked agent, `s` sends a prompt that the agent answers, `w` waits for a subtree
// and reports when it settled, `a` attaches to the agent's pane (top suspended) and
// comes back when the attach ends.
func TestTopActionsInATerminal(t *testing.T) {
	t.Parallel()
	h, _ := herdrHome(t, `{"timings": {"gc_tick": "200ms", "idle_after": "1h"}}`)
	idleMock(t, h, "act/worker")
	launch(t, h, [][]string{{"--path", "act/ask", "-p", "block"}})
	poll.Eventually(t, 20*time.Second, "act/ask blocked", func() bool {
		r := h.lsRows(t, "act/ask")
		return len(r) == 1 && r[0].Status == "blocked"
	})
	term := newTmuxSize(t, h.env, "top", topCmd(), 100, 30)
	term.waitScreen(20*time.Second, "the tree", func(s string) bool { return strings.Contains(s, "worker") && strings.Contains(s, "ask") })

	// n: the blocked agent, with its detail.
	term.keys(true, "n")
	s := term.waitScreen(10*time.Second, "the jump", func(s string) bool { return strings.Contains(selectedLine(s), "ask") })
	if !strings.Contains(s, "act/ask needs input") || !strings.Contains(s, "blocked on") {
		t.Errorf("after n: no status line or detail for the blocked agent:\n%s", s)
	}

	// s: select the worker (the row after ask: blocked agents come first), type, Enter.
	term.keys(true, "j")
	term.waitScreen(10*time.Second, "worker selected", func(s string) bool { return strings.Contains(selectedLine(s), "worker") })
	term.keys(true, "s")
	term.waitScreen(10*time.Second, "the input line", func(s string) bool { return strings.Contains(s, "send>") })
	term.keys(true, "say=fromtop turn_ms=1500")
	term.keys(false, "Enter")
	term.waitScreen(20*time.Second, "the send's result", func(s string) bool { return strings.Contains(s, "sent to act/worker") })

	// w: wait for the worker's turn; the status line says when it settled.
	term.keys(true, "w")
	term.waitScreen(10*time.Second, "the wait", func(s string) bool { return strings.Contains(s, "waiting for act/worker") })
	term.waitScreen(30*time.Second, "the wait's result", func(s string) bool { return strings.Contains(s, "act/worker settled: turn_complete") })
	if lr := h.run("agent", "logs", "act/worker", "--last-response"); !strings.Contains(lr.stdout, "fromtop") {
		t.Errorf("the prompt sent from top did not reach the agent: %q %q", lr.stdout, lr.stderr)
	}
	term.waitScreen(10*time.Second, "the answer in the detail pane", func(s string) bool { return strings.Contains(s, "fromtop") })

	// a: the detail pane says how an attach ends before it starts (issue 33, 9); the
	// worker's pane replaces the dashboard; ctrl+b q ends the attach and top comes back.
	if s := term.screen(); !strings.Contains(s, "ctrl+b q detaches") {
		t.Errorf("before the attach, top shows no detach hint:\n%s", s)
	}
	term.keys(true, "a")
	term.waitScreen(20*time.Second, "the attached pane", func(s string) bool {
		return !strings.Contains(s, "needs input") && strings.Contains(s, "say=fromtop")
	})
	term.keys(false, "C-b")
	term.keys(true, "q")
	term.waitScreen(20*time.Second, "top after the attach", func(s string) bool {
		return strings.Contains(s, "detached from act/worker") && strings.Contains(s, "needs input")
	})

	term.keys(false, "C-c")
	s = term.waitScreen(10*time.Second, "top's exit on Ctrl-C", func(s string) bool { return strings.Contains(s, "EXIT=0") })
	// The attach left nothing on the terminal once top is gone (issue 33, 9): top's own
	// status line said "detached from …"; the attach printed neither hint nor result.
	if strings.Contains(s, "detached") || strings.Contains(s, "ctrl+b") {
		t.Errorf("after quitting top, lines of its attach are left on the terminal:\n%s", s)
	}

	// SIGTERM: top quits like every verb interrupted by a signal (exit 128+15), leaves
	// the alternate screen and restores the terminal (the shell's own output shows).
	second := newTmuxSize(t, h.env, "term", topCmd(), 100, 30)
	second.waitScreen(20*time.Second, "the tree", func(s string) bool { return strings.Contains(s, "worker") })
	shell, err := second.tmux("display", "-p", "-t", "term", "#{pane_pid}")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("pgrep", "-P", strings.TrimSpace(shell), "-f", "top").Output()
	if err != nil {
		t.Fatalf("finding top's pid: %v", err)
	}
	pid, _ := strconv.Atoi(strings.Fields(string(out))[0])
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	s = second.waitScreen(10*time.Second, "top's exit on SIGTERM", func(s string) bool { return strings.Contains(s, "EXIT=143") })
	if strings.Contains(s, "needs input") {
		t.Errorf("after SIGTERM the dashboard is still on the screen:\n%s", s)
	}
	if mode, _ := second.tmux("display", "-p", "-t", "term", "#{alternate_on}"); strings.TrimSpace(mode) != "0" {
		t.Errorf("after SIGTERM the terminal is still in the alternate screen (%q)", mode)
	}
}
