package actors

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/orcr-go/orcr/actors/actorkit"
	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/herdr"
	"github.com/orcr-go/orcr/socketapi/wire"
	"github.com/orcr-go/orcr/store"
)

// ShutdownPlans tells the agent actor how to stop a provider's TUI gracefully
// (lifecycle.md §15.2): a line to type first ("" for none) and the wait before
// pane.close.
type ShutdownPlans func(provider string) (line string, grace time.Duration)

// AgentEnv is what agent actors need: shared by the agents actor and all its children.
type AgentEnv struct {
	Store    *actor.PID
	DB       *store.DB
	Herdr    *herdr.Driver // nil when no herdr binary was found
	Home     string
	Log      *slog.Logger
	Shutdown ShutdownPlans
	// PaneTimeout bounds one herdr call made by a pipeline or op (default 30 s).
	PaneTimeout time.Duration
	// AgentSessionWait bounds the post-spawn poll for herdr's transcript pointer (3 s).
	AgentSessionWait time.Duration
	// Tuning returns a provider's completion tuning (nil: built-ins).
	Tuning func(provider string) config.Tuning
	// Transcripts reaches providers' native transcripts (nil: completion cannot check
	// settledness or gc-immediate readability, so such turns never complete).
	Transcripts Transcripts
	// NeedsAgentSession reports whether a provider's transcript is found through
	// herdr's agent_session pointer (nil: always). Providers whose transcript lives in
	// the agent's data dir (the mock) skip the post-spawn pointer poll.
	NeedsAgentSession func(provider string) bool
	// Submit returns a provider's input-delivery recipe (nil: plain two-call).
	Submit func(provider string) SubmitPlan
	// HerdrGate, if set, runs before the first herdr call of a spawn: the contract
	// check against the live herdr schema (herdr_version_skew on drift).
	HerdrGate func(ctx context.Context) error
	// Ops counts running op goroutines; the server waits for it before stopping the
	// store actor, so no op is cut off between its writes.
	Ops sync.WaitGroup
}

// Messages of agent actors (sent through the agents actor, which routes by UUID).
type (
	// SendInput delivers a prompt (agent.send). Reply: SendResult.
	SendInput struct {
		UUID   string
		Prompt string
	}
	// SendResult answers SendInput.
	SendResult struct {
		UUID, Path, DeliveredWhile string
		InputSeq                   int64
		Err                        error
	}
	// KillAgent shuts a live agent's pane down and ends its row (agent.kill of a
	// working/idle/blocked/parked/lost row; the deadline sweep with Reason "timeout").
	// Reply: KillResult.
	KillAgent struct {
		UUID   string
		Reason string // exit_reason; "" = killed
	}
	// KillResult answers KillAgent. Killed is false when the row had already ended.
	KillResult struct {
		Killed bool
		Err    error
	}
	// CancelSpawn tells the agent actor that its starting row was canceled: the running
	// pipeline stops at its next checkpoint and closes any pane it made.
	CancelSpawn struct{ UUID string }
	// agentEnded tells the agents actor that an agent actor's row ended.
	agentEnded struct {
		UUID string
		PID  *actor.PID
	}
	// recoverAgent runs restart recovery for a row found live at start.
	recoverAgent struct{ UUID string }
	// ParkAgent (GC park sweep, no reply) moves an idle gc-auto agent whose idle
	// streak began at or before IdleBefore (unix ms) to workspace idle (M17).
	ParkAgent struct {
		UUID       string
		IdleBefore int64
	}
	// ReapAgent (GC reap sweep) ends a parked agent whose parked_at is at or before
	// ParkedBefore (unix ms) reaped, closing its pane (M19). Reply: ReapResult.
	ReapAgent struct {
		UUID         string
		ParkedBefore int64
	}
	// ReapResult answers ReapAgent. Reaped is true when the row ended reaped (its slot
	// is free).
	ReapResult struct {
		Reaped bool
		Err    error
	}
)

