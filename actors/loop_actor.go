package actors

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/orcr-go/orcr/actors/actorkit"
	"github.com/orcr-go/orcr/actors/runproc"
	"github.com/orcr-go/orcr/actors/schedule"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/store"
)

// RunEnv is what starting and stopping a loop's runs needs.
type RunEnv struct {
	Home    string
	Session string // the owned herdr session (ORCR_HERDR_SESSION of a run)
	// ServerEnv is the server's environment, the base of a run's.
	ServerEnv func() []string
	// Shim is the argv prefix that starts a run's shim (docs/loops.md §6.4).
	Shim        []string
	LogMaxBytes int64
	LogMaxFiles int
	Grace       time.Duration // timings.run_term_grace
	// KillUnder kills every active agent under path (the stop's barrier kill).
	KillUnder func(ctx context.Context, path string) error
}

// Messages of a loop actor.
type (
	fireDue     struct{ dueAt int64 }
	stopRun     struct{ run, status string } // status: stopped or timeout
	recoverRun  struct{ run store.RunIdentity }
	recoverLoop struct{}
	runExited   struct {
		run  string
		exit runproc.Exit
	}
	stopFinished struct{ run, status string }
	loopOpDone   struct {
		reply  *actor.PID
		result LoopOpResult
		ended  bool // the loop has ended (or is gone) after the op
	}
	loopIdle struct {
		loop string
		pid  *actor.PID
	}
)

// loopActor serializes one loop's work. There is one per active or paused loop (the
// loops actor spawns them at start and for each new loop); an ended loop's actor
// retires once its last run is over. Each op runs on a goroutine (edge code: store
// futures, process starts, signals) and reports with loopOpDone; what arrives meanwhile
// waits in its queue. A run's process is watched by a goroutine of its own that sends
// runExited; a stop's TERM, grace and KILL run outside the queue (so fires go on) and end
// with stopFinished, which the queue then finishes.
type loopActor struct {
	spec     LoopsSpec
	loop     string
	queue    []queuedLoopOp
	busy     bool
	ended    bool                       // the loop ended: the actor retires once nothing is left to do
	watched  map[string]bool            // runs whose process this server started and waits for
	stopping map[string]bool            // runs whose stop procedure is under way
	waiters  map[string][]chan struct{} // closed when the run's stop is over
}

type queuedLoopOp struct {
	do    func(w *loopWork) (any, error)
	reply *actor.PID
}

func newLoopProps(spec LoopsSpec, loop string) *actor.Props {
	return actorkit.Props(spec.Env.Log, func() actor.Actor {
		return &loopActor{spec: spec, loop: loop, watched: map[string]bool{}, stopping: map[string]bool{},
			waiters: map[string][]chan struct{}{}}
	})
}

func (a *loopActor) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case LoopOp:
		a.enqueue(c, m.Do, c.Sender())
	case fireDue:
		a.enqueue(c, func(w *loopWork) (any, error) { return nil, w.fire(m.dueAt) }, nil)
	case stopRun:
		a.enqueue(c, func(w *loopWork) (any, error) { return w.stop(m.run, m.status) }, nil)
	case recoverRun:
		a.enqueue(c, func(w *loopWork) (any, error) { return nil, w.recoverRun(m.run) }, nil)
	case recoverLoop:
		a.enqueue(c, func(w *loopWork) (any, error) { return nil, w.recoverLoop() }, nil)
	case runExited:
		delete(a.watched, m.run)
		if a.stopping[m.run] {
			return // the stop owns the end
		}
		a.enqueue(c, func(w *loopWork) (any, error) { return nil, w.exited(m.run, m.exit) }, nil)
	case stopFinished:
		a.enqueue(c, func(w *loopWork) (any, error) { return nil, w.finishStop(m.run, m.status) }, nil)
	case watchRun:
		a.watched[m.run] = true
	case stopStarted:
		a.stopping[m.run] = true
	case stopWaiter:
		if !a.stopping[m.run] {
			close(m.done) // the stop it would wait for is already over
			return
		}
		a.waiters[m.run] = append(a.waiters[m.run], m.done)
	case stopOver:
		delete(a.stopping, m.run)
		for _, ch := range a.waiters[m.run] {
			close(ch)
		}
		delete(a.waiters, m.run)
	case loopOpDone:
		a.busy = false
		a.ended = m.ended
		if m.reply != nil {
			c.Send(m.reply, m.result)
		}
		c.Send(c.Parent(), loopsHint{}) // the op may have moved the loop's next fire
		a.next(c)
	}
}

