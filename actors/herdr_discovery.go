package actors

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/orcr-go/orcr/actors/actorkit"
	"github.com/orcr-go/orcr/herdr"
	"github.com/orcr-go/orcr/store"
)

// Unmanaged discovery (docs/lifecycle.md §13.5): every DiscoveryEvery the discovery
// actor reads herdr's session list and, for every running user session (not the owned
// one), its agent.list; agents of supported providers, except those another orcr home
// spawned (their pane label says so), become unmanaged rows keyed by
// (session, terminal_id), kept current, and ended when their terminal goes. A session
// that cannot be read is skipped: nothing of it is ended on a failed read. A session
// herdr lists as stopped, or no longer lists, has no terminals left (a herdr session's
// panes die with its server), so its rows end (docs/decisions.md D11).

// DiscoveryEvery is the discovery period while a user session runs (docs/lifecycle.md
// §13.7); twice it while none does ([discoveryDelay]).
const DiscoveryEvery = 2 * time.Second

// discoveryDelay is the wait before the next discovery pass (before the idle beat,
// docs/lifecycle.md §13.5): every while the last pass read a running user session, whose
// agents it keeps current; twice every while there was none, when all a pass can find
// is a session started since.
func discoveryDelay(sessionsRead int, every time.Duration) time.Duration {
	if sessionsRead == 0 {
		return 2 * every
	}
	return every
}

// ExternalTurnGrace is how long an unmanaged agent's open turn waits for herdr to report
// work before herdr's idle is taken as the turn's end (docs/decisions.md D11): a turn
// answered between two polls is never seen working.
const ExternalTurnGrace = 10 * time.Second

// discKind is what a discovery pass does to one row.
type discKind string

const (
	discCreate   discKind = "create"   // a new (session, terminal) of a supported provider
	discRefresh  discKind = "refresh"  // pane id or agent_session pointer changed (no event)
	discStatus   discKind = "status"   // herdr's status differs from the row's
	discSeeWork  discKind = "see_work" // the open turn is seen working or blocked
	discComplete discKind = "complete" // the open turn is over: turn_completed, then idle
	discEnd      discKind = "end"      // the terminal is gone
)

// discChange is one difference a pass found. From and Seq are the row's status and
// input_seq when the pass read it: the write is a compare-and-set on them, so a send
// that changed the row meanwhile wins and the next pass looks again.
type discChange struct {
	Kind     discKind
	UUID     string
	Sighting store.Sighting
	From, To store.Status
	Seq      int64
	Turn     int64
	// Usage is what a completing turn used, read from the transcript before the write
	// (nil: none reported), and Provider the row's provider, whose account its quota
	// windows belong to.
	Usage    *store.TurnUsage
	Provider string
}

// decideUnmanaged is the status rule of one unmanaged row (docs/decisions.md D11): with
// no open turn the row takes herdr's status; with one (a send opened it), working and
// blocked are taken (and the turn noted as seen working), idle ends the turn once herdr
// was seen working during it or ExternalTurnGrace has passed since delivery, and
// unknown changes nothing. It returns the status to set, whether the turn was seen
// working now and whether it completes.
func decideUnmanaged(cur store.Status, turn store.Turn, h store.Status, now time.Time) (to store.Status, seeWork, complete bool) {
	if turn.Seq == 0 {
		return h, false, false
	}
	switch h {
	case store.StatusWorking, store.StatusBlocked:
		return h, turn.WorkingSeenAt == 0, false
	case store.StatusIdle:
		late := turn.DeliveredAt == 0 || now.Sub(time.UnixMilli(turn.DeliveredAt)) >= ExternalTurnGrace
		if turn.WorkingSeenAt != 0 || late {
			return store.StatusIdle, false, true
		}
	}
	return cur, false, false
}

