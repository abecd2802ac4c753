-- Version 5: an agent started with `agent run --worktree` runs in a git worktree
-- (docs/lifecycle.md §8.4, docs/config.md §3.3). The row records the worktree it runs in
-- (its path, branch and repository: the common git dir), the commit a new branch starts
-- from, whether it is kept when the agent ends, and its state: pending (planned, the
-- row is queued), creating (the add's intent is open), ready, removing (the removal's
-- intent is open), and once the row has ended removed, kept, dirty (kept: it had
-- uncommitted changes), failed (kept: git refused otherwise) or unused (the row ended
-- before a worktree was made). NULL state: the agent has no worktree.
ALTER TABLE agents ADD COLUMN worktree_path TEXT;
ALTER TABLE agents ADD COLUMN worktree_branch TEXT;
ALTER TABLE agents ADD COLUMN worktree_repo TEXT;
ALTER TABLE agents ADD COLUMN worktree_base TEXT;
ALTER TABLE agents ADD COLUMN worktree_keep INTEGER NOT NULL DEFAULT 0;
ALTER TABLE agents ADD COLUMN worktree_state TEXT;
-- Who holds a branch of a repository (checked inside agent.run's insert), and the ended
-- rows whose worktree is still to remove (restart recovery).
CREATE INDEX IF NOT EXISTS agents_worktree ON agents(worktree_repo, worktree_branch) WHERE worktree_state IS NOT NULL;
