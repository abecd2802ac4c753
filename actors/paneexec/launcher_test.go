package paneexec_test

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"go.uber.org/goleak"

	"github.com/orcr-go/orcr/actors/paneexec"
	"github.com/orcr-go/orcr/tests/poll"
)

// This test binary imports the launcher, so run as `<it> __pane-exec …` it is the
// launcher itself, as `orcr __pane-exec` is: the launcher's init runs it and exits.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// pane is the launcher running in a real PTY, as herdr starts a pane's process (a
// session of its own with the PTY as its controlling terminal).
type pane struct {
	cmd  *exec.Cmd
	ptmx *os.File
	mu   sync.Mutex
	out  bytes.Buffer
	done chan struct{}
}

func startPane(t *testing.T, args ...string) *pane {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, args...)
	cmd.Env = append(os.Environ(), "GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	ptmx, err := pty.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	p := &pane{cmd: cmd, ptmx: ptmx, done: make(chan struct{})}
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := ptmx.Read(buf)
			p.mu.Lock()
			p.out.Write(buf[:n])
			p.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	go func() { _ = cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-p.done
		ptmx.Close()
	})
	return p
}

func (p *pane) screen() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

// exited reports whether the launcher has exited.
func (p *pane) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// tpgid is the foreground process group of pid's terminal, from /proc.
func tpgid(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	g, _ := strconv.Atoi(f[5])
	return g
}

// A provider that prints an error and exits at once: it ran in the foreground group
// of its own, its message stays the last thing on the pane's screen, its exit status
// is in the status file, and the launcher holds the pane — it takes the foreground
// back and writes nothing — until a hangup ends it at once.
func TestLauncherRecordsExitAndHolds(t *testing.T) {
	status := filepath.Join(t.TempDir(), paneexec.StatusFile)
	note := filepath.Join(t.TempDir(), "agent-uuid")
	// The child reports its pid and its terminal's foreground group, then fails.
	script := `set -- $(cat /proc/self/stat | sed 's/.*) //'); echo "pid=$$ fg=$6"; echo "error: unknown option --bogus" >&2; exit 3`
	p := startPane(t, paneexec.Verb, "--status-file", status, "--exit-note", note, "--", "sh", "-c", script)
	poll.Eventually(t, 10*time.Second, "the exit note", func() bool {
		_, err := os.Stat(note)
		return err == nil
	})
	// The note comes after the status file: whoever sees it can read the exit.
	e, ok, err := paneexec.ReadExit(status)
	if !ok || err != nil {
		t.Fatalf("the status file once the note is there: %v, %v", ok, err)
	}
	if e.Code == nil || *e.Code != 3 || e.Signal != "" || e.String() != "exit status 3" {
		t.Errorf("status file: %+v (%s), want exit status 3", e, e)
	}
	// The pty's output reaches the screen on its own reader, after the status file may
	// have been written: wait for the child's last line.
	var scr string
	poll.Eventually(t, 10*time.Second, "the provider's message on the screen", func() bool {
		scr = p.screen()
		return strings.Contains(scr, "error: unknown option --bogus")
	})
	var pid, fg int
	for _, l := range strings.Split(scr, "\n") {
		if strings.HasPrefix(l, "pid=") {
			parts := strings.Fields(strings.NewReplacer("pid=", "", "fg=", "").Replace(l))
			pid, _ = strconv.Atoi(parts[0])
			fg, _ = strconv.Atoi(parts[1])
		}
	}
	if pid == 0 || pid == p.cmd.Process.Pid || fg != pid {
		t.Errorf("the child (pid %d, launcher %d) ran with foreground group %d, want its own group in front (screen %q)",
			pid, p.cmd.Process.Pid, fg, scr)
	}
	if !strings.HasSuffix(strings.TrimRight(scr, "\r\n"), "error: unknown option --bogus") {
		t.Errorf("screen %q: want the provider's message last", scr)
	}
	// Held: alive, in front again, and typing shows nothing.
	poll.Eventually(t, 5*time.Second, "the launcher to take the foreground back", func() bool {
		return tpgid(t, p.cmd.Process.Pid) == p.cmd.Process.Pid
	})
	if _, err := io.WriteString(p.ptmx, "/quit\r"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // what would be echoed would be by now
	if p.exited() {
		t.Fatal("the launcher exited instead of holding the pane")
	}
	if got := p.screen(); got != scr {
		t.Errorf("the held pane's screen changed: %q, want it left as %q", got, scr)
	}
	start := time.Now()
	if err := p.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	poll.Eventually(t, 5*time.Second, "the launcher to exit on a hangup", p.exited)
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("the hangup took %s to end the held pane", took)
	}
	if code := p.cmd.ProcessState.ExitCode(); code != 3 {
		t.Errorf("launcher exit code %d, want the child's 3", code)
	}
}

