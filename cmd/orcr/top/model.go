package top

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/store/agentpath"
)

// frameBudget is the least time between two rebuilds of the tree: a burst of events is
// applied to the data as it comes and drawn once per frame.
const frameBudget = 100 * time.Millisecond

// Messages the program's goroutines and commands send to the model.
type (
	// snapshotMsg opens generation gen: the watch's snapshot (and server.status for the
	// header's herdr state, nil when it failed).
	snapshotMsg struct {
		gen    int
		snap   api.Snapshot
		status *api.StatusResult
	}
	// eventMsg is one event of generation gen, applied in seq order.
	eventMsg struct {
		gen int
		ev  socketapi.Event
	}
	// lostMsg says the watch of generation gen ended; the reader is reconnecting.
	lostMsg struct {
		gen     int
		err     error
		attempt int
	}
	// statusMsg is server.status read again (every statusEvery while a watch is open): the
	// header's herdr state and quota windows.
	statusMsg struct{ status api.StatusResult }
	frameMsg  struct{}
	clockMsg  struct{}
	detailMsg struct {
		uuid     string
		ver      int
		entries  []api.LogEntry
		response *api.Response
		err      error
	}
	// doneMsg is the outcome of an action, for the status line.
	doneMsg struct {
		text string
		err  error
	}
)

type mode int

const (
	modeNormal mode = iota
	modeFilter
	modeSend
	modeKill
)

// Actions are what the keys do beyond the view. [ClientActions] makes them from the
// Go SDK; every one runs as a tea.Cmd, off the UI loop. host is the fleet member the
// agents run on, "" for this server's own (`top --fleet`, docs/top.md §7).
type Actions struct {
	Send   func(ctx context.Context, host, uuid, prompt string) (api.SendResult, error)
	Kill   func(ctx context.Context, host string, targets []string) (api.KillResult, error)
	Wait   func(ctx context.Context, host string, targets []string) (api.WaitResult, error)
	Detail func(ctx context.Context, host, uuid string) ([]api.LogEntry, *api.Response, error)
	// Attach is the command `a` runs in the terminal while the UI is suspended, for a
	// target as `orcr agent attach` takes it: a uuid, or `<host>:<uuid>` for a member's
	// agent (attached over the fleet, docs/fleet.md §4.10).
	Attach func(target string) *exec.Cmd
}

// Model is the state of `orcr top`: the data of the watch (a socketapi.Model the events
// are applied to), the tree built from it, the selection and the input modes.
type Model struct {
	opts    Options
	scope   string
	acts    Actions
	now     func() time.Time
	loc     *time.Location
	styles  styles
	width   int
	height  int
	data    *socketapi.Model
	gen     int
	status  *api.StatusResult
	banner  string // "reconnecting…" while the watch is down
	tree    *Tree
	rows    []Row
	dirty   bool
	framing bool // a frameMsg is on its way
	ticking bool // a clockMsg is on its way
	sel     string
	offset  int
	folded  map[string]bool
	mode    mode
	input   textinput.Model
	filter  string
	killIDs []string
	killFor string
	msg     string
	msgErr  bool
	detail  detail
	// detailStamp is the selected row's state when its detail was last fetched.
	detailStamp string
	counts      fleetCounts
	// cursor is the row the selection was last seen at.
	cursor int
	quit   bool
	// screen is the last Render, redone only when stale.
	screen string
	stale  bool
	// fleet shows the other members' agents (`top --fleet`): remotes as last read,
	// fleetErr when the last round failed.
	fleet    bool
	remotes  []Remote
	fleetErr string
	// killHost is the host of the subtree a kill confirmation is for ("" for this
	// server's own).
	killHost string
}

type detail struct {
	uuid     string
	ver      int
	loading  bool
	entries  []api.LogEntry
	response *api.Response
	err      error
}

