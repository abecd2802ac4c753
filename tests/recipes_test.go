package tests

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/tests/poll"
)

// The workflow patterns of docs/clients.md ("Workflow patterns"), in Go
// (socketapi/recipes/<name>) and in TypeScript (socketapi/ts/recipes/<name>.ts), run
// against the herdr stand-in and the mock provider: issue 13's acceptance 5. Both
// languages print the same outcome lines, so one table checks both. The mock's
// directives, which the recipes append for the mock provider, drive each recipe down
// the branch named in its comment; afterwards no agent of the recipe's root may be live.

// recipeCase is one recipe: its root and the lines its output must hold.
type recipeCase struct {
	name, root string
	want       []string
}

var recipeCases = []recipeCase{
	// Three reviewers write review.md; the synthesizer (no directive: the mock echoes
	// its prompt) is shown the three files' first lines.
	{"fan_out_merge", "review", []string{
		"review auth.go: finding_0", "review session.go: finding_1", "review token.go: finding_2",
		"merged: RESPONSE: Merge these reviews into one prioritized list: auth.go: finding_0 | session.go: finding_1 | token.go: finding_2",
	}},
	// The judge picks B in even matches and mumbles "maybe" (so A) in odd ones; five
	// candidates, so the last one gets a bye twice and wins the final.
	{"tournament", "tagline_tournament", []string{
		`round_0/match_1 answered "maybe": A advances`,
		"round 0: 3 left", "round 1: 2 left", "round 2: 1 left",
		"winner: Fan out, merge in",
	}},
	// Missing patch, an off-by-one fix, a green build the verifier rejects, then PASS.
	{"fix_until_green", "fix_build", []string{
		"round 0: build fails: patch.txt is missing",
		`round 1: build fails: "40+1" is 41, want 42`,
		"round 2: green, but the verifier says FAIL:looks_hardcoded",
		"round 3: green and verified after 2 fixes and 1 rejections",
	}},
	// Two items now, three for the loop's runs (driven by recipeLoopDrains).
	{"loop_until_done", "drain_backlog", []string{
		"drain_backlog/item_a: item_a_done", "drain_backlog/item_b: item_b_done",
		"handed 3 items to loop drain_backlog",
	}},
	// "Bug." normalizes to bug; "urgent!!" is no class, so the safe default.
	{"classify_and_act", "triage", []string{
		`issue_0: "Bug." is bug; bug/handler: bug_handled`,
		`issue_1: "urgent!!" is question; question/handler: question_handled`,
	}},
	{"generate_and_filter", "tagline_drafts", []string{
		"judge picked draft 2 of 3: draft_from_gen_2",
	}},
	// Two of three lenses fail in round 0, one in round 1.
	{"adversarial_verification", "critical_change", []string{
		"round 0: 2 of 3 lenses fail", "round 1: 1 of 3 lenses fail", "accepted in round 1",
	}},
}

