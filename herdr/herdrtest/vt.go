package herdrtest

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/mattn/go-runewidth"
)

// maxScrollback bounds the rows kept above the main screen.
const maxScrollback = 10000

// vtRow is one screen row; wrapped marks a soft wrap into the following row.
type vtRow struct {
	cells   []rune
	wrapped bool
}

func newRow(cols int) vtRow {
	r := vtRow{cells: make([]rune, cols)}
	for i := range r.cells {
		r.cells[i] = ' '
	}
	return r
}

func (r vtRow) String() string {
	var b strings.Builder
	for _, c := range r.cells {
		switch {
		case c == wideSpacer:
		case c >= clusterBase:
			b.WriteString(clusterText(c))
		default:
			b.WriteRune(c)
		}
	}
	return strings.TrimRight(b.String(), " ")
}

// Cells of characters wider or longer than one rune (herdr's emulator keeps both, as
// the live pass recorded): a wide character (CJK, fullwidth forms, emoji) takes its
// cell and the next, which holds wideSpacer and prints as nothing; a character with
// combining or zero-width marks after it is one cell holding a rune at or above
// clusterBase (supplementary private use), which stands for the whole sequence.
const (
	wideSpacer  rune = 0
	clusterBase rune = 0xF0000
)

// clusters interns the multi-rune cell texts of every terminal of the process.
var clusters struct {
	sync.Mutex
	byText map[string]rune
	text   []string
}

func clusterRune(text string) rune {
	clusters.Lock()
	defer clusters.Unlock()
	if r, ok := clusters.byText[text]; ok {
		return r
	}
	if clusters.byText == nil {
		clusters.byText = map[string]rune{}
	}
	r := clusterBase + rune(len(clusters.text))
	clusters.byText[text] = r
	clusters.text = append(clusters.text, text)
	return r
}

func clusterText(r rune) string {
	clusters.Lock()
	defer clusters.Unlock()
	if i := int(r - clusterBase); i < len(clusters.text) {
		return clusters.text[i]
	}
	return string(r)
}

// cellWidth is the number of cells r takes: 0 for a mark that joins the character
// before it, 2 for a wide character, else 1.
func cellWidth(r rune) int {
	if unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r) {
		return 0
	}
	return widths.RuneWidth(r)
}

var widths = &runewidth.Condition{EastAsianWidth: false, StrictEmojiNeutral: true}

func (r vtRow) blank() bool { return r.String() == "" }

// vtGrid is one screen buffer (main or alternate) with its cursor state.
type vtGrid struct {
	rows         []vtRow
	cx, cy       int
	wrapNext     bool
	top, bottom  int // scroll region, inclusive
	savedX       int
	savedY       int
	savedPresent bool
}

func newGrid(rows, cols int) *vtGrid {
	g := &vtGrid{rows: make([]vtRow, rows), bottom: rows - 1}
	for i := range g.rows {
		g.rows[i] = newRow(cols)
	}
	return g
}

// parser states
const (
	stGround = iota
	stEsc
	stCSI
	stOSC
	stOSCEsc
	stDCS
	stDCSEsc
	stCharset
)

// terminal is the stand-in's VT emulator: a subset of xterm sufficient for shells and
// full-screen TUIs. It keeps text only (no attributes), so format "ansi" reads return
// the same text as "text".
type terminal struct {
	mu         sync.Mutex
	nrows      int
	ncols      int
	main       *vtGrid
	alt        *vtGrid
	altActive  bool
	scrollback []vtRow

	state  int
	params []byte
	osc    []byte
	utf8   []byte

	bracketedPaste bool
	appCursor      bool
	title          string
	// agentTitle and agentProgress are the last title (OSC 0/2) and OSC 9 payload, kept
	// for the screen rules (detector.go) and cleared when another agent appears.
	agentTitle, agentProgress string
	reply                     func([]byte) // answers to DSR/DA queries; may be nil
}

func newTerminal(rows, cols int, reply func([]byte)) *terminal {
	return &terminal{nrows: rows, ncols: cols, main: newGrid(rows, cols), reply: reply}
}

// rows is the terminal's height in cells (fixed when it is made).
func (t *terminal) rows() int { return t.nrows }

func (t *terminal) grid() *vtGrid {
	if t.altActive {
		return t.alt
	}
	return t.main
}

