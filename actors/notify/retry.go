package notify

import (
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
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
// toasts disabled), so the delivery fails at once. RetryAfter is the raw Retry-After
// header of a webhook's 429 or 503 answer ("" otherwise); [Decide] reads it.
type Result struct {
	Err        string
	Permanent  bool
	RetryAfter string
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
// with r at now. A retry is due after [Backoff], or later when r.RetryAfter asks for a
// later time ([ParseRetryAfter]), but never more than p.Max after now: the receiver can
// push the next attempt back, up to the cap, never bring it forward, and the attempt
// still counts toward p.MaxAttempts. A Retry-After that does not parse is ignored.
func Decide(p Policy, attempts int, r Result, now time.Time) Step {
	switch {
	case r.Err == "":
		return Step{Delivered: true}
	case r.Permanent:
		return Step{Err: "permanent: " + r.Err}
	case attempts >= p.MaxAttempts:
		return Step{Err: fmt.Sprintf("gave up after %d attempts: %s", attempts, r.Err)}
	}
	d := Backoff(p, attempts) // never above p.Max
	if asked, ok := ParseRetryAfter(r.RetryAfter, now); ok {
		d = max(d, min(asked, p.Max))
	}
	return Step{Retry: now.Add(d), Err: r.Err}
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

// ParseRetryAfter reads a Retry-After header value (RFC 9110 §10.2.3) at now: either
// delay-seconds (one or more ASCII digits) or an HTTP-date in any of the three forms
// recipients must accept (IMF-fixdate, RFC 850, asctime; [http.ParseTime]). It returns
// the delay it asks for and true; a date in the past asks for 0, and a number too large
// for a [time.Duration] asks for the longest one. ok is false for anything else: empty,
// a sign, a fraction, a unit, a malformed date. Surrounding spaces and tabs are
// ignored.
func ParseRetryAfter(v string, now time.Time) (d time.Duration, ok bool) {
	v = strings.Trim(v, " \t")
	if v == "" {
		return 0, false
	}
	if digits(v) {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n > int64(math.MaxInt64/time.Second) { // only a range error is left
			return math.MaxInt64, true
		}
		return time.Duration(n) * time.Second, true
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	return max(t.Sub(now), 0), true // Sub saturates
}

func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