// Messages an op sends its own actor (plain sends; the op runs beside the actor).
type (
	watchRun    struct{ run string }
	stopStarted struct{ run string }
	stopWaiter  struct {
		run  string
		done chan struct{}
	}
	stopOver struct{ run string }
)

func (a *loopActor) enqueue(c actor.Context, do func(w *loopWork) (any, error), reply *actor.PID) {
	a.queue = append(a.queue, queuedLoopOp{do: do, reply: reply})
	a.next(c)
}

func (a *loopActor) next(c actor.Context) {
	if a.busy {
		return
	}
	if len(a.queue) == 0 {
		if a.ended && len(a.watched) == 0 && len(a.stopping) == 0 && len(a.waiters) == 0 {
			c.Send(c.Parent(), loopIdle{loop: a.loop, pid: c.Self()})
		}
		return
	}
	op := a.queue[0]
	a.queue = a.queue[1:]
	a.busy = true
	w := &loopWork{spec: a.spec, env: a.spec.Env, loop: a.loop, root: c.ActorSystem().Root, self: c.Self(),
		watched: copySet(a.watched), stopping: copySet(a.stopping)}
	env := a.spec.Env
	env.Ops.Add(1)
	go func() {
		defer env.Ops.Done()
		v, err := op.do(w)
		d, derr := w.def()
		ended := errors.Is(derr, store.ErrNotFound) || (derr == nil && d.Status == store.LoopEnded)
		w.root.Send(w.self, loopOpDone{reply: op.reply, result: LoopOpResult{Value: v, Err: err}, ended: ended})
	}()
}

func copySet(m map[string]bool) map[string]bool {
	out := make(map[string]bool, len(m))
	for k := range m {
		out[k] = true
	}
	return out
}

// loopWork is one op of a loop actor.
type loopWork struct {
	spec LoopsSpec
	env  *AgentEnv
	loop string
	root *actor.RootContext
	self *actor.PID
	// watched are the runs whose process this server started and waits for, as the
	// actor knew them when the op started (decision L6 signals a leaderless group only
	// for those).
	watched map[string]bool
	// stopping are the runs whose stop procedure this actor is already driving.
	stopping map[string]bool
}

func (w *loopWork) write(op store.Op) (any, error) { return WriteSync(w.root, w.env.Store, op) }

func (w *loopWork) def() (store.LoopDef, error) {
	return store.LoopDefByUUID(contextBG, w.env.DB.Reader(), w.loop)
}

// scheduleOf is d's cadence as the schedule rules take it.
func scheduleOf(d store.LoopDef) (schedule.Schedule, error) {
	s := schedule.Schedule{Loc: schedule.Zone(d.TZ)}
	if d.CadenceKind == "cron" {
		cr, err := schedule.ParseCron(d.Cadence)
		if err != nil {
			return s, err
		}
		s.Cron = cr
	}
	return s, nil
}

// storeAdvance is a schedule step as the store applies it.
func storeAdvance(st schedule.Step) store.Advance {
	a := store.Advance{Once: st.End}
	if !st.Next.IsZero() {
		a.Next = st.Next.UnixMilli()
	}
	return a
}

