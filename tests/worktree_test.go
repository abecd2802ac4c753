package tests

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/orcr-go/orcr/actors/worktree/worktreetest"
	"github.com/orcr-go/orcr/tests/poll"
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

// mockCwd is the working directory the mock agent at path (uuid) recorded in its data
// dir.
func (h *home) mockCwd(t *testing.T, path, uuid string) string {
	t.Helper()
	var got string
	poll.Eventually(t, 20*time.Second, "mock_cwd of "+path, func() bool {
		b, err := os.ReadFile(filepath.Join(h.dir, "data", path, uuid, "mock_cwd"))
		got = strings.TrimSpace(string(b))
		return err == nil && got != ""
	})
	return got
}

// `agent run --worktree` through the real binary, against the real git: the agent runs
// in a worktree under its data dir, shown in `agent ls --json`; kill removes it;
// --keep-worktree keeps it and a later run on the branch reuses it; outside a
// repository the run is refused (exit 1) and nothing is made.
func TestWorktreeCLI(t *testing.T) {
	t.Parallel() // mostly waits (turn windows, TUIs booting): see main_test.go
	h, _ := herdrHome(t, "")
	repo := worktreetest.NewRepo(t)
	mockCwd := func(path, uuid string) string { return h.mockCwd(t, path, uuid) }
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

// `agent ask --worktree` through the real binary: the one-shot agent runs in its own
// worktree and its answer comes back; the worktree is removed when the agent ends
// (its gc-immediate reap, or a kill mid-turn, which the ask reports as exit 5) and
// kept with --keep-worktree; `agent ls` shows the branch in its WORKTREE column;
// outside a repository the ask is refused as run is, and nothing is made.
func TestWorktreeAsk(t *testing.T) {
	t.Parallel() // mostly waits, like TestWorktreeCLI
	h, _ := herdrHome(t, "")
	repo := worktreetest.NewRepo(t)
	ask := func(path string, args ...string) []string {
		return append([]string{"agent", "ask", "-a", "mock", "--path", path, "--cwd", repo, "--timeout", "60s"}, args...)
	}
	// Answered, and the answer says what became of the worktree: the ask waits for the
	// gc-immediate end to settle it, so it is already removed when the ask returns.
	_, res, _ := h.jsonRun(t, "agent.ask", 0, ask("e2e/ask", "--worktree", "-p", "say=fromtree")...)
	uuid, _ := res["uuid"].(string)
	if text, _ := res["response"].(map[string]any)["text"].(string); !strings.Contains(text, "fromtree") {
		t.Errorf("ask --worktree: response %v, want the mock's fromtree", res["response"])
	}
	wt := worktreeOf(t, res)
	if wt.State != "removed" || wt.Branch != "orcr/e2e-ask" || !strings.HasSuffix(wt.Path, filepath.Join("data", "e2e", "ask", uuid, "worktree")) {
		t.Errorf("ask --worktree: worktree %+v, want removed, orcr/e2e-ask under the agent's data dir", wt)
	}
	if got := h.mockCwd(t, "e2e/ask", uuid); got != wt.Path {
		t.Errorf("the asked agent's cwd: %s, want its worktree %s", got, wt.Path)
	}
	if _, err := os.Stat(wt.Path); !os.IsNotExist(err) {
		t.Errorf("when the ask returned: %s still there (%v)", wt.Path, err)
	}
	if got := h.lsWorktree(t, uuid); got != wt {
		t.Errorf("agent ls: worktree %+v, want the ask's %+v", got, wt)
	}

	// --keep-worktree on a named branch, human output: the answer on stdout, where the
	// kept worktree is on stderr, and `agent ls --all` naming the branch and its state.
	r := h.run(ask("e2e/keep", "--worktree", "keepme", "--keep-worktree", "-p", "say=kept")...)
	if r.exit != 0 || !strings.HasPrefix(r.stdout, "kept") {
		t.Fatalf("ask --keep-worktree: exit %d stdout %q stderr %q", r.exit, r.stdout, r.stderr)
	}
	_, lsRes, _ := h.jsonRun(t, "agent.ls", 0, "agent", "ls", "--all", "e2e/keep")
	rows, _ := lsRes["agents"].([]any)
	if len(rows) != 1 {
		t.Fatalf("agent ls --all e2e/keep: %v", lsRes)
	}
	kwt := worktreeOf(t, rows[0].(map[string]any))
	if kwt.State != "kept" || kwt.Branch != "keepme" || !kwt.Keep {
		t.Errorf("ask --keep-worktree: worktree %+v, want kept on keepme", kwt)
	}
	if want := "worktree kept: " + kwt.Path + " (branch keepme)"; !strings.Contains(r.stderr, want) {
		t.Errorf("ask --keep-worktree: stderr %q, want %q", r.stderr, want)
	}
	if strings.Contains(r.stdout, "worktree") {
		t.Errorf("ask --keep-worktree: stdout %q carries more than the answer", r.stdout)
	}
	if _, err := os.Stat(kwt.Path); err != nil {
		t.Errorf("kept worktree: %v", err)
	}
	if r := h.run("agent", "ls", "--all", "e2e/keep"); r.exit != 0 || !lsColumn(r.stdout, "WORKTREE", "keepme (kept)") {
		t.Errorf("agent ls --all: exit %d, want a WORKTREE column with keepme (kept):\n%s", r.exit, r.stdout)
	}

	// The agent leaves a new file in its worktree (the mock's write= lands under its data
	// dir, whose worktree/ is the checkout): git refuses the removal, the worktree is kept
	// as dirty, and the ask says where.
	r = h.run(ask("e2e/dirty", "--worktree", "-p", "say=wrote write=worktree/notes.txt")...)
	if r.exit != 0 || !strings.HasPrefix(r.stdout, "wrote") {
		t.Fatalf("ask --worktree leaving a file: exit %d stdout %q stderr %q", r.exit, r.stdout, r.stderr)
	}
	_, lsRes, _ = h.jsonRun(t, "agent.ls", 0, "agent", "ls", "--all", "e2e/dirty")
	rows, _ = lsRes["agents"].([]any)
	if len(rows) != 1 {
		t.Fatalf("agent ls --all e2e/dirty: %v", lsRes)
	}
	dwt := worktreeOf(t, rows[0].(map[string]any))
	if dwt.State != "dirty" {
		t.Errorf("ask --worktree leaving a file: worktree %+v, want dirty", dwt)
	}
	if want := "worktree kept, it has uncommitted changes: " + dwt.Path + " (branch orcr/e2e-dirty)"; !strings.Contains(r.stderr, want) {
		t.Errorf("ask --worktree leaving a file: stderr %q, want %q", r.stderr, want)
	}
	if b, err := os.ReadFile(filepath.Join(dwt.Path, "notes.txt")); err != nil || len(b) == 0 {
		t.Errorf("the agent's file in the dirty worktree: %q %v", b, err)
	}

	// Killed mid-turn: the ask reports the death (exit 5), the kill has removed the
	// worktree by the time it answers; while it ran, ls showed its branch.
	asked := make(chan result, 1)
	go func() { asked <- h.run(ask("e2e/killed", "--worktree", "-p", "turn_ms=30000")...) }()
	var kill string
	poll.Eventually(t, 20*time.Second, "e2e/killed working", func() bool {
		r := h.run("agent", "ls", "e2e/killed")
		kill = r.stdout
		return r.exit == 0 && strings.Contains(r.stdout, " working ")
	})
	if !lsColumn(kill, "WORKTREE", "orcr/e2e-killed") {
		t.Errorf("agent ls while the ask runs: want a WORKTREE column with orcr/e2e-killed:\n%s", kill)
	}
	h.jsonRun(t, "agent.kill", 0, "agent", "kill", "e2e/killed")
	if r := <-asked; r.exit != 5 {
		t.Errorf("ask of a killed agent: exit %d stderr %q, want 5", r.exit, r.stderr)
	}
	_, lsRes, _ = h.jsonRun(t, "agent.ls", 0, "agent", "ls", "--all", "e2e/killed")
	rows, _ = lsRes["agents"].([]any)
	if len(rows) != 1 {
		t.Fatalf("agent ls --all e2e/killed: %v", lsRes)
	}
	if got := worktreeOf(t, rows[0].(map[string]any)); got.State != "removed" {
		t.Errorf("after kill: worktree %+v, want removed", got)
	} else if _, err := os.Stat(got.Path); !os.IsNotExist(err) {
		t.Errorf("after kill: %s still there (%v)", got.Path, err)
	}

	// Outside a repository: the same refusal as agent run, and nothing made.
	outside := t.TempDir()
	_, _, e := h.jsonRun(t, "agent.ask", 1, "agent", "ask", "-a", "mock", "--path", "e2e/no", "--worktree", "--cwd", outside, "-p", "hi")
	if e["code"] != "invalid_request" || errDetail(e, "reason") != "not_a_git_repository" || errDetail(e, "cwd") != outside {
		t.Errorf("ask --worktree outside a repository: %v", e)
	}
	if _, err := os.Stat(filepath.Join(h.dir, "data", "e2e", "no")); !os.IsNotExist(err) {
		t.Errorf("a refused ask left its data dir: %v", err)
	}
	_, lsRes, _ = h.jsonRun(t, "agent.ls", 0, "agent", "ls", "--all")
	for _, row := range lsRes["agents"].([]any) {
		if p := row.(map[string]any)["path"]; p == "e2e/no" {
			t.Errorf("a refused ask left a row: %v", row)
		}
	}
}

// lsColumn reports whether the human `agent ls` table out has the column header and
// some row whose cell under it is want (the cell runs to the end of the line).
func lsColumn(out, header, want string) bool {
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	at := strings.Index(lines[0], header)
	if at < 0 {
		return false
	}
	for _, l := range lines[1:] {
		if len(l) > at && l[at:] == want {
			return true
		}
	}
	return false
}
