package modeltest

import (
	"testing"

	"go.uber.org/goleak"
)

// No goroutine of the model stand-in's HTTP server outlives the tests that started it.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
