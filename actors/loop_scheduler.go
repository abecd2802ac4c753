package actors

import (
	"context"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/orcr-go/orcr/actors/actorkit"
	"github.com/orcr-go/orcr/store"
)

// Loops (docs/loops.md): the loops actor is the scheduler and the parent of one loop
// actor per loop that has something to do. It reads (on a goroutine: edge code) the
// loops that are due and the runs whose timeout passed, indexed queries whose cost
// follows what is due, not what exists, and hands each to its loop's actor; the same
// scan reads when the next fire or run timeout comes, and the next scan is armed for
// then (loopDelay): every timings.loop_tick while something is overdue, at most
// LoopIdleTick apart otherwise. A loop actor that finished an op (a create, resume or
// edit may have moved a fire sooner) tells its parent, which then scans within a tick.
// The loop actor serializes everything that happens to one loop — fires,
// manual starts, promotions, stops, exits, pause, resume, rm — as ops on goroutines.

// LoopsSpec configures the loops actor.
type LoopsSpec struct {
	Env  *AgentEnv
	Tick time.Duration // timings.loop_tick
	Run  RunEnv
	// Stopped is closed when the server stops: a stop's grace and the watch of an
	// adopted run end there (the run stays as it is; the next start recovers it).
	Stopped <-chan struct{}
	// Started is when this server started: restart recovery skips as missed_while_down
	// only the fires due before it (docs/loops.md §9.1).
	Started time.Time
}

// LoopIdleTick is the longest the loop scheduler waits between two scans
// (docs/loops.md §6.1): its scans are armed for the next fire, and this bound keeps a
// change of the wall clock from holding one back for longer.
const LoopIdleTick = time.Minute

// loopDelay is the wait before the loop scheduler's next scan, at now (ms since the
// epoch), when the earliest fire or run timeout is next (0: none): tick when that is
// already due (a fire its loop's actor has not handled yet), the time to it when that
// comes sooner than idle, else idle.
func loopDelay(next, now int64, tick, idle time.Duration) time.Duration {
	switch {
	case next == 0:
		return idle
	case next <= now:
		return tick
	}
	return min(time.Duration(next-now)*time.Millisecond, idle)
}

// loopsActor is the scheduler and the loops' parent.
type loopsActor struct {
	spec   LoopsSpec
	tick   actorkit.Ticker
	busy   bool
	hinted bool      // a hint came since the last scan began: the next scan comes within a tick
	next   int64     // the last scan's next fire or run timeout (0: none)
	due    time.Time // when the armed scan fires
	ready  bool      // restart recovery handed out: ticks may fire, ops may run
	// held are the LoopOps, LoopCreateds and AwaitLoopsRecovereds that came before
	// restart recovery read the live runs and loops: a run a verb inserted before that
	// read would be taken for one a previous server left (and ended failed when it has no
	// process yet). They are handed on, in order, behind the recovery ops.
	held     []heldMsg
	children map[string]*actor.PID
}

// heldMsg is a message held until recovery, with the sender its reply goes to.
type heldMsg struct {
	msg    any
	sender *actor.PID
}

type (
	loopsTick    struct{ gen int64 }
	loopsScanned struct {
		due      []store.LoopRow
		timedOut []store.RunIdentity
		next     int64 // the earliest fire or run timeout after the scan (0: none)
	}
	// loopsHint: a loop's actor finished an op; its schedule may have moved.
	loopsHint struct{}
	// loopsRecovered carries what restart recovery found (docs/loops.md §9.1).
	loopsRecovered struct {
		runs  []store.RunIdentity
		loops []string // every active or paused loop: each gets its actor and a recovery op
	}
	// LoopCreated tells the loops actor that a loop was created: it gets its actor.
	LoopCreated struct{ Loop string }
	// AwaitLoopsRecovered is answered (with itself) once restart recovery has read the
	// runs and loops a previous server left and handed them to their loop actors.
	AwaitLoopsRecovered struct{}
	// LoopOp asks loop Loop's actor to run Do as an op; the reply is LoopOpResult.
	LoopOp struct {
		Loop string
		Do   func(w *loopWork) (any, error)
	}
	// LoopOpResult answers LoopOp.
	LoopOpResult struct {
		Value any
		Err   error
	}
)

// NewLoopsProps returns the loops actor's props.
func NewLoopsProps(spec LoopsSpec) *actor.Props {
	if spec.Tick <= 0 {
		spec.Tick = time.Second
	}
	return actorkit.Props(spec.Env.Log, func() actor.Actor {
		return &loopsActor{spec: spec, children: map[string]*actor.PID{}}
	})
}

