package api

// The row shapes of docs/protocol.md §4.3: what agent.ls, api.snapshot, watch.open and
// the event payloads carry. The store scans straight into them (store.AgentRow and the
// others are aliases of these types), so there is one definition of each shape.

// Status is an agent row's public status (docs/lifecycle.md §5).
type Status string

// Agent statuses.
const (
	StatusQueued   Status = "queued"
	StatusStarting Status = "starting"
	StatusWorking  Status = "working"
	StatusIdle     Status = "idle"
	StatusBlocked  Status = "blocked"
	StatusParked   Status = "parked"
	StatusLost     Status = "lost"
	StatusEnded    Status = "ended"
	// StatusUnknown is used by unmanaged rows only: herdr cannot tell what the agent is doing.
	StatusUnknown Status = "unknown"
)

// In reports whether s is one of set.
func (s Status) In(set ...Status) bool {
	for _, x := range set {
		if s == x {
			return true
		}
	}
	return false
}

// Gone reports whether an agent in status s can no longer take input (ended or lost).
func (s Status) Gone() bool { return s == StatusEnded || s == StatusLost }

// AgentRow is the agent row shape of docs/protocol.md §4.3 (agent.ls, snapshots, and the
// "agent" member of every agent.* event payload, docs/decisions.md D2). Nullable keys that are
// always present are pointers without omitempty (they serialise as null); keys present
// only when set are pointers with omitempty.
type AgentRow struct {
	UUID               string  `json:"uuid"`
	Path               string  `json:"path"`
	Status             Status  `json:"status"`
	Managed            bool    `json:"managed"`
	Agent              *string `json:"agent"`
	Model              *string `json:"model"`
	Effort             *string `json:"effort"`
	Cwd                *string `json:"cwd"`
	PaneID             *string `json:"pane_id"`
	MoveState          string  `json:"move_state"`
	CreatedAt          int64   `json:"created_at"`
	LastStatusChangeAt *int64  `json:"last_status_change_at"`

	HerdrSession    *string `json:"herdr_session,omitempty"`
	StartingAt      *int64  `json:"starting_at,omitempty"`
	IdleSince       *int64  `json:"idle_since,omitempty"`
	ParkedAt        *int64  `json:"parked_at,omitempty"`
	TurnDeliveredAt *int64  `json:"turn_delivered_at,omitempty"` // of the latest turn (highest input_seq)
	TurnCompletedAt *int64  `json:"turn_completed_at,omitempty"` // of the latest turn
	QueuePosition   *int64  `json:"queue_position,omitempty"`    // derived; only when status = queued
	ParentID        *string `json:"parent_id,omitempty"`
	ParentPath      *string `json:"parent_path,omitempty"` // only when parent_id names an agent row
	BlockedKind     *string `json:"blocked_kind,omitempty"`
	ExitReason      *string `json:"exit_reason,omitempty"`
	// ExitDetail says in words why the agent ended, when orcr knows more than the
	// exit_reason: a provider that exited or showed nothing during its start, a screen
	// that takes no prompt, a spawn error (docs/lifecycle.md §4.3).
	ExitDetail *string `json:"exit_detail,omitempty"`
	// ScreenAt is when orcr read the last screen it kept of the agent's pane, which
	// `agent logs --screen` shows once the pane is gone (docs/lifecycle.md §4.1).
	ScreenAt *int64 `json:"screen_at,omitempty"`
	EndedAt  *int64 `json:"ended_at,omitempty"`
	// Stalled is true while the open turn is marked stalled: working, but neither screen
	// nor transcript changed for the provider's stall_after (docs/lifecycle.md §10.7).
	// Never acted on by orcr; progress clears it.
	Stalled   bool   `json:"stalled,omitempty"`
	StalledAt *int64 `json:"stalled_at,omitempty"` // when the turn was marked stalled
	// RoutedFrom is the provider the agent was queued for when routing.fallback promoted
	// it as Agent, with Agent's configured model and effort (docs/lifecycle.md §7.6).
	RoutedFrom *string `json:"routed_from,omitempty"`
	// BudgetPaused names the budget that paused the agent at a turn boundary: it stays
	// in its status and its sends wait in its inbox until budget extend (docs/usage.md §7.3).
	BudgetPaused *string `json:"budget_paused,omitempty"`
	// The git worktree the agent runs in: only for an agent started with worktree
	// (docs/lifecycle.md §8.4).
	Worktree *AgentWorktree `json:"worktree,omitempty"`
	// What the agent's completed turns used, kept on its row as each turn completes
	// (docs/usage.md §4): absent until a turn reported usage.
	Usage *AgentUsage `json:"usage,omitempty"`
}

