package top

import (
	"fmt"
	"image/color"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/orcr-go/orcr/socketapi/api"
)

type styles struct {
	title, gray, dim, yellow, label, blocked, lineage, selMark, related lipgloss.Style
	tones                                                               map[tone]lipgloss.Style
	selBg                                                               color.Color
}

func newStyles(noColor bool) styles {
	fg := func(c string) lipgloss.Style {
		if noColor {
			return lipgloss.NewStyle()
		}
		return lipgloss.NewStyle().Foreground(lipgloss.Color(c))
	}
	s := styles{
		title:   fg("6").Bold(true),
		gray:    fg("8"),
		dim:     fg("8").Faint(true),
		yellow:  fg("3"),
		label:   lipgloss.NewStyle().Bold(true),
		blocked: fg("5").Bold(true),
		lineage: fg("8").Faint(true),
		selMark: fg("6"),
		related: fg("8"),
		tones: map[tone]lipgloss.Style{toneGray: fg("8"), toneGreen: fg("2"), toneMagenta: fg("5"),
			toneDim: fg("8").Faint(true), toneRed: fg("1"), toneCyan: fg("6")},
	}
	if !noColor {
		s.selBg = lipgloss.Color("#1e252b") // RGB 30,37,43: subdued, so status colours stay
	}
	return s
}

// columns are the widths of the table's columns (the tree cell takes the rest).
type columns struct{ status, provider, model, effort, dur, cost int }

// presetFor picks the column widths for a table w cells wide: three presets, for ≥120,
// ≥80 and narrower.
func presetFor(w int) columns {
	switch {
	case w >= 120:
		return columns{status: 22, provider: 9, model: 18, effort: 7, dur: 10, cost: 9}
	case w >= 80:
		return columns{status: 22, provider: 6, model: 8, dur: 10, cost: 8}
	}
	return columns{status: 12, dur: 10}
}

// chrome is the lines around the body: the header (two lines, three with quota
// windows), the status line and the footer.
func (m *Model) chrome() int { return len(m.header()) + 2 }

// detailBelow is the height of the detail pane under the table (80-column screens).
const detailBelow = 8

// sideBySide reports whether the detail pane sits right of the table.
func (m *Model) sideBySide() bool { return m.width >= 140 }

func (m *Model) tooSmallForDetail() bool {
	return !m.sideBySide() && m.height-m.chrome() < detailBelow+6
}

func (m *Model) tableWidth() int {
	if m.sideBySide() {
		return m.width - m.detailWidth() - 1
	}
	return m.width
}

func (m *Model) detailWidth() int { return max(50, m.width*2/5) }

func (m *Model) tableHeight() int {
	h := m.height - m.chrome()
	if !m.sideBySide() && !m.tooSmallForDetail() {
		h -= detailBelow
	}
	return max(h, 1)
}

// clampScroll keeps the selection inside the visible rows.
func (m *Model) clampScroll() {
	i := m.index(m.sel)
	if i < 0 {
		if len(m.rows) > 0 {
			m.sel, i = m.rows[0].Node.ID, 0
		} else {
			m.offset, m.cursor = 0, 0
			return
		}
	}
	m.cursor = i
	h := m.tableHeight()
	if i < m.offset {
		m.offset = i
	}
	if i >= m.offset+h {
		m.offset = i - h + 1
	}
	m.offset = max(0, min(m.offset, len(m.rows)-h))
}

// View implements tea.Model.
func (m *Model) View() tea.View {
	if m.stale || m.screen == "" {
		m.screen, m.stale = m.Render(), false
	}
	v := tea.NewView(m.screen)
	v.AltScreen = true
	v.WindowTitle = "orcr top"
	return v
}

// Render is the screen as text (ANSI styled).
func (m *Model) Render() string {
	if m.quit {
		return ""
	}
	if m.width <= 0 || m.height <= 0 {
		return ""
	}
	lines := make([]string, 0, m.height)
	header := m.header()
	lines = append(lines, header...)
	chrome := len(header) + 2
	table := m.table()
	if m.sideBySide() {
		det := m.detailLines(m.detailWidth(), m.height-chrome, false)
		tw := m.tableWidth()
		bar := m.styles.dim.Render("│")
		for i := range m.height - chrome {
			lines = append(lines, pad(table, i, tw)+bar+fit(det, i, m.detailWidth()))
		}
	} else {
		lines = append(lines, table...)
		for len(lines) < len(header)+m.tableHeight() {
			lines = append(lines, "")
		}
		if !m.tooSmallForDetail() {
			lines = append(lines, m.detailLines(m.width, detailBelow, true)...)
		}
	}
	for len(lines) < m.height-2 {
		lines = append(lines, "")
	}
	lines = append(lines, m.statusLine(), m.footer())
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, m.width, "")
	}
	return strings.Join(lines[:min(len(lines), m.height)], "\n")
}

