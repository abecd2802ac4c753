package main

import (
	"io"
	"strings"
	"sync"
	"unicode/utf8"
)

// Display bounds: a prompt of megabytes must not make every redraw megabytes.
const (
	maxScreenLines = 500  // conversation lines kept for display
	maxLineBytes   = 2000 // a longer conversation line is shown cut, ending in "…"
	maxInputRows   = 6    // the input box shows the last rows of its content
)

// screen is the TUI's display model: a header, the conversation so far, a
// dialog (the permission prompt) when one stands, the input box and a status
// line. Every change redraws the whole screen with clear + home. It is safe for
// concurrent use.
type screen struct {
	out  io.Writer
	size func() (cols, rows int)

	mu     sync.Mutex
	header []string
	lines  []string
	dialog string // "" when no dialog stands
	status string
	model  string // shown on the status line when set (/model)
	input  string
	title  string // the terminal title (OSC 2), "" for none
	titled bool   // a title was ever set: every redraw then writes the title, so "" clears it
}

// setTitle sets the terminal title (OSC 2) and redraws; herdr lists it as the pane's
// title, which orcr's blocked classification reads (docs/providers.md §7).
func (s *screen) setTitle(title string) {
	s.mu.Lock()
	s.titled = s.titled || title != ""
	s.mu.Unlock()
	s.set(&s.title, title)
}

// setHeader sets the header lines and redraws.
func (s *screen) setHeader(lines ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.header = lines
	s.drawLocked()
}

// addLines appends conversation text (split on newlines) and redraws.
func (s *screen) addLines(text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	lines := strings.Split(text, "\n")
	if n := len(lines) - maxScreenLines; n > 0 {
		lines = lines[n:]
	}
	for i, l := range lines {
		lines[i] = clip(l, maxLineBytes)
	}
	s.lines = append(s.lines, lines...)
	if n := len(s.lines) - maxScreenLines; n > 0 {
		s.lines = append([]string(nil), s.lines[n:]...)
	}
	s.drawLocked()
}

// set stores v in the field *f of s and redraws.
func (s *screen) set(f *string, v string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	*f = v
	s.drawLocked()
}

// setStatus sets the status line and redraws.
func (s *screen) setStatus(status string) { s.set(&s.status, status) }

// setDialog shows text above the input box, or removes the dialog for "", and
// redraws.
func (s *screen) setDialog(text string) { s.set(&s.dialog, text) }

// setModel sets the model shown on the status line and redraws.
func (s *screen) setModel(model string) { s.set(&s.model, model) }

// setInput sets the input box content and redraws.
func (s *screen) setInput(input string) { s.set(&s.input, input) }

// redraw draws the screen again (after a resize).
func (s *screen) redraw() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.drawLocked()
}

// drawLocked renders everything. s.mu is held. Lines end in CRLF because
// the terminal is in raw mode (no output post-processing).
func (s *screen) drawLocked() {
	cols, rows := 80, 24
	if s.size != nil {
		if c, r := s.size(); c > 0 && r > 0 {
			cols, rows = c, r
		}
	}
	var top []string
	for _, h := range s.header {
		top = append(top, wrap(h, cols)...)
	}
	rule := strings.Repeat("─", min(cols, 60))
	top = append(top, rule)

	var bottom []string
	if s.dialog != "" {
		bottom = append(bottom, rule)
		for _, l := range strings.Split(s.dialog, "\n") {
			bottom = append(bottom, wrap(l, cols)...)
		}
	}
	bottom = append(bottom, rule)
	bottom = append(bottom, inputRows(s.input, cols)...)
	status := "[" + s.status + "]"
	if s.model != "" {
		status += "  model " + s.model
	}
	bottom = append(bottom, rule)
	bottom = append(bottom, wrap(status, cols)...)

	var body []string
	for _, l := range s.lines {
		body = append(body, wrap(l, cols)...)
	}
	if room := rows - len(top) - len(bottom); room < len(body) {
		if room < 0 {
			room = 0
		}
		body = body[len(body)-room:]
	}

	var b strings.Builder
	if s.titled {
		b.WriteString("\x1b]2;" + s.title + "\x07")
	}
	b.WriteString("\x1b[H\x1b[2J")
	all := append(append(top, body...), bottom...)
	for i, l := range all {
		if i > 0 {
			b.WriteString("\r\n")
		}
		b.WriteString(l)
	}
	io.WriteString(s.out, b.String())
}

// inputRows renders the input box: "› " before the first line, two spaces before
// the others, only the last maxInputRows rows.
func inputRows(input string, cols int) []string {
	// Only the tail can be shown: cut it before splitting and wrapping.
	if limit := maxInputRows * max(cols, 1) * utf8.UTFMax; len(input) > limit {
		input = input[len(input)-limit:]
		for len(input) > 0 && !utf8.RuneStart(input[0]) {
			input = input[1:]
		}
		input = "…" + input
	}
	var rows []string
	for i, l := range strings.Split(input, "\n") {
		prefix := "  "
		if i == 0 {
			prefix = "› "
		}
		rows = append(rows, wrap(prefix+l, cols)...)
	}
	if n := len(rows) - maxInputRows; n > 0 {
		rows = rows[n:]
	}
	return rows
}

// wrap splits l into pieces of at most cols runes; an empty line stays one
// empty piece. Tabs are shown as a space, other control characters as '?'.
func wrap(l string, cols int) []string {
	l = strings.Map(func(r rune) rune {
		switch {
		case r == '\t':
			return ' '
		case r < 0x20 || (r >= 0x7f && r < 0xa0) || r == utf8.RuneError:
			return '?'
		}
		return r
	}, l)
	if cols <= 0 || utf8.RuneCountInString(l) <= cols {
		return []string{l}
	}
	var out []string
	r := []rune(l)
	for len(r) > cols {
		out = append(out, string(r[:cols]))
		r = r[cols:]
	}
	return append(out, string(r))
}