type opDone struct {
	reply  *actor.PID
	result any
	ended  bool // the row ended: the actor stops
}

// agentActor owns one managed agent's lifecycle. Operations (spawn pipeline, input
// delivery, kill, recovery) run one at a time, each on an op goroutine that may block
// on herdr and on store futures (edge code) and reports back with opDone; requests that
// arrive meanwhile wait in the actor's queue. This serialization is the agent's move
// lock. Cancel of a starting row does not queue: it cancels the running pipeline.
type agentActor struct {
	env    *AgentEnv
	uuid   string
	busy   bool
	queue  []queuedOp
	cancel context.CancelFunc
	ended  bool
}

type queuedOp struct {
	msg    any
	sender *actor.PID
}

func newAgentProps(env *AgentEnv, uuid string) *actor.Props {
	return actorkit.Props(env.Log, func() actor.Actor { return &agentActor{env: env, uuid: uuid} })
}

func (a *agentActor) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case StartAgent, SendInput, KillAgent, recoverAgent, ParkAgent, ReapAgent:
		if a.ended {
			a.reject(c, c.Sender(), m)
			return
		}
		// GC sweeps repeat every tick: one waiting park or reap is enough.
		if gcOp(m) != "" {
			for i := range a.queue {
				if gcOp(a.queue[i].msg) == gcOp(m) {
					a.reject(c, c.Sender(), m)
					return
				}
			}
		}
		a.queue = append(a.queue, queuedOp{msg: m, sender: c.Sender()})
		a.next(c)
	case StatusReport:
		if a.ended {
			return
		}
		// Reports coalesce: only the newest waiting one matters.
		for i := range a.queue {
			if _, ok := a.queue[i].msg.(StatusReport); ok {
				a.queue[i].msg = m
				return
			}
		}
		a.queue = append(a.queue, queuedOp{msg: m})
		a.next(c)
	case CancelSpawn:
		if a.cancel != nil {
			a.cancel()
		}
	case opDone:
		a.busy, a.cancel = false, nil
		if m.reply != nil {
			c.Send(m.reply, m.result)
		}
		if m.ended {
			a.ended = true
			for _, q := range a.queue {
				a.reject(c, q.sender, q.msg)
			}
			a.queue = nil
			// The agents actor removes us from its routing table and then poisons us:
			// messages it routed here before that are answered (rejected) in order,
			// later ones reach a fresh actor. Stopping ourselves instead would drop
			// the ones already on their way to dead letters, leaving their askers
			// waiting for their full timeout.
			c.Send(c.Parent(), agentEnded{UUID: a.uuid, PID: c.Self()})
			return
		}
		a.next(c)
	case *actor.Stopping:
		if a.cancel != nil {
			a.cancel()
		}
	}
}

// gcOp names a GC sweep op ("" for any other message).
func gcOp(m any) string {
	switch m.(type) {
	case ParkAgent:
		return "park"
	case ReapAgent:
		return "reap"
	}
	return ""
}

// reject answers an op that can no longer run because the row ended.
func (a *agentActor) reject(c actor.Context, to *actor.PID, m any) {
	if to == nil {
		return
	}
	gone := wire.New(wire.NotFound, "agent "+a.uuid+" has ended", "target", a.uuid)
	switch m.(type) {
	case SendInput:
		c.Send(to, SendResult{Err: gone})
	case KillAgent:
		c.Send(to, KillResult{})
	case ReapAgent:
		c.Send(to, ReapResult{})
	}
}

