package actors

import (
	"context"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/orcr-go/orcr/actors/actorkit"
	"github.com/orcr-go/orcr/actors/provider"
	"github.com/orcr-go/orcr/herdr"
)

// MonitorTick is the completion monitor's period while any watched agent is active (a
// turn in flight or a delivery pending) or herdr's view changed within MonitorLinger
// (docs/lifecycle.md §10.2).
const MonitorTick = 200 * time.Millisecond

// MonitorIdleTick is the completion monitor's period when all is idle: herdr is still
// read at this pace, as its view can change without orcr (a pane closed, a provider
// that starts work on its own), but an idle fleet costs a tenth of the fast pace
// (docs/lifecycle.md §10.2). It falls on the idle beat (actorkit.Beat).
const MonitorIdleTick = 2 * time.Second

// MonitorLinger is how long the monitor keeps the fast pace after herdr's view last
// changed or the last active agent went quiet: turns and their follow-ups come in runs.
const MonitorLinger = 2 * time.Second

// monitorPace is the monitor's timing: MonitorTick, MonitorIdleTick and MonitorLinger
// unless a test sets its own.
type monitorPace struct{ fast, slow, linger time.Duration }

// monitorDelay is the wait before the monitor's next poll (docs/lifecycle.md §10.2):
// fast while active agents are watched or within the linger of the last change (or of
// the start), slow otherwise.
func monitorDelay(active int, changedAt, now time.Time, p monitorPace) time.Duration {
	if active > 0 || now.Sub(changedAt) < p.linger {
		return p.fast
	}
	return p.slow
}

// ScreenPollEvery is how often the monitor reads the screens of the agents whose
// provider's status comes from the screen (docs/providers.md §11.4): one pane.read per
// such agent, every other tick.
const ScreenPollEvery = 400 * time.Millisecond

// StatusReport is herdr's view of one managed agent's pane, sent to the agent's actor
// (through the agents actor) when it differs from the view sent before.
type StatusReport struct {
	UUID         string
	Status       herdr.Status // done already normalised to idle
	AgentSession *herdr.AgentSession
	Title, Name  string // herdr's pane title and agent name (blocked classification)
	// CompletionSeq is herdr's completion_seq of the pane (herdr ≥ protocol 22), nil when
	// herdr does not report it or the pane was matched by pane id only (it may then be
	// another terminal's count).
	CompletionSeq *uint64
	At            time.Time
}

// TrackPane tells the monitor which pane to watch for an agent (an agent actor sends
// it whenever that changes). An empty Terminal stops watching. A new TrackPane for an
// agent forgets what was reported for it, so its next poll reports the pane afresh.
// ExitFile is the status file of the pane's launcher ("" = none, docs/lifecycle.md
// §8.2): once it exists the provider has exited and the launcher holds the pane.
//
// Screen, when set, is the provider whose `screens` rules give the agent's status from
// its pane's screen (`status: screen`, docs/providers.md §11.4) instead of herdr's
// agent rows, which the herdr layer may not have for it.
type TrackPane struct {
	UUID, Terminal, Pane string
	ExitFile             string
	Screen               string
}

// WatchActive tells the monitor whether an agent is active: it has a turn in flight or
// a delivery pending (an agent actor sends it whenever that changes). While any agent is
// active the monitor polls at MonitorTick, and an agent turning active wakes a slow
// monitor at once (docs/lifecycle.md §10.2).
type WatchActive struct {
	UUID   string
	Active bool
}

// SetAgents gives the monitor the agents actor it reports to (the monitor is spawned
// first, so the agent actors can reach it from their first message).
type SetAgents struct{ PID *actor.PID }

// SetReconciler gives the monitor the reconciler it hints (ReconcileNow) when a
// watched agent herdr listed is no longer listed: its pane may be gone.
type SetReconciler struct{ PID *actor.PID }

type monitorTick struct{ gen int64 }

type monitorPolled struct {
	agents  herdr.AgentRows
	exited  []string     // the agents whose launcher's status file showed up
	screens []screenRead // the screens read for the agents of screen-status providers
	at      time.Time
	err     error
}

