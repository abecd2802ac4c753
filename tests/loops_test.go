package tests

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/store"
	"github.com/orcr-go/orcr/tests/poll"
)

// Loops end to end (issue 11, docs/loops.md): real `orcr server` processes, real run
// process groups started through the run shim, the herdr stand-in and the mock for the
// agents a run starts. Time-based rules (cron, DST, overlap) are tested on fixed instants
// in actors/schedule and store; these tests use --once-at and manual runs.

// loopHome is a home whose runs can call `orcr` (PATH) and whose stops are quick.
func loopHome(t *testing.T) (*home, *socketapi.Client) {
	t.Helper()
	h, _ := herdrHome(t, `{"timings": {"gc_tick": "200ms", "loop_tick": "100ms", "run_term_grace": "2s"}}`)
	h.env = append(h.env, "PATH="+bins.dir+":"+os.Getenv("PATH"))
	if r := h.run("server", "start"); r.exit != 0 {
		t.Fatalf("server start: %d %s %s", r.exit, r.stdout, r.stderr)
	}
	return h, &socketapi.Client{Socket: filepath.Join(h.dir, "orcr.sock"), Timeout: 60 * time.Second}
}

func runsOf(t *testing.T, c *socketapi.Client, loop string) []api.RunRow {
	t.Helper()
	res, err := c.LoopRunLs(context.Background(), api.LoopRunLsRequest{Name: loop, All: true})
	if err != nil {
		t.Fatal(err)
	}
	return res.Runs
}

// runPGID is the process group recorded for run (by uuid) of loop.
func runPGID(t *testing.T, c *socketapi.Client, loop, run string) int64 {
	t.Helper()
	for _, r := range runsOf(t, c, loop) {
		if r.UUID == run && r.PGID != nil {
			return *r.PGID
		}
	}
	t.Fatal("no pgid recorded")
	return 0
}

func waitRunEnded(t *testing.T, c *socketapi.Client, loop, runID string) api.RunRow {
	t.Helper()
	var run api.RunRow
	poll.Eventually(t, 30*time.Second, "run "+loop+"/"+runID+" ended", func() bool {
		for _, r := range runsOf(t, c, loop) {
			if r.RunID == runID {
				run = r
				return r.EndedAt != nil
			}
		}
		return false
	})
	return run
}