// Write feeds PTY output into the emulator.
func (t *terminal) Write(p []byte) (int, error) {
	t.mu.Lock()
	var replies [][]byte
	for _, b := range p {
		if r := t.feed(b); r != nil {
			replies = append(replies, r)
		}
	}
	reply := t.reply
	t.mu.Unlock()
	if reply != nil {
		for _, r := range replies {
			reply(r)
		}
	}
	return len(p), nil
}

func (t *terminal) feed(b byte) []byte {
	switch t.state {
	case stGround:
		if len(t.utf8) > 0 || b >= 0x80 {
			t.utf8 = append(t.utf8, b)
			if utf8.FullRune(t.utf8) || len(t.utf8) >= utf8.UTFMax {
				r, _ := utf8.DecodeRune(t.utf8)
				t.utf8 = t.utf8[:0]
				t.put(r)
			}
			return nil
		}
		if b >= 0x20 && b < 0x7f {
			t.put(rune(b))
			return nil
		}
		t.control(b)
	case stEsc:
		t.state = stGround
		t.escape(b)
	case stCSI:
		switch {
		case b >= 0x40 && b <= 0x7e:
			t.state = stGround
			out := t.csi(b)
			t.params = t.params[:0]
			return out
		case b == 0x1b:
			t.params = t.params[:0]
			t.state = stEsc
		case b == 0x18 || b == 0x1a:
			t.params = t.params[:0]
			t.state = stGround
		case b >= 0x20:
			if len(t.params) < 256 {
				t.params = append(t.params, b)
			}
		default:
			t.control(b) // C0 controls execute inside CSI
		}
	case stOSC:
		switch b {
		case 0x07:
			t.endOSC()
		case 0x1b:
			t.state = stOSCEsc
		default:
			if len(t.osc) < 4096 {
				t.osc = append(t.osc, b)
			}
		}
	case stOSCEsc:
		t.endOSC()
		if b != '\\' {
			t.state = stEsc
			t.feed(b)
		}
	case stDCS:
		if b == 0x1b {
			t.state = stDCSEsc
		}
	case stDCSEsc:
		if b == '\\' {
			t.state = stGround
		} else {
			t.state = stDCS
		}
	case stCharset:
		t.state = stGround
	}
	return nil
}

func (t *terminal) endOSC() {
	t.state = stGround
	s := string(t.osc)
	t.osc = t.osc[:0]
	num, rest, ok := strings.Cut(s, ";")
	switch {
	case ok && (num == "0" || num == "2"):
		t.title = rest
		t.agentTitle = oscText(rest)
	case ok && num == "9":
		t.agentProgress = oscText(rest)
	}
}

// oscText is an OSC payload as the screen rules read it: without control characters,
// at most 256 characters.
func oscText(s string) string {
	var b strings.Builder
	n := 0
	for _, r := range s {
		if unicode.IsControl(r) {
			continue
		}
		if n++; n > 256 {
			break
		}
		b.WriteRune(r)
	}
	return b.String()
}

// agentOSC returns the title and OSC 9 payload the program set since the last
// clearAgentOSC.
func (t *terminal) agentOSC() (title, progress string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.agentTitle, t.agentProgress
}

// clearAgentOSC forgets the title and OSC 9 payload a previous program set, so that a
// new agent is not judged by them.
func (t *terminal) clearAgentOSC() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.agentTitle, t.agentProgress = "", ""
}

func (t *terminal) control(b byte) {
	g := t.grid()
	switch b {
	case '\r':
		g.cx, g.wrapNext = 0, false
	case '\n', '\v', '\f':
		g.wrapNext = false
		t.lineFeed()
	case '\b':
		if g.cx > 0 {
			g.cx--
		}
		g.wrapNext = false
	case '\t':
		g.cx = min((g.cx/8+1)*8, t.ncols-1)
		g.wrapNext = false
	case 0x1b:
		t.state = stEsc
	}
}

func (t *terminal) escape(b byte) {
	g := t.grid()
	switch b {
	case '[':
		t.state = stCSI
		t.params = t.params[:0]
	case ']':
		t.state = stOSC
		t.osc = t.osc[:0]
	case 'P', 'X', '^', '_':
		t.state = stDCS
	case '(', ')', '*', '+', '-', '.', '/', '#', '%':
		t.state = stCharset
	case '7':
		g.savedX, g.savedY, g.savedPresent = g.cx, g.cy, true
	case '8':
		if g.savedPresent {
			g.cx, g.cy = g.savedX, g.savedY
		}
		g.wrapNext = false
	case 'D':
		t.lineFeed()
	case 'E':
		g.cx = 0
		t.lineFeed()
	case 'M':
		g.wrapNext = false
		if g.cy == g.top {
			t.scrollDown(1)
		} else if g.cy > 0 {
			g.cy--
		}
	case 'c':
		t.main = newGrid(t.nrows, t.ncols)
		t.alt, t.altActive = nil, false
		t.scrollback = nil
		t.bracketedPaste, t.appCursor = false, false
	}
}

