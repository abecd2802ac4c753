package top

import (
	"testing"

	"go.uber.org/goleak"
)

// No goroutine of the dashboard, its feed or its program outlives the tests that started it.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