// planDiscovery is the pure rule of one session's pass: rows are the session's active
// unmanaged rows (read first), seen its agents of supported providers (listed after). A
// row whose pane an operation is closing is left to that operation, and its terminal is
// still known (never taken for a new agent).
func planDiscovery(rows []store.UnmanagedRow, seen []store.Sighting, now time.Time) []discChange {
	byTerminal := make(map[string]store.Sighting, len(seen))
	for _, s := range seen {
		byTerminal[s.TerminalID] = s
	}
	var out []discChange
	known := make(map[string]bool, len(rows))
	for _, u := range rows {
		r := u.Agent
		known[r.TerminalID] = true
		if u.Closing {
			continue
		}
		s, ok := byTerminal[r.TerminalID]
		if !ok {
			out = append(out, discChange{Kind: discEnd, UUID: r.UUID, From: r.Status, Seq: r.InputSeq})
			continue
		}
		if s.PaneID != r.PaneID || (s.SessionValue != "" && s.SessionValue != r.SessionValue) {
			out = append(out, discChange{Kind: discRefresh, UUID: r.UUID, Sighting: s})
		}
		to, seeWork, complete := decideUnmanaged(r.Status, r.Turn, s.Status, now)
		base := discChange{UUID: r.UUID, From: r.Status, To: to, Seq: r.InputSeq, Turn: r.Turn.Seq}
		switch {
		case complete:
			base.Kind = discComplete
			out = append(out, base)
		case to != r.Status:
			base.Kind = discStatus
			out = append(out, base)
		}
		if seeWork {
			base.Kind = discSeeWork
			out = append(out, base)
		}
	}
	for _, s := range seen {
		if !known[s.TerminalID] {
			known[s.TerminalID] = true
			out = append(out, discChange{Kind: discCreate, Sighting: s, To: s.Status})
		}
	}
	return out
}

// endAll is the plan for a session that has no terminals left.
func endAll(rows []store.UnmanagedRow) []discChange {
	var out []discChange
	for _, r := range rows {
		if !r.Closing {
			out = append(out, discChange{Kind: discEnd, UUID: r.UUID, From: r.Status, Seq: r.InputSeq})
		}
	}
	return out
}

// applyDiscovery writes one session's changes in one transaction. A compare-and-set
// that finds the row changed since the pass read it skips that change. It returns the
// running turns an interrupt budget cut ([]store.BudgetCut).
// A completed turn that reported quota windows warns and pauses its provider as a
// managed agent's does (docs/usage.md §7.2): the window is the account's, whoever spent it.
func applyDiscovery(session string, changes []discChange, warnAt, pauseAt float64) store.Op {
	return func(tx *store.Tx) (any, error) {
		for _, ch := range changes {
			var err error
			var prev []store.QuotaWindow
			quota := ch.Kind == discComplete && ch.Usage != nil && len(ch.Usage.Quota) > 0 && ch.Provider != ""
			if quota {
				if prev, err = tx.QuotaWindows(); err != nil {
					return nil, err
				}
			}
			switch ch.Kind {
			case discCreate:
				_, err = tx.CreateUnmanaged(session, ch.Sighting)
			case discRefresh:
				err = tx.RefreshUnmanaged(ch.UUID, ch.Sighting.PaneID, ch.Sighting.SessionKind, ch.Sighting.SessionValue)
			case discStatus:
				err = tx.SetUnmanagedStatus(ch.UUID, ch.From, ch.To, ch.Seq)
			case discSeeWork:
				err = tx.SeeExternalWork(ch.UUID, ch.Turn)
			case discComplete:
				err = tx.CompleteTurn(store.TurnCompletion{UUID: ch.UUID, Seq: ch.Turn, IdleFrom: ch.From, Usage: ch.Usage})
				if err == nil && quota {
					_, err = recordQuota(tx, ch.Provider, "", ch.UUID, ch.Usage.Quota, prev, warnAt, pauseAt,
						time.Now().UnixMilli(), false, true)
				}
			case discEnd:
				err = tx.EndUnmanaged(ch.UUID)
			}
			if err != nil && !errors.Is(err, store.ErrStale) {
				return nil, err
			}
		}
		return tx.BudgetCuts(), nil
	}
}

