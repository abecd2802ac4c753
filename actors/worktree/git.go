// Package worktree runs git for `agent run --worktree` (docs/lifecycle.md §8.4): it
// finds the repository a directory belongs to, lists its worktrees, adds and removes
// them — each a real `git` subprocess bounded by [Timeout] — and decides, as a pure
// function of what git lists and which live agents hold which branch, where an agent
// runs ([Decide]).
package worktree

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Timeout bounds one git subprocess.
const Timeout = 30 * time.Second

// ErrGitMissing is returned when no git binary is found on PATH.
var ErrGitMissing = errors.New("worktree: no git binary on PATH")

// ErrNotRepo is returned by [Open] for a directory outside any git repository.
var ErrNotRepo = errors.New("worktree: not inside a git repository")

// GitError is a git command that failed: its arguments, exit status and what it wrote
// on stderr (trimmed).
type GitError struct {
	Args   []string
	Stderr string
	Err    error
}

func (e *GitError) Error() string {
	msg := e.Stderr
	if msg == "" {
		msg = e.Err.Error()
	}
	return "git " + strings.Join(e.Args, " ") + ": " + msg
}

func (e *GitError) Unwrap() error { return e.Err }

// git runs `git -C dir args…` with a bounded time and a clean environment: the
// server's own GIT_* variables (a server auto-started from inside a hook has GIT_DIR)
// would point git at another repository; prompts are off and messages untranslated.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	bin, err := exec.LookPath("git")
	if err != nil {
		return "", ErrGitMissing
	}
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{"-C", dir}, args...)...)
	cmd.Env = gitEnv(os.Environ())
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("%w after %s", ctx.Err(), Timeout)
		}
		return out.String(), &GitError{Args: args, Stderr: strings.TrimSpace(errb.String()), Err: err}
	}
	return out.String(), nil
}

func gitEnv(environ []string) []string {
	env := make([]string, 0, len(environ)+3)
	for _, kv := range environ {
		if !strings.HasPrefix(kv, "GIT_") && !strings.HasPrefix(kv, "LC_ALL=") {
			env = append(env, kv)
		}
	}
	return append(env, "GIT_TERMINAL_PROMPT=0", "LC_ALL=C", "GIT_OPTIONAL_LOCKS=0")
}

// Repo is a git repository, named by its common git directory (shared by all its
// worktrees), so every worktree of one repository names the same Repo.
type Repo struct {
	// Dir is the absolute common git directory (e.g. /src/app/.git); git runs there.
	Dir string
}

// Open finds the repository dir belongs to. A dir outside any repository (or one that
// does not exist) is [ErrNotRepo] wrapped with git's message.
func Open(ctx context.Context, dir string) (Repo, error) {
	out, err := git(ctx, dir, "rev-parse", "--path-format=absolute", "--git-common-dir")
	if errors.Is(err, ErrGitMissing) {
		return Repo{}, err
	}
	if err != nil {
		return Repo{}, fmt.Errorf("%w: %v", ErrNotRepo, err)
	}
	return Repo{Dir: filepath.Clean(strings.TrimSpace(out))}, nil
}

// Head returns the commit dir has checked out (the base of a new branch); an error
// for a repository without commits.
func Head(ctx context.Context, dir string) (string, error) {
	out, err := git(ctx, dir, "rev-parse", "--verify", "-q", "HEAD^{commit}")
	return strings.TrimSpace(out), err
}

// Entry is one worktree as `git worktree list --porcelain` lists it.
type Entry struct {
	Path string
	// Branch is the short branch name checked out ("" when detached or bare).
	Branch string
	// Prunable: git's record of a worktree whose directory is gone.
	Prunable bool
}

// List lists the repository's worktrees (the main one first).
func (r Repo) List(ctx context.Context) ([]Entry, error) {
	out, err := git(ctx, r.Dir, "worktree", "list", "--porcelain")
	if err != nil {
		return nil, err
	}
	return parseList(out), nil
}

// parseList reads `git worktree list --porcelain`: blank-line separated records of
// "worktree <path>", "branch refs/heads/<name>", "prunable …" lines and others.
func parseList(out string) []Entry {
	var es []Entry
	for _, rec := range strings.Split(out, "\n\n") {
		var e Entry
		for _, line := range strings.Split(rec, "\n") {
			key, val, _ := strings.Cut(line, " ")
			switch key {
			case "worktree":
				e.Path = filepath.Clean(val)
			case "branch":
				e.Branch = strings.TrimPrefix(val, "refs/heads/")
			case "prunable":
				e.Prunable = true
			}
		}
		if e.Path != "" {
			es = append(es, e)
		}
	}
	return es
}

// BranchExists reports whether refs/heads/<branch> exists.
func (r Repo) BranchExists(ctx context.Context, branch string) (bool, error) {
	_, err := git(ctx, r.Dir, "show-ref", "--verify", "-q", "refs/heads/"+branch)
	var ge *GitError
	if errors.As(err, &ge) {
		var ee *exec.ExitError
		if errors.As(ge.Err, &ee) && ee.ExitCode() == 1 {
			return false, nil
		}
	}
	return err == nil, err
}

// CheckBranch reports whether name is a valid branch name, as git itself decides
// (`git check-ref-format --branch`); a name starting with "-" is refused before git
// sees it.
func CheckBranch(ctx context.Context, dir, name string) error {
	if name == "" || strings.HasPrefix(name, "-") {
		return fmt.Errorf("%q is not a valid branch name", name)
	}
	if _, err := git(ctx, dir, "check-ref-format", "--branch", name); err != nil {
		var ge *GitError
		if errors.As(err, &ge) && ge.Stderr != "" {
			return errors.New(strings.TrimPrefix(ge.Stderr, "fatal: "))
		}
		return err
	}
	return nil
}

// Add creates the worktree p plans: a new branch from base when p.NewBranch, else the
// existing branch checked out at p.Path. git's records of worktrees whose directory is
// gone are pruned first (they would make git refuse the branch).
func (r Repo) Add(ctx context.Context, p Plan, branch, base string) error {
	if _, err := git(ctx, r.Dir, "worktree", "prune"); err != nil {
		return err
	}
	args := []string{"worktree", "add", "--quiet"}
	if p.NewBranch {
		args = append(args, "-b", branch, "--", p.Path, base)
	} else {
		args = append(args, "--", p.Path, branch)
	}
	_, err := git(ctx, r.Dir, args...)
	return err
}

// Outcome is what [Repo.Remove] did.
type Outcome string

// Removal outcomes; they are also the worktree states a row ends in
// (docs/config.md §3.3).
const (
	Removed Outcome = "removed" // gone (or it was already gone)
	Dirty   Outcome = "dirty"   // kept: it has uncommitted changes or untracked files
	Failed  Outcome = "failed"  // kept: git refused for another reason (locked, …)
)

// Remove removes the worktree at path without force: git refuses a worktree with
// uncommitted changes or untracked files, which is then kept (Dirty), never lost. A
// directory that is already gone only has git's record of it pruned.
func (r Repo) Remove(ctx context.Context, path string) (Outcome, error) {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		_, err := git(ctx, r.Dir, "worktree", "prune")
		if err != nil {
			return Failed, err
		}
		return Removed, nil
	}
	_, err := git(ctx, r.Dir, "worktree", "remove", "--", path)
	if err == nil {
		return Removed, nil
	}
	if errors.Is(err, ErrGitMissing) {
		return Failed, err
	}
	if st, serr := git(ctx, path, "status", "--porcelain", "--untracked-files=normal"); serr == nil && strings.TrimSpace(st) != "" {
		return Dirty, err
	}
	return Failed, err
}
