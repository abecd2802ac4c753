package herdrtest

import (
	"encoding/json"
	"os"
	"strings"
	"unicode"
)

type handler func(s *Session, params json.RawMessage) (any, error)

// handlers lists the methods the stand-in implements. Every other schema method is
// answered with internal_error "not implemented by the herdr stand-in".
var handlers map[string]handler

func init() {
	handlers = map[string]handler{
		"ping":                       (*Session).hPing,
		"server.stop":                (*Session).hOK,
		"session.snapshot":           (*Session).hSnapshot,
		"notification.show":          (*Session).hNotificationShow,
		"workspace.create":           (*Session).hWorkspaceCreate,
		"workspace.list":             (*Session).hWorkspaceList,
		"workspace.get":              (*Session).hWorkspaceGet,
		"workspace.focus":            (*Session).hWorkspaceFocus,
		"workspace.rename":           (*Session).hWorkspaceRename,
		"workspace.close":            (*Session).hWorkspaceClose,
		"tab.create":                 (*Session).hTabCreate,
		"tab.list":                   (*Session).hTabList,
		"tab.get":                    (*Session).hTabGet,
		"tab.focus":                  (*Session).hTabFocus,
		"tab.rename":                 (*Session).hTabRename,
		"tab.close":                  (*Session).hTabClose,
		"layout.apply":               (*Session).hLayoutApply,
		"pane.list":                  (*Session).hPaneList,
		"pane.get":                   (*Session).hPaneGet,
		"pane.focus":                 (*Session).hPaneFocus,
		"pane.rename":                (*Session).hPaneRename,
		"pane.send_text":             (*Session).hPaneSendText,
		"pane.send_keys":             (*Session).hPaneSendKeys,
		"pane.send_input":            (*Session).hPaneSendInput,
		"pane.read":                  (*Session).hPaneRead,
		"pane.move":                  (*Session).hPaneMove,
		"pane.close":                 (*Session).hPaneClose,
		"pane.report_agent":          (*Session).hReportAgent,
		"pane.report_agent_session":  (*Session).hReportAgentSession,
		"pane.release_agent":         (*Session).hReleaseAgent,
		"pane.clear_agent_authority": (*Session).hClearAgentAuthority,
		"agent.list":                 (*Session).hAgentList,
		"agent.get":                  (*Session).hAgentGet,
	}
}

type okResult struct {
	Type string `json:"type"`
}

var resultOK = okResult{Type: "ok"}

type emptyParams struct{}

func (s *Session) hOK(raw json.RawMessage) (any, error) {
	return resultOK, decodeParams(raw, &emptyParams{})
}

// ---- lookups (s.mu held) ----

func (s *Session) paneByIDLocked(id string) *pane {
	for _, p := range s.allPanes() {
		if p.id == id {
			return p
		}
	}
	return nil
}

func (s *Session) paneByTerminalLocked(term string) *pane {
	for _, p := range s.allPanes() {
		if p.terminal == term {
			return p
		}
	}
	return nil
}

// resolvePaneLocked resolves a pane id or a former pane id (alias after a
// cross-workspace move).
func (s *Session) resolvePaneLocked(id string) (*pane, error) {
	if p := s.paneByIDLocked(id); p != nil {
		return p, nil
	}
	if term, ok := s.aliases[id]; ok {
		if p := s.paneByTerminalLocked(term); p != nil {
			return p, nil
		}
	}
	return nil, errf("pane_not_found", "pane %s not found", id)
}

func (s *Session) workspaceLocked(id string) (*workspace, error) {
	for _, w := range s.workspaces {
		if w.id == id {
			return w, nil
		}
	}
	return nil, errf("workspace_not_found", "workspace %s not found", id)
}

func (s *Session) tabLocked(id string) (*tab, error) {
	for _, w := range s.workspaces {
		for _, t := range w.tabs {
			if t.id == id {
				return t, nil
			}
		}
	}
	return nil, errf("tab_not_found", "tab %s not found", id)
}

// markTabSeenLocked is the effect of focusing a tab: every pane in it becomes seen.
func (s *Session) markTabSeenLocked(t *tab) {
	if t == nil {
		return
	}
	for _, p := range t.panes() {
		if !p.seen {
			p.seen = true
			p.revision++
		}
	}
}

func (s *Session) focusLocked(w *workspace, t *tab, p *pane) {
	s.active = w
	if t != nil {
		w.activeTab = t
		if p != nil {
			t.focused = p
		}
	}
	s.markTabSeenLocked(w.activeTab)
}

