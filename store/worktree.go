package store

import (
	"context"
	"database/sql"
	"errors"
)

// Worktree is an agent's git worktree as its row records it (docs/config.md §3.3,
// docs/lifecycle.md §8.4). State "" means the agent has none.
type Worktree struct {
	State  string
	Path   string // the worktree's directory (planned while pending)
	Branch string
	Repo   string // the repository's common git dir
	Base   string // the commit a new branch starts from
	Keep   bool   // keep it when the agent ends
}

// Worktree states.
const (
	WorktreePending  = "pending"  // planned; the row is queued
	WorktreeCreating = "creating" // agent.worktree_add_requested is open
	WorktreeReady    = "ready"    // made (or reused); the agent runs there
	WorktreeRemoving = "removing" // agent.worktree_remove_requested is open
	WorktreeRemoved  = "removed"  // removed when the agent ended
	WorktreeKept     = "kept"     // kept when the agent ended (keep_worktree)
	WorktreeDirty    = "dirty"    // kept: it had uncommitted changes
	WorktreeFailed   = "failed"   // kept: git refused the removal for another reason
	WorktreeUnused   = "unused"   // the agent ended before it was made
)

// WorktreeSettled reports whether state is one an ended agent's worktree keeps for good:
// removed, kept, dirty, failed or unused.
func WorktreeSettled(state string) bool {
	switch state {
	case WorktreeRemoved, WorktreeKept, WorktreeDirty, WorktreeFailed, WorktreeUnused:
		return true
	}
	return false
}

// holdsWorktree is the SQL condition of a row that holds its worktree (and branch):
// planned for a live row, being made, in use, or made and not yet removed or kept.
const holdsWorktree = `(a.worktree_state IN ('creating','ready','removing') OR (a.worktree_state = 'pending' AND a.status != 'ended'))`

// WorktreeInUseError is agent.run's refusal when another agent holds the branch or
// the worktree (state_conflict worktree_in_use).
type WorktreeInUseError struct {
	Branch   string
	Occupant AgentRow
}

func (e *WorktreeInUseError) Error() string {
	return "branch `" + e.Branch + "` is in use by agent " + e.Occupant.Path
}

// checkWorktreeFree refuses wt when another row holds its branch or its path in the
// same repository: inside agent.run's insert, so two runs cannot both take a branch.
func (t *Tx) checkWorktreeFree(wt Worktree) error {
	var occ string
	err := t.QueryRow(`SELECT a.uuid FROM agents a WHERE a.worktree_repo = ? AND (a.worktree_branch = ? OR a.worktree_path = ?)
		AND `+holdsWorktree+` LIMIT 1`, wt.Repo, wt.Branch, wt.Path).Scan(&occ)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil
	case err != nil:
		return sqliteErr("read worktree holder", err)
	}
	row, err := AgentByUUID(t.ctx, t, occ)
	if err != nil {
		return err
	}
	return &WorktreeInUseError{Branch: wt.Branch, Occupant: row}
}

// WorktreeHolder is a row holding a worktree of a repository.
type WorktreeHolder struct {
	UUID, Path, Worktree, Branch string
}

// WorktreeHolders lists the rows other than except that hold a worktree of repo.
func WorktreeHolders(ctx context.Context, q Querier, repo, except string) ([]WorktreeHolder, error) {
	return queryRows(ctx, q, `SELECT a.uuid, a.path, COALESCE(a.worktree_path, ''), COALESCE(a.worktree_branch, '')
		FROM agents a WHERE a.worktree_repo = ? AND a.uuid != ? AND `+holdsWorktree, []any{repo, except},
		func(s Scanner) (WorktreeHolder, error) {
			var h WorktreeHolder
			return h, s.Scan(&h.UUID, &h.Path, &h.Worktree, &h.Branch)
		})
}

// SetWorktree records the worktree's path and state on uuid's row (no event of its
// own: it is written with the worktree intent or applied event that embeds the row).
func (t *Tx) SetWorktree(uuid, path, state string) error {
	return t.execOne("set worktree", `UPDATE agents SET worktree_path = ?, worktree_state = ?, updated_at = ?
		WHERE uuid = ? AND worktree_state IS NOT NULL`, path, state, t.now, uuid)
}

// UnremovedWorktrees lists the ended rows whose worktree is still ready: a crash came
// between the end of the row and the removal's intent (restart recovery removes or
// keeps them).
func (db *DB) UnremovedWorktrees(ctx context.Context) ([]string, error) {
	return queryStrings(db.r, ctx, `SELECT uuid FROM agents WHERE status = 'ended' AND worktree_state = 'ready' ORDER BY created_at`)
}
