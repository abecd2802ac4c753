package socketapi_test

import (
	"testing"

	"go.uber.org/goleak"
)

// No goroutine of the client, its watches or a server it talks to outlives the tests that started it.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
