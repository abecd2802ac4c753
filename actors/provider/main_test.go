package provider_test

import (
	"testing"

	"go.uber.org/goleak"
)

// No goroutine of a provider's process or its readers outlives the tests that started it.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
