package herdrtest

import (
	"regexp"
	"strings"
)

// Screen is one look at an agent pane, as herdr's screen rules see it: the detection
// text (the visible screen without its trailing blank rows, one line per row), the last
// terminal title the program set (OSC 0 or 2) and the last OSC 9 payload (the part
// after "9;", e.g. "4;0;" for a progress report).
type Screen struct {
	Text     string
	Title    string
	Progress string
}

// Detection is what the screen rules make of a [Screen] (docs/herdr.md §5.2).
//
// Visible* say that the screen shows live chrome of that state (an input box, a
// permission dialog, a spinner) rather than text that merely resembles it: a visible
// idle ends a working turn at once, without the confirmation ticks of [idleHold], and
// a visible blocker overrides a custom reporter's non-blocked state. Keep says the
// screen is one of the agent's own viewers (a transcript, a picker) that hides the live
// state: the previous state stands.
type Detection struct {
	State          string // idle, working, blocked or unknown
	Keep           bool
	VisibleIdle    bool
	VisibleBlocker bool
	VisibleWorking bool
	Rule           string // the rule that decided, "" for the known-agent fallback
}

// screenRule is one of an agent's screen rules: when match holds, the screen is in
// state; among the rules that hold, the highest rank decides (the first listed on a
// tie).
type screenRule struct {
	name    string
	state   string
	rank    int
	visible bool // the state is visible chrome (see Detection)
	keep    bool // a viewer: the previous state stands
	match   func(s Screen) bool
}

// DetectAgentScreen applies agent's screen rules to s. An agent with rules in the
// stand-in (claude, codex, pi, qwen, opencode, gemini) whose screen matches none is idle, as herdr treats every
// known agent; any other agent is unknown.
func DetectAgentScreen(agent string, s Screen) Detection {
	rules, ok := screenRules[agent]
	if !ok {
		return Detection{State: StatusUnknown}
	}
	var best *screenRule
	for i := range rules {
		r := &rules[i]
		if (best == nil || r.rank > best.rank) && r.match(s) {
			best = r
		}
	}
	if best == nil {
		return Detection{State: StatusIdle}
	}
	d := Detection{State: best.state, Keep: best.keep, Rule: best.name}
	if best.visible {
		d.VisibleIdle = best.state == StatusIdle
		d.VisibleBlocker = best.state == StatusBlocked
		d.VisibleWorking = best.state == StatusWorking
	}
	return d
}

// screenRules are the screen rules of the agents orcr runs, written from herdr
// 0.8.2's detection of claude and codex.
var screenRules = map[string][]screenRule{
	"claude": claudeRules,
	"codex":  codexRules,
}

// ---- claude ----

var (
	// claude's title starts with a spinner glyph while it works: braille dots up to
	// 2.1.227, a half-filled circle from 2.1.228 on.
	claudeBusyTitle = regexp.MustCompile(`^[\x{2800}-\x{28FF}\x{25D0}-\x{25D3}] `)
	claudeIdleTitle = regexp.MustCompile(`^\x{2733} `)
	claudeBtwLine   = regexp.MustCompile(`^\s*/btw(?:\s|$)`)
	claudeEscClose  = regexp.MustCompile(`(?i)esc to close\s*$`)
	claudeInputLine = regexp.MustCompile(`^\s*❯`)
	claudeEmptyBox  = regexp.MustCompile(`(?m)^\s*❯\s*$`)
	// The answer lines of claude's permission dialogs.
	claudeYesNo    = lineRegexps(`(?i)^\s*❯?\s*yes\b`, `(?i)^\s*1\.\s*yes\b`, `(?i)^\s*2\.\s*no\b`)
	claudeNumbered = lineRegexps(`(?i)^\s*❯?\s*1\.\s*yes\b`, `(?i)^\s*2\.\s*yes\b`, `(?i)^\s*2\.\s*no\b`, `(?i)^\s*3\.\s*no\b`)
	// Navigation hints of claude's select forms.
	claudeNavHints = []string{"tab/arrow keys to navigate", "arrow keys to navigate", "arrows to navigate", "↑/↓ to navigate", "↑↓ to navigate"}
)

