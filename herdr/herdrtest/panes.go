package herdrtest

import (
	"encoding/json"
	"strings"
)

// Layout limits of the stand-in (herdr has limits too; these values are the
// stand-in's own).
const (
	maxLayoutPanes = 16
	maxLayoutDepth = 8
)

// layoutNodeIn is a request LayoutNode.
type layoutNodeIn struct {
	Type      string            `json:"type" req:"1" enum:"pane|split"`
	PaneID    *string           `json:"pane_id"`
	Label     *string           `json:"label"`
	Cwd       *string           `json:"cwd"`
	Command   *[]string         `json:"command"`
	Env       map[string]string `json:"env"`
	Direction string            `json:"direction" enum:"right|down"`
	Ratio     *float64          `json:"ratio"`
	First     *layoutNodeIn     `json:"first"`
	Second    *layoutNodeIn     `json:"second"`
}

func (n *layoutNodeIn) UnmarshalJSON(b []byte) error {
	m, err := decodeNested(b, n, "LayoutNode")
	if err != nil {
		return err
	}
	if n.Type == "split" {
		return requireKeys(m, "direction", "ratio", "first", "second")
	}
	return nil
}

type layoutApplyParams struct {
	WorkspaceID *string       `json:"workspace_id"`
	TabID       *string       `json:"tab_id"`
	TabLabel    *string       `json:"tab_label"`
	Focus       bool          `json:"focus"`
	Root        *layoutNodeIn `json:"root" req:"1"`
}

type layoutApplyResult struct {
	Type   string            `json:"type"`
	Layout layoutDescription `json:"layout"`
}

func checkLayout(n *layoutNodeIn, depth int, count *int) *apiError {
	if depth > maxLayoutDepth {
		return errf("invalid_layout", "layout is nested too deeply")
	}
	if n.Type == "pane" {
		*count++
		if *count > maxLayoutPanes {
			return errf("invalid_layout", "layout has too many panes")
		}
		if n.Command != nil && len(*n.Command) == 0 {
			return errf("invalid_layout", "pane command must not be empty")
		}
		if n.Command != nil && (*n.Command)[0] == "" {
			return errf("invalid_layout", "pane command must not be empty")
		}
		return validateEnv(n.Env)
	}
	if n.Ratio == nil || *n.Ratio <= 0 || *n.Ratio >= 1 {
		return errf("invalid_ratio", "split ratio must be between 0 and 1")
	}
	if n.First == nil || n.Second == nil {
		return errf("invalid_layout", "split needs two children")
	}
	if e := checkLayout(n.First, depth+1, count); e != nil {
		return e
	}
	return checkLayout(n.Second, depth+1, count)
}

func (s *Session) hLayoutApply(raw json.RawMessage) (any, error) {
	var p layoutApplyParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	if p.TabID != nil && p.WorkspaceID != nil {
		return nil, errf("invalid_target", "tab_id and workspace_id are mutually exclusive")
	}
	count := 0
	if e := checkLayout(p.Root, 0, &count); e != nil {
		return nil, e
	}
	s.mu.Lock()
	var old *tab
	var w *workspace
	var err error
	if p.TabID != nil {
		old, err = s.tabLocked(*p.TabID)
		if err == nil {
			w = old.ws
		}
	} else {
		w, err = s.targetWorkspaceLocked(p.WorkspaceID)
	}
	if err != nil {
		s.mu.Unlock()
		return nil, err
	}
	at := -1
	if old != nil {
		at = w.tabIndex(old) + 1
	}
	label := deref(p.TabLabel)
	if label == "" && old != nil {
		label = old.label
	}
	t := s.newTabLocked(w, label, at)
	var spawned []*pane
	var build func(n *layoutNodeIn, parent *node) (*node, error)
	build = func(n *layoutNodeIn, parent *node) (*node, error) {
		if n.Type == "pane" {
			spec := spawnSpec{cwd: deref(n.Cwd), env: n.Env}
			if n.Command != nil {
				spec.argv = *n.Command
			}
			pn, err := s.newPaneLocked(w, t, spec, deref(n.Label))
			if err != nil {
				return nil, err
			}
			spawned = append(spawned, pn)
			return &node{pane: pn, parent: parent}, nil
		}
		nd := &node{direction: n.Direction, ratio: *n.Ratio, parent: parent}
		if nd.first, err = build(n.First, nd); err != nil {
			return nil, err
		}
		if nd.second, err = build(n.Second, nd); err != nil {
			return nil, err
		}
		return nd, nil
	}
	root, berr := build(p.Root, nil)
	if berr != nil {
		w.tabs = append(w.tabs[:w.tabIndex(t)], w.tabs[w.tabIndex(t)+1:]...)
		if w.activeTab == t {
			w.activeTab = old
		}
		s.mu.Unlock()
		for _, pn := range spawned {
			pn.kill()
		}
		return nil, errf("layout_apply_failed", "failed to apply layout: %v", berr)
	}
	t.root = root
	t.focused = spawned[0]
	var killed []*pane
	if old != nil {
		wasActive := w.activeTab == old
		killed = old.panes()
		i := w.tabIndex(old)
		w.tabs = append(w.tabs[:i], w.tabs[i+1:]...)
		if wasActive {
			w.activeTab = t
		}
	}
	if p.Focus || s.active == nil {
		s.focusLocked(w, t, t.focused)
	}
	res := layoutApplyResult{Type: "layout_apply", Layout: s.layoutDescription(t)}
	s.mu.Unlock()
	for _, pn := range killed {
		pn.kill()
	}
	return res, nil
}

