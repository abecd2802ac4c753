package tests

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/orcr-go/orcr/actors/worktree/worktreetest"
)

// wtInfo is the worktree object of a row or a run result.
type wtInfo struct {
	Path, Branch, State string
	Keep                bool
}

func worktreeOf(t *testing.T, m map[string]any) wtInfo {
	t.Helper()
	var w wtInfo
	b, _ := json.Marshal(m["worktree"])
	if err := json.Unmarshal(b, &w); err != nil || w.Path == "" {
		t.Fatalf("no worktree in %v", m)
	}
	return w
}

// runWorktree runs `agent run -a mock --gc never --cwd repo <args>` and returns the
// agent's uuid and worktree.
func (h *home) runWorktree(t *testing.T, repo string, args ...string) (string, wtInfo) {
	t.Helper()
	_, res, _ := h.jsonRun(t, "agent.run", 0, append([]string{"agent", "run", "-a", "mock", "--gc", "never", "--cwd", repo}, args...)...)
	agent, _ := res["agent"].(map[string]any)
	return agent["uuid"].(string), worktreeOf(t, agent)
}

// lsWorktree is the worktree of uuid's row in `agent ls --all --json`.
func (h *home) lsWorktree(t *testing.T, uuid string) wtInfo {
	t.Helper()
	_, res, _ := h.jsonRun(t, "agent.ls", 0, "agent", "ls", "--all", uuid)
	rows, _ := res["agents"].([]any)
	if len(rows) != 1 {
		t.Fatalf("agent ls %s: %v", uuid, res)
	}
	return worktreeOf(t, rows[0].(map[string]any))
}

// `agent run --worktree` through the real binary, against the real git: the agent runs
// in a worktree under its data dir, shown in `agent ls --json`; kill removes it;
// --keep-worktree keeps it and a later run on the branch reuses it; outside a
// repository the run is refused (exit 1) and nothing is made.
func TestWorktreeCLI(t *testing.T) {
	t.Parallel() // mostly waits (turn windows, TUIs booting): see main_test.go
	h, _ := herdrHome(t, "")
	repo := worktreetest.NewRepo(t)
	mockCwd := func(path, uuid string) string {
		var got string
		eventually(t, 20*time.Second, "mock_cwd of "+path, func() bool {
			b, err := os.ReadFile(filepath.Join(h.dir, "data", path, uuid, "mock_cwd"))
			got = strings.TrimSpace(string(b))
			return err == nil && got != ""
		})
		return got
	}
	wait := func(path string) {
		if r := h.run("agent", "wait", path, "--timeout", "30s"); r.exit != 0 {
			t.Fatalf("agent wait %s: exit %d %s", path, r.exit, r.stderr)
		}
	}

	one, wt := h.runWorktree(t, repo, "--path", "e2e/one", "--worktree")
	if wt.Branch != "orcr/e2e-one" || !strings.HasSuffix(wt.Path, filepath.Join("data", "e2e", "one", one, "worktree")) {
		t.Errorf("run --worktree: worktree %+v, want orcr/e2e-one under the agent's data dir", wt)
	}
	wait("e2e/one")
	if got := mockCwd("e2e/one", one); got != wt.Path {
		t.Errorf("the agent's cwd: %s, want %s", got, wt.Path)
	}
	if got := h.lsWorktree(t, one); got.State != "ready" || got.Path != wt.Path {
		t.Errorf("agent ls worktree: %+v, want ready at %s", got, wt.Path)
	}
	h.jsonRun(t, "agent.kill", 0, "agent", "kill", "e2e/one")
	if got := h.lsWorktree(t, one); got.State != "removed" {
		t.Errorf("after kill: worktree state %s, want removed", got.State)
	}
	if _, err := os.Stat(wt.Path); !os.IsNotExist(err) {
		t.Errorf("after kill: %s still there (%v)", wt.Path, err)
	}

	// --keep-worktree, then reuse by branch (the flag's value as the next word).
	kept, kwt := h.runWorktree(t, repo, "--path", "e2e/keep", "--worktree", "feat", "--keep-worktree")
	wait("e2e/keep")
	h.jsonRun(t, "agent.kill", 0, "agent", "kill", "e2e/keep")
	if got := h.lsWorktree(t, kept); got.State != "kept" || !got.Keep {
		t.Errorf("--keep-worktree after kill: %+v, want kept", got)
	}
	if _, err := os.Stat(kwt.Path); err != nil {
		t.Errorf("kept worktree: %v", err)
	}
	again, awt := h.runWorktree(t, repo, "--path", "e2e/again", "--worktree=feat")
	if awt.Path != kwt.Path {
		t.Errorf("run on feat: worktree %s, want the kept %s", awt.Path, kwt.Path)
	}
	wait("e2e/again")
	if got := mockCwd("e2e/again", again); got != kwt.Path {
		t.Errorf("reusing agent's cwd: %s, want %s", got, kwt.Path)
	}
	h.jsonRun(t, "agent.kill", 0, "agent", "kill", "e2e/again")

	// Outside a repository: refused, exit 1, with the reason; human output too.
	outside := t.TempDir()
	_, _, e := h.jsonRun(t, "agent.run", 1, "agent", "run", "-a", "mock", "--path", "e2e/no", "--worktree", "--cwd", outside)
	if e["code"] != "invalid_request" || errDetail(e, "reason") != "not_a_git_repository" || errDetail(e, "cwd") != outside {
		t.Errorf("run --worktree outside a repository: %v", e)
	}
	if r := h.run("agent", "run", "-a", "mock", "--path", "e2e/no", "--worktree", "--cwd", outside); r.exit != 1 ||
		!strings.Contains(r.stderr, "not inside a git repository") {
		t.Errorf("human refusal: exit %d stderr %q", r.exit, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(h.dir, "data", "e2e", "no")); !os.IsNotExist(err) {
		t.Errorf("a refused run left its data dir: %v", err)
	}
}
