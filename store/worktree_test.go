package store_test

import (
	"errors"
	"testing"

	"github.com/orcr-go/orcr/store"
	"github.com/orcr-go/orcr/store/storetest"
)

// A planned worktree holds its branch from the insert: a second run on the branch is
// refused inside its own insert (WorktreeInUseError naming the occupant). The end of a
// queued row marks a worktree never made unused and frees the branch; a made one with
// keep is marked kept by the end itself, one without stays ready for the agent actor
// (and restart recovery) to remove.
func TestWorktreeHoldAndEnd(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	wt := store.Worktree{Path: "/h/data/a/u1/worktree", Branch: "orcr/a", Repo: "/src/.git", Base: "abc"}
	enqueue := func(path string, wt store.Worktree) (string, error) {
		id := storetest.NewUUID(t)
		res, _, err := db.Apply([]store.Op{func(tx *store.Tx) (any, error) {
			return tx.Enqueue(store.NewAgent{UUID: id, Path: path, Provider: "mock", GCMode: store.GCAuto, Worktree: wt})
		}})
		if err == nil {
			err = res[0].Err
		}
		return id, err
	}
	end := func(id string) {
		storetest.Write(t, db, func(tx *store.Tx) (any, error) {
			return nil, tx.EndAgent(id, []store.Status{store.StatusQueued}, store.ExitCanceled)
		})
	}
	first, err := enqueue("a", wt)
	if err != nil {
		t.Fatal(err)
	}
	if a := loadAgent(t, db, first); a.Worktree.State != store.WorktreePending || a.Worktree.Branch != "orcr/a" {
		t.Fatalf("enqueued worktree: %+v, want pending on orcr/a", a.Worktree)
	}
	row, err := store.AgentByUUID(t.Context(), db.Reader(), first)
	if err != nil || row.Worktree == nil || row.Worktree.Path != wt.Path || row.Worktree.State != "pending" {
		t.Fatalf("AgentRow.worktree: %+v, %v", row.Worktree, err)
	}
	other := wt
	other.Path = "/h/data/b/u2/worktree"
	var inUse *store.WorktreeInUseError
	if _, err := enqueue("b", other); !errors.As(err, &inUse) || inUse.Occupant.UUID != first {
		t.Fatalf("second run on the branch: %v, want WorktreeInUseError naming %s", err, first)
	}
	holders, err := store.WorktreeHolders(t.Context(), db.Reader(), wt.Repo, "")
	if err != nil || len(holders) != 1 || holders[0].UUID != first {
		t.Errorf("holders: %+v, %v", holders, err)
	}
	end(first)
	if a := loadAgent(t, db, first); a.Worktree.State != store.WorktreeUnused {
		t.Errorf("ended before it was made: state %q, want unused", a.Worktree.State)
	}

	// Made (ready) rows: the end keeps one with keep and leaves the other ready.
	for _, keep := range []bool{true, false} {
		w := other
		w.Keep = keep
		id, err := enqueue("b", w)
		if err != nil {
			t.Fatalf("run after the holder ended: %v", err)
		}
		storetest.Write(t, db, func(tx *store.Tx) (any, error) { return nil, tx.SetWorktree(id, w.Path, store.WorktreeReady) })
		end(id)
		want := store.WorktreeReady
		if keep {
			want = store.WorktreeKept
		}
		if a := loadAgent(t, db, id); a.Worktree.State != want {
			t.Errorf("keep %v: state after the end %q, want %q", keep, a.Worktree.State, want)
		}
		if !keep {
			left, err := db.UnremovedWorktrees(t.Context())
			if err != nil || len(left) != 1 || left[0] != id {
				t.Errorf("UnremovedWorktrees: %v, %v; want [%s]", left, err, id)
			}
			// Still to remove: it holds its branch.
			if _, err := enqueue("c", w); !errors.As(err, &inUse) {
				t.Errorf("run on a branch whose worktree is still to remove: %v, want WorktreeInUseError", err)
			}
		}
	}
}
