package herdrtest_test

import (
	"testing"

	"go.uber.org/goleak"
)

// No goroutine of a herdr stand-in, its panes or their PTYs outlives the tests that started it.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
