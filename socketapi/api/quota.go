package api

// QuotaRecordRequest is quota.record's params (docs/usage.md §7.1): the quota windows a
// provider reported outside its transcript — claude's status line, through `orcr
// __statusline` in orcr's own claude panes.
type QuotaRecordRequest struct {
	// Provider is the provider whose account the windows belong to (claude; any
	// provider orcr runs).
	Provider string `json:"provider"`
	// Agent is the uuid of the agent whose pane reported them (ORCR_ID), or "".
	Agent string `json:"agent,omitempty"`
	// Account is the account key the pane computed from its environment (docs/usage.md
	// §7.3), at most 4096 bytes; the server keeps the account it recorded for Agent when
	// it knows the agent.
	Account string `json:"account,omitempty"`
	// Windows are the windows as reported: window, used_percent (0–100),
	// window_minutes and resets_at (unix ms; 0 when not reported).
	Windows []QuotaWindow `json:"windows"`
}

// QuotaRecordResult is quota.record's result.
type QuotaRecordResult struct {
	// Windows is the number of windows recorded.
	Windows int `json:"windows"`
	// PausedUntil is the provider's pause the windows started or extended (unix ms), 0
	// for none (quota.pause_at, docs/usage.md §7).
	PausedUntil int64 `json:"paused_until"`
}

// QuotaWarned: a quota window reached quota.warn_at (docs/usage.md §7): once per
// window and period, when a report finds it at warn_at or more after one below (or
// after its reset). No uuid, no agent row.
type QuotaWarned struct {
	Provider    string  `json:"provider"`
	Account     string  `json:"account"`
	Window      string  `json:"window"`
	UsedPercent float64 `json:"used_percent"`
	ResetsAt    int64   `json:"resets_at"`
	WarnAt      float64 `json:"warn_at"`
	AgentUUID   string  `json:"agent_uuid,omitempty"`
}

func (QuotaWarned) EventKind() string { return "quota.warned" }
