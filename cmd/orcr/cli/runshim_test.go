package cli_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/orcr-go/orcr/actors/runproc"
	"github.com/orcr-go/orcr/tests/poll"
)

// shimEnv is the environment of this test binary run as `orcr __run-shim`; a -race
// binary would otherwise wait a second at exit.
func shimEnv() []string {
	return append(os.Environ(), asMain+"=1", "GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
}

// `orcr __run-shim` exits as its command did: the same code, or the same signal.
func TestRunShimMirrorsTheCommand(t *testing.T) {
	t.Parallel()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		script string
		check  func(*os.ProcessState) bool
		want   string
	}{
		{"echo out; echo err >&2; exit 3", func(s *os.ProcessState) bool { return s.ExitCode() == 3 }, "exit 3"},
		{"kill -TERM $$", func(s *os.ProcessState) bool {
			ws, _ := s.Sys().(syscall.WaitStatus)
			return ws.Signaled() && ws.Signal() == syscall.SIGTERM
		}, "killed by SIGTERM"},
	} {
		dir := t.TempDir()
		cmd := exec.Command(self, runproc.ShimVerb, "--dir", dir, "--", "sh", "-c", tc.script)
		cmd.Env = shimEnv()
		out, err := cmd.CombinedOutput()
		if err != nil && !errors.As(err, new(*exec.ExitError)) {
			t.Fatalf("%q: %v", tc.script, err)
		}
		if !tc.check(cmd.ProcessState) {
			t.Errorf("orcr __run-shim -- sh -c %q: got %v, want %s (output %q)", tc.script, cmd.ProcessState, tc.want, out)
		}
	}
}

// Through the orcr entry point too, the shim outlives every SIGTERM the group gets (the
// CLI's own interrupt handling gives way to it), while its command runs on.
func TestRunShimIgnoresTerm(t *testing.T) {
	t.Parallel()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	s := runproc.Spec{
		Shim: []string{self, runproc.ShimVerb},
		Argv: []string{"sh", "-c", `trap "" TERM; while [ ! -e stop ]; do echo tick; sleep 0.01; done; echo done`},
		Cwd:  dir,
		Env:  shimEnv(),
		Dir:  filepath.Join(dir, "run"),
	}
	p, err := runproc.Start(s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		runproc.SignalGroup(p.PID, p.StartTime, syscall.SIGKILL, true)
		p.Wait()
	})
	ticks := func() int {
		lines, _ := runproc.ReadLog(s.Dir)
		return len(lines)
	}
	for range 3 {
		n := ticks()
		poll.Eventually(t, 5*time.Second, "output from the run", func() bool { return ticks() >= n+3 },
			func() string { return fmt.Sprintf("shim alive: %v", runproc.Alive(p.PID, p.StartTime)) })
		if sent, err := runproc.SignalGroup(p.PID, p.StartTime, syscall.SIGTERM, false); !sent || err != nil {
			t.Fatalf("SignalGroup(TERM): got %v, %v; want sent", sent, err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "stop"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if got := p.Wait(); got.String() != "exit 0" {
		t.Errorf("Wait: got %v, want exit 0", got)
	}
	lines, _ := runproc.ReadLog(s.Dir)
	if !slices.ContainsFunc(lines, func(l runproc.Line) bool { return l.Text == "done" }) {
		t.Errorf("run.log has no \"done\": %v", lines)
	}
}

// The shim is not a verb: help never shows it.
func TestRunShimIsHidden(t *testing.T) {
	t.Parallel()
	out := newHarness(t).run(t, "--help")
	if strings.Contains(out.stdout, runproc.ShimVerb) {
		t.Errorf("orcr --help lists %s:\n%s", runproc.ShimVerb, out.stdout)
	}
}
