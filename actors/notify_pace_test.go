package actors

import (
	"testing"
	"time"
)

// The notifier scans at once after a quiet spell and in a backlog, and otherwise waits
// out the rest of notifyScanEvery: a burst of commits costs one scan per interval.
func TestScanDelay(t *testing.T) {
	for _, tc := range []struct {
		since   time.Duration
		backlog bool
		want    time.Duration
	}{
		{time.Hour, false, 0},
		{notifyScanEvery, false, 0},
		{notifyScanEvery - time.Millisecond, false, time.Millisecond},
		{0, false, notifyScanEvery},
		{10 * time.Millisecond, false, notifyScanEvery - 10*time.Millisecond},
		{0, true, 0},
		{10 * time.Millisecond, true, 0},
	} {
		if got := scanDelay(tc.since, tc.backlog); got != tc.want {
			t.Errorf("scanDelay(%v, backlog %v) = %v, want %v", tc.since, tc.backlog, got, tc.want)
		}
	}
}
