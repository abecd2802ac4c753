package actors

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/orcr-go/orcr/actors/actorkit"
	"github.com/orcr-go/orcr/herdr"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/store"
)

// Reconciliation (docs/lifecycle.md §13): a pass diffs the managed rows against the
// owned session's pane list and hands each difference to the agent's actor, which
// re-checks it under its move lock and applies it with the ordinary events.

// reconAction is what a pass decides for one row.
type reconAction string

const (
	reconLost    reconAction = "lost"   // a running row's terminal is gone (M20)
	reconEndLost reconAction = "end"    // a lost row's terminal is still gone (M21)
	reconRevive  reconAction = "revive" // a lost row's terminal is back (Q4)
)

// reconPane is one pane of the owned session, as a pass sees it.
type reconPane struct {
	Terminal, Pane string
	Status         herdr.Status
	// Marked: herdr reports an agent or an agent_session on the pane.
	Marked bool
	// RootShell: the pane carries [herdr.RootShellLabel], the root shell of a
	// workspace orcr created.
	RootShell bool
}

// reconAct is one difference found by a pass.
type reconAct struct {
	UUID, Path, Terminal string
	Action               reconAction
	// To is the status a revival gives the row.
	To store.Status
}

// Drift is the reconciliation state of server.status (docs/lifecycle.md §13.4).
type Drift struct {
	// Lost counts the managed rows the last pass found lost or marked lost.
	Lost int64
	// Repaired counts the repairs reconciliation applied since the server started.
	Repaired int64
	// UnknownMarkedPanes and UnmarkedPanes count owned-session panes that belong to no
	// managed row: with an agent (or agent_session) on them, or plain shells.
	UnknownMarkedPanes, UnmarkedPanes int64
	// RootShellPanes counts the root shells of workspaces orcr created that the pass
	// found left behind (a crash during a spawn or a move); the pass closes them.
	RootShellPanes int64
}

// planReconcile is the pure rule of one pass (docs/lifecycle.md §13.2) over the rows
// (read first) and the owned session's panes (read after): a lost row whose terminal
// is visible again is revived (blocked when herdr says blocked; working when a turn is
// open; idle otherwise, and the monitor then opens an external turn if herdr says
// working); a lost row whose terminal is still absent ends lost — a row marked lost in
// this pass is only resolved by a later one, since the rows were read before; a
// working, idle, blocked or parked row with no move in flight whose terminal is absent
// is lost. starting rows belong to their spawn pipeline and rows with a move in flight
// to their move (recovered by the agent's actor). Panes no row claims are counted as
// drift, never touched here; root shells left behind are counted apart (the pass then
// closes them, [herdr.Session.CloseRootShells]).
func planReconcile(rows []store.ReconRow, panes []reconPane) ([]reconAct, Drift) {
	byTerminal := make(map[string]reconPane, len(panes))
	for _, p := range panes {
		byTerminal[p.Terminal] = p
	}
	var acts []reconAct
	var d Drift
	claimed := make(map[string]bool, len(rows))
	for _, r := range rows {
		if r.TerminalID != "" {
			claimed[r.TerminalID] = true
		}
		p, present := byTerminal[r.TerminalID]
		present = present && r.TerminalID != ""
		act := reconAct{UUID: r.UUID, Path: r.Path, Terminal: r.TerminalID}
		switch {
		case r.Status == store.StatusLost && present:
			act.Action, act.To = reconRevive, reviveStatus(p.Status, r.TurnOpen)
		case r.Status == store.StatusLost:
			act.Action = reconEndLost
			d.Lost++
		case store.PaneStatuses.Has(r.Status) && r.MoveState == store.MoveNone && !present:
			act.Action = reconLost
			d.Lost++
		default:
			continue
		}
		acts = append(acts, act)
	}
	for _, p := range panes {
		switch {
		case claimed[p.Terminal]:
		case p.RootShell:
			d.RootShellPanes++
		case p.Marked:
			d.UnknownMarkedPanes++
		default:
			d.UnmarkedPanes++
		}
	}
	return acts, d
}

// reviveStatus is the status a revived row gets (docs/lifecycle.md Q4).
func reviveStatus(herdrStatus herdr.Status, turnOpen bool) store.Status {
	switch {
	case herdrStatus == herdr.StatusBlocked:
		return store.StatusBlocked
	case turnOpen:
		return store.StatusWorking
	}
	return store.StatusIdle
}

