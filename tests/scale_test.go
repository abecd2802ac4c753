package tests

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/orcr-go/orcr/herdr"
	"github.com/orcr-go/orcr/herdr/herdrtest"
	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/sockettest"
	"github.com/orcr-go/orcr/tests/poll"
)

// TestScale runs a fleet of N mock agents through the real binaries (orcr's server, the
// herdr stand-in, the mock agent) from spawn to forgotten, as a user at fleet scale
// would (issue 29): N agents spawned from one client, all idle; the server stopped and
// started again; one `orcr agent kill` of the whole fleet; the ended rows trimmed by
// retention (docs/lifecycle.md §12.4) to `retention.ended_max`, N/2. What it asserts is
// functional: every spawn accepted and idle, every agent found again by the restarted
// server, every agent killed and none of its processes left, the rows trimmed to the
// bound and counted in `server status`. What it measures (spawn and kill wall time,
// idle CPU against the no-agent baseline and the stand-in's floor of the same run,
// memory and fds of the server, of the stand-in and of each agent, and the same run's
// floors: N bare panes opened and closed directly on the stand-in, and N more running
// the mock through orcr's pane launcher) it only logs, as a
// table: speed is never asserted by a test. N is ORCR_TEST_SCALE_N, 60 by default so
// the suite stays cheap on 2 cores; `just scale N` runs it at any N, with windows at rest
// of 30 s (ORCR_TEST_SCALE_WINDOW).
func TestScale(t *testing.T) {
	t.Parallel()
	heavy(t)
	n := envInt(t, "ORCR_TEST_SCALE_N", 60)
	keep := max(n/2, 1)
	// Each idle CPU window: ORCR_TEST_SCALE_WINDOW seconds (3 by default; `just scale`
	// takes 30, so that each window holds many of the monitor's and the queue's slow
	// ticks and one of the 30 s GC and reconcile passes: a window of 3 s held one or two
	// of the monitor's 2 s polls, and its figure moved by half between runs).
	window := time.Duration(envInt(t, "ORCR_TEST_SCALE_WINDOW", 3)) * time.Second
	const settle = 3 * time.Second // past the monitor's linger (docs/lifecycle.md §10.2)
	h, sock := herdrHome(t, fmt.Sprintf(`{"concurrency": {"max": %d, "mock": %d}, "retention": {"ended_max": %d}}`, n+1, n+1, keep))
	xdg := strings.TrimSuffix(sock, "/herdr/sessions/orcr/herdr.sock")
	mockBin := filepath.Base(sockettest.BuildBinaries(t).MockAgent)

	// One throwaway agent starts the server and the stand-in's session; it is killed
	// before the baseline.
	runAgent(t, h, "-a", "mock", "--path", "warm")
	waitStatus(t, h, "warm", 1, "idle")
	if r := h.run("agent", "kill", "warm", "-y"); r.exit != 0 {
		t.Fatalf("kill warm: %+v", r)
	}
	poll.Eventually(t, 30*time.Second, "the warm agent's processes gone", func() bool { return len(paneProcs(xdg, mockBin, true)) == 0 })
	server0, herdr0 := idleCPU(t, h, xdg, settle, window)
	spid, hpid := serverPID(t, h), standinPID(xdg)
	rss0, fds0 := procRSS(spid), procFDs(spid)
	hrss0, hfds0 := procRSS(hpid), procFDs(hpid)

	// Spawn: N agent.run calls from one client, 16 in flight, until all are idle.
	c := &socketapi.Client{Socket: filepath.Join(h.dir, "orcr.sock"), Timeout: 2 * time.Minute}
	// Every pane up: the N-th agent.spawn_applied, seen by a subscriber (no polling),
	// the measure that compares with the floor's pane-up.
	panesUp := make(chan time.Time, 1)
	subCtx, stopSub := context.WithCancel(context.Background())
	defer stopSub()
	stream, err := c.Subscribe(subCtx, "events.subscribe", map[string]any{"since_seq": 0})
	if err != nil {
		t.Fatalf("events.subscribe: %v", err)
	}
	defer stream.Close()
	go func() {
		seen := 0
		for {
			f, err := stream.Next()
			if err != nil {
				return
			}
			var ev struct {
				Kind string `json:"kind"`
			}
			if json.Unmarshal(f.Event, &ev) == nil && ev.Kind == "agent.spawn_applied" {
				if seen++; seen == n+1 { // the warm agent's, then the fleet's
					panesUp <- time.Now()
					return
				}
			}
		}
	}()
	start := time.Now()
	var mu sync.Mutex
	var failed []string
	inFlight(n, 16, func(i int) {
		if _, err := c.Run(context.Background(), api.RunRequest{Path: scalePath(i), Agent: "mock"}); err != nil {
			mu.Lock()
			failed = append(failed, fmt.Sprintf("%s: %v", scalePath(i), err))
			mu.Unlock()
		}
	})
	if len(failed) > 0 {
		t.Fatalf("%d of %d spawns refused, first: %s", len(failed), n, failed[0])
	}
	waitStatus(t, h, "scale/**", n, "idle")
	spawned := time.Since(start)
	var paneUp time.Duration
	select {
	case at := <-panesUp:
		paneUp = at.Sub(start)
	case <-time.After(10 * time.Second):
		t.Fatalf("all %d agents idle, but the subscriber did not see %d agent.spawn_applied", n, n)
	}
	stopSub()
	// An agent is idle once its screen says so; its process is checked for apart.
	poll.Eventually(t, 30*time.Second, fmt.Sprintf("%d mock agent processes", n), func() bool { return len(paneProcs(xdg, mockBin, false)) == n },
		func() string { return "the stand-in's processes:\n" + procList(xdg) })

	// The stand-in probes a new pane's processes every 500 ms for its first seconds, as
	// herdr does: the window at rest starts once the last pane is past that, so that it
	// measures what orcr's polling costs herdr and not the panes' youth (the floor below
	// is read later still).
	settleN := max(settle, herdrtest.AcquisitionSpan+time.Second-time.Since(start.Add(spawned)))
	serverN, herdrN := idleCPU(t, h, xdg, settleN, window)
	if pid := serverPID(t, h); pid != spid {
		t.Fatalf("the server changed from pid %d to %d", spid, pid)
	}
	rssN, fdsN, hrssN, hfdsN := procRSS(spid), procFDs(spid), procRSS(hpid), procFDs(hpid)
	var agentsPSS, launchersPSS int64
	for _, pid := range paneProcs(xdg, mockBin, true) {
		if slices.Contains(paneProcs(xdg, mockBin, false), pid) {
			agentsPSS += procPSS(pid)
		} else {
			launchersPSS += procPSS(pid)
		}
	}

	// The stand-in's floor: the same panes with no server polling them. The next verb
	// starts the server again, which must find every agent as it was.
	if r := h.run("server", "stop", "--json"); r.exit != 0 {
		t.Fatalf("server stop: %+v", r)
	}
	_, herdrFloor := idleCPU(t, h, xdg, 0, window)
	waitStatus(t, h, "scale/**", n, "idle")

	// Bulk kill: one CLI call for the whole fleet.
	start = time.Now()
	r := h.run("agent", "kill", "scale/**", "-y", "--json")
	killed := time.Since(start)
	ok, res, e := r.envelope(t)
	if r.exit != 0 || !ok {
		t.Fatalf("agent kill 'scale/**': exit %d, %v (stderr %q)", r.exit, e, r.stderr)
	}
	refs, _ := res["killed"].([]any)
	if len(refs) != n || res["all_killed"] != true {
		t.Fatalf("agent kill 'scale/**': %d killed, all_killed %v, skipped %v; want %d", len(refs), res["all_killed"], res["skipped"], n)
	}
	poll.Eventually(t, 30*time.Second, "no agent process left", func() bool { return len(paneProcs(xdg, mockBin, true)) == 0 },
		func() string { return "the stand-in's processes:\n" + procList(xdg) })

	// Retention: the warm agent and the N killed ones are ended; the GC tick forgets all
	// but the newest keep (its default period is 30 s).
	ended := n + 1
	start = time.Now()
	var rows []cliRow
	poll.Eventually(t, 90*time.Second, fmt.Sprintf("ended rows trimmed to %d", keep), func() bool {
		rows = h.lsRows(t, "--all")
		return len(rows) == keep
	}, func() string { return fmt.Sprintf("%d rows", len(rows)) })
	trimmed := time.Since(start)
	for _, row := range rows {
		if !strings.HasPrefix(row.Path, "scale/") || row.Status != "ended" || row.ExitReason == nil || *row.ExitReason != "killed" {
			t.Errorf("a row kept after the trim: %+v, want one of the newest scale agents, ended killed", row)
		}
	}
	_, st, _ := h.jsonRun(t, "server.status", 0, "server", "status")
	ret, _ := st["retention"].(map[string]any)
	if got, _ := ret["trimmed_total"].(float64); int(got) != ended-keep {
		t.Errorf("server status retention %v: trimmed_total %v, want %d", ret, ret["trimmed_total"], ended-keep)
	}

	// The floors of the same run, with the fleet gone: N bare panes running the mock
	// itself, opened on the stand-in as orcr opens an agent's pane (layout.apply, 16 at
	// once, as the spawn above sent its runs) and closed directly (pane.close, 64 at
	// once, as many as a kill shuts down at once); then the same running it through
	// orcr's pane launcher, the process every orcr pane costs besides its provider.
	bare, launched := scaleFloors(t, sock, xdg, mockBin, n)

	ms := func(ns float64) string { return fmt.Sprintf("%.2f", ns/1e6) }
	ratio := func(a, b float64) string {
		if b == 0 {
			return "-"
		}
		return fmt.Sprintf("×%.2f", a/b)
	}
	kb := func(b int64) string { return fmt.Sprintf("%d KB", b/1024) }
	var tab bytes.Buffer
	w := tabwriter.NewWriter(&tab, 0, 0, 2, ' ', 0)
	fmt.Fprintf(w, "measure\t0 agents\t%d agents\tper agent / ratio\n", n)
	fmt.Fprintf(w, "spawn (first run → all idle)\t\t%s\t%s\n", spawned.Round(time.Millisecond), (spawned / time.Duration(n)).Round(time.Microsecond))
	fmt.Fprintf(w, "spawn (first run → every pane up)\t\t%s\t%s\n", paneUp.Round(time.Millisecond), (paneUp / time.Duration(n)).Round(time.Microsecond))
	fmt.Fprintf(w, "floor: N bare layout.apply (pane up)\t\t%s\t%s (orcr's spawn to every pane up); %s (to all idle)\n", bare.opened.Round(time.Millisecond),
		ratio(float64(paneUp), float64(bare.opened)), ratio(float64(spawned), float64(bare.opened)))
	fmt.Fprintf(w, "floor: the same through orcr's pane launcher\t\t%s\t%s (orcr's spawn to every pane up); %s of the bare floor\n", launched.opened.Round(time.Millisecond),
		ratio(float64(paneUp), float64(launched.opened)), ratio(float64(launched.opened), float64(bare.opened)))
	fmt.Fprintf(w, "server CPU at rest (ms/s)\t%s\t%s\t%s\n", ms(server0), ms(serverN), ratio(serverN, server0))
	fmt.Fprintf(w, "stand-in CPU at rest (ms/s)\t%s\t%s\t%s\n", ms(herdr0), ms(herdrN), ratio(herdrN, herdr0))
	fmt.Fprintf(w, "stand-in CPU, server stopped (its floor)\t\t%s\t%s of the floor\n", ms(herdrFloor), ratio(herdrN, herdrFloor))
	fmt.Fprintf(w, "server RSS\t%s\t%s\t%s\n", kb(rss0), kb(rssN), kb((rssN-rss0)/int64(n)))
	fmt.Fprintf(w, "server open fds\t%d\t%d\t%.2f\n", fds0, fdsN, float64(fdsN-fds0)/float64(n))
	fmt.Fprintf(w, "stand-in RSS\t%s\t%s\t%s\n", kb(hrss0), kb(hrssN), kb((hrssN-hrss0)/int64(n)))
	fmt.Fprintf(w, "stand-in open fds (a PTY per pane)\t%d\t%d\t%.2f\n", hfds0, hfdsN, float64(hfdsN-hfds0)/float64(n))
	fmt.Fprintf(w, "mock agents' PSS\t\t%s\t%s\n", kb(agentsPSS), kb(agentsPSS/int64(n)))
	fmt.Fprintf(w, "pane launchers' PSS (orcr __pane-exec)\t\t%s\t%s\n", kb(launchersPSS), kb(launchersPSS/int64(n)))
	fmt.Fprintf(w, "kill 'scale/**' (one CLI call)\t\t%s\t%s\n", killed.Round(time.Millisecond), (killed / time.Duration(n)).Round(time.Microsecond))
	fmt.Fprintf(w, "floor: closing N bare panes directly\t\t%s\t%s (orcr's kill)\n", bare.closed.Round(time.Millisecond), ratio(float64(killed), float64(bare.closed)))
	fmt.Fprintf(w, "floor: closing N launcher panes directly\t\t%s\t%s (orcr's kill); %s of the bare floor\n", launched.closed.Round(time.Millisecond),
		ratio(float64(killed), float64(launched.closed)), ratio(float64(launched.closed), float64(bare.closed)))
	fmt.Fprintf(w, "ended rows → kept (ended_max %d)\t\t%d → %d\ttrimmed in %s\n", keep, ended, len(rows), trimmed.Round(time.Second))
	w.Flush()
	t.Logf("scale summary, N = %d (idle windows of %s, after %s at rest, with N agents after %s):\n%s", n, window, settle, settleN.Round(time.Millisecond), tab.String())
}

