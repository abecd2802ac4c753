package herdrtest

import (
	"regexp"
	"strings"
)

// Screen rules of pi, qwen, opencode and gemini, written from what herdr 0.8.2 reported
// for their panes (herdr/testdata/live/0.8.2/agents.json, docs/herdr.md §12): the
// status each phase of a turn read, against the screen and title the CLI showed then.

func init() {
	screenRules["pi"] = piRules
	screenRules["qwen"] = qwenRules
	screenRules["opencode"] = opencodeRules
	screenRules["gemini"] = geminiRules
}

// ---- pi ----

// piWorkingLine is pi's spinner line above its editor: a braille frame and "Working...".
var piWorkingLine = regexp.MustCompile(`^\s*[\x{2800}-\x{28FF}]\s+Working\.\.\.`)

// pi sets one title for the whole session ("π - <dir>"): only its spinner line tells
// working from idle.
var piRules = []screenRule{
	{name: "working-line", state: StatusWorking, rank: 500, visible: true, match: func(s Screen) bool {
		return anyLineMatches(bottomNonEmptyLines(s.Text, 8), piWorkingLine)
	}},
}

// ---- qwen ----

var (
	// qwen's title starts with a half-filled circle (and a text-style selector) while
	// it works; "✳" or nothing before "Qwen" otherwise.
	qwenBusyTitle = regexp.MustCompile(`^[\x{25D0}-\x{25D3}]\x{FE0E}? `)
	// qwen's spinner line: a braille frame, a phrase, then "(<time> · esc to cancel)".
	qwenSpinnerLine = regexp.MustCompile(`^\s*[\x{2800}-\x{28FF}] .*\(.*esc to cancel\)\s*$`)
	qwenYesLine     = regexp.MustCompile(`(?i)^\s*›?\s*1\.\s*yes\b`)
)

var qwenRules = []screenRule{
	{name: "approval", state: StatusBlocked, rank: 900, visible: true, match: func(s Screen) bool {
		t := lower(s.Text)
		return strings.Contains(t, "waiting for user confirmation") ||
			strings.Contains(t, "allow execution of") && anyLineMatches(s.Text, qwenYesLine)
	}},
	{name: "title-busy", state: StatusWorking, rank: 800, visible: true, match: func(s Screen) bool {
		return qwenBusyTitle.MatchString(s.Title)
	}},
	{name: "spinner-line", state: StatusWorking, rank: 500, visible: true, match: func(s Screen) bool {
		return anyLineMatches(bottomNonEmptyLines(s.Text, 8), qwenSpinnerLine)
	}},
}

// ---- opencode ----

// opencodeBusyLine is opencode's status row while it works: a bar of small and filled
// squares, then "esc interrupt".
var opencodeBusyLine = regexp.MustCompile(`^\s*[⬝■]+\s+esc interrupt\b`)

// opencode's title is "OpenCode", then "OC | <session title>": it says nothing of the
// state.
var opencodeRules = []screenRule{
	{name: "permission", state: StatusBlocked, rank: 900, visible: true, match: func(s Screen) bool {
		t := lower(bottomNonEmptyLines(s.Text, 14))
		return strings.Contains(t, "permission required") && hasAll(t, "allow once", "reject")
	}},
	{name: "working-line", state: StatusWorking, rank: 500, visible: true, match: func(s Screen) bool {
		return anyLineMatches(bottomNonEmptyLines(s.Text, 3), opencodeBusyLine)
	}},
}

// ---- gemini ----

// gemini names its state in its title: "◇  Ready (<dir>)", "✦  Working… (<dir>)",
// "✋  Action Required (<dir>)".
var geminiRules = []screenRule{
	{name: "title-action-required", state: StatusBlocked, rank: 1100, visible: true, match: func(s Screen) bool {
		return strings.Contains(lower(s.Title), "action required")
	}},
	{name: "approval", state: StatusBlocked, rank: 900, visible: true, match: func(s Screen) bool {
		t := lower(bottomNonEmptyLines(s.Text, 14))
		return strings.Contains(t, "allow execution of") && strings.Contains(t, "1. allow once")
	}},
	{name: "title-busy", state: StatusWorking, rank: 800, visible: true, match: func(s Screen) bool {
		return strings.HasPrefix(s.Title, "✦") || strings.Contains(lower(s.Title), "working…")
	}},
	{name: "title-idle", state: StatusIdle, rank: 100, visible: true, match: func(s Screen) bool {
		return strings.HasPrefix(s.Title, "◇")
	}},
}
