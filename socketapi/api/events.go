package api

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// Event is the payload of one event kind (docs/protocol.md §6): one struct per kind,
// registered in [Events]. The store stores it as the event's JSON object; a frame adds
// "kind" and "ref_uuid" to it.
type Event interface {
	EventKind() string
}

// EventSpec is one row of the events table.
type EventSpec struct {
	// Kind is the wire kind ("agent.status_changed").
	Kind string
	// Control kinds are written on a subscription with seq 0 and never stored.
	Control bool
	typ     reflect.Type
}

// Type is the payload's struct type (for the schema).
func (s EventSpec) Type() reflect.Type { return s.typ }

// New returns a pointer to a zero payload of the kind.
func (s EventSpec) New() Event { return reflect.New(s.typ).Interface().(Event) }

func event[T Event]() EventSpec {
	var zero T
	return EventSpec{Kind: zero.EventKind(), typ: reflect.TypeFor[T]()}
}

func control[T Event]() EventSpec {
	s := event[T]()
	s.Control = true
	return s
}

// Events lists every event kind, in a stable order: the 21 kinds of the reference
// (docs/protocol.md §6.2), the stall signal (docs/lifecycle.md §10.7), rate-limit-aware
// admission (docs/lifecycle.md §7.6) and the intent/applied pairs (docs/decisions.md
// D1). Adding a kind here is all it takes for the store to accept it, the schema to
// describe it and the TypeScript SDK to type it.
var Events = []EventSpec{
	event[AgentCreated](),
	event[AgentStatusChanged](),
	event[AgentTurnCompleted](),
	event[AgentResponseCaptured](),
	event[AgentLocationChanged](),
	event[AgentEnded](),
	event[QueuePromoted](),
	event[AttachStarted](),
	event[AttachEnded](),
	event[LoopCreated](),
	event[LoopFired](),
	event[LoopCoalesced](),
	event[LoopSkipped](),
	event[LoopPaused](),
	event[LoopResumed](),
	event[LoopRemoved](),
	event[LoopEnded](),
	event[LoopRunStarted](),
	event[LoopRunEnded](),
	event[LoopRunStopping](),
	control[ServerStopping](),
	event[AgentStalled](),
	event[AgentStallCleared](),
	event[ProviderPaused](),
	event[ProviderResumed](),
	event[QuotaWarned](),
	event[AgentRerouted](),
	event[BudgetWarned](), event[BudgetExceeded](), event[BudgetExtended](), event[BudgetResumed](),
	event[AgentSpawnRequested](), event[AgentSpawnApplied](),
	event[AgentMoveRequested](), event[AgentMoveApplied](),
	event[AgentCloseRequested](), event[AgentCloseApplied](),
	event[AgentInputRequested](), event[AgentInputApplied](),
	event[LoopRunSpawnRequested](), event[LoopRunSpawnApplied](),
	event[LoopRunSignalRequested](), event[LoopRunSignalApplied](),
	event[AgentWorktreeAddRequested](), event[AgentWorktreeAddApplied](),
	event[AgentWorktreeRemoveRequested](), event[AgentWorktreeRemoveApplied](),
}

// LookupEvent returns the table row of a kind.
func LookupEvent(kind string) (EventSpec, bool) {
	for _, s := range Events {
		if s.Kind == kind {
			return s, true
		}
	}
	return EventSpec{}, false
}

// AppliedKind returns the *_applied kind that closes a *_requested kind of the table.
func AppliedKind(requested string) (string, bool) {
	base, ok := strings.CutSuffix(requested, "_requested")
	if !ok {
		return "", false
	}
	s, ok := LookupEvent(base + "_applied")
	return s.Kind, ok
}

// NewApplied returns a zero payload of the *_applied kind that closes a *_requested kind.
func NewApplied(requested string) (AppliedEvent, bool) {
	kind, ok := AppliedKind(requested)
	if !ok {
		return nil, false
	}
	s, _ := LookupEvent(kind)
	ev, ok := s.New().(AppliedEvent)
	return ev, ok
}