func scalePath(i int) string { return fmt.Sprintf("scale/a%05d", i) }

// scaleFloors opens n bare panes running the mock agent on the stand-in at sock, 16
// layout.apply calls in flight, then closes them, 64 pane.close calls in flight, and
// returns how long each took; it waits for their processes to go. Then the same again
// with each mock run through orcr's pane launcher, as orcr's panes run their provider
// (docs/lifecycle.md §8.2): the launcher floor.
func scaleFloors(t *testing.T, sock, xdg, mockBin string, n int) (bare, launched floorTimes) {
	t.Helper()
	bins := sockettest.BuildBinaries(t)
	data := t.TempDir()
	bare = scaleFloor(t, sock, xdg, mockBin, "floor", n, func(i int) []string { return []string{bins.MockAgent} })
	launched = scaleFloor(t, sock, xdg, mockBin, "floorexec", n, func(i int) []string {
		return []string{bins.Orcr, "__pane-exec", "--status-file", filepath.Join(data, strconv.Itoa(i)+".json"), "--", bins.MockAgent}
	})
	return bare, launched
}

// floorTimes is one floor's time to open its n panes and to close them.
type floorTimes struct{ opened, closed time.Duration }

// scaleFloor opens n panes running argv(i) in a new workspace named name, 16 at a time,
// and closes them, 64 at a time.
func scaleFloor(t *testing.T, sock, xdg, mockBin, name string, n int, argv func(i int) []string) (ft floorTimes) {
	t.Helper()
	ctx := context.Background()
	remote := herdr.NewRemote(sock)
	ws, err := remote.WorkspaceCreate(ctx, name, "")
	if err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	panes := make([]string, n)
	start := time.Now()
	inFlight(n, 16, func(i int) {
		label := fmt.Sprintf("%s/p%05d", name, i)
		env := map[string]string{"ORCR_AGENT_DATA_DIR": filepath.Join(data, strconv.Itoa(i))}
		var err error
		if _, panes[i], err = remote.LayoutApply(ctx, ws.Workspace.WorkspaceID, label, argv(i), "", label, env); err != nil {
			t.Errorf("%s pane %d: %v", name, i, err)
		}
	})
	ft.opened = time.Since(start)
	if err := remote.Close(ctx, ws.RootPane.PaneID); err != nil {
		t.Errorf("closing the %s workspace's shell: %v", name, err)
	}
	start = time.Now()
	inFlight(n, 64, func(i int) {
		if err := remote.Close(ctx, panes[i]); err != nil {
			t.Errorf("%s pane %d: %v", name, i, err)
		}
	})
	ft.closed = time.Since(start)
	poll.Eventually(t, 30*time.Second, "the "+name+" panes' processes gone", func() bool { return len(paneProcs(xdg, mockBin, true)) == 0 },
		func() string { return "the stand-in's processes:\n" + procList(xdg) })
	return ft
}

