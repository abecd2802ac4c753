package actors_test

import (
	"testing"

	"github.com/orcr-go/orcr/socketapi/sockettest"
)

// No goroutine of an actor, a timer or an op outlives the tests that started it.
func TestMain(m *testing.M) {
	sockettest.VerifyTestMain(m)
}