func (t *terminal) put(r rune) {
	if r < 0x20 || r == 0x7f {
		return
	}
	g := t.grid()
	w := cellWidth(r)
	if w == 0 {
		t.joinPrevious(g, r)
		return
	}
	if g.wrapNext || w == 2 && g.cx == t.ncols-1 {
		g.rows[g.cy].wrapped = true
		g.cx = 0
		g.wrapNext = false
		t.lineFeed()
	}
	row := g.rows[g.cy].cells
	row[g.cx] = r
	if w == 2 {
		g.cx++
		row[g.cx] = wideSpacer
	}
	if g.cx == t.ncols-1 {
		g.wrapNext = true
	} else {
		g.cx++
	}
}

// joinPrevious adds the mark r to the character of the cell before the cursor (the
// cursor's own when a wrap is pending); with none before it, r is dropped.
func (t *terminal) joinPrevious(g *vtGrid, r rune) {
	x := g.cx - 1
	if g.wrapNext {
		x = g.cx
	}
	row := g.rows[g.cy].cells
	if x >= 0 && row[x] == wideSpacer {
		x--
	}
	if x < 0 {
		return
	}
	prev := row[x]
	text := string(prev)
	if prev >= clusterBase {
		text = clusterText(prev)
	}
	row[x] = clusterRune(text + string(r))
}

func (t *terminal) lineFeed() {
	g := t.grid()
	if g.cy == g.bottom {
		t.scrollUp(1)
	} else if g.cy < t.nrows-1 {
		g.cy++
	}
}

// scrollUp scrolls the scroll region up by n rows; rows leaving the top of a
// full-height main-screen region go to the scrollback.
func (t *terminal) scrollUp(n int) {
	g := t.grid()
	for range min(n, g.bottom-g.top+1) {
		gone := g.rows[g.top]
		if !t.altActive && g.top == 0 {
			t.scrollback = append(t.scrollback, gone)
			if len(t.scrollback) > maxScrollback {
				t.scrollback = t.scrollback[len(t.scrollback)-maxScrollback:]
			}
		}
		copy(g.rows[g.top:g.bottom], g.rows[g.top+1:g.bottom+1])
		g.rows[g.bottom] = newRow(t.ncols)
	}
}

func (t *terminal) scrollDown(n int) {
	g := t.grid()
	for range min(n, g.bottom-g.top+1) {
		copy(g.rows[g.top+1:g.bottom+1], g.rows[g.top:g.bottom])
		g.rows[g.top] = newRow(t.ncols)
	}
}

