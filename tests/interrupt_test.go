package tests

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/tests/poll"
)

// connected reports whether process pid holds a socket, i.e. it reached main (the
// signal handlers are installed first thing) and dialled the server.
func connected(pid int) bool {
	dir := filepath.Join("/proc", strconv.Itoa(pid), "fd")
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if l, err := os.Readlink(filepath.Join(dir, e.Name())); err == nil && strings.HasPrefix(l, "socket:") {
			return true
		}
	}
	return false
}

// A blocked `orcr agent wait` interrupted with Ctrl-C (SIGINT) or a plain kill (SIGTERM)
// says it was interrupted, exits 128+signal as shells expect, claims no timeout, and
// leaves the agent as it was.
func TestInterruptedWait(t *testing.T) {
	h := newHome(t)
	if r := h.run("server", "start"); r.exit != 0 {
		t.Fatalf("server start: %d %s %s", r.exit, r.stdout, r.stderr)
	}
	c := &socketapi.Client{Socket: filepath.Join(h.dir, "orcr.sock")}
	const id = "0190a000-0000-7000-8000-0000000000aa"
	if err := c.Call(context.Background(), "__debug.set_agent",
		map[string]any{"uuid": id, "path": "intr/one", "status": "working"}, nil); err != nil {
		t.Fatal(err)
	}

	cases := []struct {
		name string
		sig  syscall.Signal
		json bool
		exit int
	}{
		{"SIGINT", syscall.SIGINT, false, 130},
		{"SIGINT --json", syscall.SIGINT, true, 130},
		{"SIGTERM", syscall.SIGTERM, false, 143},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"agent", "wait", "intr/one"}
			if tc.json {
				args = append(args, "--json")
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, bins.orcr, args...)
			cmd.Env = h.env
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			poll.Eventually(t, 10*time.Second, "agent wait to connect", func() bool { return connected(cmd.Process.Pid) })
			start := time.Now()
			if err := cmd.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			cmd.Wait()
			if took := time.Since(start); took > 5*time.Second {
				t.Errorf("agent wait took %v to end after %s", took, tc.name)
			}
			if got := cmd.ProcessState.ExitCode(); got != tc.exit {
				t.Errorf("exit: got %d, want %d (stdout %q stderr %q)", got, tc.exit, out.String(), errb.String())
			}
			all := out.String() + errb.String()
			if strings.Contains(all, "timeout") {
				t.Errorf("an interrupted wait claims a timeout: stdout %q stderr %q", out.String(), errb.String())
			}
			if tc.json {
				r := result{stdout: out.String()}
				ok, _, e := r.envelope(t)
				if ok || errDetail(e, "cause") != "interrupted" {
					t.Errorf("--json: got %q, want an error envelope with cause interrupted", out.String())
				}
			} else if !strings.Contains(errb.String(), "interrupted") {
				t.Errorf("stderr: got %q, want it to say interrupted", errb.String())
			}
		})
	}
	rows := h.lsRows(t, "intr/one")
	if len(rows) != 1 || rows[0].Status != "working" {
		t.Errorf("after the interrupted waits: %+v, want intr/one still working", rows)
	}
}

// For the foreground server SIGTERM is the normal stop (a service manager sends it): it
// stops cleanly and exits 0, not 143.
func TestForegroundServerSIGTERMIsACleanStop(t *testing.T) {
	h := newHome(t)
	cmd, out, errb := h.foreground(t)
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil || out.String() != "server started\n" {
		t.Errorf("foreground server after SIGTERM: %v, stdout %q stderr %q; want exit 0 and `server started`", err, out.String(), errb.String())
	}
}
