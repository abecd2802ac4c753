package actors

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// A poll reads the launchers' notes, not every status file: a note names an exit whose
// status file is there, and is removed once read; a sweep looks at every status file.
func TestExitedNowReadsNotesAndSweeps(t *testing.T) {
	dir := t.TempDir()
	notes := filepath.Join(dir, "pane-exits")
	files := map[string]string{}
	for _, u := range []string{"a", "b", "c"} {
		files[u] = filepath.Join(dir, u, "pane_exit.json")
		if err := os.MkdirAll(filepath.Dir(files[u]), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for _, u := range []string{"a", "b"} { // a and b exited; only a's launcher left a note
		if err := os.WriteFile(files[u], []byte(`{"code":0,"at":1}`), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if got := exitedNow(files, notes, false); len(got) != 0 {
		t.Errorf("before any note (no directory yet): %v, want none", got)
	}
	if err := os.MkdirAll(notes, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"a", "c", "unwatched"} { // c's note without its status file
		if err := os.WriteFile(filepath.Join(notes, n), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if got := exitedNow(files, notes, false); !slices.Equal(got, []string{"a"}) {
		t.Errorf("from the notes: %v, want [a]", got)
	}
	if left, _ := os.ReadDir(notes); len(left) != 1 || left[0].Name() != "unwatched" {
		t.Errorf("notes left after the poll read them: %v, want only the young one of an agent not watched", left)
	}
	old := time.Now().Add(-2 * staleNote)
	if err := os.Chtimes(filepath.Join(notes, "unwatched"), old, old); err != nil {
		t.Fatal(err)
	}
	exitedNow(files, notes, false)
	if left, _ := os.ReadDir(notes); len(left) != 0 {
		t.Errorf("notes left: %v, want the stale one removed", left)
	}
	got := exitedNow(files, notes, true)
	slices.Sort(got)
	if !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("a sweep: %v, want [a b] (b's launcher left no note)", got)
	}
}