// DecodeEvent decodes a stored payload or a frame's event object of kind into its
// struct; the result is a pointer (*AgentStatusChanged, …). An unknown kind (debug.*) is
// an error.
func DecodeEvent(kind string, raw json.RawMessage) (Event, error) {
	s, ok := LookupEvent(kind)
	if !ok {
		return nil, fmt.Errorf("api: unknown event kind %q", kind)
	}
	ev := s.New()
	if len(raw) == 0 {
		return ev, nil
	}
	if err := json.Unmarshal(raw, ev); err != nil {
		return nil, fmt.Errorf("api: %s payload: %w", kind, err)
	}
	return ev, nil
}

// RawEvent is a payload the table does not describe: the debug.* kinds a test appends
// through the hidden debug.emit method. Fields must be a JSON object.
type RawEvent struct {
	Kind   string
	Fields json.RawMessage
}

func (e RawEvent) EventKind() string { return e.Kind }

// MarshalJSON writes the fields as they are.
func (e RawEvent) MarshalJSON() ([]byte, error) {
	if len(e.Fields) == 0 {
		return []byte("{}"), nil
	}
	return e.Fields, nil
}

// OptionalString is a key that is absent (the zero value), null, or a string. Use it
// with omitzero.
type OptionalString struct {
	Set   bool
	Value *string
}

// Present returns an OptionalString that is written: null for nil.
func Present(v *string) OptionalString { return OptionalString{Set: true, Value: v} }

func (o OptionalString) IsZero() bool { return !o.Set }

func (o OptionalString) MarshalJSON() ([]byte, error) { return json.Marshal(o.Value) }

func (o *OptionalString) UnmarshalJSON(b []byte) error {
	o.Set = true
	return json.Unmarshal(b, &o.Value)
}

// ---- heads: what the store fills in for every event of a family ----

// AgentHead is what every agent.* and queue.* event carries: the agent's uuid and its
// row after the change (docs/decisions.md D2). The store fills it in.
type AgentHead struct {
	// The row after the change.
	Agent AgentRow `json:"agent"`
	UUID  string   `json:"uuid"`
}

// AgentRef returns the head, for the store to fill in.
func (h *AgentHead) AgentRef() *AgentHead { return h }

// AgentEvent is an event with an [AgentHead].
type AgentEvent interface {
	Event
	AgentRef() *AgentHead
}

// LoopHead is what every loop.* event carries: the loop row after the change.
type LoopHead struct {
	Loop LoopRow `json:"loop"`
}

// LoopRef returns the head, for the store to fill in.
func (h *LoopHead) LoopRef() *LoopHead { return h }

// LoopEvent is an event with a [LoopHead].
type LoopEvent interface {
	Event
	LoopRef() *LoopHead
}

// RunHead is what every loop_run.* event but the intents carries: the run's uuid and its
// row after the change.
type RunHead struct {
	Run     RunRow `json:"run"`
	RunUUID string `json:"run_uuid"`
}

// RunRef returns the head, for the store to fill in.
func (h *RunHead) RunRef() *RunHead { return h }

// RunEvent is an event with a [RunHead].
type RunEvent interface {
	Event
	RunRef() *RunHead
}

// IntentHead is what every *_requested event carries (docs/decisions.md D1): the ref
// (uuid for an agent, run_uuid for a loop run), the op id its *_applied names, and for
// an agent its row, when it still exists.
type IntentHead struct {
	Agent   *AgentRow `json:"agent,omitempty"`
	OpID    string    `json:"op_id"`
	RunUUID string    `json:"run_uuid,omitempty"`
	UUID    string    `json:"uuid,omitempty"`
}

// Intent returns the head, for the store to fill in.
func (h *IntentHead) Intent() *IntentHead { return h }

// IntentEvent is a *_requested event.
type IntentEvent interface {
	Event
	Intent() *IntentHead
}

