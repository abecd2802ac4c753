package actors

import (
	"context"
	"log/slog"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/orcr-go/orcr/actors/actorkit"
	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/herdr"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/store"
)

// Providers is what the agent actors ask of the configured providers and of herdr's
// contract. [System] builds one value (systemProviders) that it uses itself and shares
// with every agent actor through [AgentEnv.Providers]; a test passes its own, usually
// [BuiltinProviders] with a method or two overridden by embedding.
type Providers interface {
	// Shutdown is how to stop a provider's TUI gracefully (docs/lifecycle.md §15.2): a
	// line to type first ("" for none) and the wait before pane.close.
	Shutdown(provider string) (line string, grace time.Duration)
	// Tuning is a provider's completion tuning.
	Tuning(provider string) config.Tuning
	// Price is a model's row of the price table (config.Config.PriceFor); false: the
	// model has no price, its turns get tokens and no cost.
	Price(model string) (config.Price, bool)
	// NeedsAgentSession reports whether a provider's transcript is found through
	// herdr's agent_session pointer. Providers whose transcript lives in the agent's
	// data dir (the mock) skip the post-spawn pointer poll.
	NeedsAgentSession(provider string) bool
	// Submit is a provider's input-delivery recipe.
	Submit(provider string) SubmitPlan
	// RemoteKeys are a provider's keys for the remote stream's ops (interrupt,
	// approve, deny, model switch); false: none.
	RemoteKeys(provider string) (RemoteKeys, bool)
	// HerdrGate runs before the first herdr call of a spawn: the contract check
	// against the live herdr schema (herdr_version_skew on drift).
	HerdrGate(ctx context.Context) error
	// Relaunch rebuilds a launch for the provider, model and effort routing.fallback
	// promoted its row as (docs/lifecycle.md §7.6).
	Relaunch(l *Launch, provider string) (*Launch, error)
	// Declared is the declaration of a provider expressed through the contract
	// (docs/providers.md §11, §12); false for claude, codex and the mock.
	Declared(provider string) (config.ProviderSpec, bool)
}

// BuiltinProviders is [Providers] without a configuration: built-in tuning, no
// shutdown line, no prices, the agent_session poll, plain two-call delivery, no
// remote keys, no herdr gate, and no relaunch (such a spawn fails).
type BuiltinProviders struct{}

// Shutdown implements [Providers]: no line, no grace.
func (BuiltinProviders) Shutdown(string) (string, time.Duration) { return "", 0 }

// Tuning implements [Providers]: the built-in tuning.
func (BuiltinProviders) Tuning(provider string) config.Tuning {
	return config.BuiltinTuning(provider)
}

// Price implements [Providers]: no model has a price.
func (BuiltinProviders) Price(string) (config.Price, bool) { return config.Price{}, false }

// NeedsAgentSession implements [Providers]: always.
func (BuiltinProviders) NeedsAgentSession(string) bool { return true }

// Submit implements [Providers]: plain two-call delivery.
func (BuiltinProviders) Submit(string) SubmitPlan { return SubmitPlan{EnterDelay: defaultEnterDelay} }

// RemoteKeys implements [Providers]: none.
func (BuiltinProviders) RemoteKeys(string) (RemoteKeys, bool) { return RemoteKeys{}, false }

// HerdrGate implements [Providers]: no check.
func (BuiltinProviders) HerdrGate(context.Context) error { return nil }

// Declared implements [Providers]: none.
func (BuiltinProviders) Declared(string) (config.ProviderSpec, bool) {
	return config.ProviderSpec{}, false
}

// Relaunch implements [Providers]: none, so a rerouted spawn fails.
func (BuiltinProviders) Relaunch(_ *Launch, provider string) (*Launch, error) {
	return nil, wire.Internal(wire.CauseRelaunch, "no relaunch for provider "+provider)
}

