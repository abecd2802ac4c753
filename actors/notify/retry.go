package notify

import (
	"fmt"
	"time"
)

// Policy is the retry policy of every target (docs/notify.md §5.2): at most MaxAttempts
// attempts per delivery, the n-th retry Initial·2^(n-1) after the failed attempt, never
// more than Max.
type Policy struct {
	MaxAttempts  int
	Initial, Max time.Duration
}

// Result is one attempt's outcome: Err is "" when the target took the delivery;
// Permanent says another attempt cannot succeed (a 4xx other than 408 and 429, herdr
// toasts disabled), so the delivery fails at once.
type Result struct {
	Err       string
	Permanent bool
}

// Step is what to do after an attempt: delivered; retry at Retry; or failed for good
// with Err.
type Step struct {
	Delivered bool
	Retry     time.Time // zero unless a retry is due
	Err       string    // the error recorded (also set with Retry)
}

// Failed reports whether the delivery gives up.
func (s Step) Failed() bool { return !s.Delivered && s.Retry.IsZero() }

// Decide is the retry decision after attempt number attempts (1 for the first) ended
// with r at now.
func Decide(p Policy, attempts int, r Result, now time.Time) Step {
	switch {
	case r.Err == "":
		return Step{Delivered: true}
	case r.Permanent:
		return Step{Err: "permanent: " + r.Err}
	case attempts >= p.MaxAttempts:
		return Step{Err: fmt.Sprintf("gave up after %d attempts: %s", attempts, r.Err)}
	}
	return Step{Retry: now.Add(Backoff(p, attempts)), Err: r.Err}
}

// Backoff is the delay after failed attempt number attempts: Initial doubled for each
// earlier failure, capped at Max.
func Backoff(p Policy, attempts int) time.Duration {
	d := p.Initial
	for i := 1; i < attempts && d < p.Max; i++ {
		d *= 2
	}
	return min(d, p.Max)
}
