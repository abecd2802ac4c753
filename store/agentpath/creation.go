package agentpath

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/store"
)

// Creation computes the effective path of a new agent from the caller's scope ("" = none)
// and exactly one of name (--name) and path (--path), following the enforcement order of
// docs/cli.md §3.3 up to and including the reserved level-1 names:
//
//  1. neither → name_required; both → name_and_path;
//  2. every {rand} in the value is replaced by its own call of rnd (nil = [RandToken]);
//  3. a name containing "/" (a leading one included) → invalid_name; effective =
//     scope/name. A path with one leading "/" is absolute (scope ignored), otherwise
//     effective = scope/path;
//  4. [ValidatePath]: empty_path, path_too_long {path, len}, path_too_deep {path,
//     segments}, invalid_segment;
//  5. a first segment "idle" or "unmanaged" → reserved_name {name}.
//
// The loop namespace / run barrier and active-path uniqueness need the store and belong
// in the insert transaction: see [CheckLoopNamespace].
func Creation(scope, name, path string, rnd func() string) (effective string, err error) {
	switch {
	case name == "" && path == "":
		return "", wire.Invalid(wire.ReasonNameRequired, "one of name or path is required")
	case name != "" && path != "":
		return "", wire.Invalid(wire.ReasonNameAndPath, "name and path are mutually exclusive")
	}
	if name != "" {
		name = ExpandRand(name, rnd)
		if strings.Contains(name, "/") {
			return "", wire.Invalid(wire.ReasonInvalidName,
				fmt.Sprintf("name %q must be a single segment (no \"/\"); use path for nesting", name))
		}
		effective = Join(scope, name)
	} else {
		effective = Join(scope, ExpandRand(path, rnd))
	}
	if err := ValidatePath(effective); err != nil {
		return "", err
	}
	if first := FirstSegment(effective); IsReservedLevel1(first) {
		return "", reservedName(first, fmt.Sprintf("%q is a reserved top-level name", first))
	}
	return effective, nil
}

func reservedName(name, msg string) error {
	return wire.Invalid(wire.ReasonReservedName, msg, "name", name)
}

// CheckLoopNamespace enforces loop namespace protection (docs/lifecycle.md §2.5, docs/cli.md §3.3
// step 6) on a validated effective path. Call it inside the write transaction that
// inserts the agent, so no loop or run can change in between.
//
// When the first segment L names a loop whose status is active or paused, creation is
// allowed only if callerPath starts with "L/" and the effective path's second segment is
// a run of that loop (by run_id, or run uuid) whose status is running:
//   - caller outside the loop, no second segment, or not a run of L → invalid_request
//     reserved_name {name: L};
//   - the run exists but is not running → state_conflict {reason: run_stopping,
//     current_status}.
//
// A caller inside one run of L may create agents under another running run of L.
func CheckLoopNamespace(ctx context.Context, q store.Querier, effective string, callerPath string) error {
	loopName, rest, _ := strings.Cut(effective, "/")
	var loopUUID string
	err := q.QueryRowContext(ctx,
		`SELECT uuid FROM loops WHERE name = ? AND status IN (`+store.LoopLiveStatuses.SQL()+`) ORDER BY created_at DESC LIMIT 1`,
		loopName).Scan(&loopUUID)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil
	case err != nil:
		return sqlErr("look up loop", err)
	}
	if !strings.HasPrefix(callerPath, loopName+"/") {
		return reservedName(loopName, fmt.Sprintf("%q is the namespace of an active loop; only its runs may create agents there", loopName))
	}
	runSeg, _, _ := strings.Cut(rest, "/")
	if runSeg == "" {
		return reservedName(loopName, fmt.Sprintf("%q is the namespace of an active loop; agents must live under one of its runs", loopName))
	}
	var status string
	err = q.QueryRowContext(ctx,
		`SELECT status FROM loop_runs WHERE loop_uuid = ? AND (run_id = ? OR uuid = ?) ORDER BY created_at DESC LIMIT 1`,
		loopUUID, runSeg, runSeg).Scan(&status)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return reservedName(loopName, fmt.Sprintf("%q is not a run of loop %q", runSeg, loopName))
	case err != nil:
		return sqlErr("look up loop run", err)
	}
	if status != "running" {
		return wire.Conflict(fmt.Sprintf("run %s/%s is %s", loopName, runSeg, status),
			"reason", wire.ReasonRunStopping, "current_status", status)
	}
	return nil
}