func (a *agentActor) next(c actor.Context) {
	if a.busy || len(a.queue) == 0 {
		return
	}
	op := a.queue[0]
	a.queue = a.queue[1:]
	a.busy = true
	ctx, cancel := context.WithCancel(context.Background())
	a.cancel = cancel
	self, root := c.Self(), c.ActorSystem().Root
	w := &agentWork{env: a.env, uuid: a.uuid, ctx: ctx, root: root}
	a.env.Ops.Add(1)
	go func() {
		defer a.env.Ops.Done()
		defer cancel()
		done := opDone{reply: op.sender}
		switch m := op.msg.(type) {
		case StartAgent:
			done.ended = w.spawn()
		case recoverAgent:
			done.ended = w.recover()
		case StatusReport:
			done.ended = w.evaluate(m)
		case SendInput:
			res := w.send(m.Prompt)
			done.result = res
			done.ended = wire.Is(res.Err, wire.NotFound, "")
		case KillAgent:
			res := w.kill(m.Reason)
			done.result, done.ended = res, true
		case ParkAgent:
			w.park(m.IdleBefore)
		case ReapAgent:
			res := w.reap(m.ParkedBefore)
			done.result, done.ended = res, res.Reaped
		}
		root.Send(self, done)
	}()
}

// agentWork is one operation on an op goroutine (edge code: it may block).
type agentWork struct {
	env  *AgentEnv
	uuid string
	ctx  context.Context
	root *actor.RootContext
}

func (w *agentWork) log() *slog.Logger { return w.env.Log.With("agent", w.uuid) }

// write runs op through the store actor and waits for it.
func (w *agentWork) write(op store.Op) (any, error) {
	return WriteSync(w.root, w.env.Store, op)
}

// WriteSync sends op to the store actor and waits for the result. Edge code only.
func WriteSync(root *actor.RootContext, storePID *actor.PID, op store.Op) (any, error) {
	res, err := root.RequestFuture(storePID, Write{Op: op}, 60*time.Second).Result()
	if err != nil {
		return nil, wire.Internal("store", "store actor did not answer: "+err.Error())
	}
	wr := res.(WriteResult)
	return wr.Value, wr.Err
}

func (w *agentWork) state() (agentState, error) {
	return readAgentState(w.env.DB.Reader(), nil, w.uuid)
}

func (w *agentWork) herdrCtx() (context.Context, context.CancelFunc) {
	d := w.env.PaneTimeout
	if d <= 0 {
		d = 30 * time.Second
	}
	return context.WithTimeout(context.Background(), d)
}