// AgentEnv is what agent actors need: shared by the agents actor and all its children.
type AgentEnv struct {
	Store *actor.PID
	DB    *store.DB
	Herdr *herdr.Driver // nil when no herdr binary was found
	Home  string
	Log   *slog.Logger
	// Providers answers the agent actors' questions about providers (nil:
	// [BuiltinProviders]); the same value System uses.
	Providers Providers
	// Monitor receives TrackPane from every agent actor (nil: no completion monitor).
	Monitor *actor.PID
	// Agents is the agents actor, for edge code that hands agents work without a reply
	// (discovery's drainInbox; nil: none).
	Agents *actor.PID
	// PaneExec is the launcher prefix a managed agent's pane runs its provider through
	// (`<orcr> __pane-exec`, docs/lifecycle.md §8.2); empty: the provider's argv as it is.
	PaneExec []string
	// PaneTimeout bounds one herdr call made by a pipeline or op (default 30 s).
	PaneTimeout time.Duration
	// AgentSessionWait bounds the post-spawn poll for herdr's transcript pointer (3 s).
	AgentSessionWait time.Duration
	// Transcripts reaches providers' native transcripts (nil: completion cannot check
	// settledness or gc-immediate readability, so such turns never complete).
	Transcripts Transcripts
	// LimitBackoff is how long a provider is paused at a usage limit whose reset time
	// could not be read (timings.limit_backoff; docs/lifecycle.md §7.6).
	LimitBackoff time.Duration
	// QuotaPauseAt is quota.pause_at: the used fraction of a quota window at which
	// the provider starts nothing new until the window resets (0: never).
	QuotaPauseAt float64
	// QuotaWarnAt is quota.warn_at: the used fraction of a quota window at which
	// quota.warned is emitted, once per window and period (0: never).
	QuotaWarnAt float64
	// OwnedStart, a channel of capacity 1, serializes starting the owned herdr session
	// (actors/agent_spawn.go ensureOwned); nil: no serialization.
	OwnedStart chan struct{}
	// Ops counts running op goroutines; the system waits for it before stopping the
	// store actor, so no op is cut off between its writes.
	Ops sync.WaitGroup
	// opsStarted counts op goroutines ever started (tests assert that a report that
	// changes nothing starts none).
	opsStarted atomic.Int64
	// completionSeq is what the monitor last learnt about herdr's agent rows: whether
	// they carry completion_seq (completionSeqReported, completionSeqAbsent) or not yet
	// known (0). A delivery reads the turn's baseline only unless they lack it.
	completionSeq atomic.Int32
}

// Values of AgentEnv.completionSeq.
const (
	completionSeqReported int32 = 1
	completionSeqAbsent   int32 = -1
)

// screenStatus is the declaration of a provider whose status is read from its pane's
// screen (`status: screen`, docs/providers.md §11.4); false: herdr's.
func (env *AgentEnv) screenStatus(provider string) (config.ProviderSpec, bool) {
	spec, ok := env.providers().Declared(provider)
	return spec, ok && spec.Status == config.StatusScreen
}

// providers is env.Providers, or the built-ins when it is nil.
func (env *AgentEnv) providers() Providers {
	if env.Providers == nil {
		return BuiltinProviders{}
	}
	return env.Providers
}

func (env *AgentEnv) tuning(provider string) config.Tuning {
	return env.providers().Tuning(provider)
}

// Messages of agent actors (sent through the agents actor, which routes by UUID).
type (
	// SendInput delivers a prompt (agent.send). Reply: SendOutcome.
	SendInput struct {
		UUID   string
		Prompt string
		Source string // the session log's turn/start source; "" = orcr (docs/remote.md §5)
	}
	// SendOutcome answers SendInput.
	SendOutcome struct {
		Result api.SendResult
		Err    error
	}
	// KillAgent shuts a live agent's pane down and ends its row (agent.kill; the
	// deadline sweep with Reason timeout). Reply: KillOutcome.
	KillAgent struct {
		UUID   string
		Reason store.ExitReason // "" = killed
	}
	// KillOutcome answers KillAgent. Killed is false when the row had already ended.
	KillOutcome struct {
		Killed bool
		Err    error
	}
	// CancelSpawn tells the agent actor that its starting row was canceled: the running
	// pipeline stops at its next checkpoint and closes any pane it made. Any other op
	// runs on: a restart recovery cut off here would leave the spawn a crash interrupted
	// unsettled, its intent open and its pane an orphan (docs/lifecycle.md §13.1).
	CancelSpawn struct{ UUID string }
	// StartAgent tells the agents actor that a row was promoted and its spawn pipeline
	// must run.
	StartAgent struct{ UUID string }
	// ParkAgent (GC park sweep, no reply) moves an idle gc-auto agent whose idle
	// streak began at or before IdleBefore (unix ms) to workspace idle (docs/lifecycle.md M17).
	ParkAgent struct {
		UUID       string
		IdleBefore int64
	}
	// ReapAgent (GC reap sweep) ends a parked agent whose parked_at is at or before
	// ParkedBefore (unix ms) reaped, closing its pane (docs/lifecycle.md M19). Reply: ReapResult.
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
	// agentEnded tells the agents actor that an agent actor's row ended.
	agentEnded struct {
		UUID string
		PID  *actor.PID
	}
	// recoverAgent runs restart recovery for a row found live at start.
	recoverAgent struct{ UUID string }
	// turnOp performs a turn step decided in memory.
	turnOp struct {
		step   turnStep
		report StatusReport
	}
	// recheck re-decides the turn rules when a timing threshold passes.
	recheck struct{ gen int64 }
)