// screenRead is one screen-status agent's screen as classified (docs/providers.md
// §11.4); ok is false when the read failed, gone when herdr has no such pane.
type screenRead struct {
	uuid     string
	status   herdr.Status
	title    string
	ok, gone bool
}

// MonitorSpec configures the completion monitor.
type MonitorSpec struct {
	Env        *AgentEnv
	Tick       time.Duration // default MonitorTick
	IdleTick   time.Duration // default MonitorIdleTick
	Linger     time.Duration // default MonitorLinger
	ScreenPoll time.Duration // default ScreenPollEvery
}

// seen is what the monitor last reported for one agent.
type seen struct {
	status     herdr.Status
	session    string  // agent_session value
	completion counter // completion_seq
	valid      bool
}

type watched struct {
	terminal, pane string
	exitFile       string
	// exited: the launcher's status file showed up; herdr's view of the held pane is
	// no longer the agent's, so nothing more is reported for it.
	exited bool
	last   seen
	// listedAt is the poll that last listed the agent, 0 once its absence was hinted
	// (or before herdr ever listed it).
	listedAt int64
	// screen is the provider whose screen rules give the status ("" = herdr's rows);
	// session is herdr's agent_session for such an agent when herdr lists it, and
	// screenGone that a read found the pane gone (hinted once).
	screen     string
	session    *herdr.AgentSession
	screenGone bool
}

// monitorActor polls herdr once per tick for the owned session — one agent.list for
// every watched agent, never one call per agent — and sends an agent's actor a
// StatusReport only when herdr's view of its pane changed. What to watch comes from
// the agent actors (TrackPane), kept in memory: a tick reads no SQL, and its cost in
// the actor is one map lookup per listed pane. Beside the call the goroutine stats each
// watched agent's launcher status file: a provider that exited while its launcher holds
// the pane is handed to reconciliation at once, and herdr's view of the held pane is no
// longer reported. The herdr call runs on a goroutine; at
// most one is in flight, and the next tick is armed when it reports.
type monitorActor struct {
	spec   MonitorSpec
	agents *actor.PID
	recon  *actor.PID
	// ctx ends when the actor stops, and with it a poll in flight: a stop does not
	// wait for a slow herdr's answer (the stop waits for the poll's goroutine).
	ctx    context.Context
	cancel context.CancelFunc
	tick   actorkit.Ticker
	due    time.Time // when the armed tick fires
	busy   bool
	swept  time.Time // when the last poll looked at every launcher's status file
	w      monitorState
}

// monitorState is the monitor's bookkeeping, separate from the actor so the diff can be
// measured on its own.
type monitorState struct {
	byUUID map[string]*watched
	byTerm map[string]string // terminal id → uuid
	byPane map[string]string // pane id → uuid (fallback when herdr lists a new terminal id)
	polls  int64             // the polls diffed so far
	// listGen is the generation of herdr's agent list last diffed (herdr.AgentRows);
	// dirty says a pane was tracked since: an unchanged list is diffed again only then
	// (docs/herdr.md §11).
	listGen uint64
	dirty   bool
	// exitSnap is exitFiles' answer, built again only after a pane was tracked or a
	// provider seen to exit (never written once built: polls read it on their own
	// goroutines); screens counts the watched agents of screen-status providers.
	exitSnap  map[string]string
	exitStale bool
	screens   int
	// screensAt is when the screens of screen-status agents were last read.
	screensAt time.Time
	// active holds the agents with a turn in flight or a delivery pending (WatchActive);
	// changedAt is when herdr's view last changed, a pane was first watched, or the last
	// active agent went quiet: the inputs of monitorDelay.
	active    map[string]bool
	changedAt time.Time
}

func newMonitorState() monitorState {
	return monitorState{byUUID: map[string]*watched{}, byTerm: map[string]string{}, byPane: map[string]string{},
		active: map[string]bool{}, changedAt: time.Now()}
}

