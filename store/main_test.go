package store_test

import (
	"testing"

	"go.uber.org/goleak"
)

// No goroutine of the database (its pool, a reader) outlives the tests that started it.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
