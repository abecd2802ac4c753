package config_test

import (
	"testing"

	"go.uber.org/goleak"
)

// No goroutine of a config watch outlives the tests that started it.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