// advance is how the schedule moves on from now after a fire (docs/loops.md §5.3).
func advance(d store.LoopDef, now time.Time) (store.Advance, error) {
	s, err := scheduleOf(d)
	if err != nil {
		return store.Advance{}, err
	}
	return storeAdvance(s.Advance(now)), nil
}

// fire handles a due occurrence (docs/loops.md §6.1–§6.2): a tick that saw an
// occurrence already handled does nothing; one more than schedule.MissedAfter overdue is
// skipped and logged (decision L5); otherwise the fire is allocated with the advance in
// one transaction, and a run that got a slot is started.
func (w *loopWork) fire(dueAt int64) error {
	d, err := w.def()
	if err != nil {
		return err
	}
	if d.Status != store.LoopActive || d.NextFireAt == nil || *d.NextFireAt != dueAt {
		return nil
	}
	now := time.Now()
	adv, err := advance(d, now)
	if err != nil {
		return err
	}
	switch schedule.Due(time.UnixMilli(dueAt), now) {
	case schedule.NotYet:
		return nil
	case schedule.Missed:
		_, err := w.write(func(tx *store.Tx) (any, error) {
			return nil, tx.SkipFire(w.loop, schedule.SkipMissed, dueAt, adv)
		})
		w.env.Log.Warn("loop: an occurrence was missed (the scheduler ran too late); skipped", "loop", d.Name,
			"due_at", time.UnixMilli(dueAt).UTC())
		return err
	}
	v, err := w.write(func(tx *store.Tx) (any, error) {
		// A spent budget skips the fire in the transaction that would allocate it.
		if b, err := tx.LoopBudgetSpent(d.Name); err != nil || b != "" {
			if err == nil {
				err = tx.SkipFire(w.loop, schedule.SkipBudget, dueAt, adv)
			}
			return b, err
		}
		return tx.FireLoop(store.Fire{Loop: w.loop, DueAt: dueAt, Advance: &adv})
	})
	if err != nil {
		if errors.Is(err, store.ErrStale) {
			return nil
		}
		return err
	}
	if b, ok := v.(string); ok {
		w.env.Log.Info("loop: a fire skipped, its budget is spent", "loop", d.Name, "budget", b,
			"due_at", time.UnixMilli(dueAt).UTC())
		return nil
	}
	if f := v.(store.Fired); f.Start {
		w.spawn(d, *f.Run)
	}
	return nil
}

// start is loop.run.start: a manual run, running when a slot is free, else pending.
func (w *loopWork) start() (store.RunRow, error) {
	d, err := w.def()
	if err != nil {
		return store.RunRow{}, err
	}
	v, err := w.write(func(tx *store.Tx) (any, error) {
		return tx.FireLoop(store.Fire{Loop: w.loop, Manual: true, DueAt: time.Now().UnixMilli()})
	})
	if err != nil {
		return store.RunRow{}, err
	}
	f := v.(store.Fired)
	if f.Start {
		w.spawn(d, *f.Run)
	}
	return store.RunByUUID(contextBG, w.env.DB.Reader(), f.Run.UUID)
}

// runDir is data/<loop>/<run_id>.
func (w *loopWork) runDir(name, runID string) string {
	return filepath.Join(w.spec.Run.Home, "data", name, runID)
}

// runEnviron is a run's environment (docs/loops.md §6.4): the server's, without the
// variables that make a process an agent or a child of one, plus the run's identity.
func (w *loopWork) runEnviron(name string, run store.RunRow) []string {
	drop := map[string]bool{"ORCR_PARENT_ID": true, "ORCR_PARENT_PATH": true, "ORCR_AGENT_DATA_DIR": true,
		"ORCR_LAUNCH_TOKEN": true, "ORCR_ID": true, "ORCR_PATH": true, "ORCR_LOOP_DATA_DIR": true, "ORCR_HOME": true,
		"ORCR_HERDR_SESSION": true}
	var env []string
	for _, kv := range w.spec.Run.ServerEnv() {
		k, _, _ := strings.Cut(kv, "=")
		if !drop[k] {
			env = append(env, kv)
		}
	}
	return append(env, "ORCR_ID="+run.UUID, "ORCR_PATH="+name+"/"+run.RunID,
		"ORCR_LOOP_DATA_DIR="+filepath.Join(w.spec.Run.Home, "data", name), "ORCR_HOME="+w.spec.Run.Home,
		"ORCR_HERDR_SESSION="+w.spec.Run.Session)
}