// Messages of the reconciler.
type (
	// ReconcileAgent asks an agent actor to apply one difference of a pass. Reply:
	// ReconcileResult.
	ReconcileAgent struct {
		UUID     string
		Action   reconAction
		Terminal string
		To       store.Status
	}
	// ReconcileResult answers ReconcileAgent: Applied when the row changed.
	ReconcileResult struct {
		UUID, Path string
		Action     reconAction
		Applied    bool
		Err        error
	}
	// DriftQuery asks the reconciler for its counters. Reply: Drift.
	DriftQuery struct{}
	// ReconcileNow runs a pass now. No reply: the pass's outcome shows in the store and
	// the event stream. Hint marks a pass asked for because a pane seems gone (the
	// monitor no longer sees a watched agent, a wait found its pane missing): it
	// marks rows lost and revives, but ends no lost row — that is left to the passes
	// of the tick, so a lost row keeps its gc_tick to come back (docs/lifecycle.md
	// §13.2).
	ReconcileNow struct{ Hint bool }

	reconTick   struct{ gen int64 }
	reconPassed struct {
		acts  []reconAct
		drift Drift
		err   error
		hint  bool // a hint pass: ends no lost row
		// closed counts the root shells the pass closed (repairs).
		closed int
	}
)

// ReconcilerSpec configures the reconciler.
type ReconcilerSpec struct {
	Env    *AgentEnv
	Agents *actor.PID // receives ReconcileAgent (a Request)
	Queue  *actor.PID // poked after a repair freed a slot
	Tick   time.Duration
}

// reconcilerActor runs the passes: the first when it starts, then one per Tick (at
// most one in flight; ticks come from an actorkit.Ticker). A pass reads the
// rows and the pane list on a goroutine and, when the owned session answered, hands
// every difference to its agent actor as a Request; the results come back as messages
// and are counted and logged (`reconcile: …`).
type reconcilerActor struct {
	spec     ReconcilerSpec
	tick     actorkit.Ticker
	ctx      context.Context // canceled when the actor stops: a pass in flight ends
	cancel   context.CancelFunc
	busy     bool
	again    bool // a pass was asked for while one ran
	againAll bool // and one of those asks was not a hint
	drift    Drift
	repaired int64
}

// NewReconcilerProps returns the reconciler's props.
func NewReconcilerProps(spec ReconcilerSpec) *actor.Props {
	return actorkit.Props(spec.Env.Log, func() actor.Actor { return &reconcilerActor{spec: spec} })
}

func (r *reconcilerActor) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *actor.Started:
		r.ctx, r.cancel = context.WithCancel(context.Background())
		r.pass(c, false)
	case reconTick:
		if r.tick.Current(m.gen) {
			r.pass(c, false)
		}
	case ReconcileNow:
		r.pass(c, m.Hint)
	case reconPassed:
		r.busy = false
		r.repaired += int64(m.closed)
		if m.err == nil {
			r.drift = m.drift
			for _, a := range m.acts {
				if m.hint && a.Action == reconEndLost {
					continue
				}
				c.Request(r.spec.Agents, ReconcileAgent{UUID: a.UUID, Action: a.Action, Terminal: a.Terminal, To: a.To})
			}
		}
		if !m.hint {
			r.arm(c) // a hint pass leaves the pending tick as it is
		}
		if r.again {
			hint := !r.againAll
			r.again, r.againAll = false, false
			r.pass(c, hint)
		}
	case ReconcileResult:
		log := r.spec.Env.Log
		switch {
		case m.Err != nil:
			log.Warn("reconcile: repair failed", "agent", m.UUID, "path", m.Path, "action", m.Action, "err", m.Err)
		case m.Applied:
			r.repaired++
			log.Info("reconcile: "+describeRepair(m), "agent", m.UUID, "path", m.Path)
			if m.Action != reconRevive && r.spec.Queue != nil {
				c.Send(r.spec.Queue, PokeQueue{})
			}
		}
	case DriftQuery:
		d := r.drift
		d.Repaired = r.repaired
		c.Respond(d)
	case *actor.Stopping:
		r.tick.Stop()
		r.cancel()
	}
}

func describeRepair(m ReconcileResult) string {
	switch m.Action {
	case reconLost:
		return "pane gone, agent lost"
	case reconEndLost:
		return "lost agent's pane still gone, ended lost"
	}
	return "lost agent's pane is back, revived"
}

