package top

import (
	"testing"

	"github.com/orcr-go/orcr/socketapi/sockettest"
)

// No goroutine of the dashboard, its feed or its program outlives the tests that started it.
func TestMain(m *testing.M) {
	sockettest.VerifyTestMain(m)
}
