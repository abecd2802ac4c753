package poll_test

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/orcr-go/orcr/tests/poll"
)

// fatalTB records a Fatalf instead of ending the test.
type fatalTB struct {
	testing.TB
	msg string
}

func (f *fatalTB) Helper() {}

func (f *fatalTB) Fatalf(format string, args ...any) { f.msg = fmt.Sprintf(format, args...) }

// A condition that turns true is waited for; one that never does fails with what was
// awaited and the detail of the last state, after the deadline and not before.
func TestEventually(t *testing.T) {
	t.Parallel()
	var n atomic.Int32
	poll.Eventually(t, 5*time.Second, "the third call", func() bool { return n.Add(1) == 3 })
	if got := n.Load(); got != 3 {
		t.Errorf("cond called %d times, want 3", got)
	}

	f := &fatalTB{TB: t}
	start := time.Now()
	poll.Eventually(f, 100*time.Millisecond, "never", func() bool { return false }, func() string { return "last: 7" })
	if took := time.Since(start); took < 100*time.Millisecond {
		t.Errorf("gave up after %v, before its deadline", took)
	}
	if !strings.Contains(f.msg, "waiting for never; last: 7") {
		t.Errorf("failure %q, want what was awaited and the detail", f.msg)
	}
}
