package server_test

// Retention of ended agents (docs/lifecycle.md §12.4), against the herdr stand-in, the
// mock agent and the real git: with retention.ended_for 1s the gc forgets the agents a
// kill ended — their rows and data folders — but keeps a kept worktree on disk and
// leaves the live agent alone; server.status reports it.

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/orcr-go/orcr/actors/worktree/worktreetest"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/sockettest"
	"github.com/orcr-go/orcr/tests/poll"
)

func TestRetentionForgetsEndedAgentsAndTheirFolders(t *testing.T) {
	t.Parallel()
	srv := sockettest.NewServer(t, sockettest.WithHerdr(t),
		sockettest.WithConfig(`{"timings": {"gc_tick": "100ms"}, "retention": {"ended_for": "1s", "ended_max": "off"}}`))
	c := srv.Client(t)
	ctx := context.Background()
	repo := worktreetest.NewRepo(t)
	home, err := filepath.EvalSymlinks(srv.Home)
	if err != nil {
		t.Fatal(err)
	}
	dataDir := func(path, uuid string) string { return filepath.Join(home, "data", filepath.FromSlash(path), uuid) }

	kept, err := runWT(t, c, map[string]any{"path": "ret/kept", "cwd": repo, "worktree_branch": "feat/ret", "keep_worktree": true,
		"gc": "never"})
	if err != nil {
		t.Fatal(err)
	}
	plain, err := runWT(t, c, map[string]any{"path": "ret/plain", "gc": "never"})
	if err != nil {
		t.Fatal(err)
	}
	live, err := runWT(t, c, map[string]any{"path": "ret/live", "gc": "never"})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range []wtRow{kept, plain, live} {
		waitStatus(t, c, a.UUID, "idle")
	}
	for _, a := range []wtRow{kept, plain} {
		if _, err := os.Stat(filepath.Join(dataDir(a.Path, a.UUID), "launch.json")); err != nil {
			t.Fatalf("%s before the kill: %v", a.Path, err)
		}
	}
	// The rows may be forgotten a second after the kills: what the kill kept is checked
	// on disk below.
	killWT(t, c, kept.UUID)
	killWT(t, c, plain.UUID)

	ls := func() map[string]bool {
		var res struct{ Agents []wtRow }
		if err := c.Call(ctx, "agent.ls", map[string]any{"pattern": "ret/**", "all": true}, &res); err != nil {
			t.Fatalf("agent.ls: %v", err)
		}
		out := map[string]bool{}
		for _, a := range res.Agents {
			out[a.UUID] = true
		}
		return out
	}
	poll.Eventually(t, 30*time.Second, "the ended agents forgotten", func() bool {
		rows := ls()
		return !rows[kept.UUID] && !rows[plain.UUID]
	})
	if !ls()[live.UUID] {
		t.Errorf("the live agent was forgotten")
	}
	// A folder goes only after its row's commit (docs/lifecycle.md §12.4): the gc may
	// still be removing it when the rows are seen gone.
	keptLeft := func() bool {
		entries, err := os.ReadDir(dataDir(kept.Path, kept.UUID))
		return err == nil && len(entries) == 1 && entries[0].Name() == "worktree"
	}
	poll.Eventually(t, 10*time.Second, "the forgotten agents' data removed", func() bool {
		_, err := os.Stat(dataDir(plain.Path, plain.UUID))
		return os.IsNotExist(err) && keptLeft()
	})
	if _, err := os.Stat(dataDir(plain.Path, plain.UUID)); !os.IsNotExist(err) {
		t.Errorf("the forgotten agent's data folder: %v, want it gone", err)
	}
	entries, err := os.ReadDir(dataDir(kept.Path, kept.UUID))
	if err != nil || len(entries) != 1 || entries[0].Name() != "worktree" {
		t.Errorf("the forgotten agent with a kept worktree: folder holds %v (%v), want only its worktree", entries, err)
	}
	if _, err := os.Stat(filepath.Join(kept.Worktree.Path, ".git")); err != nil {
		t.Errorf("the kept worktree %s: %v, want it on disk", kept.Worktree.Path, err)
	}
	if !strings.Contains(worktreetest.Git(t, repo, "worktree", "list"), kept.Worktree.Path) {
		t.Errorf("git no longer lists the kept worktree %s", kept.Worktree.Path)
	}
	if _, err := os.Stat(filepath.Join(dataDir(live.Path, live.UUID), "launch.json")); err != nil {
		t.Errorf("the live agent's data folder: %v", err)
	}

	var st api.StatusResult
	if err := c.Call(ctx, "server.status", nil, &st); err != nil {
		t.Fatal(err)
	}
	r := st.Retention
	if r.EndedForMS == nil || *r.EndedForMS != 1000 || r.EndedMax != nil || r.TrimmedTotal != 2 || r.LastTrimAt == nil {
		t.Errorf("server.status retention: %+v, want ended_for_ms 1000, ended_max off, 2 trimmed and a time", r)
	}
}
