package main

import (
	"io"
	"strings"
	"sync"
	"unicode/utf8"
)

// maxScreenLines bounds the conversation lines kept for display.
const maxScreenLines = 500

// screen is the TUI's display model: a header, the conversation so far, a
// status line and the input box. Every change redraws the whole screen with
// clear + home. It is safe for concurrent use.
type screen struct {
	out  io.Writer
	size func() (cols, rows int)

	mu     sync.Mutex
	header []string
	lines  []string
	status string
	input  string
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
	s.lines = append(s.lines, strings.Split(text, "\n")...)
	if n := len(s.lines) - maxScreenLines; n > 0 {
		s.lines = append([]string(nil), s.lines[n:]...)
	}
	s.drawLocked()
}

// setStatus sets the status line and redraws.
func (s *screen) setStatus(status string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.status = status
	s.drawLocked()
}

// setInput sets the input box content and redraws.
func (s *screen) setInput(input string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.input = input
	s.drawLocked()
}

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

	inputLines := strings.Split(s.input, "\n")
	var bottom []string
	bottom = append(bottom, rule)
	for i, l := range inputLines {
		prefix := "  "
		if i == 0 {
			prefix = "› "
		}
		bottom = append(bottom, wrap(prefix+l, cols)...)
	}
	bottom = append(bottom, rule, "["+s.status+"]")

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