// Config holds what a Model is made from.
type Config struct {
	Options Options
	// Scope is where a `/` filter's relative pattern lands (the caller's scope).
	Scope   string
	Actions Actions
	// Now and Location are the clock (tests fix both).
	Now      func() time.Time
	Location *time.Location
	// NoColor drops every colour (NO_COLOR); bold and dim stay.
	NoColor bool
	// Fleet adds the other members of the server's fleet, each under its host
	// (docs/top.md §7).
	Fleet  bool
	Width  int
	Height int
}

// NewModel returns the model before its first snapshot.
func NewModel(c Config) *Model {
	m := &Model{opts: c.Options, scope: c.Scope, acts: c.Actions, now: c.Now, loc: c.Location,
		styles: newStyles(c.NoColor), width: c.Width, height: c.Height, folded: map[string]bool{}, fleet: c.Fleet}
	if m.now == nil {
		m.now = time.Now
	}
	if m.loc == nil {
		m.loc = time.Local
	}
	m.input = textinput.New()
	m.input.Prompt = ""
	st := m.input.Styles()
	st.Cursor.Blink = false
	m.input.SetStyles(st)
	m.tree = Build(api.Snapshot{}, m.opts)
	m.banner = "connecting…"
	return m
}

// Init implements tea.Model.
func (m *Model) Init() tea.Cmd { return nil }

// Tree returns the tree as last built (tests).
func (m *Model) Tree() *Tree { return m.tree }

// Data returns the watch data the events were applied to (tests).
func (m *Model) Data() *socketapi.Model { return m.data }

// Update implements tea.Model. An event only changes the data: the screen changes at
// the next frame, so the view stays cached until then.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if _, ok := msg.(eventMsg); !ok {
		m.stale = true
	}
	return m.update(msg)
}

func (m *Model) update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.clampScroll()
		return m, nil
	case snapshotMsg:
		m.gen, m.data, m.banner = msg.gen, socketapi.NewModel(msg.snap), ""
		if msg.status != nil {
			m.status = msg.status
		}
		m.rebuild()
		return m, tea.Batch(m.detailCmd(), m.clockCmd())
	case eventMsg:
		if msg.gen != m.gen || m.data == nil {
			return m, nil // an event of a watch that has ended since
		}
		if err := m.data.Apply(msg.ev); err != nil {
			m.setMsg("", err)
			return m, nil
		}
		switch m.data.Event.Payload.(type) {
		case api.AgentEvent, api.IntentEvent, api.AppliedEvent, api.LoopEvent, api.RunEvent:
			m.dirty = true
		default:
			return m, nil // no row changed: attach leases, provider pauses, debug events
		}
		return m, m.frameCmd()
	case fleetMsg:
		m.mergeFleet(msg)
		m.rebuild()
		return m, tea.Batch(m.detailCmd(), m.clockCmd())
	case statusMsg:
		m.status = &msg.status
		m.clampScroll() // the quota line may have come or gone
		return m, nil
	case lostMsg:
		if msg.gen == m.gen {
			m.banner = "reconnecting…"
			if msg.err != nil {
				m.banner += " (" + shortErr(msg.err) + ")"
			}
		}
		return m, nil
	case frameMsg:
		m.framing = false
		if m.dirty {
			m.rebuild()
			return m, tea.Batch(m.detailCmd(), m.clockCmd())
		}
		return m, nil
	case clockMsg:
		m.ticking = false
		return m, m.clockCmd()
	case detailMsg:
		if msg.uuid == m.detail.uuid && msg.ver == m.detail.ver {
			m.detail.loading, m.detail.entries, m.detail.response, m.detail.err = false, msg.entries, msg.response, msg.err
		}
		return m, nil
	case doneMsg:
		m.setMsg(msg.text, msg.err)
		return m, nil
	case tea.KeyPressMsg:
		return m, m.key(msg)
	case tea.PasteMsg:
		if m.mode != modeNormal {
			var cmd tea.Cmd
			m.input, cmd = m.input.Update(msg)
			return m, cmd
		}
	}
	return m, nil
}

