package worktree

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/orcr-go/orcr/actors/worktree/worktreetest"
)

// Against the real git: open a repository from a subdirectory, add a worktree on a
// new branch, refuse to remove it while it holds an untracked file, remove it once
// clean, and prune the record of one whose directory vanished.
func TestGitRoundTrip(t *testing.T) {
	ctx := context.Background()
	src := worktreetest.NewRepo(t)
	sub := filepath.Join(src, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	repo, err := Open(ctx, sub)
	if err != nil || repo.Dir != filepath.Join(src, ".git") {
		t.Fatalf("Open(%s): got %+v, %v; want %s/.git", sub, repo, err, src)
	}
	if _, err := Open(ctx, t.TempDir()); !errors.Is(err, ErrNotRepo) {
		t.Errorf("Open outside a repository: got %v, want ErrNotRepo", err)
	}
	if err := CheckBranch(ctx, src, "a..b"); err == nil {
		t.Errorf("CheckBranch(a..b): got nil, want an error")
	}
	if err := CheckBranch(ctx, src, "-x"); err == nil {
		t.Errorf("CheckBranch(-x): got nil, want an error")
	}
	head, err := Head(ctx, sub)
	if err != nil {
		t.Fatal(err)
	}
	wt := filepath.Join(t.TempDir(), "worktree")
	if err := repo.Add(ctx, Plan{Path: wt, Create: true, NewBranch: true}, "orcr/t", head); err != nil {
		t.Fatal(err)
	}
	es, err := repo.List(ctx)
	if err != nil || len(es) != 2 || es[1].Branch != "orcr/t" {
		t.Fatalf("List after Add: %+v, %v", es, err)
	}
	if ok, err := repo.BranchExists(ctx, "orcr/t"); !ok || err != nil {
		t.Errorf("BranchExists(orcr/t): %v, %v", ok, err)
	}
	if ok, err := repo.BranchExists(ctx, "nope"); ok || err != nil {
		t.Errorf("BranchExists(nope): %v, %v", ok, err)
	}
	if err := os.WriteFile(filepath.Join(wt, "notes.txt"), []byte("wip"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := repo.Remove(ctx, wt); out != Dirty || err == nil {
		t.Errorf("Remove of a dirty worktree: got %s, %v; want dirty and git's refusal", out, err)
	}
	if _, err := os.Stat(filepath.Join(wt, "notes.txt")); err != nil {
		t.Fatalf("the uncommitted file is gone: %v", err)
	}
	os.Remove(filepath.Join(wt, "notes.txt"))
	if out, err := repo.Remove(ctx, wt); out != Removed || err != nil {
		t.Errorf("Remove of a clean worktree: got %s, %v", out, err)
	}
	// Re-add on the existing branch, then lose the directory: Remove prunes the record.
	if err := repo.Add(ctx, Plan{Path: wt, Create: true}, "orcr/t", ""); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(wt)
	if out, err := repo.Remove(ctx, wt); out != Removed || err != nil {
		t.Errorf("Remove of a vanished worktree: got %s, %v", out, err)
	}
	if es, _ := repo.List(ctx); len(es) != 1 {
		t.Errorf("List after pruning: %+v, want the main worktree only", es)
	}
}
