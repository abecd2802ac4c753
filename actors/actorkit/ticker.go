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
