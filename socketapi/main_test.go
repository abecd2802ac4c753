package socketapi_test

import (
	"testing"

	"github.com/orcr-go/orcr/socketapi/sockettest"
)

// No goroutine of the client, its watches or a server it talks to outlives the tests that started it.
func TestMain(m *testing.M) {
	// Most tests here start a server and wait on it: four at a time.
	sockettest.DefaultParallel("4")
	sockettest.VerifyTestMain(m)
}
