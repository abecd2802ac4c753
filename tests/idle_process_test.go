package tests

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/orcr-go/orcr/socketapi/sockettest"
	"github.com/orcr-go/orcr/tests/poll"
)

// An orcr process with nothing to do is not woken: `orcr mcp` waiting on its stdin does
// not run at all for 3 s. The NATS server's process sampler, which every orcr process
// links, woke it once a second until orcr stopped it (docs/fleet.md §6.1); the binary
// is built without -race, as users run it (the race detector's builds keep the sampler).
func TestIdleOrcrProcessIsNotWoken(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	cmd := exec.Command(sockettest.BuildBinaries(t).Orcr, "mcp")
	cmd.Env = h.env
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); cmd.Process.Kill(); cmd.Wait() })
	pid := cmd.Process.Pid
	// Every context switch of every thread of the process: a thread that blocks, or is
	// woken and runs, adds to it.
	switches := func() int64 {
		paths, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/status")
		var n int64
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				continue
			}
			for _, line := range strings.Split(string(b), "\n") {
				if k, v, ok := strings.Cut(line, ":"); ok && strings.HasSuffix(k, "ctxt_switches") {
					c, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
					n += c
				}
			}
		}
		return n
	}
	// Started and settled: no switch for 1.2 s, which a once-a-second timer never
	// allows (the stopped sampler's timer, armed by its init, fires once at 1 s).
	last, since := switches(), time.Now()
	poll.Eventually(t, 20*time.Second, "orcr mcp not switched for 1.2 s (something wakes it at least once a second)", func() bool {
		if n := switches(); n != last {
			last, since = n, time.Now()
		}
		return last > 0 && time.Since(since) >= 1200*time.Millisecond
	})
	const window = 3 * time.Second
	before := switches()
	time.Sleep(window) // the measure is what happens in this window
	if n := switches() - before; n > 1 {
		t.Errorf("an idle `orcr mcp` was switched in or out %d times in %v (a once-a-second wake shows ~15)", n, window)
	}
}