// closePane closes target in the owned session, recording the intent/applied pair.
// Errors are logged: the close is best-effort once intended (lifecycle.md §15.2).
func (w *agentWork) closePane(target, reason string) {
	if target == "" || w.env.Herdr == nil {
		return
	}
	v, err := w.write(func(tx *store.Tx) (any, error) {
		id, _, err := tx.Intent("agent.close_requested", w.uuid, map[string]any{"target": target, "reason": reason})
		return id, err
	})
	if err != nil {
		w.log().Error("close intent", "err", err)
		return
	}
	opID := v.(string)
	ctx, cancel := w.herdrCtx()
	cerr := w.env.Herdr.Owned().Close(ctx, target)
	cancel()
	if cerr != nil && !herdr.IsCode(cerr, "pane_not_found") {
		w.log().Warn("pane close failed", "target", target, "err", cerr)
	}
	w.write(func(tx *store.Tx) (any, error) {
		ok := cerr == nil || herdr.IsCode(cerr, "pane_not_found")
		return tx.Applied(opID, ok, errText(cerr), map[string]any{"target": target})
	})
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// endAs ends the row from any live status; a row that already ended is left alone.
func (w *agentWork) endAs(from []string, reason string) {
	if _, err := w.write(OpEnd(w.uuid, from, reason)); err != nil && !errors.Is(err, ErrStale) {
		w.log().Error("end agent", "reason", reason, "err", err)
	}
}

// fail ends a starting or live row failed, closing its pane first when one is recorded.
func (w *agentWork) fail(cause error) {
	w.log().Warn("agent failed", "err", cause)
	if st, err := w.state(); err == nil && st.TerminalID != "" {
		w.closePane(st.TerminalID, "failed")
	}
	w.endAs(live, "failed")
}

// canceled reports whether the spawn must stop (kill, timeout, stuck guard, shutdown).
// A row still starting with cancel_requested is ended canceled here.
func (w *agentWork) canceled() bool {
	st, err := w.state()
	if err != nil {
		return true
	}
	if st.Status == "starting" && st.CancelRequested {
		w.endAs([]string{"starting"}, "canceled")
		return true
	}
	return st.Status != "starting" || w.ctx.Err() != nil
}

// spawn is the spawn pipeline (lifecycle.md §8.1). It returns true when the row ended.
func (w *agentWork) spawn() (ended bool) {
	st, err := w.state()
	if err != nil || st.Status != "starting" {
		return err != nil || st.Status == "ended"
	}
	dir := AgentDataDir(w.env.Home, st.Path, w.uuid)
	l, err := ReadLaunch(dir)
	if err != nil {
		w.fail(err)
		return true
	}
	if w.env.Herdr == nil {
		w.fail(wire.Env(herdr.CauseMissing, "no herdr binary; "+herdr.InstallHint))
		return true
	}
	if w.canceled() {
		return true
	}
	ctx, cancel := w.herdrCtx()
	if w.env.HerdrGate != nil {
		err = w.env.HerdrGate(ctx)
	}
	if err == nil {
		_, err = w.env.Herdr.EnsureOwned(ctx)
	}
	cancel()
	if err != nil {
		w.fail(err)
		return true
	}
	if w.canceled() {
		return true
	}
	ws := HomeWorkspace(st.Path)
	spec := herdr.SpawnSpec{Workspace: ws, Label: st.Path, Argv: l.Argv, Env: l.Env}
	if l.Cwd != nil {
		spec.Cwd = *l.Cwd
	}
	// Intent first, in a transaction that also proves the row is still starting and
	// not canceled (decisions.md D1).
	v, err := w.write(func(tx *store.Tx) (any, error) {
		s, err := readAgentState(nil, tx, w.uuid)
		if err != nil {
			return nil, err
		}
		if s.Status != "starting" || s.CancelRequested {
			return nil, ErrStale
		}
		id, _, err := tx.Intent("agent.spawn_requested", w.uuid, map[string]any{
			"workspace": ws, "label": st.Path, "argv": l.Argv, "cwd": spec.Cwd})
		return id, err
	})
	if err != nil {
		if errors.Is(err, ErrStale) {
			w.canceled()
			return true
		}
		w.fail(err)
		return true
	}
	opID := v.(string)
	ctx, cancel = w.herdrCtx()
	pl, serr := w.env.Herdr.Owned().Spawn(ctx, spec)
	cancel()
	if serr != nil {
		w.write(func(tx *store.Tx) (any, error) { return tx.Applied(opID, false, serr.Error(), nil) })
		w.fail(serr)
		return true
	}
	ids := map[string]any{"pane_id": pl.PaneID, "terminal_id": pl.TerminalID, "workspace_id": pl.WorkspaceID, "tab_id": pl.TabID}
	session := w.env.Herdr.Owned().Name()
	// Record the location only if the row is still starting and not canceled; else the
	// fresh pane is closed (cancel interlock, lifecycle.md §7.4).
	_, err = w.write(func(tx *store.Tx) (any, error) {
		if _, err := tx.Applied(opID, true, "", ids); err != nil {
			return nil, err
		}
		s, err := readAgentState(nil, tx, w.uuid)
		if err != nil {
			return nil, err
		}
		if s.Status != "starting" || s.CancelRequested {
			return nil, ErrStale
		}
		if _, err := tx.Exec(`UPDATE agents SET herdr_session = ?, terminal_id = ?, pane_id = ?, updated_at = ?
			WHERE uuid = ?`, session, pl.TerminalID, pl.PaneID, tx.Now(), w.uuid); err != nil {
			return nil, err
		}
		_, err = emitAgent(tx, "agent.location_changed", w.uuid, map[string]any{"pane_id": pl.PaneID, "terminal_id": pl.TerminalID})
		return nil, err
	})
	if err != nil {
		// The pane exists but the row may not own it: close it either way.
		w.closePane(pl.TerminalID, "canceled")
		if errors.Is(err, ErrStale) {
			w.canceled()
		} else {
			w.fail(err)
		}
		return true
	}
	if w.env.NeedsAgentSession == nil || w.env.NeedsAgentSession(st.Provider) {
		w.pollAgentSession(pl.TerminalID)
	}
	if w.canceled() {
		if st2, _ := w.state(); st2.Status == "ended" {
			w.closePane(pl.TerminalID, "canceled")
		}
		return true
	}
	if l.Prompt == nil || *l.Prompt == "" {
		if _, err := w.write(func(tx *store.Tx) (any, error) {
			if err := casStatus(tx, w.uuid, []string{"starting"}, "idle", "idle_since = ?", tx.Now()); err != nil {
				return nil, err
			}
			return emitAgent(tx, "agent.status_changed", w.uuid, map[string]any{"status": "idle"})
		}); err != nil && !errors.Is(err, ErrStale) {
			w.fail(err)
			return true
		}
		return false
	}
	res := w.deliver(*l.Prompt, []string{"starting"}, pl.TerminalID, "")
	if res.Err != nil && !wire.Is(res.Err, wire.NotFound, "") {
		w.fail(res.Err)
		return true
	}
	return wire.Is(res.Err, wire.NotFound, "")
}

// pollAgentSession waits up to AgentSessionWait for herdr's transcript pointer and
// records it (lifecycle.md §8.1 step 7).
func (w *agentWork) pollAgentSession(terminal string) {
	d := w.env.AgentSessionWait
	if d <= 0 {
		return
	}
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) && w.ctx.Err() == nil {
		ctx, cancel := w.herdrCtx()
		p, err := w.env.Herdr.Owned().PaneGet(ctx, terminal)
		cancel()
		if err == nil && p.AgentSession != nil && p.AgentSession.Value != "" {
			w.write(func(tx *store.Tx) (any, error) {
				return tx.Exec(`UPDATE agents SET agent_session_kind = ?, agent_session_value = ?, updated_at = ? WHERE uuid = ?`,
					p.AgentSession.Kind, p.AgentSession.Value, tx.Now(), w.uuid)
			})
			return
		}
		select {
		case <-w.ctx.Done():
			return
		case <-time.After(150 * time.Millisecond):
		}
	}
}