// The hold is bounded: with no orcr to close it, the pane goes away by itself.
func TestLauncherHoldIsBounded(t *testing.T) {
	status := filepath.Join(t.TempDir(), paneexec.StatusFile)
	p := startPane(t, paneexec.Verb, "--status-file", status, "--hold", "500ms", "--", "sh", "-c", "kill -SEGV $$")
	poll.Eventually(t, 10*time.Second, "the launcher to give the pane up", p.exited)
	e, ok, err := paneexec.ReadExit(status)
	if !ok || err != nil || e.Signal != "SIGSEGV" || e.String() != "killed by SIGSEGV" {
		t.Errorf("status file: %+v ok=%v err=%v, want killed by SIGSEGV", e, ok, err)
	}
}

// A command that cannot start — no such file, or no such command in $PATH — is an exit
// status 127 with the reason on the screen.
func TestLauncherCommandNotFound(t *testing.T) {
	for _, argv0 := range []string{"/nonexistent/claude", "no-such-provider-0"} {
		status := filepath.Join(t.TempDir(), paneexec.StatusFile)
		p := startPane(t, paneexec.Verb, "--status-file", status, "--hold", "10s", "--", argv0, "--x")
		poll.Eventually(t, 10*time.Second, "the status file", func() bool { _, ok, _ := paneexec.ReadExit(status); return ok })
		e, _, _ := paneexec.ReadExit(status)
		if e.Code == nil || *e.Code != paneexec.NotStarted {
			t.Errorf("%s: status file: %+v, want exit status %d", argv0, e, paneexec.NotStarted)
		}
		poll.Eventually(t, 5*time.Second, "the reason on the screen", func() bool { return strings.Contains(p.screen(), argv0) })
	}
}

// Bad arguments start nothing: exit code 125 and the usage on the screen.
func TestLauncherBadArguments(t *testing.T) {
	p := startPane(t, paneexec.Verb, "--status-file")
	poll.Eventually(t, 10*time.Second, "the launcher to exit", p.exited)
	if code := p.cmd.ProcessState.ExitCode(); code != 125 {
		t.Errorf("exit code %d, want 125", code)
	}
	poll.Eventually(t, 5*time.Second, "the reason on the screen", func() bool { return strings.Contains(p.screen(), "needs a value") })
}

// A pane closed while the provider runs: the hangup reaches the provider's group, the
// launcher exits at once and records nothing (the provider did not leave by itself).
func TestLauncherHangupWhileRunning(t *testing.T) {
	status := filepath.Join(t.TempDir(), paneexec.StatusFile)
	note := filepath.Join(t.TempDir(), "agent-uuid")
	p := startPane(t, paneexec.Verb, "--status-file", status, "--exit-note", note, "--", "sh", "-c", "echo up; sleep 600")
	poll.Eventually(t, 10*time.Second, "the child to run", func() bool { return strings.Contains(p.screen(), "up") })
	if err := p.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	poll.Eventually(t, 5*time.Second, "the launcher to exit", p.exited)
	if _, ok, _ := paneexec.ReadExit(status); ok {
		t.Error("a status file was written for a pane that was closed")
	}
	if _, err := os.Stat(note); err == nil {
		t.Error("an exit note was left for a pane that was closed")
	}
	if code := p.cmd.ProcessState.ExitCode(); code != 128+int(syscall.SIGHUP) {
		t.Errorf("launcher exit code %d, want 128+SIGHUP", code)
	}
}

func TestArgv(t *testing.T) {
	got := paneexec.Argv([]string{"/bin/orcr", paneexec.Verb}, "/d/pane_exit.json", "", []string{"claude", "--x"})
	want := "/bin/orcr __pane-exec --status-file /d/pane_exit.json -- claude --x"
	if strings.Join(got, " ") != want {
		t.Errorf("Argv = %q, want %q", got, want)
	}
	got = paneexec.Argv([]string{"/bin/orcr", paneexec.Verb}, "/d/pane_exit.json", "/h/pane-exits/u", []string{"claude"})
	want = "/bin/orcr __pane-exec --status-file /d/pane_exit.json --exit-note /h/pane-exits/u -- claude"
	if strings.Join(got, " ") != want {
		t.Errorf("Argv with a note = %q, want %q", got, want)
	}
	if got := paneexec.Argv(nil, "/d/f", "/n", []string{"claude"}); len(got) != 1 || got[0] != "claude" {
		t.Errorf("Argv without a launcher = %q, want the argv as it is", got)
	}
}