// loopArgv is the argv of d's runs: from the store, else (a definition another
// implementation wrote) from its loop.json.
func (w *loopWork) loopArgv(d store.LoopDef) []string {
	if d.Argv != nil {
		return d.Argv
	}
	var l struct {
		Argv []string `json:"argv"`
	}
	if b, err := os.ReadFile(filepath.Join(w.spec.Run.Home, "data", d.Name, "loop.json")); err == nil {
		_ = json.Unmarshal(b, &l)
	}
	return l.Argv
}

// spawn starts a running run's process group (docs/loops.md §6.4) under the
// loop_run.spawn_* intent pair, records its identity, and watches it. A run whose stop
// raced the start (it is terminal now) has its new group killed at once.
func (w *loopWork) spawn(d store.LoopDef, run store.RunRow) {
	argv := w.loopArgv(d)
	v, err := w.write(func(tx *store.Tx) (any, error) {
		id, _, err := tx.Intent(run.UUID, &api.LoopRunSpawnRequested{Argv: argv})
		return id, err
	})
	if err != nil {
		w.env.Log.Error("loop run: cannot record the spawn intent", "run", run.UUID, "err", err)
		return
	}
	opID := v.(string)
	fail := func(cause error) {
		w.env.Log.Warn("loop run: the command could not be started", "loop", d.Name, "run", run.RunID, "err", cause)
		_, err := w.write(func(tx *store.Tx) (any, error) {
			if _, err := tx.Applied(opID, false, cause.Error(), nil); err != nil {
				return nil, err
			}
			return nil, ignoreStale(tx.EndRun(store.RunEnd{Run: run.UUID, Status: store.RunFailed}))
		})
		logIf(w.env, "loop run: end a run that did not start", err)
		w.promote()
	}
	if len(argv) == 0 {
		fail(errors.New("the loop has no command"))
		return
	}
	p, err := runproc.Start(runproc.Spec{Shim: w.spec.Run.Shim, Argv: argv, Cwd: d.Cwd, Env: w.runEnviron(d.Name, run),
		Dir: w.runDir(d.Name, run.RunID), MaxBytes: w.spec.Run.LogMaxBytes, MaxFiles: w.spec.Run.LogMaxFiles})
	if err != nil {
		fail(err)
		return
	}
	_, err = w.write(func(tx *store.Tx) (any, error) {
		if _, err := tx.Applied(opID, true, "", &api.LoopRunSpawnApplied{Pid: int64(p.PID), Pgid: int64(p.PID)}); err != nil {
			return nil, err
		}
		return nil, tx.StartedRun(store.RunStart{Run: run.UUID, PID: int64(p.PID), StartTime: p.StartTime, TimeoutS: d.TimeoutS})
	})
	if errors.Is(err, store.ErrStale) {
		// Stopped while it was being started: nothing may run for it.
		runproc.SignalGroup(p.PID, p.StartTime, syscall.SIGKILL, true)
	} else if err != nil {
		w.env.Log.Error("loop run: cannot record the started process", "run", run.UUID, "err", err)
	}
	w.root.Send(w.self, watchRun{run: run.UUID})
	// Not counted in env.Ops: a run outlives a server stop, and so does this wait (its
	// report then goes to dead letters; the next server adopts the run).
	self, root := w.self, w.root
	go func() { root.Send(self, runExited{run: run.UUID, exit: p.Wait()}) }()
}