var claudeRules = []screenRule{
	{name: "title-busy", state: StatusWorking, rank: 1100, visible: true, match: func(s Screen) bool {
		return claudeBusyTitle.MatchString(s.Title)
	}},
	{name: "btw-overlay", state: StatusWorking, rank: 975, visible: true, match: func(s Screen) bool {
		tail := bottomNonEmptyLines(s.Text, 5)
		return anyLineMatches(tail, claudeBtwLine) && anyLineMatches(tail, claudeEscClose)
	}},
	{name: "transcript-viewer", state: StatusUnknown, rank: 1000, keep: true, match: func(s Screen) bool {
		tail := lower(bottomNonEmptyLines(s.Text, 3))
		return strings.Contains(tail, "showing detailed transcript") &&
			(hasAll(tail, "ctrl+o", "to toggle") || hasAll(tail, "ctrl+e", "show all") ||
				hasAll(tail, "ctrl+e", "collapse") || hasAny(tail, "↑↓ scroll", "? for shortcuts"))
	}},
	{name: "select-form", state: StatusBlocked, rank: 980, visible: true, match: func(s Screen) bool {
		form := lower(afterLastRule(s.Text))
		return strings.Contains(form, "esc to cancel") &&
			(strings.Contains(form, "enter to confirm") ||
				strings.Contains(form, "enter to select") && hasAny(form, claudeNavHints...))
	}},
	{name: "workflow-question", state: StatusBlocked, rank: 980, visible: true, match: func(s Screen) bool {
		return hasAll(lower(s.Text), "run a dynamic workflow?", "esc to cancel")
	}},
	{name: "input-box", state: StatusIdle, rank: 950, visible: true, match: func(s Screen) bool {
		body, ok := inputBoxBody(s.Text)
		return ok && anyLineMatches(body, claudeInputLine) &&
			!hasAny(lower(body), "enter to select", "esc to cancel", "tab/arrow keys", "arrow keys to navigate", "↑/↓ to navigate")
	}},
	{name: "model-picker", state: StatusUnknown, rank: 900, keep: true, match: func(s Screen) bool {
		t := lower(s.Text)
		return hasAll(t, "select model", "enter to set as default", "esc to cancel") &&
			!hasAny(t, "do you want to proceed?", "enter to select")
	}},
	{name: "bash-permission", state: StatusBlocked, rank: 850, visible: true, match: func(s Screen) bool {
		t := lower(s.Text)
		return strings.Contains(t, "do you want to proceed?") &&
			hasAny(t, "bash command", "bash(", "contains expansion", "tab to amend", "ctrl+e to explain") &&
			anyLineMatches(s.Text, claudeYesNo...)
	}},
	{name: "permission", state: StatusBlocked, rank: 840, visible: true, match: func(s Screen) bool {
		form := afterLastRule(s.Text)
		return hasAll(lower(form), "do you want to proceed?", "esc to cancel") && anyLineMatches(form, claudeNumbered...)
	}},
	{name: "question-text", state: StatusBlocked, rank: 300, match: func(s Screen) bool {
		t := lower(s.Text)
		asks := questionWithAnswer(t, "do you want to") || questionWithAnswer(t, "would you like to") ||
			hasAny(t, "waiting for permission", "do you want to allow this connection?", "tab to amend",
				"ctrl+e to explain", "review your answers", "skip interview and plan immediately") ||
			hasAll(t, "do you want to proceed?", "esc to cancel")
		return asks && !claudeEmptyBox.MatchString(s.Text)
	}},
	{name: "title-idle", state: StatusIdle, rank: 250, visible: true, match: func(s Screen) bool {
		return claudeIdleTitle.MatchString(s.Title)
	}},
	{name: "progress-cleared", state: StatusIdle, rank: 250, match: func(s Screen) bool {
		return strings.HasPrefix(s.Progress, "4;0")
	}},
}

// ---- codex ----

var (
	// codex's title carries a braille spinner frame as a word of its own while it works.
	codexSpinner     = regexp.MustCompile(`(?:^| )[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏](?: |$)`)
	codexTitled      = regexp.MustCompile(`\S`)
	codexTrustFirst  = regexp.MustCompile(`\A> You are in [^\r\n]+(?:\r?\n|$)`)
	codexTrustAsk    = regexp.MustCompile(`(?s)Do\s+you\s+trust\s+the\s+contents\s+of\s+this\s+directory\?`)
	codexWorkingLine = regexp.MustCompile(`^[•◦]\s+Working \([^)]*esc to interrupt\)(?: · .*)?$`)
)

var codexRules = []screenRule{
	{name: "title-action-required", state: StatusBlocked, rank: 1100, visible: true, match: func(s Screen) bool {
		return strings.Contains(lower(s.Title), "action required")
	}},
	{name: "title-busy", state: StatusWorking, rank: 1050, visible: true, match: func(s Screen) bool {
		return codexSpinner.MatchString(s.Title)
	}},
	{name: "transcript-viewer", state: StatusUnknown, rank: 1000, keep: true, match: func(s Screen) bool {
		t := lower(afterLastPromptLine(s.Text))
		return hasAll(t, "↑/↓ to scroll", "pgup/pgdn to", "home/end to jump", "q to quit") &&
			hasAny(t, "esc to edit prev", "esc/← to edit prev")
	}},
	{name: "trust-question", state: StatusBlocked, rank: 950, visible: true, match: func(s Screen) bool {
		top := topNonEmptyLines(s.Text, 20)
		return codexTrustFirst.MatchString(top) && codexTrustAsk.MatchString(top)
	}},
	{name: "approval", state: StatusBlocked, rank: 900, visible: true, match: func(s Screen) bool {
		return hasAny(lower(afterLastPromptLine(s.Text)),
			"press enter to confirm or esc to cancel", "enter to submit answer", "enter to submit all", "allow command?")
	}},
	{name: "question-text", state: StatusBlocked, rank: 600, match: func(s Screen) bool {
		t := lower(s.Text)
		return hasAny(t, "[y/n]", "yes (y)") || questionWithAnswer(t, "do you want to") || questionWithAnswer(t, "would you like to")
	}},
	{name: "working-line", state: StatusWorking, rank: 500, visible: true, match: func(s Screen) bool {
		tail := bottomNonEmptyLines(s.Text, 3)
		return anyLineMatches(tail, codexWorkingLine) && !strings.Contains(lower(tail), "■ conversation interrupted")
	}},
	{name: "title-idle", state: StatusIdle, rank: 100, visible: true, match: func(s Screen) bool {
		return codexTitled.MatchString(s.Title) && !codexSpinner.MatchString(s.Title) &&
			!strings.Contains(lower(s.Title), "action required")
	}},
}

