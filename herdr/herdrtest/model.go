package herdrtest

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/orcr-go/orcr/herdr/herdrschema"
)

// schemaMethods is the set of method names in the protocol-20 request schema, plus the
// unlisted binary pane.graphics.stream.
var schemaMethods = func() map[string]bool {
	var doc struct {
		Schemas struct {
			Request struct {
				OneOf []struct {
					Properties struct {
						Method struct {
							Const string `json:"const"`
						} `json:"method"`
					} `json:"properties"`
				} `json:"oneOf"`
			} `json:"request"`
		} `json:"schemas"`
	}
	if err := json.Unmarshal(herdrschema.Protocol20, &doc); err != nil {
		panic("herdrtest: embedded schema: " + err.Error())
	}
	m := map[string]bool{"pane.graphics.stream": true}
	for _, o := range doc.Schemas.Request.OneOf {
		m[o.Properties.Method.Const] = true
	}
	return m
}()

// Agent statuses (AgentStatus).
const (
	StatusIdle    = "idle"
	StatusWorking = "working"
	StatusBlocked = "blocked"
	StatusDone    = "done"
	StatusUnknown = "unknown"
)

type workspace struct {
	id          string
	label       string // custom label; "" = derived from the root pane's cwd
	cwd         string
	tabCounter  uint64
	paneCounter uint64
	tabs        []*tab
	activeTab   *tab
}

type tab struct {
	id      string
	ws      *workspace
	label   string // custom label; "" = position
	root    *node
	focused *pane
}

// node is a layout tree node: a pane leaf or a split.
type node struct {
	pane          *pane
	direction     string
	ratio         float64
	first, second *node
	parent        *node
}

type pane struct {
	id       string
	terminal string
	ws       *workspace
	tab      *tab
	label    string
	cwd      string
	command  []string // the argv layout.apply gave, echoed in its layout (nil: the shell)

	cmd  *exec.Cmd
	ptmx *os.File
	vt   *terminal
	// exited is closed once the process has been reaped.
	exited chan struct{}
	// writeMu serialises writes to the PTY.
	writeMu sync.Mutex
	// attachMu guards the attached clients and orders the output each one sees with
	// its repaint (attach.go); attachGone, once set, refuses later attaches.
	attachMu   sync.Mutex
	attached   []*attachClient
	attachGone string

	agent       string
	status      string // idle|working|blocked|unknown (done = idle && !seen)
	seen        bool
	stateSeq    uint64
	completions uint64 // completion_seq: working/blocked → idle edges (Options.CompletionSeq)
	authority   string // source whose report made this an agent pane ("" = test hook)
	sourceSeqs  map[string]uint64
	session     *AgentSessionInfo
	revision    uint64
	skipsScreen bool
	hookState   string    // the state the custom reporter (authority) reported
	hookAt      time.Time // when it did

	// Process and screen detection (detection.go): the agent found in the pane's
	// foreground, the state its screen rules published, whether that is a visible
	// blocker, and when it was published.
	detAgent   string
	detState   string
	detBlocker bool
	detAt      time.Time
}

// effectiveStatus applies the seen rule: idle and unseen reads as done.
func (p *pane) effectiveStatus() string {
	if p.agent == "" {
		return StatusUnknown
	}
	if p.status == StatusIdle && !p.seen {
		return StatusDone
	}
	return p.status
}

// AgentSessionInfo is an agent's native conversation/transcript reference.
type AgentSessionInfo struct {
	Source string `json:"source"`
	Agent  string `json:"agent"`
	Kind   string `json:"kind"` // "id" or "path"
	Value  string `json:"value"`
}

// PaneInfo is herdr's PaneInfo object (docs/herdr.md §4.2), as put on the wire.
type PaneInfo struct {
	PaneID        string `json:"pane_id"`
	TerminalID    string `json:"terminal_id"`
	WorkspaceID   string `json:"workspace_id"`
	TabID         string `json:"tab_id"`
	Focused       bool   `json:"focused"`
	AgentStatus   string `json:"agent_status"`
	Revision      uint64 `json:"revision"`
	Cwd           string `json:"cwd,omitempty"`
	ForegroundCwd string `json:"foreground_cwd,omitempty"`
	Label         string `json:"label,omitempty"`
	Agent         string `json:"agent,omitempty"`
	TerminalTitle string `json:"terminal_title,omitempty"`
	// TerminalTitleStripped is the terminal title without a leading activity glyph
	// ([strippedTitle]).
	TerminalTitleStripped string            `json:"terminal_title_stripped,omitempty"`
	Scroll                *PaneScroll       `json:"scroll,omitempty"`
	AgentSession          *AgentSessionInfo `json:"agent_session,omitempty"`
	// PID is the pane process id; not part of herdr's PaneInfo and never serialised.
	PID int `json:"-"`
}