// exitStatus maps a process's end to the run's status (docs/loops.md §8).
func exitStatus(e runproc.Exit) string {
	if e.Code != nil && *e.Code == 0 {
		return store.RunOK
	}
	return store.RunFailed
}

// exited finishes a run whose process ended on its own (docs/loops.md §8), then
// promotes. A run that is stopping is the stop's to finish.
func (w *loopWork) exited(run string, e runproc.Exit) error {
	_, err := w.write(func(tx *store.Tx) (any, error) {
		return nil, ignoreStale(tx.EndRun(store.RunEnd{Run: run, Status: exitStatus(e), ExitCode: e.Code, Signal: e.Signal,
			From: []string{store.RunRunning}}))
	})
	w.promote()
	return err
}

// promote starts pending runs while the loop is active and has free slots
// (docs/loops.md §6.3).
func (w *loopWork) promote() {
	for {
		v, err := w.write(func(tx *store.Tx) (any, error) { return tx.PromoteRun(w.loop) })
		if err != nil {
			w.env.Log.Warn("loop: promotion failed", "loop", w.loop, "err", err)
			return
		}
		r := v.(*store.RunRow)
		if r == nil {
			return
		}
		d, err := w.def()
		if err != nil {
			return
		}
		w.spawn(d, *r)
	}
}

// StopTicket is one run a stop acted on: what happened to it, and (for a run whose stop
// procedure is under way) a channel closed when it is over.
type StopTicket struct {
	Run           store.RunRow
	Status        string // stopped / timeout (once Done closes), canceled, or the terminal status found
	Skipped       bool
	Done          <-chan struct{}
	CanceledFirst bool
}

// stop is the synchronous half of the stop procedure (docs/loops.md §7): a pending run is
// canceled; a running one gets the barrier (running → stopping), after which the TERM,
// grace, KILL half runs outside the queue; a run in any other status is skipped.
func (w *loopWork) stop(run, status string) (StopTicket, error) {
	for try := 0; try < 3; try++ {
		row, err := store.RunByUUID(contextBG, w.env.DB.Reader(), run)
		if err != nil {
			return StopTicket{}, err
		}
		switch row.Status {
		case store.RunPending:
			_, err := w.write(func(tx *store.Tx) (any, error) {
				return nil, tx.EndRun(store.RunEnd{Run: run, Status: store.RunCanceled, From: []string{store.RunPending}})
			})
			if errors.Is(err, store.ErrStale) {
				continue // promoted meanwhile: stop it as a running run
			}
			row.Status = store.RunCanceled
			return StopTicket{Run: row, Status: store.RunCanceled}, err
		case store.RunRunning:
			_, err := w.write(func(tx *store.Tx) (any, error) { return nil, tx.StopBarrier(run) })
			if errors.Is(err, store.ErrStale) {
				continue
			}
			if err != nil {
				return StopTicket{}, err
			}
			return w.driveStop(row, status, w.watched[run]), nil
		case store.RunStopping:
			if w.stopping[run] {
				// Already being stopped here (a second stop, a timeout seen twice): wait
				// for that stop instead of starting another.
				done := make(chan struct{})
				w.root.Send(w.self, stopWaiter{run: run, done: done})
				return StopTicket{Run: row, Status: status, Done: done}, nil
			}
			return w.driveStop(row, status, w.watched[run]), nil
		default:
			return StopTicket{Run: row, Status: row.Status, Skipped: true}, nil
		}
	}
	return StopTicket{}, errors.New("the run kept changing state")
}

