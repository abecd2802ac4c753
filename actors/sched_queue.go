package actors

import (
	"log/slog"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/orcr-go/orcr/actors/actorkit"
	"github.com/orcr-go/orcr/store"
)

// QueueTick is the queue worker's period while rows wait in the queue
// (docs/config.md §1.8).
const QueueTick = 200 * time.Millisecond

// QueueIdleTick is the queue worker's period when nothing is queued (docs/lifecycle.md
// §7.2): a pass is then due only for the clock's rules (a `--timeout` deadline or a
// provider pause's end, each armed for exactly, the stuck-start guard and quota windows
// resetting, which wait at most this long), as an enqueue pokes it.
const QueueIdleTick = 2 * time.Second

// PokeQueue asks the queue actor for a promotion pass now (after an enqueue or a slot
// was freed) instead of at the next tick.
type PokeQueue struct{}

type queueTick struct{ gen int64 }

// QueueSpec configures the queue actor.
type QueueSpec struct {
	Store       *actor.PID
	Agents      *actor.PID // receives StartAgent for every promoted row
	Caps        Caps
	MaxStarting time.Duration
	// Fallback is routing.fallback resolved: where a paused provider's queued agents go
	// (nil: nowhere; docs/lifecycle.md §7.6).
	Fallback func(provider string) (store.Fallback, bool)
	Log      *slog.Logger
	Tick     time.Duration // default QueueTick
	IdleTick time.Duration // default QueueIdleTick
}

// Caps are the admission limits (config concurrency).
type Caps struct {
	Max      int
	Provider func(name string) (int, bool)
}

// queueActor promotes queued rows in FIFO order under the caps (docs/lifecycle.md §7). It
// runs one promotion transaction per tick or poke through the store actor (Request, the
// reply arrives as a WriteResult message; at most one pass in flight), and hands every
// promoted uuid to the agents actor. Ticks come from an actorkit.Ticker, never
// SetReceiveTimeout (protoactor-go's SetReceiveTimeout timer races with the actor's own messages).
type queueActor struct {
	spec     QueueSpec
	tick     actorkit.Ticker
	inflight bool
	again    bool
	last     store.Promotion // the last pass's result: what the next tick's delay follows
}

// NewQueueProps returns the queue actor's props.
func NewQueueProps(spec QueueSpec) *actor.Props {
	if spec.Tick <= 0 {
		spec.Tick = QueueTick
	}
	if spec.IdleTick <= 0 {
		spec.IdleTick = max(QueueIdleTick, spec.Tick)
	}
	return actorkit.Props(spec.Log, func() actor.Actor { return &queueActor{spec: spec} })
}

func (q *queueActor) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *actor.Started:
		q.pass(c)
	case PokeQueue:
		q.pass(c)
	case queueTick:
		if q.tick.Current(m.gen) {
			q.pass(c)
		}
	case WriteResult:
		q.inflight = false
		q.last = store.Promotion{Left: 1} // a failed pass is tried again at the fast pace
		if m.Err != nil {
			q.spec.Log.Error("queue promotion failed", "err", m.Err)
		} else if r, ok := m.Value.(store.Promotion); ok {
			q.last = r
			for _, u := range r.Promoted {
				c.Send(q.spec.Agents, StartAgent{UUID: u})
			}
			for _, u := range r.Canceled {
				c.Send(q.spec.Agents, CancelSpawn{UUID: u})
				c.Send(q.spec.Agents, KillAgent{UUID: u}) // closes a pane the pipeline left
			}
			for _, u := range r.TimedOut {
				c.Send(q.spec.Agents, KillAgent{UUID: u, Reason: store.ExitTimeout})
			}
			for _, u := range r.Failed {
				c.Send(q.spec.Agents, CancelSpawn{UUID: u}) // a spawn waiting for herdr stops
			}
			for _, u := range r.Resumed {
				c.Send(q.spec.Agents, drainInbox{UUID: u})
			}
			if len(r.Failed) > 0 {
				q.spec.Log.Warn("stuck-start guard ended agents", "uuids", r.Failed)
			}
		}
		if q.again {
			q.again = false
			q.pass(c)
		} else {
			q.arm(c)
		}
	case *actor.Stopping:
		q.tick.Stop()
	}
}

func (q *queueActor) pass(c actor.Context) {
	if q.inflight {
		q.again = true
		return
	}
	q.inflight = true
	caps, maxStarting, fallback := q.spec.Caps, q.spec.MaxStarting.Milliseconds(), q.spec.Fallback
	c.Request(q.spec.Store, Write{Guarded: func(tx *store.Tx, b BarrierView) (any, error) {
		// Pauses whose time is up end first, so this pass promotes into them
		// (docs/lifecycle.md §7.6).
		paused, pauseEnd, err := resumeDue(tx)
		if err != nil {
			return nil, err
		}
		// A quota percent rule's pause ends when its window resets (docs/usage.md §8.1).
		resumed, err := tx.ResumeQuotaResets()
		if err != nil {
			return nil, err
		}
		p, err := tx.Promote(store.Admission{Max: caps.Max, ProviderCap: caps.Provider, MaxStartingMS: maxStarting,
			Blocked: func(path string) bool { _, ok := b.Covering(path); return ok }, Paused: paused, Fallback: fallback})
		for _, r := range resumed {
			p.Resumed = append(p.Resumed, r.UUID)
		}
		p.NextPauseEnd = pauseEnd
		return p, err
	}})
}

func (q *queueActor) arm(c actor.Context) {
	now := time.Now()
	d := queueDelay(q.last, now.UnixMilli(), q.spec.Tick, actorkit.OnBeat(now, q.spec.IdleTick, actorkit.Beat))
	q.tick.Arm(c, d, func(gen int64) any { return queueTick{gen: gen} })
}
