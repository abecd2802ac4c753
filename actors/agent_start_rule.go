package actors

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// startStep is what one poll of a start's readiness wait decides (docs/lifecycle.md
// §9.2): poll again, the provider is ready for its first input, its process exited
// (herdr removed the pane), or it showed nothing for the whole wait.
type startStep int

const (
	startWait startStep = iota
	startReady
	startExited
	startStalled
)

// startPoll is what one poll of the readiness wait saw.
type startPoll struct {
	Elapsed     time.Duration // since the wait began
	Gone        bool          // herdr answered that no pane holds the terminal
	Exited      bool          // the pane's launcher recorded the provider's exit (it holds the pane)
	StatusReady bool          // herdr lists the pane working or blocked ([statusShowsReady])
	Screen      string        // the visible screen, when Readable
	Readable    bool
	Prev        string // the previous non-blank screen read ("" = none yet)
}

// decideStart is the readiness wait of a start as a rule of what a poll saw: a pane
// that is gone, or whose launcher recorded the provider's exit, means it exited; herdr's working or blocked, or a non-blank
// screen equal to the previous one, means ready; once plan.ReadyBudget has passed a
// pane that has drawn something is typed into regardless, while one that has drawn
// nothing is waited for up to plan.BlankBudget and then counts as stalled.
func decideStart(p startPoll, plan SubmitPlan) startStep {
	if p.Gone || p.Exited {
		return startExited
	}
	if p.StatusReady {
		return startReady
	}
	drawn := p.Prev != ""
	if p.Readable && strings.TrimSpace(p.Screen) != "" {
		if p.Screen == p.Prev {
			return startReady
		}
		drawn = true
	}
	if readyWaitGoesOn(p.Elapsed, drawn, plan) {
		return startWait
	}
	if drawn {
		return startReady
	}
	return startStalled
}

// maxDetailLine bounds the screen line quoted in an exit detail.
const maxDetailLine = 200

// lastLine is the last non-blank line of screen, trimmed and cut to maxDetailLine
// characters ("" when there is none).
func lastLine(screen string) string {
	lines := strings.Split(screen, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if l == "" {
			continue
		}
		if utf8.RuneCountInString(l) > maxDetailLine {
			l = string([]rune(l)[:maxDetailLine]) + "…"
		}
		return l
	}
	return ""
}

// exitedDetail is the exit detail of a provider whose process exited — during its
// start when phase is " during start" — quoting how it exited (how: the launcher's
// record, "exit status 1"; "" when none was recorded) and the last line of the last
// screen orcr read of its pane.
func exitedDetail(prov, phase, how, screen string) string {
	d := prov + " exited" + phase
	if how != "" {
		d += " (" + how + ")"
	}
	if l := lastLine(screen); l != "" {
		return d + ": " + l
	}
	return d + ", before orcr could read anything on its screen"
}

// stalledDetail is the exit detail of a provider whose pane stayed blank for the whole
// readiness wait of plan (timings.max_starting, or submit_ready_ms when longer).
func stalledDetail(prov string, plan SubmitPlan) string {
	return fmt.Sprintf("%s showed nothing within the readiness wait (%s, timings.max_starting): its pane stayed blank",
		prov, max(plan.ReadyBudget, plan.BlankBudget))
}
