// Package tests holds orcr's end-to-end suites: they build the real binaries, run the
// real CLI against real servers in throwaway homes, and check what a user relies on.
//
// Every test that takes more than a second calls t.Parallel: they spend most of their
// time waiting (a turn's completion windows, a TUI booting, a loop's tick, a server
// restarting), well under half of one core each, so testParallel of them run at once.
// A parallel test must keep to its own home, herdr config dir and tmux socket, find
// processes by its own home or socket only, and not use t.Setenv.
package tests

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/orcr-go/orcr/socketapi/sockettest"
	"go.uber.org/goleak"
)

// bins holds the binaries built once for the whole package.
var bins struct {
	dir  string
	orcr string
}

// heavySlots bounds the tests that run real agent CLIs (node programs that take most of
// a core while they boot and draw) to two at a time, whatever testParallel allows.
var heavySlots = make(chan struct{}, 2)

// heavy takes one of heavySlots for the rest of t; call it right after t.Parallel.
func heavy(t *testing.T) {
	t.Helper()
	heavySlots <- struct{}{}
	t.Cleanup(func() { <-heavySlots })
}

// testParallel is how many tests of this package run at once unless -parallel says
// otherwise (sockettest.DefaultParallel).
const testParallel = "4"

func TestMain(m *testing.M) {
	sockettest.DefaultParallel(testParallel)
	dir, err := os.MkdirTemp("", "ob")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bins.dir = dir
	bins.orcr = filepath.Join(dir, "orcr")
	build := exec.Command("go", "build", "-o", dir+"/", "../cmd/orcr")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building binaries:", err)
		os.Exit(1)
	}
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		os.RemoveAll(dir)
		sockettest.RemoveBinaries()
		os.Exit(code)
	}))
}

// home is a throwaway orcr home for one test, with a server that is stopped (or
// killed) at cleanup.
type home struct {
	t    testing.TB
	dir  string
	env  []string
	pids map[int]bool
}

func newHome(t testing.TB, extraEnv ...string) *home {
	t.Helper()
	base, err := os.MkdirTemp("", "oe")
	if err != nil {
		t.Fatal(err)
	}
	h := &home{t: t, dir: filepath.Join(base, "h"), pids: map[int]bool{}}
	h.env = append(os.Environ(), "ORCR_HOME="+h.dir, "ORCR_DEBUG_METHODS=1")
	h.env = append(h.env, extraEnv...)
	t.Cleanup(func() {
		h.run("server", "stop", "--json")
		for pid := range h.serverPIDs() {
			h.pids[pid] = true
		}
		for pid := range h.pids {
			if !waitGone(t, pid) {
				logTail(t, filepath.Join(h.dir, "logs", "server.log"), 60)
			}
		}
		os.RemoveAll(base)
	})
	return h
}

// result is one CLI run.
type result struct {
	exit   int
	stdout string
	stderr string
}

// envelope decodes the single JSON envelope a --json run prints.
func (r result) envelope(t testing.TB) (ok bool, res map[string]any, errObj map[string]any) {
	t.Helper()
	var env struct {
		OK     bool           `json:"ok"`
		Result map[string]any `json:"result"`
		Error  map[string]any `json:"error"`
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 1 {
		t.Fatalf("--json printed %d lines, want exactly 1: %q (stderr %q)", len(lines), r.stdout, r.stderr)
	}
	if err := json.Unmarshal([]byte(lines[0]), &env); err != nil {
		t.Fatalf("stdout %q is not an envelope: %v", r.stdout, err)
	}
	return env.OK, env.Result, env.Error
}

func (h *home) run(args ...string) result { return h.runStdin("", nil, args...) }

// serverPIDs lists live processes that are `orcr server start --foreground` for this
// home (found through /proc: cmdline and environment).
func (h *home) serverPIDs() map[int]bool {
	found := map[int]int{} // pid → ppid
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !bytes.Contains(cmdline, []byte("server\x00start\x00--foreground")) {
			continue
		}
		environ, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !bytes.Contains(append(environ, 0), []byte("ORCR_HOME="+h.dir+"\x00")) {
			continue
		}
		st, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err == nil && isZombie(st) {
			continue
		}
		found[pid] = parentPID(st)
	}
	// A child the server is starting (a herdr call) shows the server's cmdline and
	// environment between its fork and its exec: it is not a second server.
	servers := map[int]bool{}
	for pid, ppid := range found {
		if _, child := found[ppid]; !child {
			servers[pid] = true
		}
	}
	return servers
}

// parentPID is the ppid field of a /proc/<pid>/stat line (0 when unreadable).
func parentPID(stat []byte) int {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 2 {
		return 0
	}
	n, _ := strconv.Atoi(f[1])
	return n
}

func isZombie(stat []byte) bool {
	i := bytes.LastIndexByte(stat, ')')
	return i > 0 && len(stat) > i+2 && stat[i+2] == 'Z'
}

// waitGone waits up to 20 s for pid to exit; false (and an error) when it did not.
func waitGone(t testing.TB, pid int) bool {
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if err := syscall.Kill(pid, 0); err != nil {
			return true
		}
		if st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil && isZombie(st) {
			return true
		}
		time.Sleep(20 * time.Millisecond) // waitGone reports with Errorf and returns, so the caller can log more: not poll.Eventually
	}
	cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	t.Errorf("process %d (%s) still alive 20 s after stop", pid, bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '}))
	return false
}

// logTail logs the last n lines of a log file (diagnosis of a failed stop).
func logTail(t testing.TB, path string, n int) {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Logf("no %s: %v", path, err)
		return
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	t.Logf("last lines of %s:\n%s", path, strings.Join(lines[max(0, len(lines)-n):], "\n"))
}

// dumpOnFailure prints, when t has failed, what the home's server recorded: the last
// lines of its log and its agents' events (each payload without its agent row), so a
// failure of the real-CLI tests in CI can be diagnosed from its output alone (the home
// is removed with the test). It runs before the home's own cleanup.
func dumpOnFailure(t testing.TB, h *home) {
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		logTail(t, filepath.Join(h.dir, "logs", "server.log"), 150)
		db, err := sql.Open("sqlite", "file:"+filepath.Join(h.dir, "orcr.db")+"?mode=ro")
		if err != nil {
			t.Logf("the store: %v", err)
			return
		}
		defer db.Close()
		rows, err := db.Query(`SELECT seq, ts, kind, payload_json FROM events WHERE kind LIKE 'agent.%' ORDER BY seq`)
		if err != nil {
			t.Logf("the store's events: %v", err)
			return
		}
		defer rows.Close()
		var b strings.Builder
		for rows.Next() {
			var seq, ts int64
			var kind, payload string
			if rows.Scan(&seq, &ts, &kind, &payload) != nil {
				continue
			}
			var m map[string]any
			if json.Unmarshal([]byte(payload), &m) == nil {
				path, _ := m["agent"].(map[string]any)["path"].(string)
				delete(m, "agent")
				m["path"] = path
				if out, err := json.Marshal(m); err == nil {
					payload = string(out)
				}
			}
			fmt.Fprintf(&b, "%d %s %s %.600s\n", seq, time.UnixMilli(ts).UTC().Format("15:04:05.000"), kind, payload)
		}
		t.Logf("the agents' events:\n%s", b.String())
	})
}
