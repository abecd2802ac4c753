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
	if mode := os.Getenv(idleChildEnv); mode != "" {
		os.Exit(idleChild(mode))
	}
	goleak.VerifyTestMain(m)
}