// setActive applies one WatchActive and reports whether the agent turned active.
func (m *monitorState) setActive(w WatchActive, now time.Time) bool {
	was := m.active[w.UUID]
	if w.Active {
		m.active[w.UUID] = true
		return !was
	}
	delete(m.active, w.UUID)
	if was && len(m.active) == 0 {
		m.changedAt = now
	}
	return false
}

// track applies one TrackPane.
func (m *monitorState) track(t TrackPane) {
	m.exitStale = true
	if old, ok := m.byUUID[t.UUID]; ok {
		if old.screen != "" {
			m.screens--
		}
		if m.byTerm[old.terminal] == t.UUID {
			delete(m.byTerm, old.terminal)
		}
		if m.byPane[old.pane] == t.UUID {
			delete(m.byPane, old.pane)
		}
		delete(m.byUUID, t.UUID)
	}
	if t.Terminal == "" {
		return
	}
	m.changedAt = time.Now()
	m.dirty = true
	m.byUUID[t.UUID] = &watched{terminal: t.Terminal, pane: t.Pane, exitFile: t.ExitFile, screen: t.Screen}
	if t.Screen != "" {
		m.screens++
	}
	m.byTerm[t.Terminal] = t.UUID
	if t.Pane != "" {
		m.byPane[t.Pane] = t.UUID
	}
}

// diff pairs herdr's agent list with the watched agents (by terminal id, stable across
// moves, falling back to the pane id) and returns a report for each agent whose
// status or transcript pointer changed since the last report. Agents herdr does not
// list are left alone here (lost handling belongs to reconciliation, which [unlisted]
// hints).
func (m *monitorState) diff(list []herdr.AgentInfo, at time.Time) []StatusReport {
	var out []StatusReport
	m.polls++
	m.dirty = false
	for i := range list {
		a := &list[i]
		u, byTerm := m.byTerm[a.TerminalID]
		if !byTerm {
			var ok bool
			if u, ok = m.byPane[a.PaneID]; !ok {
				continue
			}
		}
		w := m.byUUID[u]
		w.listedAt = m.polls
		if w.exited {
			continue
		}
		if w.screen != "" { // herdr's status is not this agent's; its pointer is
			w.session = a.AgentSession
			continue
		}
		now := seen{status: a.AgentStatus.Normalise(), valid: true}
		if a.AgentSession != nil {
			now.session = a.AgentSession.Value
		}
		if byTerm {
			now.completion = counterOf(a.CompletionSeq)
		}
		if now == w.last {
			continue
		}
		w.last = now
		r := StatusReport{UUID: u, Status: now.status, AgentSession: a.AgentSession, Title: a.ShownTitle(), Name: a.Name, At: at}
		if now.completion.Known {
			n := now.completion.N
			r.CompletionSeq = &n
		}
		out = append(out, r)
	}
	if len(out) > 0 {
		m.changedAt = at
	}
	return out
}

// screenTargets lists the terminals of the screen-status agents to read, by agent,
// when ScreenPollEvery has passed since the last read (nil otherwise).
func (m *monitorState) screenTargets(now time.Time, every time.Duration) map[string]watchedScreen {
	if m.screens == 0 || now.Sub(m.screensAt) < every {
		return nil
	}
	var out map[string]watchedScreen
	for u, w := range m.byUUID {
		if w.screen != "" && !w.exited && !w.screenGone {
			if out == nil {
				out = map[string]watchedScreen{}
			}
			out[u] = watchedScreen{terminal: w.terminal, provider: w.screen}
		}
	}
	if out != nil {
		m.screensAt = now
	}
	return out
}

// watchedScreen is what a poll needs to read and classify one agent's screen.
type watchedScreen struct{ terminal, provider string }

