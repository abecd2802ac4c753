package actors_test

import (
	"testing"

	"go.uber.org/goleak"
)

// No goroutine of an actor, a timer or an op outlives the tests that started it.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
