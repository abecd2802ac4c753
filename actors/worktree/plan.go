package worktree

import (
	"path/filepath"
	"strings"
)

// Dir is the name of an agent's worktree inside its data dir: <data dir>/worktree.
const Dir = "worktree"

// BranchPrefix starts every default branch name.
const BranchPrefix = "orcr/"

// DefaultBranch is the branch of `--worktree` given without a name: "orcr/" and the
// agent's path with its slashes turned into "-" (review/one → orcr/review-one). Path
// segments never hold "-" (docs/cli.md §3.1), so the mapping is one-to-one, and the
// flat name cannot collide with another default branch the way orcr/review and
// orcr/review/one would (git keeps refs as files and directories). A path reused after
// its agent ended gets the same branch, so a kept worktree is picked up again.
func DefaultBranch(agentPath string) string {
	return BranchPrefix + strings.ReplaceAll(strings.Trim(agentPath, "/"), "/", "-")
}

// Holder is another agent (not ended, or ended with its worktree still to remove)
// holding a worktree of the same repository.
type Holder struct {
	UUID, Path string // the agent
	Worktree   string // the worktree's path
	Branch     string
}

// Input is what [Decide] decides on.
type Input struct {
	Branch string
	// Own is the worktree a new one is created at: <agent data dir>/worktree.
	Own string
	// DataRoot is <home>/data: worktrees below it are orcr's, and may be reused.
	DataRoot string
	// Entries are the repository's worktrees as git lists them.
	Entries []Entry
	// BranchExists: refs/heads/<Branch> exists.
	BranchExists bool
	// Holders are the other agents holding worktrees of the repository.
	Holders []Holder
}

// Plan is where an agent runs.
type Plan struct {
	// Path is the worktree the agent runs in (its cwd).
	Path string
	// Create: `git worktree add` makes Path; otherwise an existing worktree is reused.
	Create bool
	// NewBranch: the branch does not exist yet and is created from the caller's HEAD.
	NewBranch bool
}

// InUseError: another agent holds the branch or the worktree (state_conflict
// worktree_in_use).
type InUseError struct{ Holder Holder }

func (e *InUseError) Error() string {
	return "branch `" + e.Holder.Branch + "` is in use by agent " + e.Holder.Path + " (worktree " + e.Holder.Worktree + ")"
}

// CheckedOutError: the branch is checked out in a worktree orcr did not make (the
// user's own checkout): orcr neither runs an agent there nor forces a second checkout
// (state_conflict branch_checked_out).
type CheckedOutError struct{ Branch, Path string }

func (e *CheckedOutError) Error() string {
	return "branch `" + e.Branch + "` is checked out at " + e.Path + ", outside orcr's data dir"
}

// Decide says where an agent with in.Branch runs (docs/lifecycle.md §8.4):
//
//  1. another agent holds the branch, or the worktree that has it → *InUseError;
//  2. a worktree has the branch checked out: below DataRoot (an earlier agent's, kept)
//     → reused; anywhere else → *CheckedOutError;
//  3. otherwise a worktree is created at Own, on the branch (created from the caller's
//     HEAD when it does not exist).
//
// git's records of vanished worktrees (prunable) count as absent: they are pruned
// before an add.
func Decide(in Input) (Plan, error) {
	for _, h := range in.Holders {
		if h.Branch == in.Branch {
			return Plan{}, &InUseError{Holder: h}
		}
	}
	for _, e := range in.Entries {
		if e.Prunable || e.Branch != in.Branch {
			continue
		}
		if !within(in.DataRoot, e.Path) {
			return Plan{}, &CheckedOutError{Branch: in.Branch, Path: e.Path}
		}
		for _, h := range in.Holders {
			if filepath.Clean(h.Worktree) == e.Path {
				return Plan{}, &InUseError{Holder: h}
			}
		}
		return Plan{Path: e.Path}, nil
	}
	return Plan{Path: in.Own, Create: true, NewBranch: !in.BranchExists}, nil
}

// within reports whether path lies strictly below root.
func within(root, path string) bool {
	rel, err := filepath.Rel(filepath.Clean(root), filepath.Clean(path))
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, "../") && !filepath.IsAbs(rel)
}
