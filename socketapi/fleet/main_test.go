package fleet

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

// No test of the fleet layer leaves a goroutine behind: NATS connections, responders,
// attach sessions and their relays all end when they are closed. A child process of
// BenchmarkIdleProcessSampler runs its window and exits instead.
func TestMain(m *testing.M) {
	if mode := os.Getenv(idleChildEnv); mode != "" && idleChildMain != nil {
		os.Exit(idleChildMain(mode))
	}
	goleak.VerifyTestMain(m)
}

// idleChildMain runs a child process of BenchmarkIdleProcessSampler (builds without
// the race detector only).
var idleChildMain func(mode string) int

// idleChildEnv names the mode of a child process of BenchmarkIdleProcessSampler:
// "keep" gives the sampler its file back (well inside its first second, before its
// first timer fires), "stop" leaves it stopped as orcr does.
const idleChildEnv = "ORCR_FLEET_IDLE_CHILD"
