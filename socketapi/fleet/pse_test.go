//go:build !race

package fleet

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	_ "unsafe" // for go:linkname

	"github.com/nats-io/nats-server/v2/server/pse"
)

// The NATS server's process sampler is stopped in every orcr process (docs/fleet.md
// §6.1): the linkname names the sampler's own file, which its init had set, and the
// package now reads an empty name, so its once-a-second read fails and is not armed
// again.
func TestNATSProcessSamplerStopped(t *testing.T) {
	if want := fmt.Sprintf("/proc/%d/stat", os.Getpid()); natsStatFileWas != want {
		t.Fatalf("the sampler's file before orcr's init: %q, want %q (the linkname no longer names pse's variable)", natsStatFileWas, want)
	}
	var pcpu float64
	var rss, vss int64
	if err := pse.ProcUsage(&pcpu, &rss, &vss); err == nil {
		t.Fatalf("pse.ProcUsage read its file (rss %d): the sampler still has it", rss)
	}
}

// natsLastSeconds is the sampler's last reading of the process's age in seconds, which
// tells a child of the benchmark below whether the sampler still ran at its window's end.
//
//go:linkname natsLastSeconds github.com/nats-io/nats-server/v2/server/pse.lastSeconds
var natsLastSeconds int64

func init() { idleChildMain = idleChild }

// idleChild sleeps through the window named by ORCR_BENCH_IDLE_WINDOW and prints the
// CPU it used meanwhile (ns) and the sampler's last reading.
func idleChild(mode string) int {
	if mode == "keep" {
		natsStatFile = natsStatFileWas
	}
	window, err := time.ParseDuration(os.Getenv("ORCR_BENCH_IDLE_WINDOW"))
	if err != nil {
		return 2
	}
	cpu := func() int64 {
		var u syscall.Rusage
		if syscall.Getrusage(syscall.RUSAGE_SELF, &u) != nil {
			return 0
		}
		return u.Utime.Nano() + u.Stime.Nano()
	}
	c0 := cpu()
	time.Sleep(window)
	fmt.Printf("%d %d\n", cpu()-c0, natsLastSeconds)
	return 0
}

// BenchmarkIdleProcessSampler measures what the NATS sampler costs an idle orcr
// process: two children of this test binary sleep through the same window side by
// side, one with the sampler running (the baseline: what every orcr process paid),
// one with it stopped; the metrics are each one's CPU a second and their ratio.
// ORCR_BENCH_IDLE_WINDOW sets the window (10s).
func BenchmarkIdleProcessSampler(b *testing.B) {
	window := 10 * time.Second
	if v, err := time.ParseDuration(os.Getenv("ORCR_BENCH_IDLE_WINDOW")); err == nil && v > 0 {
		window = v
	}
	var keep, stop float64
	for range b.N {
		got := map[string][2]int64{}
		var mu sync.Mutex
		var wg sync.WaitGroup
		for _, mode := range []string{"keep", "stop"} {
			wg.Go(func() {
				cmd := exec.Command(os.Args[0], "-test.run=^$")
				cmd.Env = append(os.Environ(), idleChildEnv+"="+mode, "ORCR_BENCH_IDLE_WINDOW="+window.String())
				out, err := cmd.Output()
				var ns, last int64
				if f := strings.Fields(string(out)); err == nil && len(f) == 2 {
					ns, _ = strconv.ParseInt(f[0], 10, 64)
					last, _ = strconv.ParseInt(f[1], 10, 64)
				} else {
					b.Errorf("%s child: %v, output %q", mode, err, out)
				}
				mu.Lock()
				got[mode] = [2]int64{ns, last}
				mu.Unlock()
			})
		}
		wg.Wait()
		if b.Failed() {
			return
		}
		if last := got["keep"][1]; last < int64(window/time.Second)/2 {
			b.Fatalf("the baseline's sampler last read the process's age at %d s in a %v window: it stopped", last, window)
		}
		if last := got["stop"][1]; last > 2 { // its one reading, at init (whole seconds, rounded)
			b.Fatalf("the stopped sampler read the process's age at %d s", last)
		}
		keep += float64(got["keep"][0]) / 1e6 / window.Seconds()
		stop += float64(got["stop"][0]) / 1e6 / window.Seconds()
	}
	n := float64(b.N)
	b.ReportMetric(keep/n, "sampler-ms/s")
	b.ReportMetric(stop/n, "stopped-ms/s")
	b.ReportMetric(stop/keep, "ratio")
}