// opDone is an op goroutine's report to its agent actor.
type opDone struct {
	reply  *actor.PID
	result any
	st     store.Agent // the row after the op (valid when loaded)
	loaded bool
	ended  bool  // the row ended: the actor stops
	retry  int64 // unix ms: decide the turn rules again then (a completion not ready yet)
	mark   completionMark
	drain  *bool   // a drain op: whether text still waits in the inbox
	tools  *string // a tool feed: the transcript cursor it read
	// stallObs is a stall probe's observation of the pane (docs/lifecycle.md §10.7).
	stallObs *stallObservation
	// verdict is the next look at whether the pane took a verdict's answer (nil: none).
	verdict *verdictCheck
	// call is the next look for the call a blocked agent waits on (nil: none).
	call *callCheck
}

// completionMark is what an agent actor knows of herdr's completion_seq for its open
// turn (docs/lifecycle.md §10.2): the value read right after the turn's Enter and the
// highest one its idle streak accounts for. It lives in the actor's memory only — the
// one piece of turn state that does (docs/decisions.md D10): a restart forgets it, and
// the turn is then decided exactly as with a herdr that does not report the field.
type completionMark struct {
	Turn int64   // input_seq of the turn it belongs to; 0 = none
	Base counter // unknown: herdr did not report completion_seq after the Enter
	Seen uint64
}

// transcriptProbe records the last transcript probe of a turn whose fast path closed
// without working seen (docs/lifecycle.md §10.2): memory only, like completionMark.
type transcriptProbe struct {
	Turn, At int64
}

// agentActor owns one managed agent's lifecycle and keeps its row in memory: it loads
// the row once when it starts and then takes the row from the result of every op it
// runs. Operations that do I/O (spawn pipeline, input delivery, kill, moves, recovery,
// turn steps) run one at a time, each on an op goroutine that may block on herdr and on
// store futures and reports back with opDone; requests that arrive meanwhile wait in
// the actor's queue. This serialization is the agent's move lock. Cancel of a starting
// row does not queue: it cancels the running pipeline.
//
// herdr's observations (StatusReport, sent only when something changed) are decided
// in memory by [decideTurn]: a report that changes nothing costs no SQL statement, no
// write and no goroutine. Timing thresholds (stable idle, the fast-turn grace window)
// re-decide from a timer instead of from polls.
type agentActor struct {
	env      *AgentEnv
	uuid     string
	st       store.Agent
	loaded   bool
	busy     bool
	queue    []queuedOp
	cancel   context.CancelFunc
	spawning bool        // the running op is the spawn pipeline (StartAgent)
	stopping atomic.Bool // set before the op context is canceled by a stop
	ended    bool

	report     *StatusReport // herdr's latest observation of the pane
	undecided  bool          // a report or a state change arrived while an op ran
	recheckGen int64
	timer      *time.Timer
	tracked    TrackPane       // what the monitor was last told
	active     bool            // what the monitor was last told by WatchActive
	delivering bool            // the running op delivers input (isDelivery)
	mark       completionMark  // completion_seq of the open turn, from the ops' results
	probe      transcriptProbe // when the open turn's transcript was last probed for its work

	inbox       bool         // the stream's inbox may hold text for this agent
	inboxStatus store.Status // the status a drain last left text waiting in ("" = none)
	toolsCursor string       // the transcript's stamp at the last tool feed

	stall      stallProgress // the open turn's progress as probed (docs/lifecycle.md §10.7)
	stallTimer *time.Timer   // the next stall probe; nil while none is armed
	stallGen   int64
	stallDue   bool // a stall write waits for the op that runs

	verdictTimer *time.Timer // the next verdictCheck; nil while none is armed
	callTimer    *time.Timer // the next callCheck; nil while none is armed
}

