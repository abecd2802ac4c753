package actorkit

import (
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// Ticker schedules one tick message at a time for an actor: time.AfterFunc with a
// generation, never SetReceiveTimeout (racy in protoactor-go). Arm replaces a pending
// tick; a tick whose generation is not Current was superseded (by a later Arm or by
// Stop) and must be ignored. A Ticker belongs to one actor and is used only from its
// Receive.
type Ticker struct {
	gen   int64
	timer *time.Timer
}

// Arm sends tick(gen) to the actor after d, replacing any pending tick.
func (t *Ticker) Arm(c actor.Context, d time.Duration, tick func(gen int64) any) {
	t.Stop()
	gen, self, root := t.gen, c.Self(), c.ActorSystem().Root
	t.timer = time.AfterFunc(d, func() { root.Send(self, tick(gen)) })
}

// Beat is the instant the server's idle ticks share (docs/lifecycle.md §13.7): a
// tick of Beat or longer armed with ArmOnBeat fires on a multiple of Beat of the clock,
// so that the monitor's idle poll, the queue's idle pass, discovery, reconciliation
// and GC wake an idle server together, not each on its own. A wake-up, not the work
// done in it, is most of what an idle Go process costs.
const Beat = 2 * time.Second

// OnBeat is the wait from now to the first multiple of beat (of Unix time) at or after
// now + d − beat/2: within beat/2 of d, and the same instant for every tick so armed
// around then. A d shorter than beat is returned as it is (a test's short ticks, the
// fast paces).
func OnBeat(now time.Time, d, beat time.Duration) time.Duration {
	if beat <= 0 || d < beat {
		return d
	}
	from := now.UnixNano() + int64(d-beat/2)
	at := (from + int64(beat) - 1) / int64(beat) * int64(beat)
	return time.Duration(at - now.UnixNano())
}

// ArmOnBeat is Arm after OnBeat(now, d, Beat).
func (t *Ticker) ArmOnBeat(c actor.Context, d time.Duration, tick func(gen int64) any) {
	t.Arm(c, OnBeat(time.Now(), d, Beat), tick)
}

// Current reports whether a tick of generation gen is the latest one armed.
func (t *Ticker) Current(gen int64) bool { return gen == t.gen }

// Stop cancels the pending tick (one already sent is no longer Current).
func (t *Ticker) Stop() {
	t.gen++
	if t.timer != nil {
		t.timer.Stop()
		t.timer = nil
	}
}
