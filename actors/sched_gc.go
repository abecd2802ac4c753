package actors

import (
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/orcr-go/orcr/actors/actorkit"
	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/store"
)

// GCSpec configures the GC actor (docs/lifecycle.md §12.2, docs/config.md §1.3 (timings)).
type GCSpec struct {
	Env       *AgentEnv
	Agents    *actor.PID // receives ParkAgent and ReapAgent
	Queue     *actor.PID // poked after a reap freed a slot
	IdleAfter time.Duration
	KillAfter time.Duration
	Tick      time.Duration
	// Retention is when ended agents are forgotten (docs/lifecycle.md §12.4).
	Retention config.Retention
}

type gcTick struct{ gen int64 }

// gcSwept is one sweep's candidates, read on the sweep goroutine.
type gcSwept struct {
	park, reap             []store.GCCandidate
	idleBefore, parkBefore int64
}

// gcActor runs the GC tick of docs/lifecycle.md §12.2 every Tick: on a goroutine (at
// most one in flight) it deletes the expired attach leases (a write through the store
// actor), forgets the ended agents past retention (§12.4: batches of writes, then their
// data folders) and selects the park and reap candidates (a read); then it hands each
// candidate to its agent actor: ParkAgent (a plain send) and ReapAgent (a Request; the
// ReapResult comes back as a message and a reap that freed a slot pokes the queue).
// A candidate holding an attach lease (stored: not yet ended by a tick) is deferred
// instead (logged once when the deferral starts). The agent actor re-checks every
// condition under its move lock, the lease included, so a stale candidate is
// harmless. Ticks use an actorkit.Ticker.
type gcActor struct {
	spec GCSpec
	tick actorkit.Ticker
	busy bool
	// deferred holds "park <uuid>" / "reap <uuid>" of the candidates the last sweep
	// deferred for a lease, so each deferral is logged once.
	deferred map[string]bool
}

// NewGCProps returns the GC actor's props.
func NewGCProps(spec GCSpec) *actor.Props {
	return actorkit.Props(spec.Env.Log, func() actor.Actor { return &gcActor{spec: spec} })
}

func (g *gcActor) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *actor.Started:
		g.arm(c)
	case gcTick:
		if !g.tick.Current(m.gen) || g.busy {
			return
		}
		g.busy = true
		self, root, env := c.Self(), c.ActorSystem().Root, g.spec.Env
		idleAfter, killAfter, retention := g.spec.IdleAfter, g.spec.KillAfter, g.spec.Retention
		env.Ops.Add(1)
		go func() {
			defer env.Ops.Done()
			expireLeases(env, root)
			forgetEnded(env, root, retention)
			root.Send(self, sweep(env, idleAfter, killAfter))
		}()
	case gcSwept:
		g.busy = false
		deferred := map[string]bool{}
		for _, a := range m.park {
			if g.deferLeased(deferred, "park", a) {
				continue
			}
			c.Send(g.spec.Agents, ParkAgent{UUID: a.UUID, IdleBefore: m.idleBefore})
		}
		for _, a := range m.reap {
			if g.deferLeased(deferred, "reap", a) {
				continue
			}
			c.Request(g.spec.Agents, ReapAgent{UUID: a.UUID, ParkedBefore: m.parkBefore})
		}
		g.deferred = deferred
		g.arm(c)
	case ReapResult:
		if m.Err != nil {
			g.spec.Env.Log.Warn("gc: reap failed", "err", m.Err)
		}
		if m.Reaped && g.spec.Queue != nil {
			c.Send(g.spec.Queue, PokeQueue{})
		}
	case *actor.Stopping:
		g.tick.Stop()
	}
}

// deferLeased reports whether candidate a of sweep what holds an attach lease, and
// records it in deferred (logging it when the last sweep did not defer it already).
func (g *gcActor) deferLeased(deferred map[string]bool, what string, a store.GCCandidate) bool {
	if !a.Leased {
		return false
	}
	key := what + " " + a.UUID
	deferred[key] = true
	if !g.deferred[key] {
		g.spec.Env.Log.Info("gc: "+what+" deferred: the agent has an attach lease", "agent", a.UUID, "path", a.Path)
	}
	return true
}

// expireLeases deletes the expired attach leases, each with attach.ended {reason:
// "expired"} (the GC tick's first step). Edge code: it waits for the store actor.
func expireLeases(env *AgentEnv, root *actor.RootContext) {
	v, err := WriteSync(root, env.Store, func(tx *store.Tx) (any, error) { return tx.ExpireLeases() })
	if err != nil {
		env.Log.Warn("gc: cannot delete expired attach leases", "err", err)
		return
	}
	if n := v.(int); n > 0 {
		env.Log.Info("gc: attach leases expired", "count", n)
	}
}

func (g *gcActor) arm(c actor.Context) {
	g.tick.ArmOnBeat(c, g.spec.Tick, func(gen int64) any { return gcTick{gen: gen} })
}

// sweep selects the park candidates (managed, gc auto, idle, no move in flight, idle
// streak at least idleAfter old) and the reap candidates (parked at least killAfter),
// each marked when it holds an attach lease.
func sweep(env *AgentEnv, idleAfter, killAfter time.Duration) gcSwept {
	now := time.Now()
	s := gcSwept{idleBefore: now.Add(-idleAfter).UnixMilli(), parkBefore: now.Add(-killAfter).UnixMilli()}
	if env.Herdr == nil {
		return s
	}
	var err error
	if s.park, err = env.DB.ParkCandidates(contextBG, s.idleBefore); err != nil {
		env.Log.Warn("gc: cannot read park candidates", "err", err)
	}
	if s.reap, err = env.DB.ReapCandidates(contextBG, s.parkBefore); err != nil {
		env.Log.Warn("gc: cannot read reap candidates", "err", err)
	}
	return s
}