// deliver opens the next turn (status → working, input_seq+1, turn row, input intent)
// before typing, then types the text and Enter (the two-call rule) and records the
// applied fact (lifecycle.md §9, M6/M13).
func (w *agentWork) deliver(prompt string, from []string, target, while string) SendResult {
	type opened struct {
		seq      int64
		opID     string
		path     string
		while    string
		provider string
	}
	v, err := w.write(func(tx *store.Tx) (any, error) {
		s, err := readAgentState(nil, tx, w.uuid)
		if err != nil {
			return nil, err
		}
		if s.Status == "ended" || s.Status == "lost" {
			return nil, wire.New(wire.NotFound, "agent "+s.Path+" is "+s.Status, "target", s.Path)
		}
		seq := s.InputSeq + 1
		if err := casStatus(tx, w.uuid, from, "working",
			"input_seq = ?, blocked_kind = NULL, idle_since = NULL", seq); err != nil {
			return nil, err
		}
		if _, err := tx.Exec(`INSERT INTO turns (agent_uuid, input_seq, source, delivered_at) VALUES (?, ?, 'orcr', ?)`,
			w.uuid, seq, tx.Now()); err != nil {
			return nil, err
		}
		if _, err := emitAgent(tx, "agent.status_changed", w.uuid, map[string]any{"status": "working", "input_seq": seq}); err != nil {
			return nil, err
		}
		id, _, err := tx.Intent("agent.input_requested", w.uuid, map[string]any{"input_seq": seq, "target": target, "bytes": len(prompt)})
		if while == "" {
			while = s.Status
		}
		return opened{seq: seq, opID: id, path: s.Path, while: while, provider: s.Provider}, err
	})
	if err != nil {
		return SendResult{UUID: w.uuid, Err: err}
	}
	o := v.(opened)
	derr := w.submit(target, prompt, w.plan(o.provider))
	w.write(func(tx *store.Tx) (any, error) {
		if derr == nil {
			// Our decision: the turn counts as delivered when Enter reached the pane,
			// not when it was opened before the text→Enter pause, so the fast-turn grace
			// window starts when the provider actually has the input.
			if _, err := tx.Exec(`UPDATE turns SET delivered_at = ? WHERE agent_uuid = ? AND input_seq = ?`,
				tx.Now(), w.uuid, o.seq); err != nil {
				return nil, err
			}
		}
		return tx.Applied(o.opID, derr == nil, errText(derr), map[string]any{"input_seq": o.seq})
	})
	return SendResult{UUID: w.uuid, Path: o.path, DeliveredWhile: o.while, InputSeq: o.seq, Err: derr}
}