// driveStop starts (or joins) the asynchronous half of a run's stop and returns its
// ticket.
func (w *loopWork) driveStop(row store.RunRow, status string, watched bool) StopTicket {
	done := make(chan struct{})
	w.root.Send(w.self, stopStarted{run: row.UUID})
	w.root.Send(w.self, stopWaiter{run: row.UUID, done: done})
	self, root, env, grace := w.self, w.root, w.env, w.spec.Run.Grace
	env.Ops.Add(1)
	go func() {
		defer env.Ops.Done()
		w.signal(row.UUID, syscall.SIGTERM, watched)
		// The grace ends early once the group is gone (a command that honours TERM is
		// not kept waiting for the full grace: our decision, docs/loops.md §7).
		deadline := time.Now().Add(grace)
		for time.Now().Before(deadline) && w.groupAlive(row.UUID) {
			select {
			case <-time.After(50 * time.Millisecond):
			case <-w.spec.Stopped:
				return // the run stays stopping; the next start drives its stop again
			}
		}
		if w.groupAlive(row.UUID) {
			w.signal(row.UUID, syscall.SIGKILL, watched)
		}
		root.Send(self, stopFinished{run: row.UUID, status: status})
	}()
	return StopTicket{Run: row, Status: status, Done: done}
}

// groupAlive reports whether the run's process group may still have members: its
// leader passes the identity guard (a run with no recorded process has none).
func (w *loopWork) groupAlive(run string) bool {
	id, err := store.RunIdentityOf(contextBG, w.env.DB.Reader(), run)
	return err == nil && id.PGID != 0 && runproc.Alive(int(id.PID), id.StartTime)
}

// signal sends sig to the run's process group under the loop_run.signal_* intent pair,
// only when the identity guard passes (docs/loops.md §7).
func (w *loopWork) signal(run string, sig syscall.Signal, watched bool) {
	id, err := store.RunIdentityOf(contextBG, w.env.DB.Reader(), run)
	if err != nil || id.PGID == 0 {
		return // never started: nothing to signal
	}
	v, err := w.write(func(tx *store.Tx) (any, error) {
		op, _, err := tx.Intent(run, &api.LoopRunSignalRequested{Signal: int(sig), Pgid: id.PGID})
		return op, err
	})
	if err != nil {
		return
	}
	sent, serr := runproc.SignalGroup(int(id.PGID), id.StartTime, sig, watched)
	_, err = w.write(func(tx *store.Tx) (any, error) {
		return tx.Applied(v.(string), serr == nil, errText(serr), &api.LoopRunSignalApplied{Sent: &sent})
	})
	logIf(w.env, "loop run: record a signal", err)
}

// finishStop ends a stopped run (docs/loops.md §7 steps 5–7): the agents under it are
// killed, the run ends stopped or timeout, the waiters are released, and a pending run
// may take the slot.
func (w *loopWork) finishStop(run, status string) error {
	row, err := store.RunByUUID(contextBG, w.env.DB.Reader(), run)
	if err == nil && w.spec.Run.KillUnder != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		if kerr := w.spec.Run.KillUnder(ctx, row.Path); kerr != nil {
			w.env.Log.Warn("loop run: killing the run's agents failed", "run", row.Path, "err", kerr)
		}
		cancel()
	}
	_, werr := w.write(func(tx *store.Tx) (any, error) {
		return nil, ignoreStale(tx.EndRun(store.RunEnd{Run: run, Status: status, From: []string{store.RunStopping}}))
	})
	w.root.Send(w.self, stopOver{run: run})
	w.promote()
	return errors.Join(err, werr)
}

