package agentpath

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/store"
)

// CallerContext is the calling context derived from a request's caller_id / caller_path
// (docs/protocol.md §4.1; empty means absent). The server trusts both values: ID is never
// checked against the agents table, so a stale or foreign id still becomes the parent.
//
// Run tells the run-vs-agent decision: true when ID is the uuid of a loop run (a row in
// loop_runs). [ResolveCaller] fills it; a literal CallerContext{ID, Path} is an agent
// caller (or a root caller when both are empty).
type CallerContext struct {
	ID   string // caller_id: an agent uuid or a loop-run uuid; "" = absent
	Path string // caller_path: absolute, no leading "/"; "" = absent
	Run  bool   // ID names a loop run
}

// Caller is the name the resolution functions use for a [CallerContext].
type Caller = CallerContext

// Scope returns the scope relative paths and selectors are joined under, and whether
// there is one:
//   - a loop-run caller: the whole Path (a run is a directory);
//   - any other caller: Path minus its last segment (an agent is a file), so no scope
//     when Path has a single segment;
//   - no Path: no scope (relative = absolute).
func (c CallerContext) Scope() (scope string, hasScope bool) {
	if c.Path == "" {
		return "", false
	}
	if c.Run {
		return c.Path, true
	}
	i := strings.LastIndexByte(c.Path, '/')
	if i <= 0 {
		return "", false
	}
	return c.Path[:i], true
}

// scope is [CallerContext.Scope] without the flag ("" = none).
func (c CallerContext) scope() string {
	s, _ := c.Scope()
	return s
}

// Parent returns the lineage recorded on agents the caller creates: parent_id = caller_id
// and parent_path = caller_path, for agent and loop-run callers alike; both empty for a
// root caller.
func (c CallerContext) Parent() (id, path string) { return c.ID, c.Path }

// ResolveCaller builds the caller context for callerID / callerPath, looking callerID up
// in loop_runs to decide whether the caller is a loop run. Only the run-vs-agent decision
// reads the store; an unknown callerID is an agent caller. Store failures are
// server_error cause sqlite.
func ResolveCaller(ctx context.Context, q store.Querier, callerID, callerPath string) (Caller, error) {
	c := Caller{ID: callerID, Path: callerPath}
	if callerID == "" {
		return c, nil
	}
	var one int
	err := q.QueryRowContext(ctx, `SELECT 1 FROM loop_runs WHERE uuid = ?`, callerID).Scan(&one)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return c, nil
	case err != nil:
		return c, sqlErr("look up caller run", err)
	}
	c.Run = true
	return c, nil
}

// sqlErr wraps a query failure like the store does: server_error cause sqlite.
func sqlErr(what string, err error) error {
	if err == nil {
		return nil
	}
	if _, ok := wire.As(err); ok {
		return err
	}
	return wire.Internal(wire.CauseSQLite, what+": "+err.Error()).Wrap(err)
}