type queuedOp struct {
	msg    any
	sender *actor.PID
}

func newAgentProps(env *AgentEnv, uuid string) *actor.Props {
	return actorkit.Props(env.Log, func() actor.Actor { return &agentActor{env: env, uuid: uuid} })
}

func (a *agentActor) log() *slog.Logger { return a.env.logger().With("agent", a.uuid) }

// logger is the env's logger, or one that drops everything when none is set (tests
// that build an AgentEnv by hand).
func (e *AgentEnv) logger() *slog.Logger {
	if e.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return e.Log
}

func (a *agentActor) Receive(c actor.Context) {
	defer a.signalActive(c)
	switch m := c.Message().(type) {
	case *actor.Started:
		a.load(c)
	case drainInbox:
		if a.ended {
			return
		}
		// Asked from outside (text just went to the inbox, or discovery saw an
		// unmanaged agent's status move): the drain op reads the row afresh, so the
		// status held in memory, which discovery's writes bypass, does not gate it.
		a.inbox, a.inboxStatus = true, ""
		a.queueOp(c, drainInbox{UUID: a.uuid})
	case feedTools:
		if a.ended || !a.loaded || a.st.Status != store.StatusWorking {
			return
		}
		a.queueOp(c, m)
	case StartAgent, SendInput, KillAgent, AdoptAgent, recoverAgent, ParkAgent, ReapAgent, ReconcileAgent, sendKeys:
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
		prev := a.report
		a.report = &m
		a.noteReport(prev, m)
		a.decide(c)
		a.watchStall(c, true)
	case stallTick:
		a.onStallTick(c, m)
	case verdictCheck:
		a.verdictTimer = nil
		a.whileBlocked(c, m) // the op reads the recorded verdict (agentWork.reapplyVerdict)
	case callCheck:
		a.callTimer = nil
		a.whileBlocked(c, m) // the op looks for the call (agentWork.recheckCall)
	case recheck:
		if m.gen == a.recheckGen && !a.ended {
			a.decide(c)
		}
	case CancelSpawn:
		if a.cancel != nil && a.spawning {
			a.cancel()
		}
	case opDone:
		a.done(c, m)
	case *actor.Stopping:
		a.stopping.Store(true)
		if a.cancel != nil {
			a.cancel()
		}
		a.disarm()
		a.disarmStall()
		if a.verdictTimer != nil {
			a.verdictTimer.Stop()
		}
		if a.callTimer != nil {
			a.callTimer.Stop()
		}
		// Ops that never started are answered now: after the stop nobody would, and
		// their askers would wait for their whole timeout.
		stopping := wire.Internal(wire.CauseStopping, "the server is stopping; try again after it restarts")
		for _, q := range a.queue {
			a.answer(c, q.sender, q.msg, stopping)
		}
		a.queue = nil
	}
}

// answer replies err to an op's asker in the op's reply type (no reply for ops that
// have none).
func (a *agentActor) answer(c actor.Context, to *actor.PID, m any, err error) {
	if to == nil {
		return
	}
	switch m.(type) {
	case SendInput:
		c.Send(to, SendOutcome{Err: err})
	case KillAgent:
		c.Send(to, KillOutcome{Err: err})
	case AdoptAgent:
		c.Send(to, AdoptOutcome{Err: err})
	case ReapAgent:
		c.Send(to, ReapResult{Err: err})
	case ReconcileAgent:
		c.Send(to, ReconcileResult{UUID: a.uuid})
	case sendKeys:
		c.Send(to, keysSent{Err: err})
	}
}

// load reads the row once. A row that is gone ends the actor.
func (a *agentActor) load(c actor.Context) {
	st, err := store.LoadAgent(contextBG, a.env.DB.Reader(), a.uuid)
	if err != nil {
		a.log().Error("agent actor: cannot load its row", "err", err)
		a.finish(c)
		return
	}
	a.st, a.loaded = st, true
	if items, err := store.Inbox(contextBG, a.env.DB.Reader(), a.uuid); err == nil && len(items) > 0 {
		a.inbox = true
	}
	a.track(c)
	a.watchStall(c, false)
}

