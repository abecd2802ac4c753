package actors

import (
	"context"
	"errors"
	"os"
	"path/filepath"

	"github.com/orcr-go/orcr/actors/worktree"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/store"
)

// An agent's git worktree (docs/lifecycle.md §8.4): agent.run checks the repository and
// plans the worktree (nothing is made, so a refusal changes nothing); the spawn pipeline
// makes it under an intent before the pane is created and runs the agent there; once
// the row has ended, the agent actor removes it under an intent — after every op whose
// row ended, so every way a row ends (kill, reap, timeout, completion, failure, lost)
// ends in the same place — unless it is kept. git itself refuses to remove a worktree
// with changes, which is then kept and said so (state dirty), never forced.

// planWorktree is agent.run's worktree check: the repository cwd is in, the branch,
// and where the agent will run (worktree.Decide). nil when the request asks for none.
func (s *System) planWorktree(ctx context.Context, r api.RunRequest, path, uid string) (*store.Worktree, error) {
	if !r.Worktree && r.WorktreeBranch == "" {
		if r.KeepWorktree {
			return nil, wire.Invalid(wire.ReasonKeepWithoutWorktree, "keep_worktree needs worktree")
		}
		return nil, nil
	}
	if !filepath.IsAbs(r.Cwd) {
		return nil, wire.Invalid(wire.ReasonNotAGitRepository, "a worktree needs an absolute cwd inside a git repository", "cwd", r.Cwd)
	}
	repo, err := worktree.Open(ctx, r.Cwd)
	if err != nil {
		return nil, gitErr(err, r.Cwd)
	}
	branch := r.WorktreeBranch
	if branch == "" {
		branch = worktree.DefaultBranch(path)
	}
	if err := worktree.CheckBranch(ctx, r.Cwd, branch); err != nil {
		return nil, wire.Invalid(wire.ReasonInvalidBranch, err.Error(), "branch", branch)
	}
	base, err := worktree.Head(ctx, r.Cwd)
	if err != nil {
		return nil, wire.Invalid(wire.ReasonNoCommits, "the repository at "+r.Cwd+" has no commit to start a worktree from", "cwd", r.Cwd)
	}
	wt := &store.Worktree{Branch: branch, Repo: repo.Dir, Base: base, Keep: r.KeepWorktree}
	plan, err := decideWorktree(ctx, s.cfg.DB, s.cfg.Home, repo, *wt, uid, ownWorktree(s.cfg.Home, path, uid))
	if err != nil {
		return nil, err
	}
	wt.Path = plan.Path
	return wt, nil
}

// realHome is home with symlinks resolved: git records a worktree's real path, and
// the paths orcr compares with git's must be spelt the same way.
func realHome(home string) string {
	if r, err := filepath.EvalSymlinks(home); err == nil {
		return r
	}
	return home
}

// dataRoot is <home>/data: worktrees below it are orcr's.
func dataRoot(home string) string { return filepath.Join(realHome(home), "data") }

// ownWorktree is where an agent's own worktree is made: <data dir>/worktree.
func ownWorktree(home, path, uid string) string {
	return filepath.Join(AgentDataDir(realHome(home), path, uid), worktree.Dir)
}

// decideWorktree reads what git and the store know and decides with worktree.Decide;
// Decide's refusals become protocol errors.
func decideWorktree(ctx context.Context, db *store.DB, home string, repo worktree.Repo, wt store.Worktree, uid, own string) (worktree.Plan, error) {
	entries, err := repo.List(ctx)
	if err != nil {
		return worktree.Plan{}, gitErr(err, repo.Dir)
	}
	exists, err := repo.BranchExists(ctx, wt.Branch)
	if err != nil {
		return worktree.Plan{}, gitErr(err, repo.Dir)
	}
	rows, err := store.WorktreeHolders(ctx, db.Reader(), repo.Dir, uid)
	if err != nil {
		return worktree.Plan{}, err
	}
	holders := make([]worktree.Holder, len(rows))
	for i, h := range rows {
		holders[i] = worktree.Holder{UUID: h.UUID, Path: h.Path, Worktree: h.Worktree, Branch: h.Branch}
	}
	plan, err := worktree.Decide(worktree.Input{Branch: wt.Branch, Own: own, DataRoot: dataRoot(home),
		Entries: entries, BranchExists: exists, Holders: holders})
	var inUse *worktree.InUseError
	var out *worktree.CheckedOutError
	switch {
	case errors.As(err, &inUse):
		return plan, wire.Conflict(err.Error(), "reason", wire.ReasonWorktreeInUse, "branch", wt.Branch,
			"worktree", inUse.Holder.Worktree, "occupant", map[string]any{"uuid": inUse.Holder.UUID, "path": inUse.Holder.Path})
	case errors.As(err, &out):
		return plan, wire.Conflict(err.Error(), "reason", wire.ReasonBranchCheckedOut, "branch", wt.Branch, "worktree", out.Path)
	}
	return plan, err
}