// AgentUsage is an agent's usage totals on its row (docs/usage.md §4).
type AgentUsage struct {
	// Turns that reported usage.
	Turns int64 `json:"turns"`
	// Every token of those turns: input, output, cache reads and cache writes.
	Tokens int64 `json:"tokens"`
	// The cost of the priced turns in US dollars.
	CostUSD float64 `json:"cost_usd"`
	// Turns whose model had no price.
	UnpricedTurns int64 `json:"unpriced_turns"`
}

// AgentWorktree is the git worktree of an agent started with worktree
// (docs/lifecycle.md §8.4).
type AgentWorktree struct {
	// The worktree's directory: the agent's cwd.
	Path string `json:"path"`
	// The branch checked out there.
	Branch string `json:"branch"`
	// The repository's common git directory.
	Repo string `json:"repo"`
	// Whether the worktree is kept when the agent ends (keep_worktree).
	Keep bool `json:"keep"`
	// pending (queued, not made yet), creating, ready, removing; once the agent has
	// ended: removed, kept, dirty (kept: it had uncommitted changes), failed (kept: git
	// refused the removal) or unused (the agent ended before it was made).
	State string `json:"state"`
}

// LoopRow is the loop row shape of docs/protocol.md §4.3 (loop.ls, snapshots, the "loop"
// member of loop.* payloads). Every key is always present; nullable ones serialise as null.
type LoopRow struct {
	UUID           string  `json:"uuid"`
	Name           string  `json:"name"`
	Status         string  `json:"status"`
	EndedReason    *string `json:"ended_reason"`
	Cadence        string  `json:"cadence"`
	CadenceKind    string  `json:"cadence_kind"`
	TZ             string  `json:"tz"`
	NextFireAt     *int64  `json:"next_fire_at"`
	LastFireAt     *int64  `json:"last_fire_at"`
	MaxConcurrency int64   `json:"max_concurrency"`
	Overlap        string  `json:"overlap"`
	CreatedAt      int64   `json:"created_at"`
}

// RunRow is the loop-run row shape of docs/protocol.md §4.3 (loop.run.ls, the "run" member of
// loop_run.* payloads). Every key is always present; nullable ones serialise as null.
// Path is "<loop name>/<run_id>"; Agents counts the agents under that path, ended ones
// included.
type RunRow struct {
	UUID      string `json:"uuid"`
	LoopUUID  string `json:"loop_uuid"`
	RunID     string `json:"run_id"`
	Path      string `json:"path"`
	Kind      string `json:"kind"`
	Status    string `json:"status"`
	DueAt     *int64 `json:"due_at"`
	CreatedAt int64  `json:"created_at"`
	StartedAt *int64 `json:"started_at"`
	EndedAt   *int64 `json:"ended_at"`
	ExitCode  *int64 `json:"exit_code"`
	Signal    *int64 `json:"signal"`
	PID       *int64 `json:"pid"`
	PGID      *int64 `json:"pgid"`
	Agents    int64  `json:"agents"`
}

// Snapshot is the SnapshotDoc of docs/protocol.md §4.3 (api.snapshot, watch.open). Slices are
// never nil, so they serialise as [].
type Snapshot struct {
	SnapshotSeq int64          `json:"snapshot_seq"`
	Agents      []AgentRow     `json:"agents"` // every non-ended agent (incl. lost), by path then created_at
	Loops       []SnapshotLoop `json:"loops"`  // active and paused loops, by created_at
	Queue       []QueueEntry   `json:"queue"`  // the queued subset of Agents, in path order
}

// SnapshotLoop is a LoopRow extended with its running and stopping runs.
type SnapshotLoop struct {
	LoopRow
	Runs []SnapshotRun `json:"runs"`
}

// SnapshotRun is the short run shape inside a snapshot loop.
type SnapshotRun struct {
	UUID      string `json:"uuid"`
	RunID     string `json:"run_id"`
	Kind      string `json:"kind"`
	Status    string `json:"status"`
	DueAt     *int64 `json:"due_at"`
	StartedAt *int64 `json:"started_at"`
}

