// Package poll is the tests' one wait for something that happens elsewhere (in a
// server, a herdr, a pane, a file) and has no event to wait on: it asks again until the
// answer is yes or a deadline passes. It imports nothing of orcr, so every test package
// may use it.
package poll

import (
	"testing"
	"time"
)

// Interval is how often [Eventually] asks again.
const Interval = 20 * time.Millisecond

// Eventually calls cond every [Interval] until it returns true. When within passes
// first it fails tb with Fatalf, naming what it waited for and, with detail, what
// detail says of the state last seen (called once, at the failure). Like Fatalf it must
// be called from the test's own goroutine.
func Eventually(tb testing.TB, within time.Duration, what string, cond func() bool, detail ...func() string) {
	tb.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			for _, d := range detail {
				what += "; " + d()
			}
			tb.Fatalf("timed out after %v waiting for %s", within, what)
			return
		}
		time.Sleep(Interval)
	}
}
