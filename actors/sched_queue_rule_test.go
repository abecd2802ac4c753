package actors

import (
	"testing"
	"time"

	"github.com/orcr-go/orcr/store"
)

// The queue's pace (docs/lifecycle.md §7.2): fast while rows wait in the queue, slow when
// nothing is queued, and a clock rule (a --timeout deadline, a pause's end) armed for
// exactly when it comes sooner than the slow tick.
func TestQueueDelay(t *testing.T) {
	const fast, slow = 200 * time.Millisecond, 2 * time.Second
	now := tDelivered
	tests := []struct {
		name string
		last store.Promotion
		want time.Duration
	}{
		{"nothing queued, no clock rule: slow", store.Promotion{}, slow},
		{"a row left queued: fast", store.Promotion{Left: 1}, fast},
		{"a row left queued beats a far deadline", store.Promotion{Left: 3, NextDeadline: now + 60_000}, fast},
		{"a deadline in 700 ms: then", store.Promotion{NextDeadline: now + 700}, 700 * time.Millisecond},
		{"a deadline in 5 ms: then, sooner than fast", store.Promotion{NextDeadline: now + 5}, 5 * time.Millisecond},
		{"a deadline past the slow tick: slow", store.Promotion{NextDeadline: now + 60_000}, slow},
		{"a deadline already due (a move in flight): fast", store.Promotion{NextDeadline: now}, fast},
		{"a pause ending in 1.5 s: then", store.Promotion{NextPauseEnd: now + 1500}, 1500 * time.Millisecond},
		{"the earlier of a deadline and a pause's end", store.Promotion{NextDeadline: now + 1800, NextPauseEnd: now + 900}, 900 * time.Millisecond},
		{"a pause past due and a later deadline: fast", store.Promotion{NextDeadline: now + 1800, NextPauseEnd: now - 1}, fast},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := queueDelay(tt.last, now, fast, slow); got != tt.want {
				t.Errorf("queueDelay(%+v) = %s, want %s", tt.last, got, tt.want)
			}
		})
	}
}

// The loop scheduler's pace (docs/loops.md §6.1): a scan at the next fire or run timeout,
// at the tick's pace while one is overdue, and never more than the idle bound apart.
func TestLoopDelay(t *testing.T) {
	const tick, idle = time.Second, time.Minute
	now := tDelivered
	tests := []struct {
		name string
		next int64
		want time.Duration
	}{
		{"no active loop, no running run: the idle bound", 0, idle},
		{"a fire in 2.5 s: then", now + 2500, 2500 * time.Millisecond},
		{"a fire in 3 ms: then, sooner than the tick", now + 3, 3 * time.Millisecond},
		{"a fire in an hour: the idle bound", now + 3_600_000, idle},
		{"a fire due now: the tick", now, tick},
		{"a fire overdue (its actor busy): the tick", now - 5000, tick},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := loopDelay(tt.next, now, tick, idle); got != tt.want {
				t.Errorf("loopDelay(%d) = %s, want %s", tt.next-now, got, tt.want)
			}
		})
	}
}