func (t *terminal) csi(final byte) []byte {
	raw := string(t.params)
	private := byte(0)
	if raw != "" && strings.IndexByte("?>=<", raw[0]) >= 0 {
		private = raw[0]
		raw = raw[1:]
	}
	inter := ""
	if i := strings.IndexFunc(raw, func(r rune) bool { return r >= 0x20 && r <= 0x2f }); i >= 0 {
		inter = raw[i:]
		raw = raw[:i]
	}
	var ps []int
	if raw != "" {
		for f := range strings.FieldsFuncSeq(raw, func(r rune) bool { return r == ';' || r == ':' }) {
			v, _ := strconv.Atoi(f)
			ps = append(ps, v)
		}
		if strings.HasSuffix(raw, ";") {
			ps = append(ps, 0)
		}
	}
	arg := func(i, def int) int {
		if i < len(ps) && ps[i] > 0 {
			return ps[i]
		}
		return def
	}
	if inter != "" {
		return nil // DECSCUSR and friends: nothing to model
	}
	g := t.grid()
	clampX := func(x int) int { return max(0, min(x, t.ncols-1)) }
	clampY := func(y int) int { return max(0, min(y, t.nrows-1)) }
	if private == 0 || private == '?' {
		switch final {
		case 'h', 'l':
			t.mode(private, ps, final == 'h')
			return nil
		}
	}
	if private != 0 {
		switch {
		case private == '>' && final == 'c':
			return []byte("\x1b[>0;0;0c")
		case private == '?' && final == 'n' && arg(0, 0) == 6:
			return fmt.Appendf(nil, "\x1b[?%d;%dR", g.cy+1, g.cx+1)
		}
		return nil
	}
	g.wrapNext = false
	switch final {
	case 'A':
		lim := 0
		if g.cy >= g.top {
			lim = g.top
		}
		g.cy = max(g.cy-arg(0, 1), lim)
	case 'B', 'e':
		lim := t.nrows - 1
		if g.cy <= g.bottom {
			lim = g.bottom
		}
		g.cy = min(g.cy+arg(0, 1), lim)
	case 'C', 'a':
		g.cx = clampX(g.cx + arg(0, 1))
	case 'D':
		g.cx = clampX(g.cx - arg(0, 1))
	case 'E':
		g.cy, g.cx = clampY(g.cy+arg(0, 1)), 0
	case 'F':
		g.cy, g.cx = clampY(g.cy-arg(0, 1)), 0
	case 'G', '`':
		g.cx = clampX(arg(0, 1) - 1)
	case 'H', 'f':
		g.cy, g.cx = clampY(arg(0, 1)-1), clampX(arg(1, 1)-1)
	case 'd':
		g.cy = clampY(arg(0, 1) - 1)
	case 'J':
		switch arg(0, 0) {
		case 0:
			t.eraseLine(g.cy, g.cx, t.ncols)
			for y := g.cy + 1; y < t.nrows; y++ {
				g.rows[y] = newRow(t.ncols)
			}
		case 1:
			for y := 0; y < g.cy; y++ {
				g.rows[y] = newRow(t.ncols)
			}
			t.eraseLine(g.cy, 0, g.cx+1)
		case 2, 3:
			for y := range g.rows {
				g.rows[y] = newRow(t.ncols)
			}
			if arg(0, 0) == 3 && !t.altActive {
				t.scrollback = nil
			}
		}
	case 'K':
		switch arg(0, 0) {
		case 0:
			t.eraseLine(g.cy, g.cx, t.ncols)
		case 1:
			t.eraseLine(g.cy, 0, g.cx+1)
		case 2:
			t.eraseLine(g.cy, 0, t.ncols)
		}
	case 'X':
		t.eraseLine(g.cy, g.cx, min(g.cx+arg(0, 1), t.ncols))
	case '@':
		row := g.rows[g.cy].cells
		n := min(arg(0, 1), t.ncols-g.cx)
		copy(row[g.cx+n:], row[g.cx:t.ncols-n])
		for i := g.cx; i < g.cx+n; i++ {
			row[i] = ' '
		}
	case 'P':
		row := g.rows[g.cy].cells
		n := min(arg(0, 1), t.ncols-g.cx)
		copy(row[g.cx:], row[g.cx+n:])
		for i := t.ncols - n; i < t.ncols; i++ {
			row[i] = ' '
		}
	case 'L', 'M':
		if g.cy < g.top || g.cy > g.bottom {
			return nil
		}
		top := g.top
		g.top = g.cy
		if final == 'L' {
			t.scrollDown(arg(0, 1))
		} else {
			t.scrollUpNoHistory(g, arg(0, 1)) // deleted lines never enter the scrollback
		}
		g.top = top
		g.cx = 0
	case 'S':
		t.scrollUp(arg(0, 1))
	case 'T':
		t.scrollDown(arg(0, 1))
	case 'r':
		top, bottom := arg(0, 1)-1, arg(1, t.nrows)-1
		if top < bottom && bottom < t.nrows {
			g.top, g.bottom = top, bottom
		} else {
			g.top, g.bottom = 0, t.nrows-1
		}
		g.cx, g.cy = 0, 0
	case 's':
		g.savedX, g.savedY, g.savedPresent = g.cx, g.cy, true
	case 'u':
		if g.savedPresent {
			g.cx, g.cy = g.savedX, g.savedY
		}
	case 'n':
		switch arg(0, 0) {
		case 5:
			return []byte("\x1b[0n")
		case 6:
			return fmt.Appendf(nil, "\x1b[%d;%dR", g.cy+1, g.cx+1)
		}
	case 'c':
		if arg(0, 0) == 0 {
			return []byte("\x1b[?62;22c")
		}
	}
	return nil
}