func (r *reconcilerActor) pass(c actor.Context, hint bool) {
	if r.busy {
		r.again = true
		r.againAll = r.againAll || !hint
		return
	}
	r.busy = true
	if !hint {
		r.tick.Stop() // a pending tick is superseded
	}
	self, root, env, ctx := c.Self(), c.ActorSystem().Root, r.spec.Env, r.ctx
	env.Ops.Add(1)
	go func() {
		defer env.Ops.Done()
		res := readPass(ctx, env)
		res.hint = hint
		root.Send(self, res)
	}()
}

func (r *reconcilerActor) arm(c actor.Context) {
	r.tick.ArmOnBeat(c, r.spec.Tick, func(gen int64) any { return reconTick{gen: gen} })
}

// readPass reads the rows, then the owned session's panes (only a session that answers
// counts: an outage never frees paths), and plans. ctx ends with the reconciler, so a
// stop does not wait for a pass that waits for herdr.
func readPass(ctx context.Context, env *AgentEnv) reconPassed {
	if env.Herdr == nil {
		return reconPassed{err: errors.New("no herdr binary")}
	}
	rows, err := env.DB.ReconRows(contextBG)
	if err != nil {
		env.Log.Warn("reconcile: cannot read the agent rows", "err", err)
		return reconPassed{err: err}
	}
	list, err := ownedPanes(ctx, env, len(rows) > 0)
	if err != nil {
		env.Log.Debug("reconcile: owned session did not answer pane.list; pass skipped", "err", err)
		return reconPassed{err: err}
	}
	held := heldTerminals(env, rows)
	panes := make([]reconPane, 0, len(list))
	for _, p := range list {
		if held[p.TerminalID] {
			continue // its provider exited: the pane is gone for the row (§8.2)
		}
		panes = append(panes, reconPane{Terminal: p.TerminalID, Pane: p.PaneID, Status: p.AgentStatus,
			Marked: p.Agent != "" || p.AgentSession != nil, RootShell: p.Label == herdr.RootShellLabel})
	}
	acts, drift := planReconcile(rows, panes)
	return reconPassed{acts: acts, drift: drift, closed: closeRootShells(ctx, env, drift.RootShellPanes)}
}

// heldTerminals are the terminals of the rows in a pane status whose pane's launcher
// recorded the provider's exit (docs/lifecycle.md §8.2): the launcher holds the pane
// until the agent's actor, finding it gone, keeps its screen and closes it.
func heldTerminals(env *AgentEnv, rows []store.ReconRow) map[string]bool {
	if len(env.PaneExec) == 0 {
		return nil
	}
	var held map[string]bool
	for _, r := range rows {
		if r.TerminalID == "" || !r.Status.In(store.PaneStatuses...) && r.Status != store.StatusLost {
			continue
		}
		if _, err := os.Stat(exitFile(env.Home, r.Path, r.UUID)); err == nil {
			if held == nil {
				held = map[string]bool{}
			}
			held[r.TerminalID] = true
		}
	}
	return held
}

// closeRootShells closes the root shells a pass found left behind (found > 0): a crash
// during a spawn or a move that created a workspace cut the close off, and the shell
// would keep its workspace alive for good (docs/lifecycle.md §13.2). It returns how
// many it closed.
func closeRootShells(ctx context.Context, env *AgentEnv, found int64) int {
	if found == 0 {
		return 0
	}
	cctx, cancel := context.WithTimeout(ctx, reconListTimeout)
	defer cancel()
	closed, err := env.Herdr.Owned().CloseRootShells(cctx)
	for _, pane := range closed {
		env.Log.Info("reconcile: closed the root shell of a workspace a cut-off spawn or move created", "pane", pane)
	}
	if err != nil {
		env.Log.Warn("reconcile: could not close a root shell left behind", "err", err)
	}
	return len(closed)
}

// Bounds of a pass's herdr calls: one pane.list, and bringing a session that does not
// answer back (its bootstrap, then the supervised connection's reconnect backoff).
const (
	reconListTimeout  = 10 * time.Second
	reconRestartBound = herdr.SessionStartTimeout + herdr.DefaultBackoffMax + 5*time.Second
)