// frameCmd schedules one rebuild a frame from now, unless one is already scheduled.
func (m *Model) frameCmd() tea.Cmd {
	if m.framing {
		return nil
	}
	m.framing = true
	return tea.Tick(frameBudget, func(time.Time) tea.Msg { return frameMsg{} })
}

// clockCmd schedules a redraw in a second while a row on the screen shows a running
// clock (a working agent's turn, a run, or an agent's time in its status when it has
// no finished turn); with none there is no timer at all.
func (m *Model) clockCmd() tea.Cmd {
	if m.ticking || !m.clockRunning() {
		return nil
	}
	m.ticking = true
	return tea.Tick(time.Second, func(time.Time) tea.Msg { return clockMsg{} })
}

func (m *Model) clockRunning() bool {
	now := m.now()
	end := min(len(m.rows), m.offset+m.tableHeight())
	for _, r := range m.rows[min(m.offset, end):end] {
		switch n := r.Node; {
		case n.Agent != nil:
			if _, running := Duration(n.Agent, now); running {
				return true
			}
		case n.Kind == KindRun:
			return true
		}
	}
	return false
}

// rebuild makes the tree from the data and keeps the selection on the same node.
func (m *Model) rebuild() {
	m.dirty = false
	snap := api.Snapshot{}
	if m.data != nil {
		snap = m.data.Snapshot()
	}
	m.tree = Build(snap, m.opts)
	if m.fleet {
		graftRemote(m.tree, m.remotes, m.opts)
	}
	m.counts = countFleet(snap)
	m.relayout()
}

func (m *Model) relayout() {
	m.rows = m.tree.Rows(m.folded)
	if m.index(m.sel) < 0 {
		// The selected node went away: select what now sits at its row, else the last.
		i := min(m.cursor, len(m.rows)-1)
		m.sel = ""
		if i >= 0 {
			m.sel = m.rows[i].Node.ID
		}
	}
	m.clampScroll()
}

func (m *Model) index(id string) int {
	if id == "" {
		return -1
	}
	for i, r := range m.rows {
		if r.Node.ID == id {
			return i
		}
	}
	return -1
}

func (m *Model) selected() *Node {
	if i := m.index(m.sel); i >= 0 {
		return m.rows[i].Node
	}
	return nil
}

func (m *Model) setMsg(text string, err error) {
	m.msg, m.msgErr = text, err != nil
	if err != nil {
		m.msg = shortErr(err)
		if text != "" {
			m.msg = text + ": " + m.msg
		}
	}
}

// shortErr is an error as one line: the protocol code and message.
func shortErr(err error) string {
	if e, ok := wire.As(err); ok {
		return string(e.Code) + ": " + e.Message
	}
	return err.Error()
}

// key handles one key press.
func (m *Model) key(k tea.KeyPressMsg) tea.Cmd {
	switch m.mode {
	case modeFilter, modeSend:
		return m.inputKey(k)
	case modeKill:
		return m.killKey(k)
	}
	switch k.String() {
	case "q", "ctrl+c":
		m.quit = true
		return tea.Quit
	case "esc":
		m.msg = ""
	case "down", "j":
		m.move(1)
	case "up", "k":
		m.move(-1)
	case "pgdown":
		m.move(m.tableHeight())
	case "pgup":
		m.move(-m.tableHeight())
	case "home", "g":
		m.move(-len(m.rows))
	case "end", "G":
		m.move(len(m.rows))
	case "right", "l":
		if n := m.selected(); n != nil && len(n.Children) > 0 {
			delete(m.folded, n.ID)
			m.relayout()
		}
	case "left", "h":
		if n := m.selected(); n != nil {
			if len(n.Children) > 0 && !m.folded[n.ID] {
				m.folded[n.ID] = true
				m.relayout()
			} else if n.Parent != nil {
				m.sel = n.Parent.ID
				m.clampScroll()
				return m.detailCmd()
			}
		}
	case "/":
		m.mode = modeFilter
		m.input.SetValue(m.filter)
		m.input.CursorEnd()
		return m.input.Focus()
	case "s":
		n := m.selected()
		if n == nil || n.Agent == nil || n.Agent.Status.Gone() {
			m.setMsg("select a live agent to send to", nil)
			return nil
		}
		m.mode = modeSend
		m.input.SetValue("")
		return m.input.Focus()
	case "K":
		return m.askKill()
	case "a":
		return m.attach()
	case "n":
		m.nextNeedsHuman()
	case "w":
		return m.wait()
	default:
		return nil
	}
	return m.detailCmd()
}

