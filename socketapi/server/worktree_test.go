package server_test

// agent.run with a git worktree (docs/lifecycle.md §8.4), against the real git, the herdr
// stand-in and the mock agent (which writes its working directory to mock_cwd): the
// agent runs in a worktree under its data dir; kill and reap remove it; keep_worktree
// and uncommitted changes keep it; a kept worktree is reused by branch; refusals change
// nothing; a removal a crash cut off is finished at restart.

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/orcr-go/orcr/actors/worktree/worktreetest"
	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/socketapi/sockettest"
	"github.com/orcr-go/orcr/store"
	"github.com/orcr-go/orcr/tests/poll"
)

// wtRow is an agent row with its worktree.
type wtRow struct {
	UUID       string             `json:"uuid"`
	Path       string             `json:"path"`
	Status     string             `json:"status"`
	Cwd        *string            `json:"cwd"`
	ExitReason string             `json:"exit_reason"`
	Worktree   *api.AgentWorktree `json:"worktree"`
}

func runWT(t *testing.T, c *socketapi.Client, params map[string]any) (wtRow, error) {
	t.Helper()
	params["agent"] = "mock"
	var res struct{ Agent wtRow }
	err := c.Call(context.Background(), "agent.run", params, &res)
	return res.Agent, err
}

func wtOf(t *testing.T, c *socketapi.Client, uuid string) wtRow {
	t.Helper()
	var res struct{ Agents []wtRow }
	if err := c.Call(context.Background(), "agent.ls", map[string]any{"pattern": uuid, "all": true}, &res); err != nil || len(res.Agents) != 1 {
		t.Fatalf("agent.ls %s: %+v, %v", uuid, res.Agents, err)
	}
	return res.Agents[0]
}

// mockCwd waits for the mock agent of uuid (at path) to report its working directory.
func mockCwd(t *testing.T, home, path, uuid string) string {
	t.Helper()
	f := filepath.Join(home, "data", filepath.FromSlash(path), uuid, "mock_cwd")
	var got string
	poll.Eventually(t, 20*time.Second, "mock_cwd of "+path, func() bool {
		b, err := os.ReadFile(f)
		got = strings.TrimSpace(string(b))
		return err == nil && got != ""
	})
	return got
}

func killWT(t *testing.T, c *socketapi.Client, uuid string) {
	t.Helper()
	var res api.KillResult
	if err := c.Call(context.Background(), "agent.kill", map[string]any{"targets": []string{uuid}}, &res); err != nil || len(res.Killed) != 1 {
		t.Fatalf("kill %s: %+v, %v", uuid, res, err)
	}
}

func wtState(t *testing.T, c *socketapi.Client, uuid string) string {
	t.Helper()
	r := wtOf(t, c, uuid)
	if r.Worktree == nil {
		t.Fatalf("%s: no worktree on the row: %+v", r.Path, r)
	}
	return r.Worktree.State
}