// send is agent.send on a managed row (lifecycle.md §11.1).
func (w *agentWork) send(prompt string) SendResult {
	st, err := w.state()
	if err != nil {
		return SendResult{Err: err}
	}
	if st.Status == "ended" || st.Status == "lost" {
		return SendResult{Err: wire.New(wire.NotFound, "agent "+st.Path+" is "+st.Status, "target", st.Path)}
	}
	if st.TerminalID == "" || w.env.Herdr == nil {
		return SendResult{Err: wire.Conflict(fmt.Sprintf("agent %s has no pane yet (status %s)", st.Path, st.Status),
			"current_status", st.Status)}
	}
	// A parked agent (or one with a move left in flight) is moved home first (M18);
	// the delivery then reports the status the send found.
	while := st.Status
	if st.Status == "parked" || st.MoveState != "none" {
		if st, err = w.unpark(st); err != nil {
			return SendResult{Err: err}
		}
		if st.Status == "ended" || st.Status == "lost" {
			return SendResult{Err: wire.New(wire.NotFound, "agent "+st.Path+" is "+st.Status, "target", st.Path)}
		}
		if st.Status == "parked" {
			return SendResult{Err: wire.Conflict(fmt.Sprintf("agent %s could not be un-parked", st.Path),
				"current_status", st.Status)}
		}
	}
	return w.deliver(prompt, []string{"starting", "working", "idle", "blocked"}, st.TerminalID, while)
}

// kill shuts a live row down: the provider's shutdown line (if any) and grace, then
// pane.close, then the row ends killed (lost for a lost row). Ended rows are left alone.
func (w *agentWork) kill(reason string) KillResult {
	st, err := w.state()
	if err != nil {
		return KillResult{Err: err}
	}
	switch st.Status {
	case "ended":
		// A canceled spawn may have left a pane behind a pipeline that was mid-call
		// when the cancel landed; close it if it is still there.
		if st.TerminalID != "" && w.env.Herdr != nil {
			ctx, cancel := w.herdrCtx()
			_, err := w.env.Herdr.Owned().PaneGet(ctx, st.TerminalID)
			cancel()
			if err == nil {
				w.closePane(st.TerminalID, "canceled")
			}
		}
		return KillResult{}
	case "queued":
		_, err := w.write(OpEnd(w.uuid, []string{"queued"}, "canceled"))
		return KillResult{Killed: err == nil, Err: ignoreStale(err)}
	case "starting":
		_, err := w.write(OpCancelStarting(w.uuid))
		if st.TerminalID != "" {
			w.closePane(st.TerminalID, "canceled")
		}
		return KillResult{Killed: err == nil, Err: ignoreStale(err)}
	}
	if reason == "" {
		reason = "killed"
	}
	if st.Status == "lost" {
		reason = "lost"
	} else {
		w.shutdownPane(st, reason)
	}
	_, err = w.write(OpEnd(w.uuid, []string{"working", "idle", "blocked", "parked", "lost", "starting"}, reason))
	return KillResult{Killed: err == nil, Err: ignoreStale(err)}
}