// runRecipes runs every recipe at once through start (a command for the recipe, run in
// a working directory of its own), checks what each printed and that none left a live
// agent, then drives loop_until_done's loop to its end.
func runRecipes(t *testing.T, h *home, start func(name string) *exec.Cmd) {
	t.Helper()
	began := time.Now()
	outs, dirs := make(map[string]string), make(map[string]string)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, rc := range recipeCases {
		cmd := start(rc.name)
		cmd.Dir = t.TempDir()
		dirs[rc.name] = cmd.Dir
		// A fresh slice for each command: appending to h.env could share one backing
		// array between the commands' goroutines (the race detector saw it).
		cmd.Env = slices.Concat(h.env, []string{"ORCR_RECIPE_AGENT=mock", "ORCR_RECIPE_VERIFIER=mock", "NODE_NO_WARNINGS=1"})
		wg.Go(func() {
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			began := time.Now()
			err := cmd.Run()
			mu.Lock()
			defer mu.Unlock()
			outs[rc.name] = out.String()
			if err != nil {
				t.Errorf("%s: %v\n%s", rc.name, err, out.String())
			}
			t.Logf("%s (%.1fs):\n%s", rc.name, time.Since(began).Seconds(), out.String())
		})
	}
	wg.Wait()
	for _, rc := range recipeCases {
		for _, w := range rc.want {
			if !strings.Contains(outs[rc.name], w+"\n") {
				t.Errorf("%s: output lacks the line %q", rc.name, w)
			}
		}
		pattern := rc.root + "/**"
		if rc.name == "loop_until_done" {
			// The recipe's own agents only: a run its loop's cron fired meanwhile (every
			// ten minutes) works under drain_backlog/<run_id>/, checked by recipeLoopDrains.
			pattern = rc.root + "/*"
		}
		if rows := h.lsRows(t, pattern); len(rows) != 0 {
			t.Errorf("%s: live agents left under %s: %+v", rc.name, rc.root, rows)
		}
	}
	t.Logf("all recipes: %.1fs", time.Since(began).Seconds())
	if t.Failed() {
		return
	}
	// While the loop drains: a crash half-way through takes the recipe's agents with it
	// (killOnThrow). The verifier's provider does not exist, so the first verification
	// fails after two rounds of fixes, with the gc-never fixer live.
	crash := start("fix_until_green")
	crash.Dir = t.TempDir()
	crash.Env = slices.Concat(h.env, []string{"ORCR_RECIPE_AGENT=mock", "ORCR_RECIPE_VERIFIER=no_such_provider", "NODE_NO_WARNINGS=1"})
	var crashOut bytes.Buffer
	crash.Stdout, crash.Stderr = &crashOut, &crashOut
	var crashErr error
	wg.Go(func() { crashErr = crash.Run() })
	recipeLoopDrains(t, h, dirs["loop_until_done"])
	wg.Wait()
	t.Logf("fix_until_green with no verifier:\n%s", crashOut.String())
	if crashErr == nil || !strings.Contains(crashOut.String(), "no_such_provider") {
		t.Errorf("fix_until_green with no verifier: %v, want a failure naming the provider", crashErr)
	}
	if rows := h.lsRows(t, "fix_build/**"); len(rows) != 0 {
		t.Errorf("live agents left after the crash: %+v", rows)
	}
}