func pad(ls []string, i, w int) string {
	if i >= len(ls) {
		return strings.Repeat(" ", w)
	}
	s := ansi.Truncate(ls[i], w, "")
	return s + strings.Repeat(" ", max(0, w-ansi.StringWidth(s)))
}

func fit(ls []string, i, w int) string {
	if i >= len(ls) {
		return ""
	}
	return ansi.Truncate(ls[i], w, "…")
}

func (m *Model) header() []string {
	st := m.styles
	top := st.title.Render("orcr")
	if m.data != nil {
		c := m.counts
		top += st.gray.Render(fmt.Sprintf("  live %d · queued %d · blocked %d · lost %d", c.live, c.queued, c.blocked, c.lost))
	}
	top += st.gray.Render("  " + m.herdrState())
	second := fmt.Sprintf("%d %s · %d needs input · %d %s", m.tree.Agents, plural(m.tree.Agents, "agent", "agents"),
		m.tree.Blocked, m.tree.Loops, plural(m.tree.Loops, "loop", "loops"))
	line2 := st.gray.Render(second)
	if m.filter != "" {
		line2 += st.yellow.Render(" · /" + m.filter)
	}
	if f := m.fleetState(); f != "" {
		line2 += st.gray.Render(" · ") + f
	}
	if m.banner != "" {
		line2 += "  " + st.yellow.Render(m.banner)
	}
	if q := m.quotaLine(); q != "" {
		return []string{top, line2, q}
	}
	return []string{top, line2}
}

// fleetState is the header's word on the fleet under `top --fleet` (docs/top.md §7):
// "fleet: N hosts", the unreachable ones counted in yellow, or why the last round
// failed; "" without --fleet.
func (m *Model) fleetState() string {
	if !m.fleet {
		return ""
	}
	st := m.styles
	if m.fleetErr != "" {
		return st.yellow.Render("fleet: " + m.fleetErr)
	}
	down := 0
	for _, r := range m.remotes {
		if !r.Reachable {
			down++
		}
	}
	s := st.gray.Render(fmt.Sprintf("fleet: %d other %s", len(m.remotes), plural(len(m.remotes), "host", "hosts")))
	if down > 0 {
		s += st.yellow.Render(fmt.Sprintf(" (%d unreachable)", down))
	}
	return s
}

// hostStatus is a host node's status and duration cells: its agent count, or
// "unreachable" and how long ago it was last seen ("seen 35s", "never seen").
func (m *Model) hostStatus(n *Node) (status, seen string) {
	r := n.Remote
	if r.Reachable {
		return strconv.Itoa(n.Agents) + " " + plural(n.Agents, "agent", "agents"), ""
	}
	if r.LastSeen == nil {
		return "unreachable", "never seen"
	}
	return "unreachable", "seen " + Age(m.now().Sub(time.UnixMilli(*r.LastSeen)))
}

// quotaLine is the header's third line (docs/top.md §3): each provider's quota windows
// from server.status, judged at top's clock ([api.QuotaWindow.Judge]) — used percent
// and time to reset, yellow at quota.warn_at, red and "paused" at quota.pause_at, "reset"
// once the reset passed; "" before any window was reported.
func (m *Model) quotaLine() string {
	if m.status == nil || len(m.status.Quota) == 0 {
		return ""
	}
	st := m.styles
	now := m.now()
	var b strings.Builder
	b.WriteString(st.gray.Render("quota"))
	prev := ""
	for _, w := range m.status.Quota {
		w = w.Judge(now.UnixMilli(), 0, 0)
		if name := QuotaName(w); name != prev {
			sep := " · "
			if prev == "" {
				sep = "  "
			}
			b.WriteString(st.gray.Render(sep) + st.label.Render(name))
			prev = name
		}
		text := " " + WindowLabel(w) + " "
		switch w.State {
		case api.QuotaReset:
			b.WriteString(st.gray.Render(text + "reset"))
			continue
		case api.QuotaPaused:
			text += fmt.Sprintf("%.0f%% paused", w.UsedPercent)
		default:
			text += fmt.Sprintf("%.0f%%", w.UsedPercent)
		}
		if w.ResetsAt > 0 {
			text += " (" + Remaining(time.UnixMilli(w.ResetsAt).Sub(now)) + ")"
		}
		switch w.State {
		case api.QuotaPaused:
			b.WriteString(st.tones[toneRed].Bold(true).Render(text))
		case api.QuotaWarn:
			b.WriteString(st.yellow.Render(text))
		default:
			b.WriteString(st.gray.Render(text))
		}
	}
	return b.String()
}

