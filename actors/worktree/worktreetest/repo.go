// Package worktreetest makes throwaway git repositories for tests of `agent run
// --worktree` (docs/lifecycle.md §8.4), with the real git.
package worktreetest

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// NewRepo makes a repository with one empty commit on branch main in a temporary
// directory (removed at cleanup) and returns its path, symlinks resolved (git records
// real paths).
func NewRepo(tb testing.TB) string {
	tb.Helper()
	dir, err := filepath.EvalSymlinks(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	Git(tb, dir, "init", "-q", "-b", "main")
	Git(tb, dir, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "init")
	return dir
}

// Git runs `git -C dir args…` and returns its output; a failure fails the test.
func Git(tb testing.TB, dir string, args ...string) string {
	tb.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		tb.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}
