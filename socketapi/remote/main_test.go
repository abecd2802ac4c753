package remote

import (
	"testing"

	"go.uber.org/goleak"
)

// No goroutine outlives a closed Conn or an ended Stream: the background readers of
// the client and of the test servers included.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
