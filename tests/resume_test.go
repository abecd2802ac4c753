package tests

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/tests/poll"
)

// Blocking verbs ride over a server restart (issue 32, docs/protocol.md §1.10): a
// `kill -9` of the server while `orcr agent wait` blocks does not end the wait; it starts
// a server again, resumes, says so on stderr and answers as if nothing happened.

// procsOf lists live processes of h (ORCR_HOME in their environment) whose argv holds
// args in a row.
func (h *home) procsOf(args ...string) []int {
	want := []byte(strings.Join(args, "\x00") + "\x00")
	return procsWhere(func(cmdline, environ []byte) bool {
		return bytes.Contains(append(cmdline, 0), want) && bytes.Contains(environ, []byte("\x00ORCR_HOME="+h.dir+"\x00"))
	})
}

// socketOf is the inode of the one socket pid holds open ("" when none, or several).
func socketOf(pid int) string {
	dir := filepath.Join("/proc", strconv.Itoa(pid), "fd")
	ents, _ := os.ReadDir(dir)
	found := ""
	for _, e := range ents {
		l, err := os.Readlink(filepath.Join(dir, e.Name()))
		if err != nil || !strings.HasPrefix(l, "socket:") {
			continue
		}
		if found != "" {
			return ""
		}
		found = l
	}
	return found
}

// blockedInCall waits until the CLI process pid holds one connection for a while: its
// blocking request is in flight (the auto-start handshake before it takes milliseconds,
// not a second).
func blockedInCall(t *testing.T, pid int) {
	t.Helper()
	last, since := "", time.Now()
	poll.Eventually(t, 30*time.Second, "the client blocked in its call", func() bool {
		s := socketOf(pid)
		if s != last {
			last, since = s, time.Now()
		}
		return s != "" && time.Since(since) >= time.Second
	})
}

// killServers kill -9s h's servers and waits until they are gone.
func (h *home) killServers(t *testing.T) {
	t.Helper()
	pids := h.serverPIDs()
	if len(pids) == 0 {
		t.Fatal("no server to kill")
	}
	for pid := range pids {
		syscall.Kill(pid, syscall.SIGKILL)
		waitGone(t, pid)
	}
}

// crossCrash runs `orcr <args>` in the background, kill -9s h's server once the verb
// blocks in its call (after ready, when given, says the moment came), and returns what
// the verb printed and its exit code once it ends (within 90 s).
func (h *home) crossCrash(t *testing.T, ready func() bool, args ...string) result {
	t.Helper()
	cmd := exec.Command(bins.orcr, args...)
	cmd.Env = h.env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	defer cmd.Process.Kill()
	if ready != nil {
		poll.Eventually(t, 30*time.Second, "the verb's moment", ready)
	}
	blockedInCall(t, cmd.Process.Pid)
	h.killServers(t)
	select {
	case <-done:
	case <-time.After(90 * time.Second):
		t.Fatalf("orcr %v still blocked 90 s after the crash (stderr %q)", args, errb.String())
	}
	return result{exit: cmd.ProcessState.ExitCode(), stdout: out.String(), stderr: errb.String()}
}

// resumeNoted checks that a verb that rode over a crash said so on stderr.
func resumeNoted(t *testing.T, r result, method string) {
	t.Helper()
	if !strings.Contains(r.stderr, "went away during "+method+"; resumed") {
		t.Errorf("stderr %q should note the resume", r.stderr)
	}
}