// ---- pane reads ----

type paneListParams struct {
	WorkspaceID *string `json:"workspace_id"`
}

type paneListResult struct {
	Type  string     `json:"type"`
	Panes []PaneInfo `json:"panes"`
}

func (s *Session) hPaneList(raw json.RawMessage) (any, error) {
	var p paneListParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ps := s.allPanes()
	if p.WorkspaceID != nil {
		w, err := s.workspaceLocked(*p.WorkspaceID)
		if err != nil {
			return nil, err
		}
		ps = w.panes()
	}
	out := []PaneInfo{}
	for _, pn := range ps {
		out = append(out, s.paneInfo(pn))
	}
	return paneListResult{Type: "pane_list", Panes: out}, nil
}

type paneTarget struct {
	PaneID string `json:"pane_id" req:"1"`
}

type paneInfoResult struct {
	Type string   `json:"type"`
	Pane PaneInfo `json:"pane"`
}

// answerPane is the pane_info answer for pn (s.mu held).
func (s *Session) answerPane(pn *pane) (any, error) {
	return paneInfoResult{Type: "pane_info", Pane: s.paneInfo(pn)}, nil
}

func (s *Session) hPaneGet(raw json.RawMessage) (any, error) {
	var p paneTarget
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	return onTarget(s, p.PaneID, s.resolvePaneLocked, s.answerPane)
}

func (s *Session) hPaneFocus(raw json.RawMessage) (any, error) {
	var p paneTarget
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	return onTarget(s, p.PaneID, s.resolvePaneLocked, func(pn *pane) (any, error) {
		s.focusLocked(pn.ws, pn.tab, pn)
		return s.answerPane(pn)
	})
}

type paneRenameParams struct {
	PaneID string  `json:"pane_id" req:"1"`
	Label  *string `json:"label"`
}

func (s *Session) hPaneRename(raw json.RawMessage) (any, error) {
	var p paneRenameParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	return onTarget(s, p.PaneID, s.resolvePaneLocked, func(pn *pane) (any, error) {
		pn.label = deref(p.Label)
		pn.revision++
		return s.answerPane(pn)
	})
}

// ---- input ----

func (s *Session) paneForIO(id string) (*pane, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.resolvePaneLocked(id)
}

// sendToPane writes to the pane id names the bytes encode makes for it (outside
// s.mu, like every pane.send_* method); what names the input in a
// pane_send_failed error.
func (s *Session) sendToPane(id, what string, encode func(pn *pane) ([]byte, error)) (any, error) {
	pn, err := s.paneForIO(id)
	if err != nil {
		return nil, err
	}
	b, err := encode(pn)
	if err != nil {
		return nil, err
	}
	if err := pn.write(b); err != nil {
		return nil, errf("pane_send_failed", "failed to send %s to pane %s: %v", what, id, err)
	}
	return resultOK, nil
}

// keyInput is encodeKeys for a send method: an unknown key is invalid_key.
func keyInput(keys []string, appCursor bool) ([]byte, error) {
	b, err := encodeKeys(keys, appCursor)
	if err != nil {
		return nil, errf("invalid_key", "%s", err.Error())
	}
	return b, nil
}

type sendTextParams struct {
	PaneID string `json:"pane_id" req:"1"`
	Text   string `json:"text" req:"1"`
}

func (s *Session) hPaneSendText(raw json.RawMessage) (any, error) {
	var p sendTextParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	return s.sendToPane(p.PaneID, "text", func(*pane) ([]byte, error) {
		return []byte(p.Text), nil
	})
}

type sendKeysParams struct {
	PaneID string   `json:"pane_id" req:"1"`
	Keys   []string `json:"keys" req:"1"`
}

func (s *Session) hPaneSendKeys(raw json.RawMessage) (any, error) {
	var p sendKeysParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	return s.sendToPane(p.PaneID, "keys", func(pn *pane) ([]byte, error) {
		_, app := pn.vt.modes()
		return keyInput(p.Keys, app)
	})
}

