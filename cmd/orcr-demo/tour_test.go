package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The README's main command, `go run ./cmd/orcr-demo`, works on a machine with no herdr
// and no provider: the whole tour runs through the real CLI and ends with its closing
// line, the remote stream step included.
func TestDemoTour(t *testing.T) {
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	out := runDemo(t, root, t.TempDir(), newcomerEnv())
	for _, want := range []string{"demo finished", "turn/start", `"source":"remote"`, "from_afar"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the tour's output lacks %q:\n%s", want, out.String())
		}
	}
}

// Issue 33 item 8: the tour run from a shell that sets ORCR_HERDR_SESSION leaves nothing
// running: its cleanup stops the herdr session the server used, not `orcr`. Every
// process whose binary the demo built under TMPDIR is gone once it exits.
func TestDemoLeavesNothingWithOwnSession(t *testing.T) {
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	tmp, err := os.MkdirTemp("", "dt") // short: the stand-in's sockets live below it
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	runDemo(t, root, tmp, append(newcomerEnv(), "TMPDIR="+tmp, "ORCR_HERDR_SESSION=demo-own"))
	bin := filepath.Join(tmp, "orcr-demo")
	var left []int
	// Not poll.Eventually: what is left after the deadline is reported one by one and killed.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if left = processesUnder(tmp, bin); len(left) == 0 || time.Now().After(deadline) {
			break
		}
	}
	for _, pid := range left {
		exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
		t.Errorf("process %d (%s) is still running after the demo", pid, exe)
		syscall.Kill(pid, syscall.SIGKILL)
	}
}

// processesUnder lists the live processes whose executable lies under dir, except the
// one at skip.
func processesUnder(dir, skip string) []int {
	var pids []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		exe, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe"))
		if err != nil || !strings.HasPrefix(exe, dir+"/") || exe == skip {
			continue
		}
		if st, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil && isZombie(st) {
			continue
		}
		pids = append(pids, pid)
	}
	return pids
}

func isZombie(stat []byte) bool {
	i := bytes.LastIndexByte(stat, ')')
	return i > 0 && len(stat) > i+2 && stat[i+2] == 'Z'
}

// runDemo builds the demo into dir, runs the tour from root with env and returns its
// output; a failed tour fails the test.
func runDemo(t *testing.T, root, dir string, env []string) *bytes.Buffer {
	t.Helper()
	bin := filepath.Join(dir, "orcr-demo")
	build := exec.Command("go", "build", "-o", bin, "./cmd/orcr-demo")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin)
	cmd.Dir, cmd.Env = root, env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("the demo failed: %v\n%s", err, out.String())
	}
	return &out
}