// AppliedHead is what every *_applied event carries (docs/decisions.md D1): the ref and
// op id of its intent, whether it succeeded, the error when one was given, repaired when
// recovery closed it after a restart, and for an agent its row.
type AppliedHead struct {
	Agent    *AgentRow `json:"agent,omitempty"`
	Error    string    `json:"error,omitempty"`
	OK       bool      `json:"ok"`
	OpID     string    `json:"op_id"`
	Repaired bool      `json:"repaired,omitempty"`
	RunUUID  string    `json:"run_uuid,omitempty"`
	UUID     string    `json:"uuid,omitempty"`
}

// Outcome returns the head, for the store to fill in.
func (h *AppliedHead) Outcome() *AppliedHead { return h }

// AppliedEvent is a *_applied event.
type AppliedEvent interface {
	Event
	Outcome() *AppliedHead
}

// ---- agents ----

// AgentCreated: a row was created, queued (agent.run) or idle/working (an unmanaged
// agent found in herdr, managed false).
type AgentCreated struct {
	AgentHead
	// false for an unmanaged agent; absent for a managed one.
	Managed *bool  `json:"managed,omitempty"`
	Path    string `json:"path"`
	Status  Status `json:"status"`
}

// AgentStatusChanged: the row moved to status. Which other keys come with it depends on
// the transition: exit_reason (null when none) when it ended, input_seq when a turn
// opened or was undone, blocked_kind when it blocked, adopted_from when an adoption
// re-queued it.
type AgentStatusChanged struct {
	AgentHead
	AdoptedFrom string         `json:"adopted_from,omitempty"`
	BlockedKind string         `json:"blocked_kind,omitempty"`
	ExitReason  OptionalString `json:"exit_reason,omitzero"`
	InputSeq    *int64         `json:"input_seq,omitempty"`
	// Only from the debug transitions.
	Path   string `json:"path,omitempty"`
	Status Status `json:"status"`
}

// AgentTurnCompleted: the turn input_seq completed.
type AgentTurnCompleted struct {
	AgentHead
	InputSeq int64 `json:"input_seq"`
}

// AgentResponseCaptured: the completed turn's response was found in the transcript.
type AgentResponseCaptured struct {
	AgentHead
	TranscriptLocator string `json:"transcript_locator"`
}

// AgentLocationChanged: the agent's pane moved.
type AgentLocationChanged struct {
	AgentHead
	PaneID     string `json:"pane_id"`
	TerminalID string `json:"terminal_id"`
}

// AgentEnded: the row ended, with its exit_reason (null for an unmanaged agent).
type AgentEnded struct {
	AgentHead
	ExitReason *string `json:"exit_reason"`
}

// QueuePromoted: a queued row was admitted (it is starting now).
type QueuePromoted struct {
	AgentHead
}

// AgentRerouted: a queued row was promoted as routing.fallback's provider, model and
// effort instead of the paused provider it was queued for (docs/lifecycle.md §7.6).
type AgentRerouted struct {
	AgentHead
	Effort string `json:"effort"`
	From   string `json:"from"`
	Model  string `json:"model"`
	To     string `json:"to"`
}

// AgentStalled: the open turn input_seq made no progress for the provider's stall_after
// (docs/lifecycle.md §10.7); progress_at is the last progress seen (unix ms).
type AgentStalled struct {
	AgentHead
	InputSeq   int64 `json:"input_seq"`
	ProgressAt int64 `json:"progress_at"`
	Stalled    bool  `json:"stalled"`
}

// AgentStallCleared: the stall mark went, for reason (status, progress).
type AgentStallCleared struct {
	AgentHead
	Reason  string `json:"reason"`
	Stalled bool   `json:"stalled"`
}

// ---- attach ----

// AttachStarted: an attach lease began.
type AttachStarted struct {
	LeaseID string `json:"lease_id"`
	Mode    string `json:"mode"`
	UUID    string `json:"uuid"`
}