type sendInputParams struct {
	PaneID string   `json:"pane_id" req:"1"`
	Text   string   `json:"text"`
	Keys   []string `json:"keys"`
}

func (s *Session) hPaneSendInput(raw json.RawMessage) (any, error) {
	var p sendInputParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	return s.sendToPane(p.PaneID, "input", func(pn *pane) ([]byte, error) {
		bracketed, app := pn.vt.modes()
		keys, err := keyInput(p.Keys, app)
		if err != nil {
			return nil, err
		}
		var b []byte
		if p.Text != "" {
			if bracketed {
				b = append(b, "\x1b[200~"...)
			}
			b = append(b, p.Text...)
			if bracketed {
				b = append(b, "\x1b[201~"...)
			}
		}
		return append(b, keys...), nil
	})
}

// ---- output ----

type paneReadParams struct {
	PaneID    string  `json:"pane_id" req:"1"`
	Source    string  `json:"source" req:"1" enum:"visible|recent|recent_unwrapped|detection"`
	Lines     *uint32 `json:"lines"`
	Format    string  `json:"format" enum:"text|ansi"`
	StripANSI *bool   `json:"strip_ansi"`
}

type paneReadResult struct {
	PaneID      string `json:"pane_id"`
	WorkspaceID string `json:"workspace_id"`
	TabID       string `json:"tab_id"`
	Source      string `json:"source"`
	Format      string `json:"format"`
	Text        string `json:"text"`
	Revision    uint64 `json:"revision"`
	Truncated   bool   `json:"truncated"`
}

type paneReadEnvelope struct {
	Type string         `json:"type"`
	Read paneReadResult `json:"read"`
}

func (s *Session) hPaneRead(raw json.RawMessage) (any, error) {
	var p paneReadParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	if p.Format == "" {
		p.Format = "text"
	}
	s.mu.Lock()
	pn, err := s.resolvePaneLocked(p.PaneID)
	if err != nil {
		s.mu.Unlock()
		return nil, err
	}
	res := paneReadResult{PaneID: pn.id, WorkspaceID: pn.ws.id, TabID: pn.tab.id, Source: p.Source, Format: p.Format}
	s.mu.Unlock()
	old := s.opts.Protocol < 20
	if old && p.Source == "visible" {
		p.Lines = nil // herdr 0.7.2 gives the whole screen whatever lines says
	}
	res.Text, res.Truncated = readPane(pn.vt.snapshot(), p.Source, p.Lines)
	if old && p.Source == "recent" {
		res.Truncated = false // and never says a recent read was cut (the live pass)
	}
	if p.Format == "ansi" {
		// herdr's ANSI rendering ends rows with CRLF and the last without; the
		// stand-in draws no attributes, so the text is all there is to it.
		res.Text = strings.ReplaceAll(strings.TrimSuffix(res.Text, "\n"), "\n", "\r\n")
	}
	return paneReadEnvelope{Type: "pane_read", Read: res}, nil
}

// rowsText is rows as herdr 0.8.2 gives them for visible, recent and detection reads:
// every row ends with a newline (the recorded pass, herdr/testdata/live).
func rowsText(rows []vtRow) string {
	if len(rows) == 0 {
		return ""
	}
	return joinRows(rows) + "\n"
}

// readPane renders a terminal snapshot for pane.read.
func readPane(snap termSnapshot, source string, lines *uint32) (string, bool) {
	last := func(rs []vtRow, n int) ([]vtRow, bool) {
		if n < len(rs) {
			return rs[len(rs)-n:], true
		}
		return rs, false
	}
	switch source {
	case "visible":
		rows := trimTrailingBlank(snap.screen)
		trunc := false
		if lines != nil {
			rows, trunc = last(rows, int(*lines))
		}
		return rowsText(rows), trunc
	case "detection":
		return rowsText(trimTrailingBlank(snap.screen)), false
	default: // recent, recent_unwrapped
		n := 80
		if lines != nil {
			n = int(*lines)
		}
		n = min(n, 1000)
		if source == "recent_unwrapped" {
			rows, trunc := last(unwrap(trimTrailingBlank(snap.history)), n)
			return joinRows(rows), trunc
		}
		// herdr counts the last lines rows of the buffer, blank ones at the bottom of
		// the screen included, then drops those (the live pass: a short read of a
		// screen whose last rows are empty is empty).
		rows, trunc := last(snap.history, n)
		return rowsText(trimTrailingBlank(rows)), trunc
	}
}

// ---- close ----

func (s *Session) hPaneClose(raw json.RawMessage) (any, error) {
	var p paneTarget
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	return closeTarget(s, p.PaneID, s.resolvePaneLocked, func(pn *pane) []*pane {
		s.detachPaneLocked(pn)
		return []*pane{pn}
	})
}
