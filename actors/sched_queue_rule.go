package actors

import (
	"time"

	"github.com/orcr-go/orcr/store"
)

// queueDelay is the wait before the queue's next pass after one that returned last, at
// now (ms since the epoch) (docs/lifecycle.md §7.2): fast while rows are left queued (a
// slot may free without a poke: an agent that ends); else until the earliest clock rule
// of last (a `--timeout` deadline, a provider pause's end) when that comes before slow,
// fast when it is already due (a row the pass could not act on yet), and slow otherwise
// (the caller passes QueueIdleTick on the idle beat, actorkit.OnBeat).
func queueDelay(last store.Promotion, now int64, fast, slow time.Duration) time.Duration {
	if last.Left > 0 {
		return fast
	}
	next := int64(0)
	for _, at := range []int64{last.NextDeadline, last.NextPauseEnd} {
		if at != 0 && (next == 0 || at < next) {
			next = at
		}
	}
	if next == 0 {
		return slow
	}
	if next <= now {
		return fast
	}
	return min(time.Duration(next-now)*time.Millisecond, slow)
}
