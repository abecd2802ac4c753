package fleet

import (
	"testing"

	"go.uber.org/goleak"
)

// No test of the fleet layer leaves a goroutine behind: NATS connections, responders,
// attach sessions and their relays all end when they are closed.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