// sightings turns a user session's agent.list into the sightings of supported providers.
func sightings(agents []herdr.AgentInfo, supported func(string) bool) []store.Sighting {
	var out []store.Sighting
	for _, a := range agents {
		if a.Agent == "" || a.TerminalID == "" || !supported(a.Agent) {
			continue
		}
		s := store.Sighting{TerminalID: a.TerminalID, PaneID: a.PaneID, Provider: a.Agent, Cwd: a.Cwd,
			Status: store.Status(a.AgentStatus.Normalise())}
		if a.AgentSession != nil {
			s.SessionKind, s.SessionValue = a.AgentSession.Kind, a.AgentSession.Value
		}
		out = append(out, s)
	}
	return out
}

// notOrcrs drops from a user session's agent.list the agents another orcr home manages
// (docs/lifecycle.md §13.5): the panes whose label an orcr home gave them
// ([OrcrPane]), read from pane.list after agent.list, since agent.list carries no label.
// An agent missing from pane.list (its pane closed between the two calls) is dropped
// too, as a closed terminal is.
func notOrcrs(ctx context.Context, sess *herdr.Session, agents []herdr.AgentInfo) ([]herdr.AgentInfo, error) {
	if len(agents) == 0 {
		return nil, nil
	}
	panes, err := sess.PaneList(ctx, "")
	if err != nil {
		return nil, err
	}
	users := make(map[string]bool, len(panes))
	for _, p := range panes {
		users[p.TerminalID] = !OrcrPane(p.Label)
	}
	var out []herdr.AgentInfo
	for _, a := range agents {
		if users[a.TerminalID] {
			out = append(out, a)
		}
	}
	return out, nil
}

// DiscoverySpec configures the discovery actor.
type DiscoverySpec struct {
	Env   *AgentEnv
	Every time.Duration // 0: DiscoveryEvery
	// Supported reports whether a provider is supported (both layers; docs/providers.md §1.2).
	Supported func(ctx context.Context, provider string) bool
}

type (
	discTick struct{ gen int64 }
	discDone struct{ read []string }
)

// discoveryActor runs the passes, one at a time, each on a goroutine (edge code: herdr
// CLI, herdr sockets, store reads and one write per changed session). It remembers
// which user sessions it connected to, so the driver can forget a session that is gone.
type discoveryActor struct {
	spec  DiscoverySpec
	tick  actorkit.Ticker
	busy  bool
	inUse map[string]bool
}

// NewDiscoveryProps returns the discovery actor's props.
func NewDiscoveryProps(spec DiscoverySpec) *actor.Props {
	if spec.Every <= 0 {
		spec.Every = DiscoveryEvery
	}
	return actorkit.Props(spec.Env.Log, func() actor.Actor { return &discoveryActor{spec: spec, inUse: map[string]bool{}} })
}

func (d *discoveryActor) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *actor.Started:
		d.pass(c)
	case discTick:
		if d.tick.Current(m.gen) {
			d.pass(c)
		}
	case discDone:
		d.busy = false
		now := map[string]bool{}
		for _, s := range m.read {
			now[s] = true
		}
		for s := range d.inUse {
			if !now[s] && d.spec.Env.Herdr != nil {
				d.spec.Env.Herdr.Forget(s)
			}
		}
		d.inUse = now
		d.tick.ArmOnBeat(c, discoveryDelay(len(m.read), d.spec.Every), func(gen int64) any { return discTick{gen: gen} })
	case *actor.Stopping:
		d.tick.Stop()
	}
}

func (d *discoveryActor) pass(c actor.Context) {
	if d.busy {
		return
	}
	d.busy = true
	self, root, spec := c.Self(), c.ActorSystem().Root, d.spec
	spec.Env.Ops.Add(1)
	go func() {
		defer spec.Env.Ops.Done()
		root.Send(self, discDone{read: discover(root, spec)})
	}()
}