// setStatusLocked applies a status transition with herdr's seen rule (§5.1).
func (s *Session) setStatusLocked(p *pane, status string) {
	old := p.status
	if old == status {
		return
	}
	p.status = status
	p.stateSeq++
	p.revision++
	switch {
	case status != StatusIdle:
		p.seen = true
	case old == StatusWorking || old == StatusBlocked:
		p.seen = s.tabVisible(p.tab)
		p.completions++ // a working/blocked → idle edge (idle or done)
	}
}

// ---- health / snapshot ----

type pingParams struct{}

type capabilities struct {
	LiveHandoff          bool `json:"live_handoff"`
	DetachedServerDaemon bool `json:"detached_server_daemon"`
}

type pongResult struct {
	Type         string        `json:"type"`
	Version      string        `json:"version"`
	Protocol     int           `json:"protocol"`
	Capabilities *capabilities `json:"capabilities,omitempty"`
}

func (s *Session) hPing(raw json.RawMessage) (any, error) {
	if err := decodeParams(raw, &pingParams{}); err != nil {
		return nil, err
	}
	return pongResult{Type: "pong", Version: s.opts.Version, Protocol: s.opts.Protocol,
		Capabilities: &capabilities{LiveHandoff: true, DetachedServerDaemon: true}}, nil
}

type snapshotResult struct {
	Type     string          `json:"type"`
	Snapshot sessionSnapshot `json:"snapshot"`
}

type sessionSnapshot struct {
	Version            string           `json:"version"`
	Protocol           int              `json:"protocol"`
	Workspaces         []workspaceInfo  `json:"workspaces"`
	Tabs               []tabInfo        `json:"tabs"`
	Panes              []PaneInfo       `json:"panes"`
	Layouts            []layoutSnapshot `json:"layouts"`
	Agents             []agentInfo      `json:"agents"`
	FocusedWorkspaceID string           `json:"focused_workspace_id,omitempty"`
	FocusedTabID       string           `json:"focused_tab_id,omitempty"`
	FocusedPaneID      string           `json:"focused_pane_id,omitempty"`
}

func (s *Session) hSnapshot(raw json.RawMessage) (any, error) {
	if err := decodeParams(raw, &emptyParams{}); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	snap := sessionSnapshot{Version: s.opts.Version, Protocol: s.opts.Protocol,
		Workspaces: []workspaceInfo{}, Tabs: []tabInfo{}, Panes: []PaneInfo{}, Layouts: []layoutSnapshot{}, Agents: []agentInfo{}}
	for _, w := range s.workspaces {
		snap.Workspaces = append(snap.Workspaces, s.workspaceInfo(w))
		for _, t := range w.tabs {
			snap.Tabs = append(snap.Tabs, s.tabInfo(t))
			snap.Layouts = append(snap.Layouts, s.layoutSnapshot(t))
			for _, p := range t.panes() {
				snap.Panes = append(snap.Panes, s.paneInfo(p))
				if p.agent != "" {
					snap.Agents = append(snap.Agents, s.agentInfo(p))
				}
			}
		}
	}
	if w := s.active; w != nil {
		snap.FocusedWorkspaceID = w.id
		if t := w.activeTab; t != nil {
			snap.FocusedTabID = t.id
			if t.focused != nil {
				snap.FocusedPaneID = t.focused.id
			}
		}
	}
	return snapshotResult{Type: "session_snapshot", Snapshot: snap}, nil
}

type notificationParams struct {
	Title    string  `json:"title" req:"1"`
	Body     *string `json:"body"`
	Position *string `json:"position" enum:"top-left|top-right|bottom-left|bottom-right"`
	Sound    string  `json:"sound" enum:"none|done|request"`
}

type notificationResult struct {
	Type   string `json:"type"`
	Shown  bool   `json:"shown"`
	Reason string `json:"reason"`
}

func cleanControl(s string, max int) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, s)
	if r := []rune(s); len(r) > max {
		s = string(r[:max])
	}
	return strings.TrimSpace(s)
}

func (s *Session) hNotificationShow(raw json.RawMessage) (any, error) {
	var p notificationParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	if cleanControl(p.Title, 80) == "" {
		return nil, errf("invalid_params", "notification title must not be empty")
	}
	if !s.opts.Toasts {
		// herdr's default config has ui.toast.delivery = "off".
		return notificationResult{Type: "notification_show", Shown: false, Reason: "disabled"}, nil
	}
	if s.opts.OnNotify != nil {
		body := ""
		if p.Body != nil {
			body = cleanControl(*p.Body, 240)
		}
		s.opts.OnNotify(cleanControl(p.Title, 80), body)
	}
	return notificationResult{Type: "notification_show", Shown: true, Reason: "shown"}, nil
}

// ---- workspaces ----

