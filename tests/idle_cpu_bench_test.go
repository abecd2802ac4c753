package tests

import (
	"bytes"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/orcr-go/orcr/tests/poll"
)

// BenchmarkIdleCPU measures what an idle fleet costs at rest (issue 29, goal 1), with
// the real binaries: orcr's server, the herdr stand-in and mock agents. In one home it
// measures the CPU a second of the server and of the stand-in over a window with no
// agent (the baseline), then with N idle mock agents (ORCR_BENCH_IDLE_N, default 100),
// then with the same N live agents after 10,000 ended rows were added to the store
// (written while the server is stopped, as if they had run and ended). It prints each as
// a ratio of the baseline, the ended rows' as a ratio of the same fleet without them, and
// `agent ls` of the live agents with and without the ended rows. The stand-in's floor is
// its CPU with the same N panes while the server is stopped. The window is
// ORCR_BENCH_IDLE_WINDOW (default 5s), taken after the monitor's linger
// (docs/lifecycle.md §10.2) so it measures the idle pace.
func BenchmarkIdleCPU(b *testing.B) {
	n := envInt(b, "ORCR_BENCH_IDLE_N", 100)
	window := 5 * time.Second
	if v := os.Getenv("ORCR_BENCH_IDLE_WINDOW"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			b.Fatalf("ORCR_BENCH_IDLE_WINDOW: %v", err)
		}
		window = d
	}
	for range b.N {
		// Retention keeps every ended row: its sweep is not what is measured.
		h, sock := herdrHome(b, fmt.Sprintf(`{"concurrency": {"max": %d, "mock": %d}, "retention": {"ended_max": 100000}}`, n+1, n+1))
		xdg := strings.TrimSuffix(sock, "/herdr/sessions/orcr/herdr.sock")
		// The stand-in's session starts with the first agent: one throwaway agent brings it
		// up, and is killed before the baseline.
		runAgent(b, h, "-a", "mock", "--path", "warm")
		waitStatus(b, h, "warm", 1, "idle")
		if r := h.run("agent", "kill", "warm", "-y"); r.exit != 0 {
			b.Fatalf("kill warm: %+v", r)
		}
		settle := 3 * time.Second // past MonitorLinger: the window sees the idle pace
		server, herdr := idleCPU(b, h, xdg, settle, window)

		for i := range n {
			runAgent(b, h, "-a", "mock", "--path", fmt.Sprintf("rest/a%d", i))
		}
		waitStatus(b, h, "rest/**", n, "idle")
		serverN, herdrN := idleCPU(b, h, xdg, settle, window)
		lsN := timeLs(h, "rest/**")

		if r := h.run("server", "stop", "--json"); r.exit != 0 {
			b.Fatalf("server stop: %+v", r)
		}
		_, herdrFloor := idleCPU(b, h, xdg, 0, window) // the same panes, no orcr polling them
		addEnded(b, h, 10_000)
		waitStatus(b, h, "rest/**", n, "idle") // the next verb starts the server again
		serverE, herdrE := idleCPU(b, h, xdg, settle, window)
		lsE := timeLs(h, "rest/**")

		ms := func(ns float64) float64 { return ns / 1e6 }
		b.ReportMetric(ms(server), "server-idle0-ms/s")
		b.ReportMetric(ms(serverN), "server-idleN-ms/s")
		b.ReportMetric(ms(serverE), "server-idleN+ended-ms/s")
		b.ReportMetric(ms(herdrN), "standin-idleN-ms/s")
		b.Logf("server CPU at rest: %.2f ms/s with no agent; %.2f ms/s with %d idle agents = x%.2f; with 10,000 ended rows too %.2f ms/s = x%.2f of the same fleet without them",
			ms(server), ms(serverN), n, serverN/server, ms(serverE), serverE/serverN)
		b.Logf("stand-in CPU at rest: %.2f ms/s with no agent; with %d idle agents %.2f ms/s while the server is stopped (its floor), %.2f ms/s with the server = x%.2f of its floor; with the ended rows %.2f ms/s",
			ms(herdr), n, ms(herdrFloor), ms(herdrN), herdrN/herdrFloor, ms(herdrE))
		b.Logf("agent ls of the %d live agents: %s; with 10,000 ended rows %s = x%.2f", n, lsN, lsE, float64(lsE)/float64(lsN))
	}
}

