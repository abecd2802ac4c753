package actors

import (
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/orcr-go/orcr/actors/actorkit"
)

// GCSpec configures the GC actor (docs/lifecycle.md §12.2, docs/config.md §1.3 (timings)).
type GCSpec struct {
	Env       *AgentEnv
	Agents    *actor.PID // receives ParkAgent and ReapAgent
	Queue     *actor.PID // poked after a reap freed a slot
	IdleAfter time.Duration
	KillAfter time.Duration
	Tick      time.Duration
}

type gcTick struct{ gen int64 }

// gcSwept is one sweep's candidates, read on the sweep goroutine.
type gcSwept struct {
	park, reap             []string
	idleBefore, parkBefore int64
}

// gcActor runs the park and reap sweeps every Tick. It only selects candidates (a
// read on a goroutine, at most one in flight) and hands each to its agent actor:
// ParkAgent (a plain send) and ReapAgent (a Request; the ReapResult comes back as a
// message and a reap that freed a slot pokes the queue). The agent actor re-checks
// every condition under its move lock, so a stale candidate is harmless. Ticks use
// an actorkit.Ticker.
type gcActor struct {
	spec GCSpec
	tick actorkit.Ticker
	busy bool
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
		idleAfter, killAfter := g.spec.IdleAfter, g.spec.KillAfter
		env.Ops.Add(1)
		go func() {
			defer env.Ops.Done()
			root.Send(self, sweep(env, idleAfter, killAfter))
		}()
	case gcSwept:
		g.busy = false
		for _, u := range m.park {
			c.Send(g.spec.Agents, ParkAgent{UUID: u, IdleBefore: m.idleBefore})
		}
		for _, u := range m.reap {
			c.Request(g.spec.Agents, ReapAgent{UUID: u, ParkedBefore: m.parkBefore})
		}
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

func (g *gcActor) arm(c actor.Context) {
	g.tick.Arm(c, g.spec.Tick, func(gen int64) any { return gcTick{gen: gen} })
}

// sweep selects the park candidates (managed, gc auto, idle, no move in flight, idle
// streak at least idleAfter old) and the reap candidates (parked at least killAfter).
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