// ownedPanes reads the owned session's pane list. When the session does not answer and
// rows hold panes in it (needed), it is started again first, as a spawn would
// (AgentEnv.ensureOwned: only a session that is not running is started): a herdr server
// that died took its panes with it, and nothing else would start it while those rows
// hold every slot. A session that runs but does not answer (frozen) is waited for
// within the bound, never started twice; the pass is then skipped.
func ownedPanes(ctx context.Context, env *AgentEnv, needed bool) ([]herdr.PaneInfo, error) {
	lctx, cancel := context.WithTimeout(ctx, reconListTimeout)
	list, err := env.Herdr.Owned().PaneList(lctx, "")
	cancel()
	if err == nil || !needed || !herdrDown(err) || ctx.Err() != nil {
		return list, err
	}
	ectx, cancel := context.WithTimeout(ctx, reconRestartBound)
	defer cancel()
	if err := env.ensureOwned(ectx); err != nil {
		return nil, err
	}
	env.Log.Info("reconcile: the owned herdr session answers again", "pane_list_err", err)
	lctx, cancel = context.WithTimeout(ctx, reconListTimeout)
	defer cancel()
	return env.Herdr.Owned().PaneList(lctx, "")
}

// reconcile applies one difference of a pass to this agent after checking it again:
// the row must still be in the state the pass saw, and herdr must still (or again)
// show the terminal as the pass did.
func (w *agentWork) reconcile(m ReconcileAgent) ReconcileResult {
	res := ReconcileResult{UUID: w.uuid, Path: w.st.Path, Action: m.Action}
	if !w.loaded || w.st.TerminalID != m.Terminal || w.env.Herdr == nil {
		return res
	}
	switch m.Action {
	case reconLost:
		if !store.PaneStatuses.Has(w.st.Status) || w.st.MoveState != store.MoveNone {
			return res
		}
	case reconEndLost, reconRevive:
		if w.st.Status != store.StatusLost {
			return res
		}
	}
	present, err := w.terminalPresent(m.Terminal)
	if err != nil {
		res.Err = err
		return res
	}
	// A pane whose launcher recorded the provider's exit is held, not the agent's.
	_, exited := w.providerExit()
	held := present && exited
	present = present && !exited
	var before = w.st.Status
	switch {
	case m.Action == reconRevive && present:
		res.Err = ignoreStale(w.apply(func(tx *store.Tx) error { return tx.Revive(w.uuid, m.To) }))
	case m.Action == reconEndLost && !present:
		if held {
			w.closePane(m.Terminal, "exited")
		}
		res.Err = ignoreStale(w.apply(func(tx *store.Tx) error {
			return tx.EndAgent(w.uuid, []store.Status{store.StatusLost}, store.ExitLost)
		}))
	case m.Action == reconLost && !present:
		res.Err = w.markExited(m.Terminal, held)
	}
	res.Applied = res.Err == nil && w.st.Status != before
	return res
}

// terminalPresent asks the owned session whether a pane holds terminal.
func (w *agentWork) terminalPresent(terminal string) (bool, error) {
	if terminal == "" {
		return false, nil
	}
	ctx, cancel := w.herdrCtx()
	defer cancel()
	_, err := w.sess().PaneGet(ctx, terminal)
	switch {
	case err == nil:
		return true, nil
	case paneGone(err):
		return false, nil
	}
	return false, err
}

// paneGone reports whether err is herdr saying no pane holds the target.
func paneGone(err error) bool {
	return herdr.IsCode(err, "pane_not_found") || herdr.IsCode(err, "agent_pane_not_found") ||
		herdr.IsCode(err, "target_pane_not_found")
}

// markLost is the lost rule (docs/lifecycle.md M20) for every path that finds the
// agent's pane gone: the reconciler, a send, a move. A row in another status is left as
// it is.
func (w *agentWork) markLost() error {
	return ignoreStale(w.apply(func(tx *store.Tx) error { return tx.MarkLost(w.uuid) }))
}

// lostError is what a verb answers when it found the agent's pane gone: state_conflict
// with the status the row has now (lost), never an internal error.
func (w *agentWork) lostError(verb string) error {
	return wire.Conflict(fmt.Sprintf("cannot %s agent %s: its pane is gone from herdr; the agent is %s", verb, w.st.Path, w.st.Status),
		"uuid", w.uuid, "path", w.st.Path, "current_status", w.st.Status, "reason", wire.ReasonPaneGone)
}