func (m *Model) move(d int) {
	if len(m.rows) == 0 {
		return
	}
	i := max(m.index(m.sel), 0) + d
	i = max(0, min(i, len(m.rows)-1))
	m.sel = m.rows[i].Node.ID
	m.clampScroll()
}

func (m *Model) inputKey(k tea.KeyPressMsg) tea.Cmd {
	switch k.String() {
	case "esc", "ctrl+c":
		m.mode = modeNormal
		m.input.Blur()
		return nil
	case "enter":
		v := m.input.Value()
		md := m.mode
		m.mode = modeNormal
		m.input.Blur()
		if md == modeFilter {
			m.applyFilter(v)
			return m.detailCmd()
		}
		return m.send(v)
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(k)
	return cmd
}

// applyFilter compiles the `/` filter under the caller's scope; an invalid one keeps
// the previous filter and says why.
func (m *Model) applyFilter(v string) {
	v = strings.TrimSpace(v)
	if v == "" {
		m.filter, m.opts.Extra = "", nil
	} else {
		p, err := agentpath.CompilePattern(m.scope, v)
		if err != nil {
			m.setMsg("bad filter", err)
			return
		}
		m.filter, m.opts.Extra = v, p
	}
	m.msg = ""
	m.rebuild()
	m.sel, m.offset = "", 0
	if len(m.rows) > 0 {
		m.sel = m.rows[0].Node.ID
	}
}

func (m *Model) send(prompt string) tea.Cmd {
	n := m.selected()
	if n == nil || n.Agent == nil || m.acts.Send == nil {
		return nil
	}
	if strings.TrimSpace(prompt) == "" {
		m.setMsg("nothing sent (empty prompt)", nil)
		return nil
	}
	host, uuid, path := n.Host, n.Agent.UUID, hostPath(n.Host, n.Agent.Path)
	m.setMsg("sending to "+path+"…", nil)
	return func() tea.Msg {
		r, err := m.acts.Send(context.Background(), host, uuid, prompt)
		if err != nil {
			return doneMsg{text: "send to " + path, err: err}
		}
		return doneMsg{text: fmt.Sprintf("sent to %s (it was %s)", hostPath(host, r.Path), r.DeliveredWhile)}
	}
}

// subtreeTargets are the absolute targets naming n and everything under it, and what
// to call them; on n's host (a host node: the uuids of the agents shown under it).
func subtreeTargets(n *Node) (targets []string, name string) {
	if n.Host != "" {
		if n.Kind == KindHost {
			for _, a := range n.Subtree() {
				targets = append(targets, a.UUID)
			}
			return targets, "all agents on " + n.Host
		}
		t, name := localTargets(n)
		return t, hostPath(n.Host, name)
	}
	return localTargets(n)
}

// hostPath is path on host as the CLI writes it, `<host>:<path>`; path alone for this
// server's own.
func hostPath(host, path string) string {
	if host == "" {
		return path
	}
	return host + ":" + path
}

// localTargets are the absolute targets naming n and everything under it on its own
// server.
func localTargets(n *Node) (targets []string, name string) {
	switch {
	case n.Kind == KindDone:
		for _, c := range n.Children {
			targets = append(targets, "/"+c.Agent.Path)
		}
		return targets, "the done agents"
	case n.Agent != nil && len(n.Children) == 0:
		return []string{n.Agent.UUID}, n.Agent.Path
	}
	targets = []string{"/" + n.Path + "/**"}
	if n.Agent != nil {
		targets = append([]string{n.Agent.UUID}, targets...)
	}
	return targets, n.Path + "/**"
}

func (m *Model) askKill() tea.Cmd {
	n := m.selected()
	if n == nil || n.Agents == 0 {
		m.setMsg("no agent under the selection to kill", nil)
		return nil
	}
	targets, name := subtreeTargets(n)
	m.mode, m.killIDs, m.killHost = modeKill, targets, n.Host
	m.killFor = fmt.Sprintf("kill %s (%d %s)? y/n", name, n.Agents, plural(n.Agents, "agent", "agents"))
	return nil
}

func (m *Model) killKey(k tea.KeyPressMsg) tea.Cmd {
	m.mode = modeNormal
	if k.String() != "y" && k.String() != "Y" {
		m.setMsg("kill canceled", nil)
		return nil
	}
	host, targets, what := m.killHost, m.killIDs, strings.TrimSuffix(strings.TrimPrefix(m.killFor, "kill "), "? y/n")
	if m.acts.Kill == nil {
		return nil
	}
	m.setMsg("killing "+what+"…", nil)
	return func() tea.Msg {
		r, err := m.acts.Kill(context.Background(), host, targets)
		if err != nil {
			return doneMsg{text: "kill", err: err}
		}
		text := fmt.Sprintf("killed %d", len(r.Killed))
		if len(r.Skipped) > 0 {
			text += fmt.Sprintf(", skipped %d (%s)", len(r.Skipped), r.Skipped[0].Reason)
		}
		return doneMsg{text: text}
	}
}

func (m *Model) attach() tea.Cmd {
	n := m.selected()
	if n == nil || n.Agent == nil || n.Agent.Status.Gone() || n.Agent.PaneID == nil || m.acts.Attach == nil {
		m.setMsg("select an agent with a pane to attach to", nil)
		return nil
	}
	target, path := n.Agent.UUID, n.Agent.Path
	if n.Host != "" {
		// A member's agent: attached over the fleet, as its policy allows.
		target, path = n.Host+":"+n.Agent.UUID, n.Host+":"+n.Agent.Path
	}
	return tea.Exec(&tidyExec{Cmd: m.acts.Attach(target)}, func(err error) tea.Msg {
		if err != nil {
			return doneMsg{text: "attach " + path, err: err}
		}
		return doneMsg{text: "detached from " + path}
	})
}

// nextNeedsHuman selects the next agent below the selection (wrapping) that is blocked
// or lost, unfolding its ancestors.
func (m *Model) nextNeedsHuman() {
	var all []*Node
	var walk func([]*Node)
	walk = func(ns []*Node) {
		for _, n := range ns {
			all = append(all, n)
			walk(n.Children)
		}
	}
	walk(m.tree.Roots)
	start := 0
	for i, n := range all {
		if n.ID == m.sel {
			start = i + 1
		}
	}
	for k := range all {
		n := all[(start+k)%len(all)]
		if n.Agent != nil && NeedsHuman(n.Agent) {
			for p := n.Parent; p != nil; p = p.Parent {
				delete(m.folded, p.ID)
			}
			m.sel = n.ID
			m.relayout()
			m.setMsg(n.Agent.Path+" "+Label(n.Agent.Status), nil)
			return
		}
	}
	m.setMsg("no agent needs a human", nil)
}

func (m *Model) wait() tea.Cmd {
	n := m.selected()
	if n == nil || n.Agents == 0 || m.acts.Wait == nil {
		m.setMsg("no agent under the selection to wait for", nil)
		return nil
	}
	targets, name := subtreeTargets(n)
	host := n.Host
	m.setMsg(fmt.Sprintf("waiting for %s (%d %s)…", name, n.Agents, plural(n.Agents, "agent", "agents")), nil)
	return func() tea.Msg {
		r, err := m.acts.Wait(context.Background(), host, targets)
		if err != nil {
			return doneMsg{text: "wait " + name, err: err}
		}
		ok := 0
		for _, t := range r.Targets {
			if t.OK {
				ok++
			}
		}
		text := fmt.Sprintf("%s settled: %d of %d ok", name, ok, len(r.Targets))
		if len(r.Targets) == 1 {
			text = fmt.Sprintf("%s settled: %s", hostPath(host, r.Targets[0].Path), r.Targets[0].Reason)
		}
		return doneMsg{text: text}
	}
}

// detailCmd fetches the selected agent's last response and transcript tail when the
// selection or the agent's row changed since the last fetch.
func (m *Model) detailCmd() tea.Cmd {
	n := m.selected()
	if n == nil || n.Agent == nil || m.acts.Detail == nil || m.tooSmallForDetail() {
		return nil
	}
	a := n.Agent
	stamp := a.UUID + string(a.Status) + fmt.Sprint(a.LastStatusChangeAt, a.TurnDeliveredAt, a.TurnCompletedAt)
	if m.detail.uuid == a.UUID && m.detailStamp == stamp {
		return nil
	}
	if m.detail.uuid != a.UUID {
		m.detail = detail{uuid: a.UUID}
	}
	m.detailStamp = stamp
	m.detail.ver++
	m.detail.loading = true
	host, uuid, ver := n.Host, a.UUID, m.detail.ver
	return func() tea.Msg {
		entries, resp, err := m.acts.Detail(context.Background(), host, uuid)
		return detailMsg{uuid: uuid, ver: ver, entries: entries, response: resp, err: err}
	}
}

// mergeFleet takes a round of the fleet reader: a member that did not answer keeps the
// agents top last read of it (shown as they were then, docs/top.md §7).
func (m *Model) mergeFleet(msg fleetMsg) {
	if msg.err != nil {
		m.fleetErr = shortErr(msg.err)
		return
	}
	m.fleetErr = ""
	old := map[string]Remote{}
	for _, r := range m.remotes {
		old[r.Host] = r
	}
	for i, r := range msg.hosts {
		if o, ok := old[r.Host]; ok && !r.Reachable {
			msg.hosts[i].Rows, msg.hosts[i].At = o.Rows, o.At
		}
	}
	m.remotes = msg.hosts
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// fleetCounts are the header's counts over every agent (not only the filtered ones),
// with the definitions of server.status: live = managed and neither ended nor lost.
type fleetCounts struct{ live, queued, blocked, lost int }

func countFleet(s api.Snapshot) fleetCounts {
	var c fleetCounts
	for _, a := range s.Agents {
		if !a.Managed {
			continue
		}
		switch a.Status {
		case api.StatusLost:
			c.lost++
			continue
		case api.StatusQueued:
			c.queued++
		case api.StatusBlocked:
			c.blocked++
		}
		c.live++
	}
	return c
}

// tidyExec runs an attach on the terminal top hands over and then erases what was
// printed on the normal screen meanwhile (herdr's own line when an attach ends), so
// nothing of it is left once top quits: the cursor is saved before (DECSC) and restored
// after, and the screen below it cleared. Output that scrolled the screen stays above.
type tidyExec struct {
	*exec.Cmd
	out io.Writer
}

func (t *tidyExec) SetStdin(r io.Reader)  { t.Stdin = r }
func (t *tidyExec) SetStdout(w io.Writer) { t.Stdout, t.out = w, w }
func (t *tidyExec) SetStderr(w io.Writer) { t.Stderr = w }

func (t *tidyExec) Run() error {
	if t.out != nil {
		io.WriteString(t.out, "\x1b7")
		defer io.WriteString(t.out, "\x1b8\x1b[J")
	}
	return t.Cmd.Run()
}
