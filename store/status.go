package store

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/orcr-go/orcr/socketapi/api"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Status is an agent row's public status: the wire type api.Status, whose
// constants are repeated here for the store's own code (docs/lifecycle.md §5).
type Status = api.Status

// Agent statuses.
const (
	StatusQueued   = api.StatusQueued
	StatusStarting = api.StatusStarting
	StatusWorking  = api.StatusWorking
	StatusIdle     = api.StatusIdle
	StatusBlocked  = api.StatusBlocked
	StatusParked   = api.StatusParked
	StatusLost     = api.StatusLost
	StatusEnded    = api.StatusEnded
)

// Set is a named set of statuses: one meaning, one set, used by the Go checks (Has)
// and the SQL that selects by it (SQL), so a transition's statuses are written once.
type Set[T ~string] []T

// Has reports whether s holds x.
func (s Set[T]) Has(x T) bool { return slices.Contains(s, x) }

// SQL is the set as the body of an SQL IN list: 'a','b'. The values are the package's
// own constants, never input.
func (s Set[T]) SQL() string {
	q := make([]string, len(s))
	for i, v := range s {
		q[i] = "'" + string(v) + "'"
	}
	return strings.Join(q, ",")
}

// StatusSet is a named set of agent statuses.
type StatusSet = Set[Status]

// The status sets of docs/lifecycle.md §5's transitions, one per meaning.
var (
	// LiveStatuses are the managed statuses that may hold a pane.
	LiveStatuses = StatusSet{StatusStarting, StatusWorking, StatusIdle, StatusBlocked, StatusParked, StatusLost}
	// PaneStatuses are the statuses of a running provider whose pane herdr reports on:
	// the only ones the turn rule decides on.
	PaneStatuses = StatusSet{StatusWorking, StatusIdle, StatusBlocked, StatusParked}
	// InputStatuses are the statuses a prompt may be delivered in.
	InputStatuses = StatusSet{StatusStarting, StatusWorking, StatusIdle, StatusBlocked}
	// SlotStatuses are the statuses of a managed agent that counts against its
	// provider's and the global concurrency limit: started and not gone.
	SlotStatuses = StatusSet{StatusStarting, StatusWorking, StatusIdle, StatusBlocked, StatusParked}
	// GoneStatuses are the statuses of an agent that can no longer take input
	// (api.Status.Gone): no deadline, no delivery.
	GoneStatuses = StatusSet{StatusEnded, StatusLost}
	// TurnStatuses are the statuses an open turn completes in; a gc-immediate agent ends
	// completed from them once its response is captured (docs/lifecycle.md M12).
	TurnStatuses = StatusSet{StatusWorking, StatusIdle, StatusBlocked}
	// BlockableStatuses are the statuses a blocked report moves to blocked.
	BlockableStatuses = StatusSet{StatusWorking, StatusIdle, StatusParked}
	// BusyStatuses are the statuses whose idle streak the restart re-arm clears
	// (docs/lifecycle.md §10.5): completion must see a fresh one.
	BusyStatuses = StatusSet{StatusWorking, StatusBlocked}
	// SettledStatuses are the statuses of a waited-on agent whose pane agent.wait checks
	// is still there (a pane gone there would otherwise never settle the wait).
	SettledStatuses = StatusSet{StatusIdle, StatusBlocked, StatusParked}
	// WakeStatuses are the statuses a remote prompt with wake is delivered in.
	WakeStatuses = StatusSet{StatusIdle, StatusParked, StatusWorking}
	// UnansweredStatuses are the statuses of an agent whose turn is still under way, so
	// it has no final response yet.
	UnansweredStatuses = StatusSet{StatusQueued, StatusStarting, StatusWorking, StatusBlocked}
	// InboxStatuses are the statuses in which the agent actor queues a drain of its
	// inbox; in any other the text waits.
	InboxStatuses = StatusSet{StatusWorking, StatusIdle, StatusParked, StatusEnded}
	// InboxWakeStatuses are the statuses a change into which drains a waiting inbox.
	InboxWakeStatuses = StatusSet{StatusWorking, StatusIdle}
)

// Loop and run status sets.
var (
	// LoopLiveStatuses are a loop's statuses before it ended: its name is taken.
	LoopLiveStatuses = Set[string]{LoopActive, LoopPaused}
	// RunLiveStatuses are a run's statuses while its command may be running.
	RunLiveStatuses = Set[string]{RunRunning, RunStopping}
)

// ExitReason is why an ended row ended (docs/lifecycle.md §5).
type ExitReason string

// Exit reasons.
const (
	ExitCompleted ExitReason = "completed"
	ExitKilled    ExitReason = "killed"
	ExitCanceled  ExitReason = "canceled"
	ExitFailed    ExitReason = "failed"
	ExitTimeout   ExitReason = "timeout"
	ExitReaped    ExitReason = "reaped"
	ExitLost      ExitReason = "lost"
)

// GCMode is an agent's garbage-collection mode (docs/lifecycle.md §12).
type GCMode string

// GC modes.
const (
	GCAuto      GCMode = "auto"
	GCImmediate GCMode = "immediate"
	GCNever     GCMode = "never"
)

// MoveState is the pane-move lease of a row (docs/lifecycle.md §12.3).
type MoveState string

// Move states.
const (
	MoveNone      MoveState = "none"
	MoveParking   MoveState = "parking"
	MoveUnparking MoveState = "unparking"
)

// ErrStale is returned by an operation whose compare-and-set found the row in another
// state than it expected: somebody else changed it meanwhile.
var ErrStale = errors.New("store: agent row changed meanwhile")

// PathInUseError is returned by [Tx.Enqueue] when a non-ended row already holds the
// path. Occupant is that row when it could be read.
type PathInUseError struct {
	Path     string
	Occupant *AgentRow
}

func (e *PathInUseError) Error() string {
	if e.Occupant != nil {
		return fmt.Sprintf("path %s is in use by %s (%s)", e.Path, e.Occupant.UUID, e.Occupant.Status)
	}
	return "path " + e.Path + " is in use"
}

// GoneError is returned by operations that need a running agent when the row is ended
// or lost.
type GoneError struct {
	UUID, Path string
	Status     Status
}

func (e *GoneError) Error() string { return "agent " + e.Path + " is " + string(e.Status) }

// isUniqueViolation reports whether err is SQLite's UNIQUE constraint failure.
func isUniqueViolation(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE
}