// diffScreens returns a report for each screen-status agent whose screen shows a
// status (or herdr a pointer) other than the last one reported, and whether a read
// found a pane gone for the first time (a hint for reconciliation).
func (m *monitorState) diffScreens(reads []screenRead, at time.Time) (out []StatusReport, gone bool) {
	for _, r := range reads {
		w, ok := m.byUUID[r.uuid]
		if !ok || w.exited || w.screen == "" {
			continue
		}
		if r.gone && !w.screenGone {
			w.screenGone, gone = true, true
		}
		if !r.ok {
			continue
		}
		now := seen{status: r.status, valid: true}
		if w.session != nil {
			now.session = w.session.Value
		}
		if now == w.last {
			continue
		}
		w.last = now
		m.changedAt = at
		out = append(out, StatusReport{UUID: r.uuid, Status: r.status, AgentSession: w.session, Title: r.title, At: at})
	}
	return out, gone
}

// exitFiles lists the status files of the watched agents whose provider has not been
// seen to exit, by agent. The map is shared with the polls that read it and never
// written: it is built again only after what it lists changed.
func (m *monitorState) exitFiles() map[string]string {
	if m.exitSnap != nil && !m.exitStale {
		return m.exitSnap
	}
	out := map[string]string{}
	for u, w := range m.byUUID {
		if w.exitFile != "" && !w.exited {
			out[u] = w.exitFile
		}
	}
	m.exitSnap, m.exitStale = out, false
	return out
}

// markExited records that the providers of uuids exited (their launchers hold their
// panes) and reports whether any was not known to: the held panes are for a reconcile
// pass to find gone (docs/lifecycle.md §8.2).
func (m *monitorState) markExited(uuids []string) bool {
	news := false
	for _, u := range uuids {
		if w, ok := m.byUUID[u]; ok && !w.exited {
			w.exited, news = true, true
			m.exitStale = true
		}
	}
	return news
}

// unlisted reports whether an agent the previous diffed poll listed is missing from
// the last one (each disappearance once): its pane may have closed or exited, which
// only a reconcile pass (pane.list) decides (docs/lifecycle.md §13.2).
func (m *monitorState) unlisted() bool {
	gone := false
	for _, w := range m.byUUID {
		if w.listedAt != 0 && w.listedAt != m.polls {
			w.listedAt = 0
			gone = true
		}
	}
	return gone
}

// NewMonitorProps returns the completion monitor's props.
func NewMonitorProps(spec MonitorSpec) *actor.Props {
	if spec.Tick <= 0 {
		spec.Tick = MonitorTick
	}
	if spec.ScreenPoll <= 0 {
		spec.ScreenPoll = ScreenPollEvery
	}
	if spec.IdleTick <= 0 {
		spec.IdleTick = MonitorIdleTick
	}
	if spec.Linger <= 0 {
		spec.Linger = MonitorLinger
	}
	return actorkit.Props(spec.Env.Log, func() actor.Actor { return &monitorActor{spec: spec, w: newMonitorState()} })
}

