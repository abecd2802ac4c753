package provider

import (
	"slices"
	"strings"
	"unicode"

	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/herdr"
)

// ScreenStatus is the status a provider with `status: screen` shows on screen
// (docs/providers.md §11.4): the rule [ClassifyScreen] picks, as herdr would report it —
// working for working; blocked for blocked, limit and login; idle for ready; unknown
// when no rule matches (the monitor then reports nothing new). title stands in for
// herdr's pane title in the blocked classification (docs/providers.md §7): `screen:
// limit` and `screen: login` classify as limit and login, `screen: blocked` as a
// question when approvals are mounted, else unknown.
func ScreenStatus(spec config.ProviderSpec, screen string) (status herdr.Status, title string) {
	switch rule := ClassifyScreen(spec, screen); rule {
	case ScreenWorking:
		return herdr.StatusWorking, ""
	case ScreenReady:
		return herdr.StatusIdle, ""
	case ScreenBlocked, ScreenLimit, ScreenLogin:
		return herdr.StatusBlocked, "screen: " + rule
	}
	return herdr.StatusUnknown, ""
}

// echoProbeRunes bounds the part of a prompt looked for on screen: a longer first line
// may be wrapped by the TUI.
const echoProbeRunes = 40

// minRuleRunes is how many box-drawing characters make a line a rule.
const minRuleRunes = 8

// ScreenAnswer reads the answer to prompt from a screen of a provider without a
// transcript (docs/providers.md §11.3). The screen's lines are taken in order:
//
//  0. the whole screen classifies as `ready` ([ClassifyScreen]): the turn is over;
//  1. the echo is the last line that, with its leading decoration (anything before its
//     first letter or digit) dropped, begins with the prompt's first non-blank line
//     (likewise stripped, at most 40 characters), with the lines right under it that
//     begin likewise with the prompt's next non-blank lines;
//  2. the answer ends at the first rule after the echo: a line of at least 8
//     box-drawing or block characters (U+2500–U+259F) and spaces only, none of them a
//     corner (the edge of a box drawn inside the answer, such as a tool call's);
//  3. the answer is the lines between echo and rule, trailing spaces dropped, runs of
//     blank lines made one, blank lines at either end dropped and the indentation the
//     lines share removed.
//
// ok is false when any step fails or the answer is empty: the answer cannot be told.
func ScreenAnswer(spec config.ProviderSpec, screen, prompt string) (answer string, ok bool) {
	probes := echoProbes(prompt)
	if len(probes) == 0 || ClassifyScreen(spec, screen) != ScreenReady {
		return "", false
	}
	lines := strings.Split(strings.ReplaceAll(screen, "\r\n", "\n"), "\n")
	echo := -1
	for i, l := range lines {
		if strings.HasPrefix(undecorated(l), probes[0]) {
			echo = i
		}
	}
	if echo < 0 {
		return "", false
	}
	// The echo of a prompt of several lines goes on with its next lines.
	for _, p := range probes[1:] {
		if echo+1 < len(lines) && strings.HasPrefix(undecorated(lines[echo+1]), p) {
			echo++
		}
	}
	end := -1
	for i := echo + 1; i < len(lines); i++ {
		if isRule(lines[i]) {
			end = i
			break
		}
	}
	if end < 0 {
		return "", false
	}
	body := lines[echo+1 : end]
	for i := range body {
		body[i] = strings.TrimRightFunc(body[i], unicode.IsSpace)
	}
	body = slices.CompactFunc(body, func(a, b string) bool { return a == "" && b == "" })
	for len(body) > 0 && body[0] == "" {
		body = body[1:]
	}
	for len(body) > 0 && body[len(body)-1] == "" {
		body = body[:len(body)-1]
	}
	if len(body) == 0 {
		return "", false
	}
	indent := -1
	for _, l := range body {
		if l == "" {
			continue
		}
		n := len(l) - len(strings.TrimLeft(l, " "))
		if indent < 0 || n < indent {
			indent = n
		}
	}
	for i, l := range body {
		if len(l) >= indent {
			body[i] = l[indent:]
		}
	}
	return strings.Join(body, "\n"), true
}

// echoProbes are the prompt's non-blank lines without their leading decoration, each
// cut to echoProbeRunes characters; none for a prompt with no letter or digit.
func echoProbes(prompt string) []string {
	var out []string
	for _, l := range strings.Split(prompt, "\n") {
		if p := strings.TrimRightFunc(undecorated(l), unicode.IsSpace); p != "" {
			if r := []rune(p); len(r) > echoProbeRunes {
				p = string(r[:echoProbeRunes])
			}
			out = append(out, p)
		}
	}
	return out
}

// undecorated drops what precedes a line's first letter or digit (a gutter, a marker,
// the TUI's `>`).
func undecorated(l string) string {
	if i := strings.IndexFunc(l, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }); i >= 0 {
		return l[i:]
	}
	return ""
}

// isRule reports whether l is a horizontal rule: box-drawing and block characters and
// spaces only, at least minRuleRunes of them, and no corner.
func isRule(l string) bool {
	n := 0
	for _, r := range l {
		switch {
		case r == ' ' || r == '\t':
		case r >= 0x2500 && r <= 0x259F && !strings.ContainsRune(boxCorners, r):
			n++
		default:
			return false
		}
	}
	return n >= minRuleRunes
}

// boxCorners are the corners of the box-drawing block (light, heavy, double, rounded
// and their mixes): a line holding one is a box's edge, not a rule.
const boxCorners = "┌┍┎┏┐┑┒┓└┕┖┗┘┙┚┛╒╓╔╕╖╗╘╙╚╛╜╝╭╮╯╰"