// inFlight runs f(0) … f(n-1), width calls at a time, and returns when all are done.
func inFlight(n, width int, f func(i int)) {
	var wg sync.WaitGroup
	work := make(chan int)
	for range min(width, n) {
		wg.Go(func() {
			for i := range work {
				f(i)
			}
		})
	}
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
}

// serverPID is the pid of the home's one server.
func serverPID(t *testing.T, h *home) int {
	t.Helper()
	pids := h.serverPIDs()
	if len(pids) != 1 {
		t.Fatalf("%d servers for the home, want 1", len(pids))
	}
	for pid := range pids {
		return pid
	}
	return 0
}

// paneProcs lists the processes in the panes of the stand-in under xdg: the mock agents
// (mockBin) and, with launchers, also orcr's `__pane-exec` that runs each of them
// (docs/lifecycle.md §8.2).
func paneProcs(xdg, mockBin string, launchers bool) []int {
	var out []int
	for _, pid := range sockettest.ProcsWithEnv("XDG_CONFIG_HOME=" + xdg) {
		cmd, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err != nil {
			continue
		}
		argv := bytes.Split(cmd, []byte{0})
		if filepath.Base(string(argv[0])) == mockBin || launchers && len(argv) > 1 && string(argv[1]) == "__pane-exec" {
			out = append(out, pid)
		}
	}
	return out
}