// herdrState is the header's herdr part, from server.status at the last (re)connect.
func (m *Model) herdrState() string {
	if m.status == nil {
		return "herdr ?"
	}
	h := m.status.Herdr
	switch {
	case h.Error != nil:
		return "herdr: " + string(h.Error.Code)
	case !h.Reachable:
		return "herdr: not found"
	case !h.SessionRunning:
		return "herdr: session " + h.Session + " not running"
	}
	s := "herdr: " + h.Session
	if h.Protocol != nil {
		s += " (protocol " + strconv.Itoa(*h.Protocol) + ")"
	}
	return s
}

// table renders the visible rows.
func (m *Model) table() []string {
	if len(m.rows) == 0 {
		if m.data == nil {
			return []string{m.styles.gray.Render("  waiting for the server…")}
		}
		return []string{m.styles.gray.Render("  no active agents")}
	}
	w := m.tableWidth()
	cols := presetFor(w)
	fixed := 2 + cols.status + cols.provider + cols.model + cols.effort + cols.dur + cols.cost
	for _, c := range []int{cols.status, cols.provider, cols.model, cols.effort, cols.dur, cols.cost} {
		if c > 0 {
			fixed++
		}
	}
	treeW := max(w-fixed, 10)
	sel := m.selected()
	now := m.now()
	end := min(len(m.rows), m.offset+m.tableHeight())
	out := make([]string, 0, end-m.offset)
	for _, r := range m.rows[m.offset:end] {
		out = append(out, m.row(r, sel, cols, treeW, now))
	}
	return out
}

// cell is one column's text and style.
type cell struct {
	text  string
	style lipgloss.Style
}

func (m *Model) row(r Row, sel *Node, cols columns, treeW int, now time.Time) string {
	st := m.styles
	n := r.Node
	selected := sel == n
	bg := func(s lipgloss.Style) lipgloss.Style {
		if selected && st.selBg != nil {
			return s.Background(st.selBg)
		}
		return s
	}
	gutter := "  "
	gStyle := st.gray
	switch {
	case selected:
		gutter, gStyle = "▌ ", st.selMark
	case sel != nil && (n.Parent == sel || sel.Parent == n):
		gutter, gStyle = "┆ ", st.related
	}
	// The tree cell: prefix, disclosure, glyph, label, lineage.
	var tree []cell
	tree = append(tree, cell{r.Prefix, st.dim})
	if len(n.Children) > 0 {
		mark := "▾ "
		if m.folded[n.ID] {
			mark = "▸ "
		}
		tree = append(tree, cell{mark, st.gray})
	}
	glyph, gt, label, lstyle := " ", toneGray, n.Key, st.label
	var status, provider, model, effort, dur string
	switch n.Kind {
	case KindAgent:
		a := n.Agent
		glyph, gt = Glyph(a.Status)
		if a.Status == api.StatusBlocked {
			lstyle = st.blocked
		}
		status = Label(a.Status)
		if a.BlockedKind != nil {
			status += " · " + *a.BlockedKind
		}
		if a.Stalled {
			glyph, gt = StalledGlyph, toneMagenta
			status += " · stalled"
		}
		provider, model, effort = or(a.Agent, "-"), or(a.Model, ""), or(a.Effort, "")
		dur, _ = Duration(a, now)
	case KindLoop:
		glyph = "·"
		status = "loop · " + n.Loop.Status
		provider = n.Loop.Cadence
		dur = "next " + Clock(n.Loop.NextFireAt, m.loc)
	case KindRun:
		glyph, gt = "⟳", toneCyan
		label = "run " + n.Key
		status, provider = n.Run.Status, n.Run.Kind
		model = "due " + Clock(n.Run.DueAt, m.loc)
		if n.Run.StartedAt != nil {
			dur = Age(now.Sub(time.UnixMilli(*n.Run.StartedAt)))
		}
	case KindDone:
		glyph, gt, label = "✓", toneGreen, "done"
		status = strconv.Itoa(len(n.Children)) + " " + plural(len(n.Children), "agent", "agents")
	case KindHost:
		glyph, gt, label = "⌂", toneCyan, n.Host+":"
		if !n.Remote.Reachable {
			gt = toneRed
		}
		status, dur = m.hostStatus(n)
	default:
		if n.Blocked > 0 && m.folded[n.ID] {
			status = strconv.Itoa(n.Blocked) + " needs input"
		}
	}
	if n.Kind != KindScope {
		tree = append(tree, cell{glyph + " ", st.tones[gt]})
	}
	tree = append(tree, cell{label, lstyle})
	if n.Lineage != "" {
		tree = append(tree, cell{" ↖ " + n.Lineage, st.lineage})
	}
	var b strings.Builder
	b.WriteString(bg(gStyle).Render(gutter))
	b.WriteString(renderCells(tree, treeW, bg))
	statusStyle := st.gray
	if n.Kind == KindAgent || n.Kind == KindHost && !n.Remote.Reachable {
		statusStyle = st.tones[gt]
	}
	for _, c := range []struct {
		w     int
		text  string
		style lipgloss.Style
	}{{cols.status, status, statusStyle}, {cols.provider, provider, st.gray}, {cols.model, model, st.gray},
		{cols.effort, effort, st.gray}, {cols.dur, dur, st.gray}, {cols.cost, Cost(n.Usage), st.gray}} {
		if c.w == 0 {
			continue
		}
		b.WriteString(bg(lipgloss.NewStyle()).Render(" "))
		b.WriteString(renderCells([]cell{{c.text, c.style}}, c.w, bg))
	}
	return b.String()
}