// QueueEntry is one entry of the snapshot's queue.
type QueueEntry struct {
	UUID  string  `json:"uuid"`
	Path  string  `json:"path"`
	Agent *string `json:"agent"`
}

// StalledAgent is one agent whose open turn is marked stalled, as server.status lists it
// (docs/lifecycle.md §10.7).
type StalledAgent struct {
	UUID      string `json:"uuid"`
	Path      string `json:"path"`
	StalledAt int64  `json:"stalled_at"`
}

// QuotaWindow is one quota window of a provider's account as it was last reported
// (docs/usage.md §7): codex's primary and secondary windows from its token_count
// events, claude's five_hour and seven_day from its status line.
type QuotaWindow struct {
	Provider string `json:"provider"`
	// Account is the provider's login the window belongs to; "" is the login the
	// provider's agents run under (orcr runs all of a provider's agents under one).
	Account string `json:"account"`
	// Window is primary or secondary (codex), five_hour or seven_day (claude).
	Window string `json:"window"`
	// UsedPercent is how much of the window is used, 0–100.
	UsedPercent float64 `json:"used_percent"`
	// WindowMinutes is the window's length (0: not reported).
	WindowMinutes int64 `json:"window_minutes"`
	// ResetsAt is when the window resets (unix ms; 0: not reported).
	ResetsAt int64 `json:"resets_at"`
	// ObservedAt is when orcr read it (unix ms), AgentUUID the agent whose turn reported it.
	ObservedAt int64  `json:"observed_at"`
	AgentUUID  string `json:"agent_uuid,omitempty"`
	// State is the window judged at the time of the answer (docs/usage.md §7.2): ok,
	// warn (used at quota.warn_at or more), paused (at quota.pause_at or more) or reset
	// (its reset is past: nothing of it is used any more, used_percent 0). Empty in
	// quota.record's windows.
	State string `json:"state,omitempty"`
}

// The states of a judged quota window ([QuotaWindow.Judge]).
const (
	QuotaOK     = "ok"
	QuotaWarn   = "warn"
	QuotaPaused = "paused"
	QuotaReset  = "reset"
)

// Judge is w as it stands at now (unix ms) under quota.warn_at warnAt and
// quota.pause_at pauseAt (fractions; 0: off): a window is only re-read when its provider
// reports it again, so one whose reset is past is reset — used 0%, state reset — and
// otherwise warn or paused at the thresholds (≥, in percent), else ok (docs/usage.md
// §7.2). Every reader of the windows judges them with it — usage.report, server.status,
// `orcr top`, the dashboard — and a reader holding a judged window re-judges it against
// its own clock with thresholds 0, which keeps warn and paused until the reset.
func (w QuotaWindow) Judge(now int64, warnAt, pauseAt float64) QuotaWindow {
	switch {
	case w.State == QuotaReset || (w.ResetsAt > 0 && w.ResetsAt <= now):
		w.UsedPercent, w.State = 0, QuotaReset
	case pauseAt > 0 && w.UsedPercent >= pauseAt*100:
		w.State = QuotaPaused
	case warnAt > 0 && w.UsedPercent >= warnAt*100:
		w.State = QuotaWarn
	case warnAt > 0 || pauseAt > 0 || w.State == "":
		w.State = QuotaOK
	}
	return w
}

// ProviderPause is a provider the admission queue holds back because one of its agents
// stopped at its usage limit (docs/lifecycle.md §7.6): server.status's paused, and the
// payload of provider.paused.
type ProviderPause struct {
	Provider string `json:"provider"`
	// Account is the login the pause holds (docs/usage.md §7.3); "" holds every
	// account of the provider.
	Account string `json:"account,omitempty"`
	// Since is when the pause began, Until when the queue promotes the provider's agents
	// again (unix ms).
	Since int64 `json:"since"`
	Until int64 `json:"until"`
	// AgentUUID is the agent whose limit started (or last extended) the pause.
	AgentUUID string `json:"agent_uuid,omitempty"`
	// Source is how Until was found: reset (read from the limit message), backoff
	// (timings.limit_backoff) or quota (a quota window reached quota.pause_at; Until is
	// its reset, docs/usage.md §7).
	Source string `json:"source"`
	// Message is the screen line that named the limit, when one did.
	Message string `json:"message,omitempty"`
}

// LoopSummary is one active or paused loop as server.status lists it.
type LoopSummary struct {
	Name       string `json:"name"`
	Status     string `json:"status"`
	NextFireAt *int64 `json:"next_fire_at"`
}