func (t *terminal) scrollUpNoHistory(g *vtGrid, n int) {
	for range min(n, g.bottom-g.top+1) {
		copy(g.rows[g.top:g.bottom], g.rows[g.top+1:g.bottom+1])
		g.rows[g.bottom] = newRow(t.ncols)
	}
}

func (t *terminal) eraseLine(y, from, to int) {
	row := t.grid().rows[y].cells
	for i := max(from, 0); i < min(to, t.ncols); i++ {
		row[i] = ' '
	}
	if to >= t.ncols {
		t.grid().rows[y].wrapped = false
	}
}

func (t *terminal) mode(private byte, ps []int, on bool) {
	if private != '?' {
		return
	}
	for _, p := range ps {
		switch p {
		case 1:
			t.appCursor = on
		case 2004:
			t.bracketedPaste = on
		case 47, 1047, 1049:
			if on == t.altActive {
				continue
			}
			if on {
				if p == 1049 {
					t.main.savedX, t.main.savedY, t.main.savedPresent = t.main.cx, t.main.cy, true
				}
				t.alt = newGrid(t.nrows, t.ncols)
				t.alt.cx, t.alt.cy = t.main.cx, t.main.cy
				t.altActive = true
			} else {
				t.altActive = false
				t.alt = nil
				if p == 1049 && t.main.savedPresent {
					t.main.cx, t.main.cy = t.main.savedX, t.main.savedY
				}
			}
		}
	}
}

// snapshot is a consistent copy of what pane.read needs.
type termSnapshot struct {
	screen  []vtRow // visible rows of the active buffer
	history []vtRow // scrollback rows followed by the main screen rows
	cy      int
}

func (t *terminal) snapshot() termSnapshot {
	t.mu.Lock()
	defer t.mu.Unlock()
	cp := func(rs []vtRow) []vtRow {
		out := make([]vtRow, len(rs))
		for i, r := range rs {
			out[i] = vtRow{cells: append([]rune(nil), r.cells...), wrapped: r.wrapped}
		}
		return out
	}
	s := termSnapshot{screen: cp(t.grid().rows), cy: t.grid().cy}
	if t.altActive {
		s.history = s.screen
	} else {
		s.history = append(cp(t.scrollback), s.screen...)
	}
	return s
}

// detectionText is the active screen without its trailing blank rows, one line per
// row (pane.read's "detection"), read without copying the scrollback.
func (t *terminal) detectionText() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return joinRows(trimTrailingBlank(t.grid().rows))
}

func (t *terminal) modes() (bracketed, appCursor bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.bracketedPaste, t.appCursor
}

func (t *terminal) Title() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.title
}

func joinRows(rs []vtRow) string {
	lines := make([]string, len(rs))
	for i, r := range rs {
		lines[i] = r.String()
	}
	return strings.Join(lines, "\n")
}

func trimTrailingBlank(rs []vtRow) []vtRow {
	for len(rs) > 0 && rs[len(rs)-1].blank() {
		rs = rs[:len(rs)-1]
	}
	return rs
}

// unwrap joins soft-wrapped rows into logical lines.
func unwrap(rs []vtRow) []vtRow {
	var out []vtRow
	var cur []rune
	joining := false
	for _, r := range rs {
		if joining {
			cur = append(cur, r.cells...)
		} else {
			cur = append([]rune(nil), r.cells...)
		}
		joining = r.wrapped
		if !joining {
			out = append(out, vtRow{cells: cur})
		}
	}
	if joining {
		out = append(out, vtRow{cells: cur})
	}
	return out
}

// redraw returns the bytes that paint the current screen on an empty terminal: the
// active buffer's rows, the cursor position and the input modes the pane's program
// set (bracketed paste, application cursor keys), so keys typed on the attached
// terminal reach the program encoded as it asked. Text only, like the emulator.
func (t *terminal) redraw() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	var b strings.Builder
	b.WriteString("\x1b[0m\x1b[H\x1b[2J")
	g := t.grid()
	for i, r := range g.rows {
		fmt.Fprintf(&b, "\x1b[%d;1H%s", i+1, r.String())
	}
	fmt.Fprintf(&b, "\x1b[%d;%dH", g.cy+1, min(g.cx, t.ncols-1)+1)
	if t.bracketedPaste {
		b.WriteString("\x1b[?2004h")
	}
	if t.appCursor {
		b.WriteString("\x1b[?1h")
	}
	return []byte(b.String())
}