// queueDrain queues a drain of the inbox when text may wait, the agent's state could let
// it through, and that state is not the one a drain already found closed; one drain op
// waits at a time.
func (a *agentActor) queueDrain(c actor.Context) {
	if !a.inbox || a.ended || !a.loaded || a.st.Status == a.inboxStatus {
		return
	}
	if !store.InboxStatuses.Has(a.st.Status) {
		return
	}
	a.queueOp(c, drainInbox{UUID: a.uuid})
}

// queueOp queues a no-reply op unless one of the same type already waits.
func (a *agentActor) queueOp(c actor.Context, m any) {
	for _, q := range a.queue {
		if reflect.TypeOf(q.msg) == reflect.TypeOf(m) {
			return
		}
	}
	a.queue = append(a.queue, queuedOp{msg: m})
	a.next(c)
}

func (a *agentActor) done(c actor.Context, m opDone) {
	a.busy, a.cancel, a.delivering = false, nil, false
	if m.reply != nil {
		c.Send(m.reply, m.result)
	}
	changed := m.mark != a.mark
	a.mark = m.mark
	if m.loaded {
		changed = changed || m.st != a.st
		a.st = m.st
	}
	if m.tools != nil {
		a.toolsCursor = *m.tools
	}
	if m.stallObs != nil {
		a.stall = foldProgress(a.stall, a.st.Turn.Seq, *m.stallObs, a.st.StalledAt)
	}
	if m.drain != nil {
		a.inbox, a.inboxStatus = *m.drain, ""
		if *m.drain {
			a.inboxStatus = a.st.Status
		}
	}
	if m.ended || (a.loaded && a.st.Status == store.StatusEnded) {
		a.finish(c)
		return
	}
	a.track(c)
	if m.retry > 0 {
		a.arm(c, m.retry)
	}
	if m.verdict != nil {
		if a.verdictTimer != nil {
			a.verdictTimer.Stop()
		}
		next, self, root := *m.verdict, c.Self(), c.ActorSystem().Root
		a.verdictTimer = time.AfterFunc(VerdictRecheck, func() { root.Send(self, next) })
	}
	if m.call != nil {
		if a.callTimer != nil {
			a.callTimer.Stop()
		}
		next, self, root := *m.call, c.Self(), c.ActorSystem().Root
		a.callTimer = time.AfterFunc(CallRecheck, func() { root.Send(self, next) })
	}
	if changed || a.undecided {
		a.undecided = false
		a.decide(c)
	}
	a.watchStall(c, m.stallObs != nil || a.stallDue)
	a.queueDrain(c)
	a.next(c)
}

// finish rejects everything queued and asks the agents actor to retire this actor.
func (a *agentActor) finish(c actor.Context) {
	a.ended = true
	a.disarm()
	a.disarmStall()
	for _, q := range a.queue {
		a.reject(c, q.sender, q.msg)
	}
	a.queue = nil
	a.untrack(c)
	// The agents actor removes us from its routing table and then poisons us: messages
	// it routed here before that are answered (rejected) in order, later ones reach a
	// fresh actor. Stopping ourselves instead would drop the ones already on their way
	// to dead letters, leaving their askers waiting for their full timeout.
	c.Send(c.Parent(), agentEnded{UUID: a.uuid, PID: c.Self()})
}