// PaneScroll is a pane's scroll position; herdr sends it on every pane row. The
// stand-in never scrolls: the offsets are 0 and the viewport is the pane's rows.
type PaneScroll struct {
	OffsetFromBottom    int `json:"offset_from_bottom"`
	MaxOffsetFromBottom int `json:"max_offset_from_bottom"`
	ViewportRows        int `json:"viewport_rows"`
}

type agentInfo struct {
	TerminalID            string            `json:"terminal_id"`
	AgentStatus           string            `json:"agent_status"`
	WorkspaceID           string            `json:"workspace_id"`
	TabID                 string            `json:"tab_id"`
	PaneID                string            `json:"pane_id"`
	Focused               bool              `json:"focused"`
	Revision              uint64            `json:"revision"`
	Agent                 string            `json:"agent,omitempty"`
	TerminalTitle         string            `json:"terminal_title,omitempty"`
	TerminalTitleStripped string            `json:"terminal_title_stripped,omitempty"`
	ScreenDetSkipped      bool              `json:"screen_detection_skipped,omitempty"`
	AgentSession          *AgentSessionInfo `json:"agent_session,omitempty"`
	StateChangeSeq        *uint64           `json:"state_change_seq,omitempty"` // protocol 20 on (herdr 0.7.2 sends none)
	CompletionSeq         *uint64           `json:"completion_seq,omitempty"`   // only with Options.CompletionSeq
	Cwd                   string            `json:"cwd,omitempty"`
	ForegroundCwd         string            `json:"foreground_cwd,omitempty"`
}

type workspaceInfo struct {
	WorkspaceID string `json:"workspace_id"`
	Number      int    `json:"number"`
	Label       string `json:"label"`
	Focused     bool   `json:"focused"`
	PaneCount   int    `json:"pane_count"`
	TabCount    int    `json:"tab_count"`
	ActiveTabID string `json:"active_tab_id"`
	AgentStatus string `json:"agent_status"`
}

type tabInfo struct {
	TabID       string `json:"tab_id"`
	WorkspaceID string `json:"workspace_id"`
	Number      int    `json:"number"`
	Label       string `json:"label"`
	Focused     bool   `json:"focused"`
	PaneCount   int    `json:"pane_count"`
	AgentStatus string `json:"agent_status"`
}

type rect struct {
	X      int `json:"x"`
	Y      int `json:"y"`
	Width  int `json:"width"`
	Height int `json:"height"`
}

type layoutPane struct {
	PaneID  string `json:"pane_id"`
	Focused bool   `json:"focused"`
	Rect    rect   `json:"rect"`
}

type layoutSplit struct {
	ID        string  `json:"id"`
	Direction string  `json:"direction"`
	Ratio     float64 `json:"ratio"`
	Rect      rect    `json:"rect"`
}

type layoutSnapshot struct {
	WorkspaceID   string        `json:"workspace_id"`
	TabID         string        `json:"tab_id"`
	Zoomed        bool          `json:"zoomed"`
	Area          rect          `json:"area"`
	FocusedPaneID string        `json:"focused_pane_id"`
	Panes         []layoutPane  `json:"panes"`
	Splits        []layoutSplit `json:"splits"`
}

type layoutNodeOut struct {
	Type      string            `json:"type"`
	PaneID    string            `json:"pane_id,omitempty"`
	Label     string            `json:"label,omitempty"`
	Cwd       string            `json:"cwd,omitempty"`
	Command   []string          `json:"command,omitempty"`
	Env       map[string]string `json:"env,omitempty"`
	Direction string            `json:"direction,omitempty"`
	Ratio     *float64          `json:"ratio,omitempty"`
	First     *layoutNodeOut    `json:"first,omitempty"`
	Second    *layoutNodeOut    `json:"second,omitempty"`
}

type layoutDescription struct {
	WorkspaceID   string         `json:"workspace_id"`
	TabID         string         `json:"tab_id"`
	Zoomed        bool           `json:"zoomed"`
	FocusedPaneID string         `json:"focused_pane_id"`
	Root          *layoutNodeOut `json:"root"`
}

// ---- model helpers; all require s.mu held ----

func (s *Session) wsIndex(w *workspace) int {
	for i, x := range s.workspaces {
		if x == w {
			return i
		}
	}
	return -1
}

func (w *workspace) tabIndex(t *tab) int {
	for i, x := range w.tabs {
		if x == t {
			return i
		}
	}
	return -1
}