// discover is one pass; it returns the user sessions it read.
func discover(root *actor.RootContext, spec DiscoverySpec) []string {
	env := spec.Env
	if env.Herdr == nil || env.Herdr.Bin() == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	infos, err := env.Herdr.Sessions(ctx)
	if err != nil {
		env.Log.Debug("discovery: herdr session list failed", "err", err)
		return nil
	}
	owned := env.Herdr.Owned().Name()
	running := map[string]bool{}
	var read []string
	for _, in := range infos {
		if in.Name == owned || !in.Running || in.SocketPath == "" {
			continue
		}
		running[in.Name] = true
		agents, err := env.Herdr.Session(in.Name).AgentList(ctx)
		if err == nil {
			agents, err = notOrcrs(ctx, env.Herdr.Session(in.Name), agents)
		}
		if err != nil {
			env.Log.Debug("discovery: cannot read a user session; skipped", "session", in.Name, "err", err)
			continue
		}
		read = append(read, in.Name)
		rows, err := env.DB.UnmanagedRows(ctx, in.Name)
		if err != nil {
			env.Log.Warn("discovery: cannot read the unmanaged rows", "session", in.Name, "err", err)
			continue
		}
		supported := func(p string) bool { return spec.Supported == nil || spec.Supported(ctx, p) }
		writeDiscovery(root, env, in.Name, withUsage(env, rows, planDiscovery(rows, sightings(agents, supported), time.Now())))
	}
	// Sessions with active rows that herdr no longer runs: their terminals are gone.
	sessions, err := env.DB.UnmanagedSessions(ctx)
	if err != nil {
		env.Log.Warn("discovery: cannot read the unmanaged sessions", "err", err)
		return read
	}
	for _, name := range sessions {
		if running[name] {
			continue
		}
		rows, err := env.DB.UnmanagedRows(ctx, name)
		if err == nil {
			writeDiscovery(root, env, name, endAll(rows))
		}
	}
	return read
}

// withUsage reads the usage of the turns changes complete from their transcripts
// (docs/usage.md §2: unmanaged agents count too).
func withUsage(env *AgentEnv, rows []store.UnmanagedRow, changes []discChange) []discChange {
	for i, ch := range changes {
		if ch.Kind != discComplete || env.Transcripts == nil {
			continue
		}
		for _, r := range rows {
			if r.UUID != ch.UUID {
				continue
			}
			if path, err := env.Transcripts.Locate(transcriptTarget(env.Home, r.Agent)); err == nil {
				changes[i].Usage, changes[i].Provider = env.turnUsage(r.Agent, path), r.Agent.Provider
			}
		}
	}
	return changes
}

// wakeInboxes asks the actor of an unmanaged agent whose status discovery just moved to
// working or idle to drain the stream's inbox when text waits there: no actor watches an
// unmanaged agent's status between the operations asked of it (docs/remote.md §6).
func wakeInboxes(root *actor.RootContext, env *AgentEnv, changes []discChange) {
	if env.Agents == nil {
		return
	}
	waiting, err := store.InboxAgents(contextBG, env.DB.Reader())
	if err != nil || len(waiting) == 0 {
		return
	}
	for _, ch := range changes {
		if ch.UUID != "" && store.InboxWakeStatuses.Has(ch.To) && slices.Contains(waiting, ch.UUID) {
			root.Send(env.Agents, drainInbox{UUID: ch.UUID})
		}
	}
}

func writeDiscovery(root *actor.RootContext, env *AgentEnv, session string, changes []discChange) {
	if len(changes) == 0 {
		return
	}
	v, err := WriteSync(root, env.Store, applyDiscovery(session, changes, env.QuotaWarnAt, env.QuotaPauseAt))
	if err != nil {
		env.Log.Warn("discovery: cannot apply the changes", "session", session, "err", err)
		return
	}
	if cuts, _ := v.([]store.BudgetCut); len(cuts) > 0 && env.Agents != nil {
		cutTurns(func(m sendKeys) { root.Send(env.Agents, m) }, env.providers().RemoteKeys, cuts)
	}
	wakeInboxes(root, env, changes)
	for _, ch := range changes {
		switch ch.Kind {
		case discCreate:
			env.Log.Info("reconcile: unmanaged agent discovered", "session", session, "terminal", ch.Sighting.TerminalID,
				"provider", ch.Sighting.Provider, "status", ch.To)
		case discEnd:
			env.Log.Info("reconcile: unmanaged agent's terminal gone, ended", "session", session, "agent", ch.UUID)
		}
	}
}