// renderCells lays cells out left to right in exactly w columns: cut with "…" when too
// long, padded with spaces when short, each part in its style.
func renderCells(cs []cell, w int, bg func(lipgloss.Style) lipgloss.Style) string {
	var b strings.Builder
	left := w
	for _, c := range cs {
		if left <= 0 {
			break
		}
		t := c.text
		if ansi.StringWidth(t) > left {
			t = ansi.Truncate(t, left, "…")
		}
		left -= ansi.StringWidth(t)
		b.WriteString(bg(c.style).Render(t))
	}
	if left > 0 {
		b.WriteString(bg(lipgloss.NewStyle()).Render(strings.Repeat(" ", left)))
	}
	return b.String()
}

func (m *Model) statusLine() string {
	if m.msg == "" {
		return ""
	}
	if m.msgErr {
		return m.styles.tones[toneRed].Render(m.msg)
	}
	return m.styles.yellow.Render(m.msg)
}

func (m *Model) footer() string {
	st := m.styles
	switch m.mode {
	case modeFilter:
		return st.yellow.Render("/") + m.input.View()
	case modeSend:
		return st.yellow.Render("send> ") + m.input.View()
	case modeKill:
		return st.yellow.Render(m.killFor)
	}
	help := "[/] filter  [←→] fold  [↑↓] move  [n] needs you  [s] send  [K] kill  [a] attach  [w] wait  [q] quit"
	if m.width < 100 {
		help = "/ filter ←→ fold ↑↓ move n next s send K kill a attach w wait q quit"
	}
	return st.gray.Render(help)
}