// ---- matching helpers ----

func lineRegexps(patterns ...string) []*regexp.Regexp {
	out := make([]*regexp.Regexp, len(patterns))
	for i, p := range patterns {
		out[i] = regexp.MustCompile(p)
	}
	return out
}

// lower folds text for the rules' case-insensitive phrase tests.
func lower(s string) string { return strings.ToLower(s) }

func hasAll(text string, phrases ...string) bool {
	for _, p := range phrases {
		if !strings.Contains(text, p) {
			return false
		}
	}
	return true
}

func hasAny(text string, phrases ...string) bool {
	for _, p := range phrases {
		if strings.Contains(text, p) {
			return true
		}
	}
	return false
}

// questionWithAnswer reports whether text (folded) asks question and offers an answer:
// a "yes" or claude's selection marker.
func questionWithAnswer(text, question string) bool {
	return strings.Contains(text, question) && hasAny(text, "yes", "❯")
}

// anyLineMatches reports whether some line of text matches one of res.
func anyLineMatches(text string, res ...*regexp.Regexp) bool {
	for _, line := range strings.Split(text, "\n") {
		for _, re := range res {
			if re.MatchString(line) {
				return true
			}
		}
	}
	return false
}

// ---- regions of the detection text ----

// textLines splits text into lines; a final newline ends the last line rather than
// starting an empty one.
func textLines(text string) []string {
	if text == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n")
}

func isBlank(line string) bool { return strings.TrimSpace(line) == "" }

// bottomNonEmptyLines is text from its n-th last non-blank line on (from its first
// non-blank line when it has fewer).
func bottomNonEmptyLines(text string, n int) string {
	lines := textLines(text)
	seen, from := 0, -1
	for i := len(lines) - 1; i >= 0 && seen < n; i-- {
		if !isBlank(lines[i]) {
			seen, from = seen+1, i
		}
	}
	if from < 0 {
		return ""
	}
	return strings.Join(lines[from:], "\n")
}

// topNonEmptyLines is text up to and including its n-th non-blank line.
func topNonEmptyLines(text string, n int) string {
	lines := textLines(text)
	seen, end := 0, -1
	for i, l := range lines {
		if isBlank(l) {
			continue
		}
		end = i
		if seen++; seen == n {
			break
		}
	}
	if end < 0 {
		return ""
	}
	return strings.Join(lines[:end+1], "\n") + "\n"
}

// isRuleLine reports whether line is a horizontal rule of box-drawing dashes: a line
// (leading space allowed) that starts with "─" and is all dashes, or has at least three
// before anything else (a rule with a caption).
func isRuleLine(line string) bool {
	t := strings.TrimSpace(line)
	rest := strings.TrimLeft(t, "─")
	dashes := (len(t) - len(rest)) / len("─")
	return dashes > 0 && (strings.TrimSpace(rest) == "" || dashes >= 3)
}

// afterLastRule is the text below the last horizontal rule (all of it without one).
func afterLastRule(text string) string {
	lines := textLines(text)
	for i := len(lines) - 1; i >= 0; i-- {
		if isRuleLine(lines[i]) {
			return strings.Join(lines[i+1:], "\n")
		}
	}
	return text
}

// inputBoxBody is the text between claude's input box borders: the rows below the
// second-last horizontal rule up to the next rule (or the end). ok is false with fewer
// than two rules.
func inputBoxBody(text string) (body string, ok bool) {
	lines := textLines(text)
	top, rules := -1, 0
	for i := len(lines) - 1; i >= 0; i-- {
		if isRuleLine(lines[i]) {
			if rules++; rules == 2 {
				top = i
				break
			}
		}
	}
	if top < 0 {
		return "", false
	}
	end := len(lines)
	for i := top + 1; i < len(lines); i++ {
		if isRuleLine(lines[i]) {
			end = i
			break
		}
	}
	return strings.Join(lines[top+1:end], "\n"), true
}

// isCodexPromptLine reports whether line is codex's composer line: "›" alone or
// followed by a space.
func isCodexPromptLine(line string) bool {
	return line == "›" || strings.HasPrefix(line, "› ")
}

// afterLastPromptLine is the text below codex's last composer line (all of it
// without one).
func afterLastPromptLine(text string) string {
	lines := textLines(text)
	for i := len(lines) - 1; i >= 0; i-- {
		if isCodexPromptLine(lines[i]) {
			return strings.Join(lines[i+1:], "\n")
		}
	}
	return text
}