// whileBlocked queues a timer's look at a blocked pane (verdictCheck, callCheck) only
// while the row is blocked and herdr still sees the pane so: the op reads the transcript.
func (a *agentActor) whileBlocked(c actor.Context, m any) {
	if a.ended || !a.loaded || a.st.Status != store.StatusBlocked ||
		(a.report != nil && a.report.Status != herdr.StatusBlocked) {
		return
	}
	a.queueOp(c, m)
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

// reject answers an op that can no longer run because the row ended: a kill or a reap
// finds nothing to do, the rest are not_found.
func (a *agentActor) reject(c actor.Context, to *actor.PID, m any) {
	if to == nil {
		return
	}
	switch m.(type) {
	case KillAgent:
		c.Send(to, KillOutcome{})
	case ReapAgent:
		c.Send(to, ReapResult{})
	default:
		a.answer(c, to, m, wire.New(wire.NotFound, "agent "+a.uuid+" has ended", "target", a.uuid))
	}
}

// decide runs the turn rules on the row in memory and herdr's latest observation.
// Only a step that has something to do costs an op.
func (a *agentActor) decide(c actor.Context) {
	if a.busy {
		a.undecided = true
		return
	}
	if !a.loaded || a.report == nil || !a.st.Managed {
		return
	}
	r := *a.report
	if r.AgentSession != nil && r.AgentSession.Value != "" && a.st.SessionValue == "" && store.PaneStatuses.Has(a.st.Status) {
		a.start(c, queuedOp{msg: turnOp{report: r}})
		return
	}
	f := a.facts()
	step := decideTurn(f, turnReport{Status: r.Status, At: time.Now().UnixMilli(), CompletionSeq: counterOf(r.CompletionSeq)},
		a.env.tuning(a.st.Provider))
	if step.Action != turnNone || step.Recheck == 0 {
		// What a stuck turn needs told: every step taken, and every report that left
		// nothing to wait for.
		a.log().Debug("turn step", "action", step.Action, "recheck", step.Recheck, "herdr", r.Status, "completion_seq", counterOf(r.CompletionSeq),
			"status", f.Status, "turn", f.OpenSeq, "working_seen_at", f.WorkingSeenAt, "idle_since", f.IdleSince,
			"completion_base", f.CompletionBase, "completion_seen", f.CompletionSeen)
	}
	if step.Action == turnNone {
		if step.Recheck > 0 {
			a.arm(c, step.Recheck)
		}
		return
	}
	if step.Action == turnProbeTranscript {
		a.probe = transcriptProbe{Turn: a.st.Turn.Seq, At: time.Now().UnixMilli()}
		a.arm(c, step.Recheck)
	}
	a.start(c, queuedOp{msg: turnOp{step: step, report: r}})
}

// facts is what the turn rules read: the row, and the completion_seq mark when it
// belongs to the open turn.
func (a *agentActor) facts() turnFacts {
	f := factsOf(a.st)
	if a.mark.Turn != 0 && a.mark.Turn == a.st.Turn.Seq {
		f.CompletionBase, f.CompletionSeen = a.mark.Base, a.mark.Seen
	}
	if a.probe.Turn != 0 && a.probe.Turn == a.st.Turn.Seq {
		f.ProbedAt = a.probe.At
	}
	return f
}

// factsOf is what the turn rules read of a row.
func factsOf(st store.Agent) turnFacts {
	return turnFacts{
		Status: st.Status, OpenSeq: st.Turn.Seq, DeliveredAt: st.Turn.DeliveredAt,
		WorkingSeenAt: st.Turn.WorkingSeenAt, IdleSince: st.IdleSince, CreatedAt: st.CreatedAt,
		Immediate: st.GCMode == store.GCImmediate,
	}
}

// arm schedules a re-decision at unix ms at (time.AfterFunc with a generation, never
// SetReceiveTimeout: it is racy in protoactor-go).
func (a *agentActor) arm(c actor.Context, at int64) {
	a.disarm()
	gen, self, root := a.recheckGen, c.Self(), c.ActorSystem().Root
	d := time.Until(time.UnixMilli(at))
	a.timer = time.AfterFunc(max(d, time.Millisecond), func() { root.Send(self, recheck{gen: gen}) })
}

func (a *agentActor) disarm() {
	a.recheckGen++
	if a.timer != nil {
		a.timer.Stop()
		a.timer = nil
	}
}

// track tells the monitor which pane to watch for this agent, when that changed.
func (a *agentActor) track(c actor.Context) {
	if a.env.Monitor == nil || !a.loaded {
		return
	}
	t := TrackPane{UUID: a.uuid}
	if a.st.Managed && store.PaneStatuses.Has(a.st.Status) && a.st.TerminalID != "" {
		t.Terminal, t.Pane = a.st.TerminalID, a.st.PaneID
		if len(a.env.PaneExec) > 0 {
			t.ExitFile = exitFile(a.env.Home, a.st.Path, a.uuid)
		}
		if _, ok := a.env.screenStatus(a.st.Provider); ok {
			t.Screen = a.st.Provider
		}
	}
	if t == a.tracked {
		return
	}
	a.tracked = t
	c.Send(a.env.Monitor, t)
}

// isDelivery reports whether an op puts input into the agent's pane: while one waits or
// runs, the monitor keeps its fast pace.
func isDelivery(m any) bool {
	switch m.(type) {
	case StartAgent, SendInput, drainInbox, sendKeys:
		return true
	}
	return false
}

// agentActive is the rule for WatchActive (docs/lifecycle.md §10.2): an agent is active
// while it is starting or working, has a turn in flight, or has a delivery waiting or
// running; an ended agent never is.
func agentActive(st store.Status, turnSeq int64, delivering, ended bool) bool {
	if ended || st.Gone() {
		return false
	}
	return delivering || turnSeq != 0 || st == store.StatusStarting || st == store.StatusWorking
}

// signalActive tells the monitor when this agent turned active or quiet.
func (a *agentActor) signalActive(c actor.Context) {
	if a.env.Monitor == nil {
		return
	}
	delivering := a.delivering
	for _, q := range a.queue {
		delivering = delivering || isDelivery(q.msg)
	}
	// Only managed agents' panes are watched; herdr's view of others is discovery's.
	on := a.loaded && a.st.Managed && agentActive(a.st.Status, a.st.Turn.Seq, delivering, a.ended)
	if on == a.active {
		return
	}
	a.active = on
	c.Send(a.env.Monitor, WatchActive{UUID: a.uuid, Active: on})
}

func (a *agentActor) untrack(c actor.Context) {
	if a.env.Monitor != nil && a.tracked.Terminal != "" {
		a.tracked = TrackPane{UUID: a.uuid}
		c.Send(a.env.Monitor, a.tracked)
	}
}

func (a *agentActor) next(c actor.Context) {
	if a.busy || len(a.queue) == 0 {
		return
	}
	op := a.queue[0]
	a.queue = a.queue[1:]
	a.start(c, op)
}

// start runs op on an op goroutine.
func (a *agentActor) start(c actor.Context, op queuedOp) {
	a.busy, a.delivering = true, isDelivery(op.msg)
	ctx, cancel := context.WithCancel(context.Background())
	a.cancel = cancel
	_, a.spawning = op.msg.(StartAgent)
	self, root := c.Self(), c.ActorSystem().Root
	w := &agentWork{env: a.env, uuid: a.uuid, ctx: ctx, root: root, st: a.st, loaded: a.loaded, stopping: &a.stopping, mark: a.mark}
	cursor := a.toolsCursor
	a.env.Ops.Add(1)
	a.env.opsStarted.Add(1)
	go func() {
		defer a.env.Ops.Done()
		defer cancel()
		done := opDone{reply: op.sender}
		switch m := op.msg.(type) {
		case StartAgent:
			done.ended = w.spawn()
		case recoverAgent:
			done.ended = w.recover()
		case turnOp:
			done.ended, done.retry = w.turn(m)
			if w.callLater {
				done.call = &callCheck{Try: 1}
			}
		case SendInput:
			w.source = m.Source
			res, err := w.send(m.Prompt)
			done.result = SendOutcome{Result: res, Err: err}
			done.ended = wire.Is(err, wire.NotFound, "")
		case KillAgent:
			killed, err := w.kill(m.Reason)
			done.result, done.ended = KillOutcome{Killed: killed, Err: err}, true
		case AdoptAgent:
			done.result = AdoptOutcome{Err: w.adopt(m.Path)}
		case ParkAgent:
			w.park(m.IdleBefore)
		case ReapAgent:
			res := w.reap(m.ParkedBefore)
			done.result, done.ended = res, res.Reaped
		case drainInbox:
			waiting := w.drain()
			done.drain = &waiting
		case sendKeys:
			err := w.keys(m.Keys)
			done.result = keysSent{Err: err}
			if err == nil && m.CallID != "" {
				done.verdict = &verdictCheck{CallID: m.CallID, Try: 1}
			}
		case callCheck:
			done.call = w.recheckCall(m)
		case verdictCheck:
			if w.reapplyVerdict(m.CallID) && m.Try < verdictTries {
				done.verdict = &verdictCheck{CallID: m.CallID, Try: m.Try + 1}
			}
		case feedTools:
			cur := w.feedTools(cursor)
			done.tools = &cur
		case stallProbe:
			o := w.probeStall()
			done.stallObs = &o
		case stallWrite:
			w.writeStall(m)
		case ReconcileAgent:
			done.result = w.reconcile(m)
			done.ended = w.loaded && w.st.Status == store.StatusEnded
		}
		// Every way a row ends passes here: a worktree it leaves is removed (or kept)
		// before the op's asker is answered (docs/lifecycle.md §8.4).
		if w.loaded && w.st.Worktree.State == store.WorktreeReady && w.isEnded() {
			w.releaseWorktree()
		}
		done.st, done.loaded, done.mark = w.st, w.loaded, w.mark
		root.Send(self, done)
	}()
}
