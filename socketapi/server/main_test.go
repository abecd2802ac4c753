package server_test

import (
	"testing"

	"go.uber.org/goleak"
)

// Acceptance 9: no goroutine outlives a stopped server (actors, connection readers and
// writers, request goroutines, the accept loop, signal watchers).
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