func (m *monitorActor) Receive(c actor.Context) {
	switch msg := c.Message().(type) {
	case *actor.Started:
		m.ctx, m.cancel = context.WithCancel(context.Background())
		m.arm(c)
	case SetAgents:
		m.agents = msg.PID
	case SetReconciler:
		m.recon = msg.PID
	case TrackPane:
		m.w.track(msg)
		m.hurry(c)
	case WatchActive:
		if m.w.setActive(msg, time.Now()) {
			m.hurry(c)
		}
	case monitorTick:
		if !m.tick.Current(msg.gen) || m.busy {
			return
		}
		if len(m.w.byUUID) == 0 || m.agents == nil || m.spec.Env.Herdr == nil {
			m.arm(c)
			return
		}
		m.busy = true
		self, root, env, base, files := c.Self(), c.ActorSystem().Root, m.spec.Env, m.ctx, m.w.exitFiles()
		seen := m.w.listGen
		if m.w.dirty {
			seen = 0 // a newly tracked pane needs the rows, changed or not
		}
		now := time.Now()
		sweep := now.Sub(m.swept) >= ExitSweepEvery
		if sweep {
			m.swept = now
		}
		notes := ""
		if env.Home != "" {
			notes = exitNotesDir(env.Home)
		}
		screens := m.w.screenTargets(now, m.spec.ScreenPoll)
		env.Ops.Add(1)
		go func() {
			defer env.Ops.Done()
			ctx, cancel := context.WithTimeout(base, 5*time.Second)
			defer cancel()
			list, err := env.Herdr.Owned().AgentListSince(ctx, seen)
			reads := readScreens(ctx, env, screens)
			exited := exitedNow(files, notes, sweep)
			root.Send(self, monitorPolled{agents: list, exited: exited, screens: reads, at: time.Now(), err: err})
		}()
	case monitorPolled:
		m.busy = false
		if m.w.markExited(msg.exited) && m.recon != nil {
			c.Send(m.recon, ReconcileNow{Hint: true})
		}
		if msg.err != nil {
			m.spec.Env.Log.Debug("monitor: agent.list failed; skipping this tick", "err", msg.err)
		} else if !msg.agents.Same {
			// An answer the same as the one last diffed (asked for only while no pane
			// was tracked since) would report nothing: at rest, with a thousand
			// agents, that is most polls.
			if rows := msg.agents.Agents; len(rows) > 0 {
				support := completionSeqAbsent
				if rows[0].CompletionSeq != nil {
					support = completionSeqReported
				}
				m.spec.Env.completionSeq.Store(support)
			}
			m.w.listGen = msg.agents.Gen
			for _, r := range m.w.diff(msg.agents.Agents, msg.at) {
				c.Send(m.agents, r)
			}
			if m.w.unlisted() && m.recon != nil {
				c.Send(m.recon, ReconcileNow{Hint: true})
			}
		}
		reports, gone := m.w.diffScreens(msg.screens, msg.at)
		for _, r := range reports {
			c.Send(m.agents, r)
		}
		if gone && m.recon != nil {
			c.Send(m.recon, ReconcileNow{Hint: true})
		}
		m.arm(c)
	case *actor.Stopping:
		m.tick.Stop()
		m.cancel()
	}
}

// readScreens reads and classifies the screens of targets, one pane.read each.
func readScreens(ctx context.Context, env *AgentEnv, targets map[string]watchedScreen) []screenRead {
	var out []screenRead
	for u, t := range targets {
		r := screenRead{uuid: u}
		spec, ok := env.screenStatus(t.provider)
		if !ok {
			continue
		}
		rd, err := env.Herdr.Owned().Read(ctx, t.terminal, 0)
		switch {
		case err != nil:
			r.gone = paneGone(err)
		default:
			r.status, r.title = provider.ScreenStatus(spec, rd.Text)
			r.ok = true
		}
		out = append(out, r)
	}
	return out
}

// arm schedules the next poll after monitorDelay.
func (m *monitorActor) arm(c actor.Context) {
	now := time.Now()
	m.armAfter(c, now, m.delay(now))
}

// delay is monitorDelay, the slow pace on the idle ticks' beat (actorkit.Beat).
func (m *monitorActor) delay(now time.Time) time.Duration {
	p := m.pace()
	d := monitorDelay(len(m.w.active), m.w.changedAt, now, p)
	if d == p.slow && d != p.fast {
		d = actorkit.OnBeat(now, d, actorkit.Beat)
	}
	return d
}

func (m *monitorActor) armAfter(c actor.Context, now time.Time, d time.Duration) {
	m.due = now.Add(d)
	m.tick.Arm(c, d, func(gen int64) any { return monitorTick{gen: gen} })
}

func (m *monitorActor) pace() monitorPace {
	return monitorPace{fast: m.spec.Tick, slow: m.spec.IdleTick, linger: m.spec.Linger}
}

// hurry brings the armed poll forward when the rule now asks for a sooner one (an agent
// turned active, a pane is newly watched); a poll in flight arms the next one itself
// when it reports.
func (m *monitorActor) hurry(c actor.Context) {
	if m.busy {
		return
	}
	now := time.Now()
	if d := m.delay(now); now.Add(d).Before(m.due) {
		m.armAfter(c, now, d)
	}
}