// gitErr maps a failure to run git: no binary is environment_error git_missing, a dir
// outside any repository invalid_request not_a_git_repository, anything else
// environment_error git_error.
func gitErr(err error, dir string) error {
	switch {
	case errors.Is(err, worktree.ErrGitMissing):
		return wire.Env(wire.CauseGitMissing, "no git binary on PATH; --worktree needs git")
	case errors.Is(err, worktree.ErrNotRepo):
		return wire.Invalid(wire.ReasonNotAGitRepository, dir+" is not inside a git repository", "cwd", dir)
	}
	return wire.Env(wire.CauseGitError, err.Error(), "dir", dir)
}

// worktreeInUse maps the insert's refusal (another run took the branch meanwhile).
func worktreeInUse(e *store.WorktreeInUseError) error {
	o := e.Occupant
	wt := ""
	if o.Worktree != nil {
		wt = o.Worktree.Path
	}
	return wire.Conflict(e.Error(), "reason", wire.ReasonWorktreeInUse, "branch", e.Branch, "worktree", wt,
		"occupant", map[string]any{"uuid": o.UUID, "path": o.Path})
}

// makeWorktree is the spawn pipeline's worktree step (docs/lifecycle.md §8.1 step 4):
// it returns the cwd the pane runs in ("" for an agent without a worktree). The plan is
// decided again (git may have changed since agent.run), then, under an
// agent.worktree_add_requested intent written with the proof that the row is still
// starting, the worktree is made (or an earlier one reused) and the row records it
// ready. A worktree already ready (a spawn that recovery put back in the queue) is used
// as it is.
func (w *agentWork) makeWorktree() (string, error) {
	wt := w.st.Worktree
	switch wt.State {
	case "":
		return "", nil
	case store.WorktreeReady:
		if _, err := os.Stat(wt.Path); err == nil {
			return wt.Path, nil
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*worktree.Timeout)
	defer cancel()
	repo := worktree.Repo{Dir: wt.Repo}
	plan, err := decideWorktree(ctx, w.env.DB, w.env.Home, repo, wt, w.uuid, ownWorktree(w.env.Home, w.st.Path, w.uuid))
	if err != nil {
		return "", err
	}
	v, err := w.write(func(tx *store.Tx) (any, error) {
		if err := tx.CheckStarting(w.uuid); err != nil {
			return nil, err
		}
		if err := tx.SetWorktree(w.uuid, plan.Path, store.WorktreeCreating); err != nil {
			return nil, err
		}
		id, _, err := tx.Intent(w.uuid, &api.AgentWorktreeAddRequested{
			Worktree: plan.Path, Branch: wt.Branch, Repo: wt.Repo, Create: plan.Create,
			NewBranch: plan.NewBranch, Base: wt.Base})
		return id, err
	})
	if err != nil {
		return "", err
	}
	opID := v.(string)
	var aerr error
	if plan.Create {
		// Not under the op's context: a cancel must not kill git half-way; the add is
		// short and bounded, and a row that ended meanwhile has it removed again.
		aerr = repo.Add(ctx, plan, wt.Branch, wt.Base)
	}
	state := store.WorktreeReady
	if aerr != nil {
		state = store.WorktreePending
		w.log().Warn("worktree: git worktree add failed", "worktree", plan.Path, "branch", wt.Branch, "err", aerr)
	}
	err = w.apply(func(tx *store.Tx) error {
		if err := tx.SetWorktree(w.uuid, plan.Path, state); err != nil {
			return err
		}
		_, err := tx.Applied(opID, aerr == nil, errText(aerr), &api.AgentWorktreeAddApplied{Worktree: plan.Path, Branch: wt.Branch,
			Reused: new(!plan.Create)})
		return err
	})
	if aerr != nil {
		return "", wire.Env(wire.CauseGitError, aerr.Error(), "worktree", plan.Path, "branch", wt.Branch)
	}
	return plan.Path, err
}

// releaseWorktree runs after every op whose row ended: a worktree still ready is
// removed under an agent.worktree_remove_requested intent, or kept (keep_worktree, set
// by the end itself; or made ready after the end by a spawn cut off mid-add). git's
// refusal of a worktree with uncommitted changes or untracked files keeps it: state
// dirty, a warning in the server log, ok: false in the applied event.
func (w *agentWork) releaseWorktree() {
	wt := w.st.Worktree
	if !w.isEnded() || wt.State != store.WorktreeReady {
		return
	}
	if wt.Keep {
		w.logErr("keep worktree", w.apply(func(tx *store.Tx) error { return tx.SetWorktree(w.uuid, wt.Path, store.WorktreeKept) }))
		return
	}
	v, err := w.write(func(tx *store.Tx) (any, error) {
		if err := tx.SetWorktree(w.uuid, wt.Path, store.WorktreeRemoving); err != nil {
			return nil, err
		}
		id, _, err := tx.Intent(w.uuid, &api.AgentWorktreeRemoveRequested{
			Worktree: wt.Path, Branch: wt.Branch, Repo: wt.Repo})
		return id, err
	})
	if err != nil {
		w.logErr("worktree remove intent", err)
		return
	}
	w.removeWorktree(v.(string), wt.Path, wt.Repo, false)
}

// removeWorktree runs `git worktree remove` (no force) and commits the removal intent
// opID with the outcome, which becomes the row's worktree state.
func (w *agentWork) removeWorktree(opID, path, repoDir string, repaired bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*worktree.Timeout)
	defer cancel()
	out, rerr := worktree.Repo{Dir: repoDir}.Remove(ctx, path)
	switch out {
	case worktree.Removed:
		w.log().Info("worktree removed", "worktree", path)
	case worktree.Dirty:
		w.log().Warn("worktree kept: it has uncommitted changes or untracked files", "worktree", path, "err", rerr)
	default:
		w.log().Warn("worktree kept: git did not remove it", "worktree", path, "err", rerr)
	}
	result := &api.AgentWorktreeRemoveApplied{Worktree: path, State: string(out)}
	result.Repaired = repaired
	w.logErr("worktree remove applied", w.apply(func(tx *store.Tx) error {
		if err := tx.SetWorktree(w.uuid, path, string(out)); err != nil {
			return err
		}
		_, err := tx.Applied(opID, out == worktree.Removed, errText(rerr), result)
		return err
	}))
}