// waitStatus waits until `agent ls pattern` lists want rows, all in status.
func waitStatus(tb testing.TB, h *home, pattern string, want int, status string) {
	tb.Helper()
	var rows []cliRow
	poll.Eventually(tb, time.Duration(want)*time.Second+60*time.Second, fmt.Sprintf("%d agents %s", want, status), func() bool {
		rows = h.lsRows(tb, pattern)
		if len(rows) != want {
			return false
		}
		for _, r := range rows {
			if r.Status != status {
				return false
			}
		}
		return true
	}, func() string { return fmt.Sprintf("%d rows: %+v", len(rows), rows[:min(len(rows), 5)]) })
}

// idleCPU waits settle, then returns the CPU a second (in ns) the home's server (0 when
// none runs) and its stand-in session spent over window.
func idleCPU(tb testing.TB, h *home, xdg string, settle, window time.Duration) (server, herdr float64) {
	tb.Helper()
	time.Sleep(settle) // the measurement is of time passing at rest; nothing to poll for
	var spid int
	for pid := range h.serverPIDs() {
		spid = pid
	}
	hpid := standinPID(xdg)
	if hpid == 0 {
		tb.Fatal("the stand-in's session is not running")
	}
	s0, h0, t0 := cpuNS(spid), cpuNS(hpid), time.Now()
	time.Sleep(window)
	s1, h1, el := cpuNS(spid), cpuNS(hpid), time.Since(t0).Seconds()
	return float64(s1-s0) / el, float64(h1-h0) / el
}

// cpuNS is the CPU time of all of pid's threads in ns (0 for pid 0) (/proc/<pid>/task/*/schedstat,
// whose first field is the time on a CPU: nanoseconds, where /proc/<pid>/stat counts
// 10 ms ticks).
func cpuNS(pid int) int64 {
	if pid == 0 {
		return 0
	}
	tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	var sum int64
	for _, t := range tasks {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/schedstat", pid, t.Name()))
		if err != nil {
			continue
		}
		f := strings.Fields(string(b))
		if len(f) > 0 {
			n, _ := strconv.ParseInt(f[0], 10, 64)
			sum += n
		}
	}
	return sum
}

// standinPID finds the stand-in's session server of the config dir under xdg.
func standinPID(xdg string) int {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmd, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !bytes.Contains(cmd, []byte("herdr-standin")) || !bytes.Contains(cmd, []byte("\x00server")) {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err == nil && bytes.Contains(append(env, 0), []byte("XDG_CONFIG_HOME="+xdg+"\x00")) {
			return pid
		}
	}
	return 0
}

// timeLs is the best of five `agent ls pattern` runs.
func timeLs(h *home, pattern string) time.Duration {
	best := time.Duration(0)
	for range 5 {
		start := time.Now()
		h.run("agent", "ls", pattern, "--json")
		if d := time.Since(start); best == 0 || d < best {
			best = d
		}
	}
	return best
}

// addEnded writes count ended rows into the stopped server's store, copies of a live
// row under their own uuids and paths (ended/e<i>), with no pane.
func addEnded(tb testing.TB, h *home, count int) {
	tb.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(h.dir, "orcr.db")+"?_pragma=busy_timeout(5000)")
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT name FROM pragma_table_info('agents')`)
	if err != nil {
		tb.Fatal(err)
	}
	var cols []string
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			tb.Fatal(err)
		}
		cols = append(cols, c)
	}
	rows.Close()
	set := map[string]string{"uuid": "printf('ended-%08d', n.i)", "path": "printf('ended/e%d', n.i)", "status": "'ended'",
		"ended_at": "a.created_at + n.i", "pane_id": "NULL", "terminal_id": "NULL", "deadline_at": "NULL"}
	sel := make([]string, len(cols))
	for i, c := range cols {
		sel[i] = "a." + c
		if v, ok := set[c]; ok {
			sel[i] = v
		}
	}
	q := fmt.Sprintf(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < %d)
		INSERT INTO agents (%s) SELECT %s FROM n, (SELECT * FROM agents WHERE path LIKE 'rest/%%' LIMIT 1) a`,
		count, strings.Join(cols, ", "), strings.Join(sel, ", "))
	if _, err := db.Exec(q); err != nil {
		tb.Fatalf("insert ended rows: %v", err)
	}
}