// detailLines is the detail pane: what the selected node is and, for an agent, its turn,
// last response and latest transcript entries, h lines of at most w cells.
func (m *Model) detailLines(w, h int, rule bool) []string {
	st := m.styles
	var ls []string
	add := func(s string, style lipgloss.Style) {
		for _, l := range wrap(s, w) {
			ls = append(ls, style.Render(l))
		}
	}
	if rule {
		ls = append(ls, st.dim.Render(strings.Repeat("─", w)))
	} else {
		w-- // a space after the bar
		add = func(s string, style lipgloss.Style) {
			for _, l := range wrap(s, w) {
				ls = append(ls, " "+style.Render(l))
			}
		}
	}
	n := m.selected()
	switch {
	case n == nil:
	case n.Kind == KindHost:
		r := n.Remote
		add("host "+r.Host+" (a member of this server's fleet)", st.label)
		if r.Reachable {
			add(fmt.Sprintf("reachable · %d %s · %d needs input", n.Agents, plural(n.Agents, "agent", "agents"), n.Blocked), st.gray)
			break
		}
		status, seen := m.hostStatus(n)
		if r.LastSeen != nil {
			seen += " ago"
		}
		add(status+" ("+seen+"): "+r.Err, st.yellow)
		if !r.At.IsZero() {
			add("its agents as top last read them, "+Age(m.now().Sub(r.At))+" ago: they may be fine", st.gray)
		}
	case n.Kind == KindAgent:
		a := n.Agent
		add(hostPath(n.Host, a.Path)+"  "+a.UUID, st.label)
		line := "status " + Label(a.Status) + " (" + string(a.Status) + ")"
		if a.BlockedKind != nil {
			line += " · blocked on " + *a.BlockedKind
		}
		if a.Stalled && a.StalledAt != nil {
			line += " · stalled " + Age(m.now().Sub(time.UnixMilli(*a.StalledAt)))
		}
		line += " · " + or(a.Agent, "-")
		if a.Model != nil {
			line += " " + *a.Model
		}
		if a.Effort != nil {
			line += " " + *a.Effort
		}
		if !a.Managed {
			line += " · unmanaged"
		}
		add(line, st.gray)
		add(m.turnLine(a), st.gray)
		if a.PaneID != nil && !a.Status.Gone() {
			add("a attaches to its pane · ctrl+b q detaches", st.gray)
		}
		if n.Lineage != "" {
			add("spawned by "+n.Lineage, st.gray)
		}
		m.detailBody(a, w, add)
	case n.Kind == KindLoop:
		l := n.Loop
		add("loop "+l.Name+" · "+l.Status, st.label)
		add(fmt.Sprintf("%s %s (%s) · next %s · last %s · %d active %s", l.CadenceKind, l.Cadence, l.TZ,
			Clock(l.NextFireAt, m.loc), Clock(l.LastFireAt, m.loc), len(l.Runs), plural(len(l.Runs), "run", "runs")), st.gray)
	case n.Kind == KindRun:
		add("run "+n.Path+" · "+n.Run.Status+" · "+n.Run.Kind, st.label)
		add(fmt.Sprintf("%d %s · due %s", n.Agents, plural(n.Agents, "agent", "agents"), Clock(n.Run.DueAt, m.loc)), st.gray)
	default:
		name := n.Path
		if n.Kind == KindDone {
			name = "done (parked agents)"
		}
		add(name, st.label)
		add(fmt.Sprintf("%d %s · %d needs input", n.Agents, plural(n.Agents, "agent", "agents"), n.Blocked), st.gray)
	}
	if len(ls) > h {
		ls = ls[:h]
	}
	return ls
}

func (m *Model) turnLine(a *api.AgentRow) string {
	if a.TurnDeliveredAt == nil {
		d, _ := Duration(a, m.now())
		return "no turn yet · " + Label(a.Status) + " for " + d
	}
	d, running := Duration(a, m.now())
	at := time.UnixMilli(*a.TurnDeliveredAt).In(m.loc).Format("15:04:05")
	if running {
		return "turn running " + d + " (since " + at + ")"
	}
	return "last turn took " + d + " (from " + at + ")"
}

func (m *Model) detailBody(a *api.AgentRow, w int, add func(string, lipgloss.Style)) {
	st := m.styles
	d := m.detail
	switch {
	case d.uuid != a.UUID || (d.loading && d.entries == nil && d.response == nil && d.err == nil):
		add("loading…", st.dim)
		return
	case d.err != nil:
		add("transcript: "+shortErr(d.err), st.dim)
		return
	}
	if d.response != nil && d.response.Text != "" {
		add("last response:", st.gray)
		for _, l := range strings.Split(strings.TrimSpace(d.response.Text), "\n") {
			add("  "+l, lipgloss.NewStyle())
		}
	}
	if len(d.entries) > 0 {
		add("transcript:", st.gray)
		for _, e := range d.entries {
			head := e.Role
			if e.Kind != "text" {
				head += " " + e.Kind
			}
			if e.Tool != "" {
				head += " " + e.Tool
			}
			add("  "+head+": "+oneLine(e.Text), st.dim)
		}
	}
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// wrap breaks s into lines of at most w cells, at spaces where it can.
func wrap(s string, w int) []string {
	if w <= 0 {
		return nil
	}
	var out []string
	for ansi.StringWidth(s) > w {
		cut := ansi.Truncate(s, w, "")
		if i := strings.LastIndexByte(cut, ' '); i > w/2 {
			cut = cut[:i]
		}
		out = append(out, cut)
		s = strings.TrimLeft(s[len(cut):], " ")
	}
	return append(out, s)
}