// procRSS is pid's resident memory in bytes (VmRSS of /proc/<pid>/status; 0 when gone).
func procRSS(pid int) int64 { return statusKB(fmt.Sprintf("/proc/%d/status", pid), "VmRSS:") }

// statusKB is the "<key> <n> kB" line of a /proc file, in bytes (0 when missing).
func statusKB(path, key string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, key); ok {
			if f := strings.Fields(rest); len(f) > 0 {
				v, _ := strconv.ParseInt(f[0], 10, 64)
				return v * 1024
			}
		}
	}
	return 0
}

// procPSS is pid's proportional share of memory in bytes (Pss of
// /proc/<pid>/smaps_rollup: shared pages, such as the text of a binary many processes
// run, divided among them; 0 when gone).
func procPSS(pid int) int64 { return statusKB(fmt.Sprintf("/proc/%d/smaps_rollup", pid), "Pss:") }

// procFDs is the number of pid's open file descriptors.
func procFDs(pid int) int {
	ents, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	return len(ents)
}

// procList is the command lines of the processes in the stand-in's panes (a diagnosis).
func procList(xdg string) string {
	var b strings.Builder
	for _, pid := range sockettest.ProcsWithEnv("XDG_CONFIG_HOME=" + xdg) {
		cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		fmt.Fprintf(&b, "%d %s\n", pid, bytes.ReplaceAll(cmd, []byte{0}, []byte{' '}))
	}
	return b.String()
}