// recoverRun settles a run a previous server left running or stopping (docs/loops.md
// §9.1): a live leader (by pid and start time) is adopted — watched by a 1 s poll, or its
// stop driven again — and a dead one's run ends (with the command's own exit status when
// its shim wrote it) and its agents are killed. Open intents of the run are closed.
func (w *loopWork) recoverRun(id store.RunIdentity) error {
	w.closeRunIntents(id)
	alive := id.PID != 0 && runproc.Alive(int(id.PID), id.StartTime)
	if alive {
		if id.Status == store.RunStopping {
			w.driveStop(store.RunRow{UUID: id.UUID}, store.RunStopped, false)
			return nil
		}
		w.root.Send(w.self, watchRun{run: id.UUID})
		self, root, env := w.self, w.root, w.env
		dir := w.runDirOf(id)
		env.Ops.Add(1)
		go func() {
			defer env.Ops.Done()
			for runproc.Alive(int(id.PID), id.StartTime) {
				select {
				case <-time.After(time.Second):
				case <-w.spec.Stopped:
					return
				}
			}
			e, _ := runproc.ReadExit(dir)
			root.Send(self, runExited{run: id.UUID, exit: e})
		}()
		w.env.Log.Info("loop recovery: a run's process outlived the server; watching it", "run", id.UUID, "pid", id.PID)
		return nil
	}
	status := store.RunFailed
	e, known := runproc.ReadExit(w.runDirOf(id))
	switch {
	case id.Status == store.RunStopping:
		status = store.RunStopped
	case known:
		status = exitStatus(e)
	}
	_, err := w.write(func(tx *store.Tx) (any, error) {
		return nil, ignoreStale(tx.EndRun(store.RunEnd{Run: id.UUID, Status: status, ExitCode: e.Code, Signal: e.Signal}))
	})
	w.env.Log.Info("loop recovery: a run's process ended while no server watched it", "run", id.UUID, "status", status)
	if row, rerr := store.RunByUUID(contextBG, w.env.DB.Reader(), id.UUID); rerr == nil && w.spec.Run.KillUnder != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		logIf(w.env, "loop recovery: kill a dead run's agents", w.spec.Run.KillUnder(ctx, row.Path))
		cancel()
	}
	return err
}

func (w *loopWork) runDirOf(id store.RunIdentity) string {
	d, err := w.def()
	if err != nil {
		return ""
	}
	return w.runDir(d.Name, id.RunID)
}

// closeRunIntents closes the run's intents a crash left open: a spawn is ok when the
// process was recorded, a signal's outcome is unknown.
func (w *loopWork) closeRunIntents(id store.RunIdentity) {
	intents, err := w.env.DB.OpenIntents()
	if err != nil {
		return
	}
	for _, in := range intents {
		if in.Ref != id.UUID {
			continue
		}
		ok, msg := false, "interrupted by a server restart"
		if in.Kind == "loop_run.spawn_requested" && id.PID != 0 {
			ok, msg = true, ""
		}
		result, _ := api.NewApplied(in.Kind)
		if result == nil {
			continue // not an intent of the table
		}
		result.Outcome().Repaired = true
		_, err := w.write(func(tx *store.Tx) (any, error) { return tx.Applied(in.OpID, ok, msg, result) })
		logIf(w.env, "loop recovery: close a run intent", err)
	}
}

// recoverLoop is restart recovery of one loop (docs/loops.md §9.1 steps 3–4): a fire
// that passed while no server ran — due before this server started, not before this
// op, which waits for the runs' clean-up — is logged once as missed_while_down and never
// replayed (a once loop ends), then pending runs are promoted.
func (w *loopWork) recoverLoop() error {
	d, err := w.def()
	if err != nil {
		return err
	}
	sch, err := scheduleOf(d)
	if err != nil {
		return err
	}
	if d.Status != store.LoopEnded && d.NextFireAt != nil {
		due := *d.NextFireAt
		st := sch.Recover(time.UnixMilli(due), w.spec.Started)
		if st.Skip == "" {
			w.promote()
			return nil
		}
		if _, err := w.write(func(tx *store.Tx) (any, error) {
			return nil, tx.SkipFire(w.loop, st.Skip, due, storeAdvance(st))
		}); err != nil {
			return err
		}
		w.env.Log.Info("loop recovery: a fire passed while the server was down; skipped", "loop", d.Name,
			"due_at", time.UnixMilli(due).UTC())
	}
	w.promote()
	return nil
}

func logIf(env *AgentEnv, what string, err error) {
	if err != nil && !errors.Is(err, store.ErrStale) {
		env.Log.Warn(what, "err", err)
	}
}