func ignoreStale(err error) error {
	if errors.Is(err, ErrStale) {
		return nil
	}
	return err
}

// OpCancelStarting sets the cancel interlock and ends a starting row canceled in one
// transaction (M8).
func OpCancelStarting(uuid string) store.Op {
	return func(tx *store.Tx) (any, error) {
		if _, err := tx.Exec(`UPDATE agents SET cancel_requested = 1 WHERE uuid = ? AND status = 'starting'`, uuid); err != nil {
			return nil, err
		}
		return nil, endAgentTx(tx, uuid, []string{"starting"}, "canceled")
	}
}

// recover runs restart recovery for a live row (lifecycle.md §13.1, quirks Q5/Q6):
// open intents are closed as repaired; a starting row whose pane never got recorded has
// any pane carrying its label closed and ends failed (never a duplicate pane); a starting
// row with a live recorded pane gets its first prompt (or settles idle).
func (w *agentWork) recover() (ended bool) {
	st, err := w.state()
	if err != nil {
		return true
	}
	intents, _ := w.env.DB.OpenIntents()
	if st.MoveState != "none" {
		// A move cut off by a restart: finish or roll it back by token, closing its
		// intent as repaired (lifecycle.md §13.3). herdr unreachable: the lease stays
		// and the next send (or restart) retries.
		moveOp := ""
		for _, in := range intents {
			if in.Ref == w.uuid && in.Kind == "agent.move_requested" {
				moveOp = in.OpID
			}
		}
		if err := w.recoverMove(st, moveOp); err != nil {
			w.log().Warn("move recovery deferred", "err", err)
		}
		intents, _ = w.env.DB.OpenIntents()
		if st, err = w.state(); err != nil {
			return true
		}
	}
	for _, in := range intents {
		if in.Ref != w.uuid || (in.Kind == "agent.move_requested" && st.MoveState != "none") {
			continue
		}
		opID := in.OpID
		w.write(func(tx *store.Tx) (any, error) {
			return tx.Applied(opID, false, "interrupted by a server restart", map[string]any{"repaired": true})
		})
	}
	if st.Status != "starting" {
		return st.Status == "ended"
	}
	if w.env.Herdr == nil {
		return false // the stuck-start guard ends it if no pane ever gets recorded
	}
	ctx, cancel := w.herdrCtx()
	defer cancel()
	if st.TerminalID == "" {
		panes, err := w.env.Herdr.Owned().PaneList(ctx, "")
		if err != nil {
			return false // herdr down: leave it to the stuck-start guard
		}
		for _, p := range panes {
			if p.Label == st.Path {
				w.closePane(p.TerminalID, "recovery")
			}
		}
		w.endAs([]string{"starting"}, "failed")
		return true
	}
	if _, err := w.env.Herdr.Owned().PaneGet(ctx, st.TerminalID); err != nil {
		w.endAs([]string{"starting"}, "failed")
		return true
	}
	l, err := ReadLaunch(AgentDataDir(w.env.Home, st.Path, w.uuid))
	if err != nil {
		w.fail(err)
		return true
	}
	if l.Prompt == nil || *l.Prompt == "" || st.InputSeq > 0 {
		w.write(func(tx *store.Tx) (any, error) {
			if err := casStatus(tx, w.uuid, []string{"starting"}, "idle", "idle_since = ?", tx.Now()); err != nil {
				return nil, err
			}
			return emitAgent(tx, "agent.status_changed", w.uuid, map[string]any{"status": "idle"})
		})
		return false
	}
	res := w.deliver(*l.Prompt, []string{"starting"}, st.TerminalID, "")
	if res.Err != nil {
		w.fail(res.Err)
		return true
	}
	return false
}