// panes returns the tab's panes in layout order.
func (t *tab) panes() []*pane {
	var out []*pane
	var walk func(n *node)
	walk = func(n *node) {
		if n == nil {
			return
		}
		if n.pane != nil {
			out = append(out, n.pane)
			return
		}
		walk(n.first)
		walk(n.second)
	}
	walk(t.root)
	return out
}

func (w *workspace) panes() []*pane {
	var out []*pane
	for _, t := range w.tabs {
		out = append(out, t.panes()...)
	}
	return out
}

func (s *Session) allPanes() []*pane {
	var out []*pane
	for _, w := range s.workspaces {
		out = append(out, w.panes()...)
	}
	return out
}

func (s *Session) findLeaf(p *pane) *node {
	var found *node
	var walk func(n *node)
	walk = func(n *node) {
		if n == nil || found != nil {
			return
		}
		if n.pane == p {
			found = n
			return
		}
		walk(n.first)
		walk(n.second)
	}
	walk(p.tab.root)
	return found
}

// replaceNode puts nw where old stands in t's layout: in old's parent, or as the
// root. old keeps its parent link; the caller relinks it if it stays in the tree.
func (t *tab) replaceNode(old, nw *node) {
	nw.parent = old.parent
	switch {
	case old.parent == nil:
		t.root = nw
	case old.parent.first == old:
		old.parent.first = nw
	default:
		old.parent.second = nw
	}
}

// tabVisible reports whether t is the active tab of the active workspace.
func (s *Session) tabVisible(t *tab) bool {
	return t != nil && s.active == t.ws && t.ws.activeTab == t
}

func (s *Session) paneFocused(p *pane) bool {
	return s.tabVisible(p.tab) && p.tab.focused == p
}

func rollup(ps []*pane) string {
	rank := map[string]int{StatusUnknown: 0, StatusIdle: 1, StatusDone: 2, StatusWorking: 3, StatusBlocked: 4}
	best := StatusUnknown
	for _, p := range ps {
		if st := p.effectiveStatus(); rank[st] > rank[best] {
			best = st
		}
	}
	return best
}

func (s *Session) paneCwd(p *pane) string {
	if p.cmd != nil && p.cmd.Process != nil {
		if d, err := os.Readlink("/proc/" + strconv.Itoa(p.cmd.Process.Pid) + "/cwd"); err == nil {
			return d
		}
	}
	return p.cwd
}

func (s *Session) paneInfo(p *pane) PaneInfo {
	pi := PaneInfo{
		PaneID: p.id, TerminalID: p.terminal, WorkspaceID: p.ws.id, TabID: p.tab.id,
		Focused: s.paneFocused(p), AgentStatus: p.effectiveStatus(), Revision: p.revision,
		Cwd: s.paneCwd(p), Label: p.label, Agent: p.agent,
		AgentSession: p.session, Scroll: &PaneScroll{ViewportRows: p.vt.rows()},
	}
	pi.TerminalTitle, pi.TerminalTitleStripped = s.terminalTitles(p)
	pi.ForegroundCwd = pi.Cwd
	if p.cmd != nil && p.cmd.Process != nil {
		pi.PID = p.cmd.Process.Pid
	}
	return pi
}

func (s *Session) agentInfo(p *pane) agentInfo {
	ai := agentInfo{
		TerminalID: p.terminal, AgentStatus: p.effectiveStatus(), WorkspaceID: p.ws.id,
		TabID: p.tab.id, PaneID: p.id, Focused: s.paneFocused(p), Revision: p.revision,
		Agent: p.agent, ScreenDetSkipped: p.skipsScreen,
		AgentSession: p.session, Cwd: s.paneCwd(p),
	}
	ai.TerminalTitle, ai.TerminalTitleStripped = s.terminalTitles(p)
	if s.opts.Protocol >= 20 {
		seq := p.stateSeq
		ai.StateChangeSeq = &seq
	}
	ai.ForegroundCwd = ai.Cwd
	if s.opts.CompletionSeq {
		n := p.completions
		ai.CompletionSeq = &n
	}
	return ai
}

func (s *Session) workspaceInfo(w *workspace) workspaceInfo {
	label := w.label
	if label == "" {
		cwd := w.cwd
		if ps := w.panes(); len(ps) > 0 {
			cwd = s.paneCwd(ps[0])
		}
		label = filepath.Base(cwd)
	}
	active := ""
	if w.activeTab != nil {
		active = w.activeTab.id
	}
	return workspaceInfo{
		WorkspaceID: w.id, Number: s.wsIndex(w) + 1, Label: label, Focused: s.active == w,
		PaneCount: len(w.panes()), TabCount: len(w.tabs), ActiveTabID: active,
		AgentStatus: rollup(w.panes()),
	}
}

