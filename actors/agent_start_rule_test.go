package actors

import (
	"strings"
	"testing"
	"time"
)

// decideStart, the readiness wait of a start (docs/lifecycle.md §9.2), poll by poll.
func TestDecideStart(t *testing.T) {
	plan := SubmitPlan{ReadyBudget: 8 * time.Second, BlankBudget: 2 * time.Minute}
	s := time.Second
	for _, tc := range []struct {
		name string
		p    startPoll
		want startStep
	}{
		{"a gone pane is an exit, whatever else", startPoll{Elapsed: s, Gone: true, StatusReady: true}, startExited},
		{"a gone pane after its screen was drawn", startPoll{Elapsed: s, Gone: true, Prev: "boom"}, startExited},
		{"a held pane whose provider exited, its screen still readable",
			startPoll{Elapsed: s, Exited: true, Readable: true, Screen: "boom", Prev: "boom"}, startExited},
		{"herdr working is ready", startPoll{Elapsed: s, StatusReady: true}, startReady},
		{"a first screen waits for a second read", startPoll{Elapsed: s, Readable: true, Screen: "hello"}, startWait},
		{"the same screen twice is ready", startPoll{Elapsed: s, Readable: true, Screen: "hello", Prev: "hello"}, startReady},
		{"a changing screen waits", startPoll{Elapsed: s, Readable: true, Screen: "hello 2", Prev: "hello 1"}, startWait},
		{"a blank screen twice is not ready", startPoll{Elapsed: s, Readable: true, Screen: "  \n "}, startWait},
		{"an unreadable screen waits", startPoll{Elapsed: s}, startWait},
		{"drawn, the ready budget spent: typed regardless",
			startPoll{Elapsed: 8 * s, Readable: true, Screen: "b", Prev: "a"}, startReady},
		{"drawn earlier, unreadable now, budget spent", startPoll{Elapsed: 9 * s, Prev: "a"}, startReady},
		{"blank past the ready budget waits on", startPoll{Elapsed: 30 * s, Readable: true}, startWait},
		{"blank for the whole blank budget stalls", startPoll{Elapsed: 2 * time.Minute, Readable: true}, startStalled},
		{"unreadable for the whole blank budget stalls", startPoll{Elapsed: 3 * time.Minute}, startStalled},
		{"drawn at the last poll of the blank budget is typed into",
			startPoll{Elapsed: 2 * time.Minute, Readable: true, Screen: "late"}, startReady},
	} {
		if got := decideStart(tc.p, plan); got != tc.want {
			t.Errorf("%s: decideStart(%+v) = %d, want %d", tc.name, tc.p, got, tc.want)
		}
	}
	// A blank budget below the ready budget: blank stalls once the ready budget is spent.
	short := SubmitPlan{ReadyBudget: 8 * time.Second, BlankBudget: 5 * time.Second}
	if got := decideStart(startPoll{Elapsed: 6 * s, Readable: true}, short); got != startWait {
		t.Errorf("blank within the ready budget: %d, want wait", got)
	}
	if got := decideStart(startPoll{Elapsed: 8 * s, Readable: true}, short); got != startStalled {
		t.Errorf("blank past both budgets: %d, want stalled", got)
	}
}

func TestStartDetails(t *testing.T) {
	screen := "claude v2\n\n  Error: --dangerously-skip-permissions cannot be used with root  \n\n\n"
	if got, want := exitedDetail("claude", " during start", "", screen),
		"claude exited during start: Error: --dangerously-skip-permissions cannot be used with root"; got != want {
		t.Errorf("exitedDetail = %q, want %q", got, want)
	}
	if got := exitedDetail("codex", " during start", "", " \n "); got != "codex exited during start, before orcr could read anything on its screen" {
		t.Errorf("exitedDetail of a blank screen = %q", got)
	}
	if got, want := exitedDetail("claude", " during start", "exit status 1", screen),
		"claude exited during start (exit status 1): Error: --dangerously-skip-permissions cannot be used with root"; got != want {
		t.Errorf("exitedDetail with the launcher's record = %q, want %q", got, want)
	}
	if got, want := exitedDetail("codex", "", "killed by SIGSEGV", ""), "codex exited (killed by SIGSEGV), before orcr could read anything on its screen"; got != want {
		t.Errorf("exitedDetail of a crash = %q, want %q", got, want)
	}
	long := strings.Repeat("é", 300)
	if got := lastLine(long); got != strings.Repeat("é", maxDetailLine)+"…" {
		t.Errorf("lastLine of %d characters: %d characters, want it cut to %d", 300, len([]rune(got)), maxDetailLine)
	}
	if got, want := stalledDetail("mock", SubmitPlan{ReadyBudget: time.Second, BlankBudget: 2 * time.Minute}),
		"mock showed nothing within the readiness wait (2m0s, timings.max_starting): its pane stayed blank"; got != want {
		t.Errorf("stalledDetail = %q, want %q", got, want)
	}
}

// typedShows, the check that holds a confirmed delivery's Enter until the TUI has drawn
// its text (docs/lifecycle.md §9.1).
func TestTypedShows(t *testing.T) {
	long := strings.Repeat("word ", 50)
	for _, tc := range []struct {
		name, prompt, before, now string
		want                      bool
	}{
		{"drawn in the box", "fix the tests", "> ", "> fix the tests", true},
		{"not drawn yet", "fix the tests", "> ", "> ", false},
		{"the same prompt in the history is not the box", "fix the tests", "fix the tests\n> ", "fix the tests\n> ", false},
		{"drawn again below its earlier copy", "fix the tests", "fix the tests\n> ", "fix the tests\n> fix the tests", true},
		{"a short prompt's screen that changed otherwise", "fix the tests", "> ", "> f", false},
		{"several lines shown as a placeholder", "one\ntwo\nthree", "> ", "> [Pasted ~3 lines]", true},
		{"a long line shown as a placeholder", long, "> ", "> [Pasted text #1]", true},
		{"a long line not drawn yet", long, "> ", "> ", false},
	} {
		shows := typedShows(promptProbe(tc.prompt, 60), placeheld(tc.prompt))
		if got := shows(tc.before, tc.now); got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}