func (a *loopsActor) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *actor.Started:
		a.recover(c)
	case loopsRecovered:
		for _, r := range m.runs {
			c.Send(a.child(c, r.LoopUUID), recoverRun{run: r})
		}
		for _, l := range m.loops {
			c.Send(a.child(c, l), recoverLoop{})
		}
		a.ready = true
		for _, h := range a.held {
			a.handle(c, h.msg, h.sender)
		}
		a.held = nil
		a.arm(c)
	case loopsTick:
		if a.tick.Current(m.gen) {
			a.scan(c)
		}
	case loopsScanned:
		a.busy = false
		a.next = m.next
		for _, l := range m.due {
			c.Send(a.child(c, l.UUID), fireDue{dueAt: deref64(l.NextFireAt)})
		}
		for _, r := range m.timedOut {
			c.Send(a.child(c, r.LoopUUID), stopRun{run: r.UUID, status: store.RunTimeout})
		}
		a.arm(c)
	case loopsHint:
		a.hint(c)
	case LoopOp, LoopCreated, AwaitLoopsRecovered:
		if !a.ready {
			a.held = append(a.held, heldMsg{msg: m, sender: c.Sender()})
			return
		}
		a.handle(c, m, c.Sender())
	case loopIdle:
		if pid, ok := a.children[m.loop]; ok && pid.Equal(m.pid) {
			delete(a.children, m.loop)
			c.Poison(m.pid)
		}
	case *actor.Terminated:
		for l, pid := range a.children {
			if pid.Equal(m.Who) {
				delete(a.children, l)
			}
		}
	case *actor.Stopping:
		a.tick.Stop()
	}
}

// handle is a LoopOp (to its loop's actor, the reply going to sender), a LoopCreated or
// an AwaitLoopsRecovered, after restart recovery.
func (a *loopsActor) handle(c actor.Context, m any, sender *actor.PID) {
	switch m := m.(type) {
	case LoopOp:
		c.RequestWithCustomSender(a.child(c, m.Loop), m, sender)
	case LoopCreated:
		a.child(c, m.Loop)
		a.hint(c)
	case AwaitLoopsRecovered:
		if sender != nil {
			c.Send(sender, m)
		}
	}
}

func deref64(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

func (a *loopsActor) child(c actor.Context, loop string) *actor.PID {
	if pid, ok := a.children[loop]; ok {
		return pid
	}
	pid := c.SpawnPrefix(newLoopProps(a.spec, loop), "loop-"+loop+"-")
	a.children[loop] = pid
	return pid
}

// arm schedules the next scan after loopDelay, within a tick when a hint came since the
// last scan began.
func (a *loopsActor) arm(c actor.Context) {
	now := time.Now()
	d := loopDelay(a.next, now.UnixMilli(), a.spec.Tick, max(LoopIdleTick, a.spec.Tick))
	if a.hinted {
		d = min(d, a.spec.Tick)
	}
	a.armAfter(c, now, d)
}

func (a *loopsActor) armAfter(c actor.Context, now time.Time, d time.Duration) {
	a.due = now.Add(d)
	a.tick.Arm(c, d, func(gen int64) any { return loopsTick{gen: gen} })
}

// hint brings the next scan within a tick: a loop was created or one's actor finished
// an op, so its next fire may have moved sooner. Never sooner than a tick, so a loop
// whose ops keep finishing costs no more scans than the fixed tick did.
func (a *loopsActor) hint(c actor.Context) {
	if !a.ready {
		return // recovery's first scan comes after the hand-out
	}
	a.hinted = true
	if a.busy {
		return // the scan in flight arms the next one within a tick
	}
	if now := time.Now(); now.Add(a.spec.Tick).Before(a.due) {
		a.armAfter(c, now, a.spec.Tick)
	}
}

// recover reads, on a goroutine, the runs a previous server left live and the loops
// with pending runs or a fire that passed while no server ran; the loop actors settle
// them before the first tick.
func (a *loopsActor) recover(c actor.Context) {
	self, root, env := c.Self(), c.ActorSystem().Root, a.spec.Env
	env.Ops.Add(1)
	go func() {
		defer env.Ops.Done()
		var m loopsRecovered
		runs, err := env.DB.LiveRuns(contextBG)
		if err != nil {
			env.Log.Error("loop recovery: cannot read the live runs", "err", err)
		}
		m.runs = runs
		loops, err := env.DB.LiveLoops(contextBG)
		if err != nil {
			env.Log.Error("loop recovery: cannot read the loops", "err", err)
		}
		m.loops = loops
		root.Send(self, m)
	}()
}

func (a *loopsActor) scan(c actor.Context) {
	if a.busy || !a.ready {
		return
	}
	a.busy, a.hinted = true, false
	self, root, env := c.Self(), c.ActorSystem().Root, a.spec.Env
	env.Ops.Add(1)
	go func() {
		defer env.Ops.Done()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		now := time.Now().UnixMilli()
		var m loopsScanned
		var err error
		if m.due, err = env.DB.DueLoops(ctx, now); err != nil {
			env.Log.Warn("loop scheduler: cannot read the due loops", "err", err)
		}
		if m.timedOut, err = env.DB.TimedOutRuns(ctx, now); err != nil {
			env.Log.Warn("loop scheduler: cannot read the timed-out runs", "err", err)
		}
		if m.next, err = env.DB.NextLoopWake(ctx); err != nil {
			env.Log.Warn("loop scheduler: cannot read the next fire", "err", err)
			m.next = now // scan again at the tick's pace
		}
		root.Send(self, m)
	}()
}