type workspaceCreateParams struct {
	Cwd   *string           `json:"cwd"`
	Env   map[string]string `json:"env"`
	Focus bool              `json:"focus"`
	Label *string           `json:"label"`
}

type workspaceCreatedResult struct {
	Type      string        `json:"type"`
	Workspace workspaceInfo `json:"workspace"`
	Tab       tabInfo       `json:"tab"`
	RootPane  PaneInfo      `json:"root_pane"`
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// defaultCwdLocked is the cwd a new workspace follows: the focused pane's, else the
// home directory (herdr 0.8.2's first workspace starts in $HOME whatever the server's
// cwd: herdr/testdata/live), else the server's.
func (s *Session) defaultCwdLocked() string {
	if w := s.active; w != nil && w.activeTab != nil && w.activeTab.focused != nil {
		return s.paneCwd(w.activeTab.focused)
	}
	if h, err := os.UserHomeDir(); err == nil {
		if st, err := os.Stat(h); err == nil && st.IsDir() {
			return h
		}
	}
	d, _ := os.Getwd()
	return d
}

func (s *Session) newWorkspaceLocked(label, cwd string) *workspace {
	s.wsCounter++
	w := &workspace{id: "w" + encodeID(s.wsCounter), label: label, cwd: cwd}
	s.workspaces = append(s.workspaces, w)
	return w
}

func (s *Session) newTabLocked(w *workspace, label string, at int) *tab {
	w.tabCounter++
	t := &tab{id: w.id + ":t" + encodeID(w.tabCounter), ws: w, label: label}
	if at < 0 || at >= len(w.tabs) {
		w.tabs = append(w.tabs, t)
	} else {
		w.tabs = append(w.tabs[:at], append([]*tab{t}, w.tabs[at:]...)...)
	}
	if w.activeTab == nil {
		w.activeTab = t
	}
	return t
}

func (s *Session) hWorkspaceCreate(raw json.RawMessage) (any, error) {
	var p workspaceCreateParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	if e := validateEnv(p.Env); e != nil {
		return nil, e
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errf("server_unavailable", "server is shutting down")
	}
	cwd := deref(p.Cwd)
	if cwd == "" {
		cwd = s.defaultCwdLocked()
	}
	w := s.newWorkspaceLocked(deref(p.Label), cwd)
	t := s.newTabLocked(w, "", -1)
	pn, err := s.newPaneLocked(w, t, spawnSpec{cwd: cwd, env: p.Env}, "")
	if err != nil {
		s.removeWorkspaceLocked(w)
		return nil, errf("workspace_create_failed", "failed to create workspace: %v", err)
	}
	t.root = &node{pane: pn}
	t.focused = pn
	if s.active == nil || p.Focus {
		s.focusLocked(w, t, pn)
	}
	return workspaceCreatedResult{Type: "workspace_created", Workspace: s.workspaceInfo(w), Tab: s.tabInfo(t), RootPane: s.paneInfo(pn)}, nil
}

type workspaceListResult struct {
	Type       string          `json:"type"`
	Workspaces []workspaceInfo `json:"workspaces"`
}

func (s *Session) hWorkspaceList(raw json.RawMessage) (any, error) {
	if err := decodeParams(raw, &emptyParams{}); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []workspaceInfo{}
	for _, w := range s.workspaces {
		out = append(out, s.workspaceInfo(w))
	}
	return workspaceListResult{Type: "workspace_list", Workspaces: out}, nil
}

type workspaceTarget struct {
	WorkspaceID string `json:"workspace_id" req:"1"`
}

type workspaceInfoResult struct {
	Type      string        `json:"type"`
	Workspace workspaceInfo `json:"workspace"`
}

// answerWorkspace is the workspace_info answer for w (s.mu held).
func (s *Session) answerWorkspace(w *workspace) (any, error) {
	return workspaceInfoResult{Type: "workspace_info", Workspace: s.workspaceInfo(w)}, nil
}

func (s *Session) hWorkspaceGet(raw json.RawMessage) (any, error) {
	var p workspaceTarget
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	return onTarget(s, p.WorkspaceID, s.workspaceLocked, s.answerWorkspace)
}

func (s *Session) hWorkspaceFocus(raw json.RawMessage) (any, error) {
	var p workspaceTarget
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	return onTarget(s, p.WorkspaceID, s.workspaceLocked, func(w *workspace) (any, error) {
		s.focusLocked(w, nil, nil)
		return s.answerWorkspace(w)
	})
}

type workspaceRenameParams struct {
	WorkspaceID string `json:"workspace_id" req:"1"`
	Label       string `json:"label" req:"1"`
}

func (s *Session) hWorkspaceRename(raw json.RawMessage) (any, error) {
	var p workspaceRenameParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	return onTarget(s, p.WorkspaceID, s.workspaceLocked, func(w *workspace) (any, error) {
		w.label = p.Label
		return s.answerWorkspace(w)
	})
}

func (s *Session) hWorkspaceClose(raw json.RawMessage) (any, error) {
	var p workspaceTarget
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	return closeTarget(s, p.WorkspaceID, s.workspaceLocked, func(w *workspace) []*pane {
		panes := w.panes()
		s.removeWorkspaceLocked(w)
		return panes
	})
}

// ---- tabs ----

type tabListParams struct {
	WorkspaceID *string `json:"workspace_id"`
}

type tabListResult struct {
	Type string    `json:"type"`
	Tabs []tabInfo `json:"tabs"`
}

func (s *Session) hTabList(raw json.RawMessage) (any, error) {
	var p tabListParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	wss := s.workspaces
	if p.WorkspaceID != nil {
		w, err := s.workspaceLocked(*p.WorkspaceID)
		if err != nil {
			return nil, err
		}
		wss = []*workspace{w}
	}
	out := []tabInfo{}
	for _, w := range wss {
		for _, t := range w.tabs {
			out = append(out, s.tabInfo(t))
		}
	}
	return tabListResult{Type: "tab_list", Tabs: out}, nil
}

type tabTarget struct {
	TabID string `json:"tab_id" req:"1"`
}

type tabInfoResult struct {
	Type string  `json:"type"`
	Tab  tabInfo `json:"tab"`
}

// answerTab is the tab_info answer for t (s.mu held).
func (s *Session) answerTab(t *tab) (any, error) {
	return tabInfoResult{Type: "tab_info", Tab: s.tabInfo(t)}, nil
}

func (s *Session) hTabGet(raw json.RawMessage) (any, error) {
	var p tabTarget
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	return onTarget(s, p.TabID, s.tabLocked, s.answerTab)
}

func (s *Session) hTabFocus(raw json.RawMessage) (any, error) {
	var p tabTarget
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	return onTarget(s, p.TabID, s.tabLocked, func(t *tab) (any, error) {
		s.focusLocked(t.ws, t, nil)
		return s.answerTab(t)
	})
}

type tabRenameParams struct {
	TabID string `json:"tab_id" req:"1"`
	Label string `json:"label" req:"1"`
}

func (s *Session) hTabRename(raw json.RawMessage) (any, error) {
	var p tabRenameParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	return onTarget(s, p.TabID, s.tabLocked, func(t *tab) (any, error) {
		t.label = p.Label
		return s.answerTab(t)
	})
}

func (s *Session) hTabClose(raw json.RawMessage) (any, error) {
	var p tabTarget
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	return closeTarget(s, p.TabID, s.tabLocked, func(t *tab) []*pane {
		panes := t.panes()
		for _, pn := range panes {
			s.detachPaneLocked(pn)
		}
		return panes
	})
}

type tabCreateParams struct {
	WorkspaceID *string           `json:"workspace_id"`
	Cwd         *string           `json:"cwd"`
	Env         map[string]string `json:"env"`
	Focus       bool              `json:"focus"`
	Label       *string           `json:"label"`
}

type tabCreatedResult struct {
	Type     string   `json:"type"`
	Tab      tabInfo  `json:"tab"`
	RootPane PaneInfo `json:"root_pane"`
}

func (s *Session) targetWorkspaceLocked(id *string) (*workspace, error) {
	if id != nil {
		return s.workspaceLocked(*id)
	}
	if s.active == nil {
		return nil, errf("workspace_not_found", "no active workspace")
	}
	return s.active, nil
}

func (s *Session) hTabCreate(raw json.RawMessage) (any, error) {
	var p tabCreateParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	if e := validateEnv(p.Env); e != nil {
		return nil, e
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	w, err := s.targetWorkspaceLocked(p.WorkspaceID)
	if err != nil {
		return nil, err
	}
	t := s.newTabLocked(w, deref(p.Label), -1)
	pn, perr := s.newPaneLocked(w, t, spawnSpec{cwd: deref(p.Cwd), env: p.Env}, "")
	if perr != nil {
		w.tabs = w.tabs[:len(w.tabs)-1]
		return nil, errf("tab_create_failed", "failed to create tab: %v", perr)
	}
	t.root = &node{pane: pn}
	t.focused = pn
	if p.Focus {
		s.focusLocked(w, t, pn)
	}
	return tabCreatedResult{Type: "tab_created", Tab: s.tabInfo(t), RootPane: s.paneInfo(pn)}, nil
}