func (s *Session) tabInfo(t *tab) tabInfo {
	n := t.ws.tabIndex(t) + 1
	label := t.label
	if label == "" {
		label = strconv.Itoa(n)
	}
	return tabInfo{
		TabID: t.id, WorkspaceID: t.ws.id, Number: n, Label: label,
		Focused: s.tabVisible(t), PaneCount: len(t.panes()), AgentStatus: rollup(t.panes()),
	}
}

// tabArea is where herdr lays out a tab's panes: right of the sidebar, below the tab
// bar.
func (s *Session) tabArea() rect {
	p := s.opts.Size.Pane()
	return rect{X: sidebarCols, Y: tabBarRows, Width: p.Cols, Height: p.Rows}
}

func (s *Session) layoutSnapshot(t *tab) layoutSnapshot {
	ls := layoutSnapshot{WorkspaceID: t.ws.id, TabID: t.id, Area: s.tabArea(), Panes: []layoutPane{}, Splits: []layoutSplit{}}
	if t.focused != nil {
		ls.FocusedPaneID = t.focused.id
	}
	var walk func(n *node, r rect, path string)
	walk = func(n *node, r rect, path string) {
		if n.pane != nil {
			ls.Panes = append(ls.Panes, layoutPane{PaneID: n.pane.id, Focused: n.pane == t.focused, Rect: r})
			return
		}
		// herdr names a split by its place in this walk and its path ("root" for the
		// root), and rounds the first part's share (herdr 0.8.2 and 0.7.2).
		id := path
		if id == "" {
			id = "root"
		}
		ls.Splits = append(ls.Splits, layoutSplit{ID: fmt.Sprintf("split_%d_%s", len(ls.Splits), id), Direction: n.direction, Ratio: n.ratio, Rect: r})
		a, b := r, r
		if n.direction == "right" {
			a.Width = int(math.Round(float64(r.Width) * n.ratio))
			b.X, b.Width = r.X+a.Width, r.Width-a.Width
		} else {
			a.Height = int(math.Round(float64(r.Height) * n.ratio))
			b.Y, b.Height = r.Y+a.Height, r.Height-a.Height
		}
		walk(n.first, a, path+"0")
		walk(n.second, b, path+"1")
	}
	if t.root != nil {
		walk(t.root, ls.Area, "")
	}
	return ls
}

func (s *Session) layoutDescription(t *tab) layoutDescription {
	ld := layoutDescription{WorkspaceID: t.ws.id, TabID: t.id}
	if t.focused != nil {
		ld.FocusedPaneID = t.focused.id
	}
	var conv func(n *node) *layoutNodeOut
	conv = func(n *node) *layoutNodeOut {
		if n.pane != nil {
			return &layoutNodeOut{Type: "pane", PaneID: n.pane.id, Label: n.pane.label, Cwd: s.paneCwd(n.pane), Command: n.pane.command}
		}
		r := n.ratio
		return &layoutNodeOut{Type: "split", Direction: n.direction, Ratio: &r, First: conv(n.first), Second: conv(n.second)}
	}
	if t.root != nil {
		ld.Root = conv(t.root)
	}
	return ld
}

// terminalTitles are a pane's terminal_title and terminal_title_stripped: the title its
// program set (OSC 0/2), from protocol 20 on (herdr 0.7.2 sends neither).
func (s *Session) terminalTitles(p *pane) (title, stripped string) {
	if s.opts.Protocol < 20 {
		return "", ""
	}
	title = p.vt.Title()
	return title, strippedTitle(title)
}

// activityGlyphs are the leading characters herdr 0.8.2 strips from a terminal title
// for terminal_title_stripped (claude's activity marks; braille spinners too).
const activityGlyphs = "·✢✳✶✻✽◐◓◑◒"

// strippedTitle is herdr's terminal_title_stripped: the title trimmed, without a
// leading activity glyph or braille character followed by a space (or alone); ""
// (absent) when nothing is left. herdr sends no title of its own for a pane: that is
// the title an integration reports (pane.report_metadata), which the stand-in has not.
func strippedTitle(title string) string {
	t := strings.TrimSpace(title)
	r, n := utf8.DecodeRuneInString(t)
	if n == 0 {
		return ""
	}
	rest := t[n:]
	if (r >= 0x2800 && r <= 0x28ff || strings.ContainsRune(activityGlyphs, r)) &&
		(rest == "" || unicode.IsSpace([]rune(rest)[0])) {
		return strings.TrimSpace(rest)
	}
	return t
}
