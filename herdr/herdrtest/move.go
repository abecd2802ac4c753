package herdrtest

import (
	"encoding/json"
)

type moveDestination struct {
	Type         string   `json:"type" req:"1" enum:"tab|new_tab|new_workspace"`
	TabID        string   `json:"tab_id"`
	Split        string   `json:"split" enum:"right|down"`
	TargetPaneID *string  `json:"target_pane_id"`
	Ratio        *float64 `json:"ratio"`
	WorkspaceID  *string  `json:"workspace_id"`
	Label        *string  `json:"label"`
	TabLabel     *string  `json:"tab_label"`
}

func (d *moveDestination) UnmarshalJSON(b []byte) error {
	m, err := decodeNested(b, d, "PaneMoveDestination")
	if err != nil {
		return err
	}
	if d.Type == "tab" {
		return requireKeys(m, "tab_id", "split")
	}
	return nil
}

type paneMoveParams struct {
	PaneID      string           `json:"pane_id" req:"1"`
	Destination *moveDestination `json:"destination" req:"1"`
	Focus       bool             `json:"focus"`
}

type paneMoveResultBody struct {
	Changed             bool            `json:"changed"`
	Reason              string          `json:"reason,omitempty"`
	PreviousPaneID      string          `json:"previous_pane_id"`
	PreviousWorkspaceID string          `json:"previous_workspace_id"`
	PreviousTabID       string          `json:"previous_tab_id"`
	Pane                PaneInfo        `json:"pane"`
	SourceLayout        *layoutSnapshot `json:"source_layout,omitempty"`
	TargetLayout        layoutSnapshot  `json:"target_layout"`
	FocusedPaneID       string          `json:"focused_pane_id"`
	CreatedWorkspace    *workspaceInfo  `json:"created_workspace,omitempty"`
	CreatedTab          *tabInfo        `json:"created_tab,omitempty"`
	ClosedWorkspaceID   string          `json:"closed_workspace_id,omitempty"`
	ClosedTabID         string          `json:"closed_tab_id,omitempty"`
}

type paneMoveResult struct {
	Type       string             `json:"type"`
	MoveResult paneMoveResultBody `json:"move_result"`
}

func (s *Session) hPaneMove(raw json.RawMessage) (any, error) {
	var p paneMoveParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	pn, err := s.resolvePaneLocked(p.PaneID)
	if err != nil {
		return nil, err
	}
	srcWS, srcTab := pn.ws, pn.tab
	res := paneMoveResultBody{PreviousPaneID: pn.id, PreviousWorkspaceID: srcWS.id, PreviousTabID: srcTab.id}
	d := p.Destination

	var dstWS *workspace
	var dstTab *tab
	var targetLeaf *node
	switch d.Type {
	case "tab":
		if dstTab, err = s.tabLocked(d.TabID); err != nil {
			return nil, err
		}
		dstWS = dstTab.ws
		target := dstTab.focused
		if d.TargetPaneID != nil {
			tp, terr := s.resolvePaneLocked(*d.TargetPaneID)
			if terr != nil || tp.tab != dstTab {
				return nil, errf("target_pane_not_found", "target pane %s not found in tab %s", *d.TargetPaneID, dstTab.id)
			}
			target = tp
		}
		if dstTab == srcTab {
			res.Reason = "same_tab"
			res.Pane = s.paneInfo(pn)
			res.TargetLayout = s.layoutSnapshot(dstTab)
			res.FocusedPaneID = dstTab.focused.id
			return paneMoveResult{Type: "pane_move", MoveResult: res}, nil
		}
		if d.Ratio != nil && (*d.Ratio <= 0 || *d.Ratio >= 1) {
			return nil, errf("invalid_ratio", "split ratio must be between 0 and 1")
		}
		targetLeaf = s.findLeaf(target)
	case "new_tab":
		dstWS = srcWS
		if d.WorkspaceID != nil {
			if dstWS, err = s.workspaceLocked(*d.WorkspaceID); err != nil {
				return nil, err
			}
		}
		dstTab = s.newTabLocked(dstWS, deref(d.Label), -1)
		ti := s.tabInfo(dstTab)
		res.CreatedTab = &ti
	case "new_workspace":
		dstWS = s.newWorkspaceLocked(deref(d.Label), srcWS.cwd)
		dstTab = s.newTabLocked(dstWS, deref(d.TabLabel), -1)
	}

	res.ClosedTabID, res.ClosedWorkspaceID = s.detachPaneLocked(pn)
	if dstWS != srcWS {
		s.aliases[pn.id] = pn.terminal
		dstWS.paneCounter++
		pn.id = dstWS.id + ":p" + encodeID(dstWS.paneCounter)
		pn.ws = dstWS
		pn.revision++
	}
	pn.tab = dstTab
	leaf := &node{pane: pn}
	if targetLeaf != nil {
		ratio := 0.5
		if d.Ratio != nil {
			ratio = *d.Ratio
		}
		split := &node{direction: d.Split, ratio: ratio}
		dstTab.replaceNode(targetLeaf, split)
		split.first, split.second = targetLeaf, leaf
		targetLeaf.parent, leaf.parent = split, split
	} else {
		dstTab.root = leaf
		dstTab.focused = pn
	}
	if p.Focus || s.active == nil {
		s.focusLocked(dstWS, dstTab, pn)
	}
	if d.Type == "new_workspace" {
		wi, ti := s.workspaceInfo(dstWS), s.tabInfo(dstTab)
		res.CreatedWorkspace, res.CreatedTab = &wi, &ti
	} else if res.CreatedTab != nil {
		ti := s.tabInfo(dstTab)
		res.CreatedTab = &ti
	}
	res.Changed = true
	res.Pane = s.paneInfo(pn)
	res.TargetLayout = s.layoutSnapshot(dstTab)
	if res.ClosedTabID == "" && srcTab != dstTab {
		sl := s.layoutSnapshot(srcTab)
		res.SourceLayout = &sl
	}
	res.FocusedPaneID = dstTab.focused.id
	return paneMoveResult{Type: "pane_move", MoveResult: res}, nil
}