// One server for the whole story (fast GC for the reap; the other agents are gc never).
func TestWorktreeRunKillKeepReuseReap(t *testing.T) {
	t.Parallel()
	srv := sockettest.NewServer(t, sockettest.WithHerdr(t),
		sockettest.WithConfig(`{"timings": {"gc_tick": "100ms", "idle_after": "1s", "kill_after": "1s"}}`))
	c := srv.Client(t)
	rec := record(t, c)
	repo := worktreetest.NewRepo(t)
	home, err := filepath.EvalSymlinks(srv.Home)
	if err != nil {
		t.Fatal(err)
	}

	// Default branch, run in the worktree, removed by the kill; the branch stays.
	a, err := runWT(t, c, map[string]any{"path": "wt/one", "cwd": repo, "worktree": true, "gc": "never"})
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(home, "data", "wt", "one", a.UUID, "worktree")
	if a.Worktree == nil || a.Worktree.Path != want || a.Worktree.Branch != "orcr/wt-one" || a.Worktree.State != "pending" ||
		a.Cwd == nil || *a.Cwd != want {
		t.Fatalf("run result: %+v (worktree %+v), want worktree %s on orcr/wt-one, pending, as the cwd", a, a.Worktree, want)
	}
	waitStatus(t, c, a.UUID, "idle")
	if got := mockCwd(t, srv.Home, "wt/one", a.UUID); got != want {
		t.Errorf("the agent's cwd: got %s, want %s", got, want)
	}
	if st := wtState(t, c, a.UUID); st != "ready" {
		t.Errorf("state while running: %s, want ready", st)
	}
	killWT(t, c, a.UUID)
	if st := wtState(t, c, a.UUID); st != "removed" {
		t.Errorf("state after the kill: %s, want removed", st)
	}
	if _, err := os.Stat(want); !os.IsNotExist(err) {
		t.Errorf("worktree %s after the kill: %v, want it gone", want, err)
	}
	if !strings.Contains(worktreetest.Git(t, repo, "branch", "--list"), "orcr/wt-one") {
		t.Errorf("branch orcr/wt-one is gone after the kill")
	}

	// keep_worktree on a named branch: kept at the kill; a later run on the branch
	// reuses it; a run on a branch a live agent holds is refused.
	k, err := runWT(t, c, map[string]any{"path": "wt/keep", "cwd": repo, "worktree_branch": "feat/x", "keep_worktree": true, "gc": "never"})
	if err != nil {
		t.Fatal(err)
	}
	waitStatus(t, c, k.UUID, "idle")
	killWT(t, c, k.UUID)
	kept := wtOf(t, c, k.UUID).Worktree
	if kept.State != "kept" || !kept.Keep {
		t.Fatalf("keep_worktree after the kill: %+v, want kept", kept)
	}
	r, err := runWT(t, c, map[string]any{"path": "wt/again", "cwd": repo, "worktree_branch": "feat/x", "gc": "never"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Worktree.Path != kept.Path {
		t.Errorf("run on feat/x: worktree %s, want the kept %s", r.Worktree.Path, kept.Path)
	}
	waitStatus(t, c, r.UUID, "idle")
	if got := mockCwd(t, srv.Home, "wt/again", r.UUID); got != kept.Path {
		t.Errorf("reusing agent's cwd: %s, want %s", got, kept.Path)
	}
	_, err = runWT(t, c, map[string]any{"path": "wt/third", "cwd": repo, "worktree_branch": "feat/x"})
	if pe, ok := wire.As(err); !ok || pe.Code != wire.StateConflict || pe.Reason() != "worktree_in_use" {
		t.Errorf("run on a held branch: %v, want state_conflict worktree_in_use", err)
	}

	// Uncommitted work is never lost: git refuses, the worktree is kept as dirty.
	if err := os.WriteFile(filepath.Join(kept.Path, "wip.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	killWT(t, c, r.UUID)
	if st := wtState(t, c, r.UUID); st != "dirty" {
		t.Errorf("state after killing a dirty worktree: %s, want dirty", st)
	}
	if b, err := os.ReadFile(filepath.Join(kept.Path, "wip.txt")); err != nil || string(b) != "mine" {
		t.Errorf("the uncommitted file after the kill: %q, %v", b, err)
	}

	// Reap (gc auto) removes it too.
	g, err := runWT(t, c, map[string]any{"path": "wt/reaped", "cwd": repo, "worktree": true})
	if err != nil {
		t.Fatal(err)
	}
	if row := waitStatus(t, c, g.UUID, "ended"); row.ExitReason != "reaped" {
		t.Fatalf("gc auto agent ended %s, want reaped", row.ExitReason)
	}
	poll.Eventually(t, 10*time.Second, "reaped agent's worktree removed", func() bool { return wtState(t, c, g.UUID) == "removed" })

	// The stream: one add and one remove pair per made worktree, the dirty removal not ok.
	evs := rec.waitFor(t, 10*time.Second, "worktree pairs", func(evs []ev) bool {
		return countEvents(evs, "agent.worktree_remove_applied", g.UUID) == 1
	})
	for _, u := range []string{a.UUID, k.UUID, r.UUID, g.UUID} {
		if n := countEvents(evs, "agent.worktree_add_applied", u); n != 1 {
			t.Errorf("%s: %d worktree_add_applied, want 1", u, n)
		}
	}
	for _, e := range evs {
		if e.Kind == "agent.worktree_remove_applied" && e.OK != nil && *e.OK != (e.UUID != r.UUID) {
			t.Errorf("worktree_remove_applied of %s: ok %v", e.UUID, *e.OK)
		}
	}
	if n := countEvents(evs, "agent.worktree_remove_requested", k.UUID); n != 0 {
		t.Errorf("a kept worktree had %d removals", n)
	}
	if open := openIntents(evs); len(open) != 0 {
		t.Errorf("open intents: %v", open)
	}
}

// Refusals come before anything is written: no row, no data dir, no worktree.
func TestWorktreeRefusals(t *testing.T) {
	t.Parallel()
	srv := sockettest.NewServer(t, sockettest.WithHerdr(t))
	c := srv.Client(t)
	repo := worktreetest.NewRepo(t)
	for _, tc := range []struct {
		name   string
		params map[string]any
		code   wire.Code
		reason string
	}{
		{"outside a repository", map[string]any{"cwd": t.TempDir(), "worktree": true}, wire.InvalidRequest, "not_a_git_repository"},
		{"no cwd", map[string]any{"worktree": true}, wire.InvalidRequest, "not_a_git_repository"},
		{"relative cwd", map[string]any{"cwd": "src", "worktree": true}, wire.InvalidRequest, "not_a_git_repository"},
		{"keep without worktree", map[string]any{"cwd": repo, "keep_worktree": true}, wire.InvalidRequest, "keep_without_worktree"},
		{"bad branch", map[string]any{"cwd": repo, "worktree_branch": "a..b"}, wire.InvalidRequest, "invalid_branch"},
		{"branch checked out by the user", map[string]any{"cwd": repo, "worktree_branch": "main"}, wire.StateConflict, "branch_checked_out"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.params["path"] = "ref/x"
			_, err := runWT(t, c, tc.params)
			pe, ok := wire.As(err)
			if !ok || pe.Code != tc.code || pe.Reason() != tc.reason {
				t.Fatalf("agent.run %v: got %v, want %s %s", tc.params, err, tc.code, tc.reason)
			}
			if b, _ := json.Marshal(pe.Details); !strings.Contains(string(b), tc.reason) {
				t.Errorf("details %s do not name the reason", b)
			}
		})
	}
	if rows := ls(t, c, map[string]any{"all": true}); len(rows) != 0 {
		t.Errorf("rows after refusals: %+v", rows)
	}
	if _, err := os.Stat(filepath.Join(srv.Home, "data", "ref")); !os.IsNotExist(err) {
		t.Errorf("data dir after refusals: %v", err)
	}
	if got := strings.Count(worktreetest.Git(t, repo, "worktree", "list"), "\n"); got != 1 {
		t.Errorf("git worktree list after refusals: %d worktrees, want the main one", got)
	}
}

// A worktree step a crash cut off is finished at restart: an ended row whose removal
// never started, an open removal intent, and an open add intent of a row that ended
// meanwhile (git shows the worktree was made: it is adopted, then removed).
func TestWorktreeRecovery(t *testing.T) {
	t.Parallel()
	for _, open := range []string{"", "agent.worktree_remove_requested", "agent.worktree_add_requested"} {
		t.Run("open="+open, func(t *testing.T) {
			repo := worktreetest.NewRepo(t)
			cr := newCrashed(t, "rcv/wt", map[string]any{"gc": "never", "cwd": repo, "worktree": true})
			var path string
			cr.leave(func(tx *store.Tx) error {
				a, err := tx.Agent(cr.a.UUID)
				if err != nil {
					return err
				}
				path = a.Worktree.Path
				if err := tx.EndAgent(cr.a.UUID, []store.Status{store.StatusIdle}, store.ExitKilled); err != nil || open == "" {
					return err
				}
				state := map[string]string{"agent.worktree_remove_requested": store.WorktreeRemoving,
					"agent.worktree_add_requested": store.WorktreeCreating}[open]
				if err := tx.SetWorktree(cr.a.UUID, path, state); err != nil {
					return err
				}
				in := map[string]api.IntentEvent{
					"agent.worktree_remove_requested": &api.AgentWorktreeRemoveRequested{Worktree: path, Branch: a.Worktree.Branch, Repo: a.Worktree.Repo},
					"agent.worktree_add_requested":    &api.AgentWorktreeAddRequested{Worktree: path, Branch: a.Worktree.Branch, Repo: a.Worktree.Repo},
				}[open]
				_, _, err = tx.Intent(cr.a.UUID, in)
				return err
			})
			c, rec := cr.restart()
			poll.Eventually(t, 20*time.Second, "worktree removed at restart", func() bool { return wtState(t, c, cr.a.UUID) == "removed" })
			if _, err := os.Stat(path); !os.IsNotExist(err) {
				t.Errorf("worktree %s after recovery: %v", path, err)
			}
			noOpenIntents(t, rec)
		})
	}
}