// A blocking `orcr agent wait` across a `kill -9` of the server: it auto-starts the next
// server, resumes, notes it on stderr, and answers the turn's completion (exit 0).
func TestWaitRidesOverAServerCrash(t *testing.T) {
	t.Parallel()
	h, _ := herdrHome(t, "")
	if r := h.run("server", "start"); r.exit != 0 {
		t.Fatalf("server start: %d %s %s", r.exit, r.stdout, r.stderr)
	}
	c := &socketapi.Client{Socket: filepath.Join(h.dir, "orcr.sock"), Timeout: 60 * time.Second}
	ctx := context.Background()
	if r := h.run("agent", "run", "--name", "slow", "-a", "mock", "-p", "say=finished turn_ms=10000"); r.exit != 0 {
		t.Fatalf("agent run: %d %s", r.exit, r.stderr)
	}
	poll.Eventually(t, 30*time.Second, "the agent is working", func() bool {
		res, err := c.Ls(ctx, api.LsRequest{Pattern: "/slow"})
		return err == nil && len(res.Agents) == 1 && res.Agents[0].Status == api.StatusWorking
	})
	before, err := c.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	r := h.crossCrash(t, nil, "agent", "wait", "slow", "--timeout", "90s", "--json")
	if r.exit != 0 {
		t.Fatalf("agent wait across the crash exited %d: %s %s", r.exit, r.stdout, r.stderr)
	}
	var env struct {
		OK     bool           `json:"ok"`
		Result api.WaitResult `json:"result"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &env); err != nil || strings.Count(r.stdout, "\n") != 1 || !env.OK || len(env.Result.Targets) != 1 ||
		env.Result.Targets[0].Reason != "turn_complete" || !env.Result.AllOK {
		t.Errorf("agent wait's answer: %q (%v)", r.stdout, err)
	}
	resumeNoted(t, r, "agent.wait")
	after, err := c.Status(ctx)
	if err != nil || after.PID == before.PID {
		t.Errorf("the server after the crash: %+v %v (before: pid %d)", after, err, before.PID)
	}
}

// `orcr agent ask` across a `kill -9` of the server, once its agent is acknowledged: the
// ask resumes on that agent — no second one is started — and prints its answer.
func TestAskRidesOverAServerCrash(t *testing.T) {
	t.Parallel()
	h, _ := herdrHome(t, "")
	if r := h.run("server", "start"); r.exit != 0 {
		t.Fatalf("server start: %d %s %s", r.exit, r.stdout, r.stderr)
	}
	c := &socketapi.Client{Socket: filepath.Join(h.dir, "orcr.sock"), Timeout: 60 * time.Second}
	ctx := context.Background()
	working := func() bool {
		res, err := c.Ls(ctx, api.LsRequest{Pattern: "/q"})
		return err == nil && len(res.Agents) == 1 && res.Agents[0].Status == api.StatusWorking
	}
	r := h.crossCrash(t, working, "agent", "ask", "--name", "q", "-a", "mock", "-p", "say=answered turn_ms=10000", "--timeout", "90s")
	if r.exit != 0 || !strings.HasPrefix(r.stdout, "answered") {
		t.Fatalf("agent ask across the crash: exit %d stdout %q stderr %q", r.exit, r.stdout, r.stderr)
	}
	resumeNoted(t, r, "agent.ask")
	res, err := c.Ls(ctx, api.LsRequest{Pattern: "/**", All: true})
	if err != nil || len(res.Agents) != 1 {
		t.Errorf("agents after the ask: %+v %v, want the one asked", res.Agents, err)
	}
}

// A loop run whose command blocks in `orcr agent wait` survives a `kill -9` of the
// server: the wait resumes with the next server and the run ends ok, not failed (the
// crash campaign of issue 32 saw 79 of 125 runs fail so), its stderr noting the resume.
func TestLoopRunRidesOverAServerCrash(t *testing.T) {
	t.Parallel()
	h, c := loopHome(t)
	ctx := context.Background()
	script := `orcr agent run --name w -a mock -p "say=done turn_ms=10000" --json > /dev/null &&
orcr agent wait w --timeout 90s`
	if _, err := c.LoopCreate(ctx, api.LoopCreateRequest{Name: "rider", Cron: "0 0 1 1 *", Cwd: h.dir,
		Command: []string{"sh", "-c", script}}); err != nil {
		t.Fatal(err)
	}
	start, err := c.LoopRunStart(ctx, "rider")
	if err != nil {
		t.Fatal(err)
	}
	var waiter int
	poll.Eventually(t, 30*time.Second, "the run's agent wait started", func() bool {
		if p := h.procsOf("agent", "wait", "w"); len(p) == 1 {
			waiter = p[0]
		}
		return waiter != 0
	})
	blockedInCall(t, waiter)
	h.killServers(t)
	if r := h.run("server", "start"); r.exit != 0 {
		t.Fatalf("restart: %d %s", r.exit, r.stderr)
	}
	run := waitRunEnded(t, c, "rider", start.Run.RunID)
	logs, _ := c.LoopLogs(ctx, api.LoopLogsRequest{Name: "rider", Source: "command"})
	var texts []string
	for _, l := range logs.Lines {
		texts = append(texts, l.Stream+": "+l.Text)
	}
	if run.Status != "ok" {
		t.Fatalf("the run across the crash: %+v\n%s", run, strings.Join(texts, "\n"))
	}
	joined := strings.Join(texts, "\n")
	if !strings.Contains(joined, "/w  turn_complete") || !strings.Contains(joined, "stderr: note: the orcr server went away during agent.wait") {
		t.Errorf("the run's output should hold the wait's answer and the resume note:\n%s", joined)
	}
}