// AttachEnded: an attach lease was released, or expired (reason expired).
type AttachEnded struct {
	LeaseID string `json:"lease_id"`
	Reason  string `json:"reason,omitempty"`
	UUID    string `json:"uuid"`
}

// ---- loops ----

// LoopCreated: a loop was created.
type LoopCreated struct {
	LoopHead
	Cadence string `json:"cadence"`
	Name    string `json:"name"`
	UUID    string `json:"uuid"`
}

// LoopFired: a fire made the run run_id (pending when the loop was at capacity).
type LoopFired struct {
	LoopHead
	DueAt int64 `json:"due_at"`
	// scheduled or manual. Stored only: a frame's kind is the event kind, which
	// overwrites this key (docs/protocol.md §2.4).
	Kind     string `json:"kind"`
	LoopUUID string `json:"loop_uuid"`
	Pending  bool   `json:"pending"`
	RunID    string `json:"run_id"`
}

// LoopCoalesced: a scheduled fire was folded into the pending run run_id.
type LoopCoalesced struct {
	LoopHead
	DueAt    int64  `json:"due_at"`
	LoopUUID string `json:"loop_uuid"`
	RunID    string `json:"run_id"`
}

// LoopSkipped: an occurrence will not run: at capacity with overlap skip, or for reason
// (docs/loops.md §9.1).
type LoopSkipped struct {
	LoopHead
	DueAt    int64  `json:"due_at"`
	LoopUUID string `json:"loop_uuid"`
	Name     string `json:"name,omitempty"`
	Reason   string `json:"reason,omitempty"`
}

// LoopChange is the payload of a loop's status changes.
type LoopChange struct {
	LoopHead
	EndedReason *string `json:"ended_reason"`
	Status      string  `json:"status"`
	UUID        string  `json:"uuid"`
}

// Change returns the change, for the store to fill in.
func (c *LoopChange) Change() *LoopChange { return c }

// LoopChangeEvent is an event with a [LoopChange].
type LoopChangeEvent interface {
	LoopEvent
	Change() *LoopChange
}

// LoopPaused: the loop was paused.
type LoopPaused struct{ LoopChange }

// LoopResumed: the loop was resumed.
type LoopResumed struct{ LoopChange }

// LoopRemoved: the loop was removed (loop.rm).
type LoopRemoved struct{ LoopChange }

// LoopEnded: the loop ended by itself (a once loop fired or missed its instant).
type LoopEnded struct{ LoopChange }

// LoopRunStarted: the run's process group started.
type LoopRunStarted struct {
	RunHead
	Pgid  int64  `json:"pgid"`
	Pid   int64  `json:"pid"`
	RunID string `json:"run_id"`
}

// LoopRunEnded: the run finished with status; exit_code and signal are null unless known.
type LoopRunEnded struct {
	RunHead
	ExitCode *int64 `json:"exit_code"`
	RunID    string `json:"run_id"`
	Signal   *int64 `json:"signal"`
	Status   string `json:"status"`
}

// LoopRunStopping: the run is being stopped; no agent may be created under it any more.
type LoopRunStopping struct {
	RunHead
}

// ---- providers and control ----

// ProviderPaused: a provider's rate limit paused its queue until until (docs/lifecycle.md
// §7.6).
type ProviderPaused struct {
	ProviderPause
}

// ProviderResumed: a provider's pause ended, for reason.
type ProviderResumed struct {
	Provider string `json:"provider"`
	Account  string `json:"account,omitempty"`
	Reason   string `json:"reason"`
}

// ServerStopping is the control frame a subscription gets when the server stops (seq 0).
type ServerStopping struct{}

// ---- intents and their outcomes (docs/decisions.md D1) ----

// AgentSpawnRequested: herdr is asked for the agent's pane.
type AgentSpawnRequested struct {
	IntentHead
	Argv      []string `json:"argv"`
	Cwd       string   `json:"cwd"`
	Label     string   `json:"label"`
	Workspace string   `json:"workspace"`
}