// recoverWorktreeAdd settles an add a crash cut off: git's worktree list tells whether
// it was made. Made: the row records it ready (a starting row is re-queued by recover,
// and its next spawn runs there; an ended row has it removed after this op). Not made:
// back to pending (unused for an ended row). git that cannot be asked leaves the intent
// open for the next restart.
func (w *agentWork) recoverWorktreeAdd(opID string, p intentParams) {
	ctx, cancel := context.WithTimeout(context.Background(), worktree.Timeout)
	defer cancel()
	entries, err := worktree.Repo{Dir: p.Repo}.List(ctx)
	if err != nil {
		w.log().Warn("recovery: git cannot list the worktrees; the add stays open", "err", err)
		return
	}
	made := false
	for _, e := range entries {
		made = made || (!e.Prunable && e.Path == filepath.Clean(p.Worktree) && e.Branch == p.Branch)
	}
	state := store.WorktreeReady
	if !made {
		state = store.WorktreePending
		if w.isEnded() {
			state = store.WorktreeUnused
		}
	}
	w.logErr("worktree add recovered", w.apply(func(tx *store.Tx) error {
		if err := tx.SetWorktree(w.uuid, p.Worktree, state); err != nil {
			return err
		}
		errText := ""
		if !made {
			errText = "no worktree was made before the server stopped"
		}
		_, err := tx.Applied(opID, made, errText, &api.AgentWorktreeAddApplied{AppliedHead: api.AppliedHead{Repaired: true},
			Worktree: p.Worktree, Branch: p.Branch})
		return err
	}))
}
