package store

import (
	"errors"
	"fmt"
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

// Status sets used by several operations.
var (
	// LiveStatuses are the managed statuses that may hold a pane.
	LiveStatuses = []Status{StatusStarting, StatusWorking, StatusIdle, StatusBlocked, StatusParked, StatusLost}
	// PaneStatuses are the statuses of a running provider whose pane herdr reports on.
	PaneStatuses = []Status{StatusWorking, StatusIdle, StatusBlocked, StatusParked}
	// InputStatuses are the statuses a prompt may be delivered in.
	InputStatuses = []Status{StatusStarting, StatusWorking, StatusIdle, StatusBlocked}
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
