package server_test

import (
	"testing"

	"github.com/orcr-go/orcr/socketapi/sockettest"
)

// testParallel is how many tests of this package run at once unless -parallel says
// otherwise. Its tests mostly wait on other processes (herdr stand-ins, mock agents,
// their turn timings), not on the CPU: the default of GOMAXPROCS would leave the two
// cores of the test machine idle most of the run.
const testParallel = "4"

// Acceptance 9: no goroutine outlives a stopped server (actors, connection readers and
// writers, request goroutines, the accept loop, signal watchers).
func TestMain(m *testing.M) {
	sockettest.DefaultParallel(testParallel)
	sockettest.VerifyTestMain(m)
}