// AgentSpawnApplied: the pane was made (its ids) or not.
type AgentSpawnApplied struct {
	AppliedHead
	PaneID      string `json:"pane_id,omitempty"`
	TabID       string `json:"tab_id,omitempty"`
	TerminalID  string `json:"terminal_id,omitempty"`
	WorkspaceID string `json:"workspace_id,omitempty"`
}

// AgentMoveRequested: herdr is asked to park or unpark the agent's pane.
type AgentMoveRequested struct {
	IntentHead
	Label     string `json:"label"`
	Move      string `json:"move"`
	MoveToken string `json:"move_token"`
	Target    string `json:"target"`
	Workspace string `json:"workspace"`
}

// AgentMoveApplied: the pane moved (its new ids) or not (rolled_back when recovery found
// it never did).
type AgentMoveApplied struct {
	AppliedHead
	PaneID      string `json:"pane_id,omitempty"`
	RolledBack  bool   `json:"rolled_back,omitempty"`
	TabID       string `json:"tab_id,omitempty"`
	TerminalID  string `json:"terminal_id,omitempty"`
	WorkspaceID string `json:"workspace_id,omitempty"`
}

// AgentCloseRequested: herdr is asked to close the agent's pane, for reason (an
// adoption's with the new path).
type AgentCloseRequested struct {
	IntentHead
	Path   string `json:"path,omitempty"`
	Reason string `json:"reason"`
	Target string `json:"target"`
}

// AgentCloseApplied: the pane was closed or not.
type AgentCloseApplied struct {
	AppliedHead
	Target string `json:"target,omitempty"`
}

// AgentInputRequested: a prompt of bytes bytes is typed into target for turn input_seq;
// a managed agent's carries the probe recovery looks for and the status the turn opened
// from, an unmanaged one's its herdr session.
type AgentInputRequested struct {
	IntentHead
	Bytes    int    `json:"bytes"`
	From     Status `json:"from,omitempty"`
	InputSeq int64  `json:"input_seq"`
	Probe    string `json:"probe,omitempty"`
	Session  string `json:"session,omitempty"`
	Target   string `json:"target"`
}

// AgentInputApplied: the prompt was submitted or not; recovery says whether it typed it
// again (typed_again) or undid the turn (rolled_back).
type AgentInputApplied struct {
	AppliedHead
	InputSeq   int64 `json:"input_seq"`
	RolledBack bool  `json:"rolled_back,omitempty"`
	TypedAgain *int  `json:"typed_again,omitempty"`
}

// AgentWorktreeAddRequested: the agent's git worktree is made (create) or reused.
type AgentWorktreeAddRequested struct {
	IntentHead
	Base      string `json:"base"`
	Branch    string `json:"branch"`
	Create    bool   `json:"create"`
	NewBranch bool   `json:"new_branch"`
	Repo      string `json:"repo"`
	Worktree  string `json:"worktree"`
}

// AgentWorktreeAddApplied: the worktree is there (reused when it was already) or not.
type AgentWorktreeAddApplied struct {
	AppliedHead
	Branch   string `json:"branch"`
	Reused   *bool  `json:"reused,omitempty"`
	Worktree string `json:"worktree"`
}

// AgentWorktreeRemoveRequested: the ended agent's worktree is removed.
type AgentWorktreeRemoveRequested struct {
	IntentHead
	Branch   string `json:"branch"`
	Repo     string `json:"repo"`
	Worktree string `json:"worktree"`
}

// AgentWorktreeRemoveApplied: what became of the worktree (removed, dirty, failed).
type AgentWorktreeRemoveApplied struct {
	AppliedHead
	State    string `json:"state"`
	Worktree string `json:"worktree"`
}

// LoopRunSpawnRequested: the run's process group is started with argv.
type LoopRunSpawnRequested struct {
	IntentHead
	Argv []string `json:"argv"`
}