// recipeLoopDrains starts runs of loop_until_done's loop by hand, one at a time (its
// cron is every ten minutes), until the loop is gone: the third run works the last item
// and removes the loop (ended removed_by_run). cwd is where the recipe ran.
func recipeLoopDrains(t *testing.T, h *home, cwd string) {
	t.Helper()
	began := time.Now()
	c := &socketapi.Client{Socket: filepath.Join(h.dir, "orcr.sock")}
	ctx := context.Background()
	const name = "drain_backlog"
	loopRow := func() api.LoopRow {
		ls, err := c.LoopLs(ctx, api.LoopLsRequest{All: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range ls.Loops {
			if l.Name == name {
				return l
			}
		}
		t.Fatalf("no loop %s in %+v", name, ls.Loops)
		return api.LoopRow{}
	}
	runs := 0
	for ; loopRow().Status != "ended" && runs < 5; runs++ {
		started, err := c.LoopRunStart(ctx, name)
		if err != nil {
			t.Fatalf("run %d: %v", runs, err)
		}
		var st string
		poll.Eventually(t, 2*time.Minute, "run "+started.Run.RunID+" to be over", func() bool {
			ls, err := c.LoopRunLs(ctx, api.LoopRunLsRequest{Name: name, All: true})
			if err != nil {
				t.Fatal(err)
			}
			i := slices.IndexFunc(ls.Runs, func(r api.RunRow) bool { return r.RunID == started.Run.RunID })
			if i < 0 {
				return false
			}
			st = ls.Runs[i].Status
			return st != "pending" && st != "running"
		})
		// canceled: it was pending behind a scheduled run that worked the last item and
		// removed the loop (checked below).
		if st != "ok" && st != "canceled" {
			t.Errorf("run %s ended %s", started.Run.RunID, st)
		}
	}
	// Every run counts, the test's and any its cron (every ten minutes) fired when the
	// clock crossed a tenth minute meanwhile: three runs work the three items left, and a
	// run still pending behind the one that removes the loop — the test's or a scheduled
	// one — is canceled by the removal (one at most: the loop runs one at a time).
	// A scheduled run that removed the loop may still be exiting when the test's own
	// pending run is canceled by that removal: wait for every run to be over.
	var all api.LoopRunLsResult
	poll.Eventually(t, 2*time.Minute, "every run of the loop to be over", func() bool {
		var err error
		if all, err = c.LoopRunLs(ctx, api.LoopRunLsRequest{Name: name, All: true}); err != nil {
			t.Fatal(err)
		}
		return !slices.ContainsFunc(all.Runs, func(r api.RunRow) bool {
			return r.Status == "pending" || r.Status == "running" || r.Status == "stopping"
		})
	}, func() string { return fmt.Sprintf("%+v", all.Runs) })
	worked, canceled := 0, 0
	for _, r := range all.Runs {
		switch {
		case r.Status == "ok":
			worked++
		case r.Status == "canceled":
			canceled++
		default:
			t.Errorf("run %s (%s) ended %s", r.RunID, r.Kind, r.Status)
		}
	}
	l := loopRow()
	if l.Status != "ended" || l.EndedReason == nil || *l.EndedReason != "removed_by_run" || worked != 3 || canceled > 1 {
		t.Errorf("after %d runs (%d started by the test, %d ok, %d canceled) the loop is %s (%v), want ended removed_by_run after 3 ok",
			len(all.Runs), runs, worked, canceled, l.Status, l.EndedReason)
	}
	logs, err := c.LoopLogs(ctx, api.LoopLogsRequest{Name: name, Source: "command"})
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, line := range logs.Lines {
		lines = append(lines, line.Text)
	}
	text := strings.Join(lines, "\n")
	t.Logf("the loop's runs printed:\n%s", text)
	if !strings.Contains(text, "/item_e: item_e_done") || !strings.Contains(text, "backlog done (5 items): removed loop drain_backlog") {
		t.Errorf("the last run's output lacks its item or the loop's removal")
	}
	var b struct{ Todo, Done []string }
	raw, err := os.ReadFile(filepath.Join(cwd, "drain_backlog.json"))
	if err == nil {
		err = json.Unmarshal(raw, &b)
	}
	if err != nil || len(b.Todo) != 0 || strings.Join(b.Done, " ") != "item_a item_b item_c item_d item_e" {
		t.Errorf("backlog %+v (%v), want all five items done in order", b, err)
	}
	if rows := h.lsRows(t, name+"/**"); len(rows) != 0 {
		t.Errorf("live agents left under %s: %+v", name, rows)
	}
	t.Logf("the loop's runs: %.1fs", time.Since(began).Seconds())
}

// withTimeout is an exec.Cmd that is killed after d.
func withTimeout(t *testing.T, d time.Duration, name string, args ...string) *exec.Cmd {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

func TestRecipesGo(t *testing.T) {
	t.Parallel()
	h, _ := herdrHome(t, mockDefaults)
	dir := t.TempDir()
	command(t, 5*time.Minute, "..", h.env, "go", "build", "-o", dir+"/", "./socketapi/recipes/...")
	if r := h.run("server", "start"); r.exit != 0 {
		t.Fatalf("server start: exit %d %s", r.exit, r.stderr)
	}
	runRecipes(t, h, func(name string) *exec.Cmd {
		return withTimeout(t, 3*time.Minute, filepath.Join(dir, name))
	})
}

func TestRecipesTypeScript(t *testing.T) {
	t.Parallel()
	heavy(t)
	tsxBin := tsx(t)
	recipes, err := filepath.Abs(filepath.Join(tsDir, "recipes"))
	if err != nil {
		t.Fatal(err)
	}
	h, _ := herdrHome(t, mockDefaults)
	h.env = append(h.env, "ORCR_BIN="+bins.orcr)
	if r := h.run("server", "start"); r.exit != 0 {
		t.Fatalf("server start: exit %d %s", r.exit, r.stderr)
	}
	runRecipes(t, h, func(name string) *exec.Cmd {
		return withTimeout(t, 3*time.Minute, tsxBin, filepath.Join(recipes, name+".ts"))
	})
}