// A once loop fires once, its run's output and exit status are recorded, the loop ends
// fired, and loop logs merges the command's lines with the scheduler's events.
func TestOnceLoopRunsItsCommand(t *testing.T) {
	t.Parallel()
	h, c := loopHome(t)
	ctx := context.Background()
	res, err := c.LoopCreate(ctx, api.LoopCreateRequest{Name: "once", OnceAt: "1s", Cwd: h.dir,
		Command: []string{"sh", "-c", "echo out-line; echo err-line >&2; pwd; exit 3"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Loop.Cancel != "orcr loop rm once" || res.Loop.NextFireAt == nil || len(res.Loop.Argv) != 3 {
		t.Errorf("create result %+v", res.Loop)
	}
	var runs []api.RunRow
	poll.Eventually(t, 20*time.Second, "the once loop fired", func() bool {
		runs = runsOf(t, c, "once")
		return len(runs) == 1
	})
	run := waitRunEnded(t, c, "once", runs[0].RunID)
	if run.Status != "failed" || run.ExitCode == nil || *run.ExitCode != 3 || run.Kind != "scheduled" || run.PGID == nil {
		t.Errorf("run %+v", run)
	}
	ls, err := c.LoopLs(ctx, api.LoopLsRequest{Names: []string{"once"}})
	if err != nil || len(ls.Loops) != 1 || ls.Loops[0].Status != "ended" || deref(ls.Loops[0].EndedReason) != "fired" {
		t.Errorf("loop after its fire: %+v %v", ls.Loops, err)
	}
	logs, err := c.LoopLogs(ctx, api.LoopLogsRequest{Name: "once"})
	if err != nil {
		t.Fatal(err)
	}
	var all []string
	for _, l := range logs.Lines {
		all = append(all, l.Source+":"+l.Stream+":"+l.Text)
	}
	joined := strings.Join(all, "\n")
	for _, want := range []string{"command:stdout:out-line", "command:stderr:err-line", "command:stdout:" + h.dir,
		"orcr::loop.fired", "orcr::loop_run.started", "orcr::loop_run.ended"} {
		if !strings.Contains(joined, want) {
			t.Errorf("loop logs lack %q:\n%s", want, joined)
		}
	}
	out, err := c.LoopLogs(ctx, api.LoopLogsRequest{Name: "once", Source: "command", Tail: ptr(1)})
	if err != nil || len(out.Lines) != 1 || out.Lines[0].Source != "command" {
		t.Errorf("tail 1 of the command lines: %+v %v", out.Lines, err)
	}
}

func ptr[T any](v T) *T { return &v }

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// forgeOnStoppedServer applies op to h's store while no server runs (a crash or a
// state forged for a recovery test), then starts the server again.
func forgeOnStoppedServer(t *testing.T, h *home, op store.Op) {
	t.Helper()
	db, err := store.Open(filepath.Join(h.dir, "orcr.db"))
	if err != nil {
		t.Fatal(err)
	}
	res, _, err := db.Apply([]store.Op{op})
	if err == nil {
		err = res[0].Err
	}
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	if r := h.run("server", "start"); r.exit != 0 {
		t.Fatalf("restart: %d %s %s", r.exit, r.stdout, r.stderr)
	}
}

// A run's environment is exactly the spec's (docs/loops.md §6.4), an agent it starts by
// name lands under <loop>/<run_id>/, and a run that removes its own loop ends the loop
// removed_by_run and itself ok.
func TestRunEnvironmentAgentsAndSelfRemoval(t *testing.T) {
	t.Parallel()
	h, c := loopHome(t)
	ctx := context.Background()
	script := `env > "$ORCR_LOOP_DATA_DIR/env.$ORCR_ID" &&
orcr agent run --name helper -a mock -p "say=from-run" --json > /dev/null &&
orcr agent wait helper --timeout 30s > /dev/null &&
orcr loop rm "${ORCR_PATH%%/*}"`
	if _, err := c.LoopCreate(ctx, api.LoopCreateRequest{Name: "selfrm", Cron: "0 0 1 1 *", Cwd: h.dir,
		Command: []string{"sh", "-c", script}}); err != nil {
		t.Fatal(err)
	}
	// The outer environment of a run never leaks an agent identity into it.
	start, err := c.LoopRunStart(ctx, "selfrm")
	if err != nil {
		t.Fatal(err)
	}
	if start.Run.Kind != "manual" || start.Run.Loop != "selfrm" || start.Run.Path != "selfrm/"+start.Run.RunID {
		t.Errorf("run start %+v", start.Run)
	}
	run := waitRunEnded(t, c, "selfrm", start.Run.RunID)
	if run.Status != "ok" {
		t.Errorf("run %+v (logs: %s)", run, h.run("loop", "logs", "selfrm").stdout)
	}
	env, err := os.ReadFile(filepath.Join(h.dir, "data", "selfrm", "env."+start.Run.UUID))
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{}
	for _, l := range strings.Split(string(env), "\n") {
		if k, v, ok := strings.Cut(l, "="); ok && strings.HasPrefix(k, "ORCR_") {
			vars[k] = v
		}
	}
	want := map[string]string{"ORCR_ID": start.Run.UUID, "ORCR_PATH": "selfrm/" + start.Run.RunID,
		"ORCR_LOOP_DATA_DIR": filepath.Join(h.dir, "data", "selfrm"), "ORCR_HOME": h.dir, "ORCR_HERDR_SESSION": "orcr"}
	for k, v := range want {
		if vars[k] != v {
			t.Errorf("%s=%q, want %q", k, vars[k], v)
		}
	}
	for _, k := range []string{"ORCR_AGENT_DATA_DIR", "ORCR_PARENT_ID", "ORCR_PARENT_PATH", "ORCR_LAUNCH_TOKEN"} {
		if _, ok := vars[k]; ok {
			t.Errorf("%s is set in a run's environment", k)
		}
	}
	agent := lsAll(t, c, "selfrm/"+start.Run.RunID+"/helper")
	if deref(agent.ParentID) != start.Run.UUID {
		t.Errorf("the run's agent %+v is not parented to the run", agent)
	}
	ls, err := c.LoopLs(ctx, api.LoopLsRequest{Names: []string{"selfrm"}})
	if err != nil || len(ls.Loops) != 1 || ls.Loops[0].Status != "ended" || deref(ls.Loops[0].EndedReason) != "removed_by_run" {
		t.Errorf("loop after the run removed it: %+v %v", ls.Loops, err)
	}
}

// docs/loops.md §7: a stop TERMs the group, waits the grace, KILLs a command that ignores
// TERM, and kills every agent under the run.
func TestRunStopKillsTheGroupAndItsAgents(t *testing.T) {
	t.Parallel()
	h, c := loopHome(t)
	ctx := context.Background()
	script := `orcr agent run --name worker -a mock -p "say=busy turn_ms=600000" --json > /dev/null
trap "" TERM
echo ready
while true; do sleep 1; done`
	if _, err := c.LoopCreate(ctx, api.LoopCreateRequest{Name: "stubborn", Cron: "0 0 1 1 *", Cwd: h.dir,
		Command: []string{"sh", "-c", script}}); err != nil {
		t.Fatal(err)
	}
	start, err := c.LoopRunStart(ctx, "stubborn")
	if err != nil {
		t.Fatal(err)
	}
	agentPath := "stubborn/" + start.Run.RunID + "/worker"
	poll.Eventually(t, 30*time.Second, "the run's agent is working", func() bool {
		res, err := c.Ls(ctx, api.LsRequest{Pattern: "/" + agentPath})
		return err == nil && len(res.Agents) == 1 && res.Agents[0].Status == api.StatusWorking
	})
	pgid := runPGID(t, c, "stubborn", start.Run.UUID)
	type stopped struct {
		res api.LoopRunStopResult
		err error
	}
	done := make(chan stopped, 1)
	go func() {
		res, err := c.LoopRunStop(ctx, api.LoopRunStopRequest{Name: "stubborn", Run: start.Run.RunID})
		done <- stopped{res, err}
	}()
	// While the run stops (its command ignores TERM, so the whole grace passes), nothing
	// new may start under it.
	poll.Eventually(t, 10*time.Second, "the run is stopping", func() bool {
		for _, r := range runsOf(t, c, "stubborn") {
			if r.UUID == start.Run.UUID {
				return r.Status == "stopping"
			}
		}
		return false
	})
	_, err = c.Run(ctx, api.RunRequest{Name: "during", Agent: "mock",
		Caller: api.Caller{CallerID: start.Run.UUID, CallerPath: "stubborn/" + start.Run.RunID}})
	if e, ok := err.(*api.Error); !ok || e.Code != api.CodeStateConflict || e.Details["reason"] != "run_stopping" {
		t.Errorf("an agent run under a stopping run: %v, want state_conflict run_stopping", err)
	}
	// A second stop of the same run joins the first: one TERM, one KILL, one end.
	second, err := c.LoopRunStop(ctx, api.LoopRunStopRequest{Name: "stubborn", Run: start.Run.RunID})
	if err != nil || len(second.Stopped) != 1 || second.Stopped[0].Status != "stopped" {
		t.Errorf("a second stop: %+v %v", second, err)
	}
	got := <-done
	res := got.res
	if got.err != nil || len(res.Stopped) != 1 || res.Stopped[0].Status != "stopped" {
		t.Fatalf("stop: %+v %v", res, got.err)
	}
	logs, err := c.LoopLogs(ctx, api.LoopLogsRequest{Name: "stubborn", Run: start.Run.RunID, Source: "orcr"})
	if err != nil {
		t.Fatal(err)
	}
	signals, ends := 0, 0
	for _, l := range logs.Lines {
		signals += b2i(strings.HasPrefix(l.Text, "loop_run.signal_requested"))
		ends += b2i(strings.HasPrefix(l.Text, "loop_run.ended"))
	}
	if signals != 2 || ends != 1 {
		t.Errorf("%d signals and %d ends for one stopped run, want 2 (TERM, KILL) and 1", signals, ends)
	}
	// KILLed processes may be reaped a moment after the stop returns (zombies still
	// answer kill(0)); a group that was never KILLed never goes.
	poll.Eventually(t, 5*time.Second, "the run's process group gone", func() bool { return syscall.Kill(-int(pgid), 0) != nil })
	if a := lsAll(t, c, agentPath); a.Status != api.StatusEnded {
		t.Errorf("the run's agent after the stop: %+v", a)
	}
	if _, err := c.Run(ctx, api.RunRequest{Name: "late", Agent: "mock",
		Caller: api.Caller{CallerID: start.Run.UUID, CallerPath: "stubborn/" + start.Run.RunID}}); err == nil {
		t.Error("an agent was created under a stopped run")
	}
}

// docs/loops.md §9.1: a run outlives a `kill -9` of the server; the next server adopts
// it by pid and start time and records its real exit status when it ends.
func TestRunSurvivesAServerCrash(t *testing.T) {
	t.Parallel()
	h, c := loopHome(t)
	ctx := context.Background()
	marker := filepath.Join(h.dir, "go-on")
	script := `echo started; while [ ! -e "` + marker + `" ]; do sleep 0.1; done; echo finished; exit 7`
	if _, err := c.LoopCreate(ctx, api.LoopCreateRequest{Name: "survivor", Cron: "0 0 1 1 *", Cwd: h.dir,
		Command: []string{"sh", "-c", script}}); err != nil {
		t.Fatal(err)
	}
	start, err := c.LoopRunStart(ctx, "survivor")
	if err != nil {
		t.Fatal(err)
	}
	poll.Eventually(t, 10*time.Second, "the run started", func() bool {
		for _, r := range runsOf(t, c, "survivor") {
			if r.UUID == start.Run.UUID && r.PID != nil {
				return true
			}
		}
		return false
	})
	for pid := range h.serverPIDs() {
		syscall.Kill(pid, syscall.SIGKILL)
		waitGone(t, pid)
	}
	if r := h.run("server", "start"); r.exit != 0 {
		t.Fatalf("restart: %d %s", r.exit, r.stderr)
	}
	if st := runsOf(t, c, "survivor")[0]; st.Status != "running" {
		t.Fatalf("the run after the restart: %+v", st)
	}
	if err := os.WriteFile(marker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	run := waitRunEnded(t, c, "survivor", start.Run.RunID)
	if run.Status != "failed" || run.ExitCode == nil || *run.ExitCode != 7 {
		t.Errorf("the adopted run's end: %+v", run)
	}
	logs, _ := c.LoopLogs(ctx, api.LoopLogsRequest{Name: "survivor", Source: "command"})
	var texts []string
	for _, l := range logs.Lines {
		texts = append(texts, l.Text)
	}
	if got := strings.Join(texts, ","); got != "started,finished" {
		t.Errorf("the run's output across the crash: %q", got)
	}
}

// A loop-until-done workflow (issue 11, acceptance 6): each run takes one item off a
// queue file and asks for the next run; the run that finds the queue empty removes its
// loop.
func TestLoopUntilDone(t *testing.T) {
	h, c := loopHome(t)
	ctx := context.Background()
	queue := filepath.Join(h.dir, "queue.txt")
	done := filepath.Join(h.dir, "done.txt")
	if err := os.WriteFile(queue, []byte("a\nb\nc\nd\ne\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	script := `loop="${ORCR_PATH%%/*}"
item=$(head -n 1 "` + queue + `")
if [ -z "$item" ]; then orcr loop rm "$loop" > /dev/null; exit 0; fi
echo "$item" >> "` + done + `"
tail -n +2 "` + queue + `" > "` + queue + `.tmp" && mv "` + queue + `.tmp" "` + queue + `"
orcr loop run start "$loop" > /dev/null`
	if _, err := c.LoopCreate(ctx, api.LoopCreateRequest{Name: "drain", Cron: "0 0 1 1 *", Cwd: h.dir,
		Command: []string{"sh", "-c", script}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.LoopRunStart(ctx, "drain"); err != nil {
		t.Fatal(err)
	}
	poll.Eventually(t, 60*time.Second, "the loop removed itself", func() bool {
		ls, err := c.LoopLs(ctx, api.LoopLsRequest{Names: []string{"drain"}})
		return err == nil && len(ls.Loops) == 1 && ls.Loops[0].Status == "ended" && deref(ls.Loops[0].EndedReason) == "removed_by_run"
	})
	got, _ := os.ReadFile(done)
	if string(got) != "a\nb\nc\nd\ne\n" {
		t.Errorf("processed %q", got)
	}
	// The run that removed the loop finishes right after.
	var runs []api.RunRow
	poll.Eventually(t, 10*time.Second, "every run ended", func() bool {
		runs = runsOf(t, c, "drain")
		for _, r := range runs {
			if r.EndedAt == nil {
				return false
			}
		}
		return true
	})
	if len(runs) != 6 {
		t.Errorf("%d runs, want 6 (five items and the one that found the queue empty)", len(runs))
	}
	for _, r := range runs {
		if r.Status != "ok" {
			t.Errorf("run %+v", r)
		}
	}
}

// A run past its --timeout is stopped and ends timeout (docs/loops.md §6.1, §7).
func TestRunTimeout(t *testing.T) {
	t.Parallel()
	h, c := loopHome(t)
	ctx := context.Background()
	if _, err := c.LoopCreate(ctx, api.LoopCreateRequest{Name: "slow", Cron: "0 0 1 1 *", Cwd: h.dir, Timeout: "1s",
		Command: []string{"sleep", "30"}}); err != nil {
		t.Fatal(err)
	}
	start, err := c.LoopRunStart(ctx, "slow")
	if err != nil {
		t.Fatal(err)
	}
	run := waitRunEnded(t, c, "slow", start.Run.RunID)
	if run.Status != "timeout" || run.PGID == nil {
		t.Fatalf("run %+v", run)
	}
	poll.Eventually(t, 5*time.Second, "the timed-out run's group gone", func() bool { return syscall.Kill(-int(*run.PGID), 0) != nil })
}

// A recorded pid whose process start time no longer matches is another process (pids are
// reused): recovery closes the run without ever signalling that pid (docs/loops.md §7,
// §9.1). The mismatch is forged on a stopped server.
func TestRecoveryNeverSignalsAReusedPid(t *testing.T) {
	h, c := loopHome(t)
	ctx := context.Background()
	if _, err := c.LoopCreate(ctx, api.LoopCreateRequest{Name: "reuse", Cron: "0 0 1 1 *", Cwd: h.dir,
		Command: []string{"sleep", "60"}}); err != nil {
		t.Fatal(err)
	}
	start, err := c.LoopRunStart(ctx, "reuse")
	if err != nil {
		t.Fatal(err)
	}
	var pid int64
	poll.Eventually(t, 10*time.Second, "the run started", func() bool {
		for _, r := range runsOf(t, c, "reuse") {
			if r.UUID == start.Run.UUID && r.PID != nil {
				pid = *r.PID
			}
		}
		return pid != 0
	})
	defer syscall.Kill(-int(pid), syscall.SIGKILL)
	if r := h.run("server", "stop"); r.exit != 0 {
		t.Fatalf("server stop: %d %s", r.exit, r.stderr)
	}
	forgeOnStoppedServer(t, h, func(tx *store.Tx) (any, error) {
		return tx.Exec(`UPDATE loop_runs SET pgid_start_time = pgid_start_time + 12345 WHERE uuid = ?`, start.Run.UUID)
	})
	run := waitRunEnded(t, c, "reuse", start.Run.RunID)
	if run.Status != "failed" {
		t.Errorf("the run whose pid was reused: %+v", run)
	}
	if err := syscall.Kill(int(pid), 0); err != nil {
		t.Errorf("the process at the reused pid was signalled: %v", err)
	}
}

// A fire that passed while no server ran is logged once as missed_while_down and never
// replayed: a once loop ends without running (docs/loops.md §9.1 step 4). The passed
// fire is forged on a stopped server.
func TestMissedWhileDownIsSkipped(t *testing.T) {
	h, c := loopHome(t)
	ctx := context.Background()
	res, err := c.LoopCreate(ctx, api.LoopCreateRequest{Name: "missed", OnceAt: "1h", Cwd: h.dir,
		Command: []string{"true"}})
	if err != nil {
		t.Fatal(err)
	}
	if r := h.run("server", "stop"); r.exit != 0 {
		t.Fatalf("server stop: %d %s", r.exit, r.stderr)
	}
	past := time.Now().Add(-10 * time.Minute).UnixMilli()
	forgeOnStoppedServer(t, h, func(tx *store.Tx) (any, error) {
		return tx.Exec(`UPDATE loops SET next_fire_at = ? WHERE uuid = ?`, past, res.Loop.UUID)
	})
	poll.Eventually(t, 10*time.Second, "the missed once loop ended", func() bool {
		ls, err := c.LoopLs(ctx, api.LoopLsRequest{Names: []string{"missed"}})
		return err == nil && len(ls.Loops) == 1 && ls.Loops[0].Status == "ended"
	})
	if runs := runsOf(t, c, "missed"); len(runs) != 0 {
		t.Errorf("a missed fire was replayed: %+v", runs)
	}
	logs, err := c.LoopLogs(ctx, api.LoopLogsRequest{Name: "missed", Source: "orcr"})
	if err != nil {
		t.Fatal(err)
	}
	skipped := 0
	for _, l := range logs.Lines {
		if strings.HasPrefix(l.Text, "loop.skipped") && strings.Contains(l.Text, "missed_while_down") {
			skipped++
		}
	}
	if skipped != 1 {
		t.Errorf("%d missed_while_down skips, want 1: %+v", skipped, logs.Lines)
	}
}

// Issue 32: a fire due while a fresh server is still recovering belongs to that server
// and fires; only one due before the server started was missed while down (docs/loops.md
// §5.3, §9.1). The loop's recovery waits for its runs' clean-up: a run a crash left dead
// has an agent under it whose kill takes the mock's 5 s shutdown grace, the mock taking
// a minute to quit (ORCR_MOCK_QUIT_DELAY_MS; a kill's grace ends when the provider
// exits). The once loop's instant, forged on the stopped server, falls 3 s after the
// restart, inside that clean-up — the minute boundary of the crash campaign, without
// waiting for one.
func TestFireDueWhileRecoveringRuns(t *testing.T) {
	t.Parallel()
	h, _ := herdrHome(t, `{"timings": {"gc_tick": "200ms", "loop_tick": "100ms", "run_term_grace": "2s"},
 "integrations": {"mock": {"shutdown_grace_ms": 5000}}}`)
	h.env = append(h.env, "PATH="+bins.dir+":"+os.Getenv("PATH"), "ORCR_MOCK_QUIT_DELAY_MS=60000")
	if r := h.run("server", "start"); r.exit != 0 {
		t.Fatalf("server start: %d %s %s", r.exit, r.stdout, r.stderr)
	}
	c := &socketapi.Client{Socket: filepath.Join(h.dir, "orcr.sock"), Timeout: 60 * time.Second}
	ctx := context.Background()
	marker := filepath.Join(h.dir, "first-run")
	script := `if [ -e "` + marker + `" ]; then echo fired; exit 0; fi
touch "` + marker + `"
orcr agent run --name held -a mock -p "say=hi" --json > /dev/null
exec sleep 600`
	loop, err := c.LoopCreate(ctx, api.LoopCreateRequest{Name: "boundary", OnceAt: "1h", Cwd: h.dir,
		Command: []string{"sh", "-c", script}})
	if err != nil {
		t.Fatal(err)
	}
	start, err := c.LoopRunStart(ctx, "boundary")
	if err != nil {
		t.Fatal(err)
	}
	agentPath := "boundary/" + start.Run.RunID + "/held"
	poll.Eventually(t, 30*time.Second, "the run's agent is idle", func() bool {
		res, err := c.Ls(ctx, api.LsRequest{Pattern: "/" + agentPath})
		return err == nil && len(res.Agents) == 1 && res.Agents[0].Status == api.StatusIdle
	})
	pgid := runPGID(t, c, "boundary", start.Run.UUID)
	// The crash: the server first, then the run (so no server sees it end).
	for pid := range h.serverPIDs() {
		syscall.Kill(pid, syscall.SIGKILL)
		waitGone(t, pid)
	}
	syscall.Kill(-int(pgid), syscall.SIGKILL)
	poll.Eventually(t, 5*time.Second, "the run's process group gone", func() bool { return syscall.Kill(-int(pgid), 0) != nil })
	due := time.Now().Add(3 * time.Second)
	forgeOnStoppedServer(t, h, func(tx *store.Tx) (any, error) {
		return tx.Exec(`UPDATE loops SET next_fire_at = ? WHERE uuid = ?`, due.UnixMilli(), loop.Loop.UUID)
	})
	st, err := c.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if started := time.Now().Add(-time.Duration(st.UptimeMS) * time.Millisecond); !started.Before(due) {
		t.Fatalf("the server started at %v, not before the forged instant %v: the restart took over 3 s", started, due)
	}
	var runs []api.RunRow
	poll.Eventually(t, 30*time.Second, "the once loop ended", func() bool {
		ls, err := c.LoopLs(ctx, api.LoopLsRequest{Names: []string{"boundary"}})
		runs = runsOf(t, c, "boundary")
		return err == nil && len(ls.Loops) == 1 && ls.Loops[0].Status == "ended"
	})
	// The clean-up did hold the loop's recovery past the instant.
	if a := lsAll(t, c, agentPath); a.EndedAt == nil || *a.EndedAt < due.UnixMilli() {
		ended := "never"
		if a.EndedAt != nil {
			ended = fmt.Sprint(*a.EndedAt)
		}
		t.Fatalf("the dead run's agent ended at %s, before the due instant %d: the scenario did not happen", ended, due.UnixMilli())
	}
	var scheduled *api.RunRow
	for i, r := range runs {
		if r.Kind == "scheduled" {
			scheduled = &runs[i]
		}
	}
	logs, err := c.LoopLogs(ctx, api.LoopLogsRequest{Name: "boundary", Source: "orcr"})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range logs.Lines {
		if strings.HasPrefix(l.Text, "loop.skipped") {
			t.Errorf("the fire due while the server recovered was skipped: %s", l.Text)
		}
	}
	if scheduled == nil {
		t.Fatalf("no scheduled run for the fire due while the server recovered: %+v", runs)
	}
	if scheduled.DueAt == nil || *scheduled.DueAt != due.UnixMilli() {
		t.Errorf("the scheduled run's due_at %v, want %d", scheduled.DueAt, due.UnixMilli())
	}
	if run := waitRunEnded(t, c, "boundary", scheduled.RunID); run.Status != "ok" {
		t.Errorf("the scheduled run: %+v", run)
	}
}

// Issue 33 #7 (docs/cli.md §5.9, §5.12, §5.16): loops can be inspected through the CLI.
// `loop run ls` shows finished runs by default under a header, newest --limit of them,
// and counts the agent a run created though it has ended; a --once-at loop shows its
// instant, not the text typed; a command given without "--" is told where it goes.
func TestLoopInspectionThroughTheCLI(t *testing.T) {
	t.Parallel()
	h, c := loopHome(t)
	r := h.run("loop", "create", "x", "* * * * *", "true")
	if r.exit != 1 || !strings.Contains(r.stderr, "after --") {
		t.Errorf("loop create without --: %d %q", r.exit, r.stderr)
	}
	if r := h.run("loop", "create", "asker", "0 0 1 1 *", "--", "orcr", "agent", "ask", "--name", "helper", "-a", "mock",
		"-p", "say=from-run", "--timeout", "30s"); r.exit != 0 {
		t.Fatalf("loop create: %d %s %s", r.exit, r.stdout, r.stderr)
	}
	var ids []string
	for range 2 {
		start, err := c.LoopRunStart(context.Background(), "asker")
		if err != nil {
			t.Fatal(err)
		}
		if run := waitRunEnded(t, c, "asker", start.Run.RunID); run.Status != "ok" {
			t.Fatalf("run %+v (logs: %s)", run, h.run("loop", "logs", "asker").stdout)
		}
		ids = append(ids, start.Run.RunID)
	}
	// The count covers ended agents: the runs' helpers end (gc immediate) after answering.
	poll.Eventually(t, 20*time.Second, "the runs' agents ended", func() bool {
		return lsAll(t, c, "asker/"+ids[0]+"/helper").Status == api.StatusEnded &&
			lsAll(t, c, "asker/"+ids[1]+"/helper").Status == api.StatusEnded
	})
	ls := h.run("loop", "run", "ls", "asker")
	lines := strings.Split(strings.TrimSpace(ls.stdout), "\n")
	if ls.exit != 0 || len(lines) != 3 || strings.Join(strings.Fields(lines[0]), " ") != "RUN STATUS KIND AGENTS STARTED ENDED" {
		t.Fatalf("loop run ls: %d %q %q", ls.exit, ls.stdout, ls.stderr)
	}
	for i, id := range ids {
		if f := strings.Fields(lines[i+1]); len(f) != 6 || f[0] != id || f[1] != "ok" || f[2] != "manual" || f[3] != "1" || f[5] == "-" {
			t.Errorf("run line %q, want %s ok manual with 1 agent and an end", lines[i+1], id)
		}
	}
	one := h.run("loop", "run", "ls", "asker", "--limit", "1")
	if lines := strings.Split(strings.TrimSpace(one.stdout), "\n"); len(lines) != 2 || !strings.HasPrefix(lines[1], ids[1]) ||
		!strings.Contains(one.stderr, "1 older run(s) not shown") {
		t.Errorf("loop run ls --limit 1: %q %q", one.stdout, one.stderr)
	}
	if all := h.run("loop", "run", "ls", "asker", "--all", "--limit", "1"); strings.Count(all.stdout, "\n") != 3 {
		t.Errorf("loop run ls --all: %q", all.stdout)
	}

	created := h.run("loop", "create", "later", "--once-at", "1h", "--", "true")
	if created.exit != 0 || strings.Contains(created.stdout, "once at 1h") || !strings.Contains(created.stdout, "once at "+time.Now().Add(time.Hour).Format("Mon 2006-01-02")) {
		t.Errorf("loop create --once-at 1h: %q %q", created.stdout, created.stderr)
	}
	lsLoops := h.run("loop", "ls", "later")
	if f := strings.Fields(lsLoops.stdout); len(f) < 3 || !strings.HasPrefix(f[2], "once@") || f[2][len("once@"):] != strings.TrimPrefix(f[3], "next=") {
		t.Errorf("loop ls of a once loop: %q", lsLoops.stdout)
	}
}