// LoopRunSpawnApplied: the process group started (pid, pgid) or not.
type LoopRunSpawnApplied struct {
	AppliedHead
	Pgid int64 `json:"pgid,omitempty"`
	Pid  int64 `json:"pid,omitempty"`
}

// LoopRunSignalRequested: signal is sent to the run's process group pgid.
type LoopRunSignalRequested struct {
	IntentHead
	Pgid   int64 `json:"pgid"`
	Signal int   `json:"signal"`
}

// LoopRunSignalApplied: whether the signal was sent (absent when recovery closed it).
type LoopRunSignalApplied struct {
	AppliedHead
	Sent *bool `json:"sent,omitempty"`
}

func (AgentCreated) EventKind() string                 { return "agent.created" }
func (AgentStatusChanged) EventKind() string           { return "agent.status_changed" }
func (AgentTurnCompleted) EventKind() string           { return "agent.turn_completed" }
func (AgentResponseCaptured) EventKind() string        { return "agent.response_captured" }
func (AgentLocationChanged) EventKind() string         { return "agent.location_changed" }
func (AgentEnded) EventKind() string                   { return "agent.ended" }
func (QueuePromoted) EventKind() string                { return "queue.promoted" }
func (AgentRerouted) EventKind() string                { return "agent.rerouted" }
func (AgentStalled) EventKind() string                 { return "agent.stalled" }
func (AgentStallCleared) EventKind() string            { return "agent.stall_cleared" }
func (AttachStarted) EventKind() string                { return "attach.started" }
func (AttachEnded) EventKind() string                  { return "attach.ended" }
func (LoopCreated) EventKind() string                  { return "loop.created" }
func (LoopFired) EventKind() string                    { return "loop.fired" }
func (LoopCoalesced) EventKind() string                { return "loop.coalesced" }
func (LoopSkipped) EventKind() string                  { return "loop.skipped" }
func (LoopPaused) EventKind() string                   { return "loop.paused" }
func (LoopResumed) EventKind() string                  { return "loop.resumed" }
func (LoopRemoved) EventKind() string                  { return "loop.removed" }
func (LoopEnded) EventKind() string                    { return "loop.ended" }
func (LoopRunStarted) EventKind() string               { return "loop_run.started" }
func (LoopRunEnded) EventKind() string                 { return "loop_run.ended" }
func (LoopRunStopping) EventKind() string              { return "loop_run.stopping" }
func (ProviderPaused) EventKind() string               { return "provider.paused" }
func (ProviderResumed) EventKind() string              { return "provider.resumed" }
func (ServerStopping) EventKind() string               { return "server_stopping" }
func (AgentSpawnRequested) EventKind() string          { return "agent.spawn_requested" }
func (AgentSpawnApplied) EventKind() string            { return "agent.spawn_applied" }
func (AgentMoveRequested) EventKind() string           { return "agent.move_requested" }
func (AgentMoveApplied) EventKind() string             { return "agent.move_applied" }
func (AgentCloseRequested) EventKind() string          { return "agent.close_requested" }
func (AgentCloseApplied) EventKind() string            { return "agent.close_applied" }
func (AgentInputRequested) EventKind() string          { return "agent.input_requested" }
func (AgentInputApplied) EventKind() string            { return "agent.input_applied" }
func (AgentWorktreeAddRequested) EventKind() string    { return "agent.worktree_add_requested" }
func (AgentWorktreeAddApplied) EventKind() string      { return "agent.worktree_add_applied" }
func (AgentWorktreeRemoveRequested) EventKind() string { return "agent.worktree_remove_requested" }
func (AgentWorktreeRemoveApplied) EventKind() string   { return "agent.worktree_remove_applied" }
func (LoopRunSpawnRequested) EventKind() string        { return "loop_run.spawn_requested" }
func (LoopRunSpawnApplied) EventKind() string          { return "loop_run.spawn_applied" }
func (LoopRunSignalRequested) EventKind() string       { return "loop_run.signal_requested" }
func (LoopRunSignalApplied) EventKind() string         { return "loop_run.signal_applied" }
