package herdr

import "strings"

// Status is herdr's agent status (docs/herdr.md §5.1). The typed operations
// normalise herdr's "done" (idle, not yet seen) to [StatusIdle].
type Status string

// The statuses orcr sees after normalisation.
const (
	StatusIdle    Status = "idle"
	StatusWorking Status = "working"
	StatusBlocked Status = "blocked"
	StatusUnknown Status = "unknown"
	statusDone    Status = "done"
)

// Normalise maps done to idle and anything unrecognised (or empty) to unknown.
func (s Status) Normalise() Status {
	switch s {
	case statusDone, StatusIdle:
		return StatusIdle
	case StatusWorking, StatusBlocked:
		return s
	default:
		return StatusUnknown
	}
}

// AgentSession is herdr's pointer to an agent's native conversation/transcript.
type AgentSession struct {
	Source string `json:"source"`
	Agent  string `json:"agent"`
	Kind   string `json:"kind"`
	Value  string `json:"value"`
}

// Pong is the answer to ping.
type Pong struct {
	Version      string         `json:"version"`
	Protocol     int            `json:"protocol"`
	Capabilities map[string]any `json:"capabilities,omitempty"`
}

// PaneInfo is herdr's pane object, reduced to the fields orcr reads (see [Contract]).
type PaneInfo struct {
	PaneID       string        `json:"pane_id"`
	TerminalID   string        `json:"terminal_id"`
	WorkspaceID  string        `json:"workspace_id"`
	TabID        string        `json:"tab_id"`
	Focused      bool          `json:"focused"`
	AgentStatus  Status        `json:"agent_status"`
	Revision     uint64        `json:"revision"`
	Cwd          string        `json:"cwd,omitempty"`
	Label        string        `json:"label,omitempty"`
	Agent        string        `json:"agent,omitempty"`
	Title        string        `json:"title,omitempty"`
	AgentSession *AgentSession `json:"agent_session,omitempty"`
}

// AgentInfo is herdr's agent row (a pane that hosts an agent).
type AgentInfo struct {
	TerminalID  string `json:"terminal_id"`
	PaneID      string `json:"pane_id"`
	WorkspaceID string `json:"workspace_id"`
	TabID       string `json:"tab_id"`
	AgentStatus Status `json:"agent_status"`
	Focused     bool   `json:"focused"`
	Revision    uint64 `json:"revision"`
	Name        string `json:"name,omitempty"`
	Agent       string `json:"agent,omitempty"`
	Title       string `json:"title,omitempty"`
	// TerminalTitle and TerminalTitleStripped are the title the pane's program set on
	// its terminal (herdr 0.8 sends them; 0.7 does not). herdr fills Title only from an
	// integration's report, so [AgentInfo.ShownTitle] falls back to these.
	TerminalTitle         string        `json:"terminal_title,omitempty"`
	TerminalTitleStripped string        `json:"terminal_title_stripped,omitempty"`
	Cwd                   string        `json:"cwd,omitempty"`
	AgentSession          *AgentSession `json:"agent_session,omitempty"`
	// CompletionSeq is herdr's count of the pane's working/blocked → idle edges, or nil
	// when herdr does not report it (before protocol 22; docs/herdr.md §4.2). An
	// optional field of the contract: read when present, never required.
	CompletionSeq *uint64 `json:"completion_seq,omitempty"`
}

// WorkspaceInfo is herdr's workspace object.
type WorkspaceInfo struct {
	WorkspaceID string `json:"workspace_id"`
	Number      int    `json:"number"`
	Label       string `json:"label"`
	Focused     bool   `json:"focused"`
	PaneCount   int    `json:"pane_count"`
	TabCount    int    `json:"tab_count"`
	ActiveTabID string `json:"active_tab_id"`
	AgentStatus Status `json:"agent_status"`
}

// PaneRead is the result of pane.read.
type PaneRead struct {
	PaneID    string `json:"pane_id"`
	Source    string `json:"source"`
	Text      string `json:"text"`
	Truncated bool   `json:"truncated"`
}

// Placement is where an agent's terminal lives: the ids the driver reports after a
// spawn or a move. TerminalID is the stable key; the others are locations.
type Placement struct {
	Workspace   string `json:"workspace"` // workspace label
	WorkspaceID string `json:"workspace_id"`
	TabID       string `json:"tab_id"`
	PaneID      string `json:"pane_id"`
	TerminalID  string `json:"terminal_id"`
}

// MoveResult is what a pane move reports.
type MoveResult struct {
	Placement
	Changed           bool   `json:"changed"`
	Reason            string `json:"reason,omitempty"`
	PreviousPaneID    string `json:"previous_pane_id"`
	ClosedWorkspaceID string `json:"closed_workspace_id,omitempty"`
}

// Notification is the result of notification.show.
type Notification struct {
	Shown  bool   `json:"shown"`
	Reason string `json:"reason"`
}

// SpawnSpec describes an agent pane to create: a new tab labelled Label in the
// workspace labelled Workspace, running Argv directly in Cwd with Env added; the pane is
// labelled PaneLabel (Label when empty).
type SpawnSpec struct {
	Workspace string            `json:"workspace"`
	Label     string            `json:"label"`
	PaneLabel string            `json:"pane_label,omitempty"`
	Argv      []string          `json:"argv"`
	Cwd       string            `json:"cwd,omitempty"`
	Env       map[string]string `json:"env,omitempty"`
}

// paneLabel is the label the spawned pane gets: PaneLabel, else Label.
func (s SpawnSpec) paneLabel() string {
	if s.PaneLabel != "" {
		return s.PaneLabel
	}
	return s.Label
}

// ReadSource values for [Remote.Read]; orcr only uses visible (docs/herdr.md §13.12).
const (
	ReadVisible = "visible"
	ReadRecent  = "recent"
)

func isTerminalID(s string) bool { return strings.HasPrefix(s, "term_") }

func normalisePanes(ps []PaneInfo) {
	for i := range ps {
		ps[i].AgentStatus = ps[i].AgentStatus.Normalise()
	}
}

// ShownTitle is the agent's title as a user would read it: the integration's Title when
// herdr has one, else the terminal's title without its activity glyphs, else the raw
// terminal title (docs/herdr.md §12: herdr fills Title only from an integration's report).
func (a AgentInfo) ShownTitle() string {
	switch {
	case a.Title != "":
		return a.Title
	case a.TerminalTitleStripped != "":
		return a.TerminalTitleStripped
	}
	return a.TerminalTitle
}
