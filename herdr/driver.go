package herdr

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// Defaults of [Config].
const (
	DefaultOwnedSession   = "orcr"
	DefaultBackoffInitial = 200 * time.Millisecond
	DefaultBackoffMax     = 10 * time.Second
	DefaultCallTimeout    = 2 * time.Minute
	DefaultMaxCalls       = 8
)

// Config configures a [Driver]. The zero value plus Bin works. Fields must not change
// after NewDriver.
type Config struct {
	// Bin is the resolved herdr binary ([FindBinary]); "" when none was found.
	Bin string
	// Owned is the session that holds orcr's managed agents ("orcr" when empty).
	Owned string
	// Sessions lists herdr sessions; nil means [ListSessions] with Bin. Tests (and a
	// setup without a binary) may use [DirSessions].
	Sessions func(ctx context.Context) ([]SessionInfo, error)
	// DeliverPause is the text→Enter pause of Deliver (default 1 s).
	DeliverPause time.Duration
	// Timeout is the per-call socket deadline (default 15 s).
	Timeout time.Duration
	// BackoffInitial and BackoffMax bound the reconnect backoff (200 ms doubling to 10 s,
	// ±25 % jitter).
	BackoffInitial, BackoffMax time.Duration
	// CallTimeout bounds one blocking Session call when ctx has no deadline (2 min).
	CallTimeout time.Duration
	// MaxCalls bounds the socket calls in flight to one session (default
	// [DefaultMaxCalls]): herdr answers them one at a time on its application thread,
	// so more only queue inside herdr, where a call's deadline cannot tell whether it
	// was taken (docs/herdr.md §2.4).
	MaxCalls int
	// Props builds the Props of the driver's actors (its supervisor and connection
	// actors). The server passes actorkit.Props, so that they log a panic's stack as
	// every actor of its tree does (actors/doc.go); nil builds plain Props.
	Props func(log *slog.Logger, producer actor.Producer, opts ...actor.PropsOption) *actor.Props
	// Env is the environment of every herdr process the driver starts (the owned
	// session's server and the panes it spawns, `session list`, `integration status`,
	// `api schema`), KEY=VALUE entries as in os.Environ; nil means orcr's own. A server
	// whose environment is not its process's (a test's, server.Options.Getenv) sets it.
	Env []string

	// noPaneCache turns the terminal → pane cache of docs/herdr.md §4.1 off (the live
	// passes replay call sequences recorded without it).
	noPaneCache bool
	// placeFresh, when set, replaces [placeFresh] (tests on a loaded machine).
	placeFresh time.Duration

	// dial replaces the connections' dial once a session is up (a test seam: a
	// connection herdr does not accept in time).
	dial func(ctx context.Context, network, addr string) (net.Conn, error)

	// live is the binary in use once NewDriver has run: Bin at first, replaced by
	// [Driver.SetBin].
	live *atomic.Pointer[string]
}

// bin is the herdr binary in use: Bin, or what [Driver.SetBin] put in its place.
func (c *Config) bin() string {
	if c.live != nil {
		if p := c.live.Load(); p != nil {
			return *p
		}
	}
	return c.Bin
}

func (c *Config) timeout() time.Duration        { return or(c.Timeout, DefaultTimeout) }
func (c *Config) pause() time.Duration          { return or(c.DeliverPause, DefaultDeliverPause) }
func (c *Config) backoffInitial() time.Duration { return or(c.BackoffInitial, DefaultBackoffInitial) }
func (c *Config) backoffMax() time.Duration     { return or(c.BackoffMax, DefaultBackoffMax) }
func (c *Config) callTimeout() time.Duration    { return or(c.CallTimeout, DefaultCallTimeout) }
func (c *Config) maxCalls() int {
	if c.MaxCalls > 0 {
		return c.MaxCalls
	}
	return DefaultMaxCalls
}

func (c *Config) props(log *slog.Logger, producer actor.Producer, opts ...actor.PropsOption) *actor.Props {
	if c.Props != nil {
		return c.Props(log, producer, opts...)
	}
	return actor.PropsFromProducer(producer, opts...)
}

func (c *Config) owned() string {
	if c.Owned == "" {
		return DefaultOwnedSession
	}
	return c.Owned
}

// cli is the binary in use with [Config.Env].
func (c *Config) cli() cli { return cli{bin: c.bin(), env: c.Env} }

func (c *Config) sessions(ctx context.Context) ([]SessionInfo, error) {
	if c.Sessions != nil {
		return c.Sessions(ctx)
	}
	if c.bin() == "" {
		return nil, wire.Env(wire.CauseHerdrMissing, "no herdr binary; "+InstallHint)
	}
	return c.cli().listSessions(ctx)
}

func or(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// Driver is orcr's herdr driver: a supervisor actor with one connection actor per herdr
// session, and blocking [Session] handles for edge code (socket handlers, the
// reconciler's edge goroutines, tests). See the package doc for the actor tree.
type Driver struct {
	cfg  Config
	sys  *actor.ActorSystem
	log  *slog.Logger
	sup  *actor.PID
	wg   *sync.WaitGroup
	once sync.Once
	// closed is set when Close starts; later calls fail at once instead of racing the
	// stopping actors (protoactor drops a stopped actor's unprocessed mailbox).
	closed atomic.Bool
	listed *sessionCache
}

// NewDriver spawns the driver's supervisor (named "herdr") in sys. Connection actors
// are spawned lazily, on a session's first call.
func NewDriver(sys *actor.ActorSystem, cfg Config, log *slog.Logger) (*Driver, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	d := &Driver{cfg: cfg, sys: sys, log: log, wg: &sync.WaitGroup{}}
	d.cfg.live = new(atomic.Pointer[string])
	d.listed = &sessionCache{list: d.cfg.sessions, now: time.Now}
	pid, err := sys.Root.SpawnNamed(newSupervisorProps(&d.cfg, log, d.wg), "herdr")
	if err != nil {
		return nil, err
	}
	d.sup = pid
	return d, nil
}

// Close stops the supervisor and its connection actors (waiting for them), then waits
// for in-flight op goroutines, whose sockets are closed by the cancellation.
func (d *Driver) Close() {
	d.once.Do(func() {
		d.closed.Store(true)
		_ = d.sys.Root.PoisonFuture(d.sup).Wait()
		d.wg.Wait()
	})
}

// Config returns the driver's configuration, Bin being the binary in use.
func (d *Driver) Config() Config {
	c := d.cfg
	c.Bin = d.cfg.bin()
	return c
}

// Bin returns the herdr binary the driver runs ("" when none was found).
func (d *Driver) Bin() string { return d.cfg.bin() }

// SetBin replaces the herdr binary for every later call: a discovery run after
// NewDriver found herdr installed (or gone, "") since. Calls in flight keep theirs.
func (d *Driver) SetBin(bin string) { d.cfg.live.Store(&bin) }

// Session returns the handle of herdr session name (cheap; no I/O).
func (d *Driver) Session(name string) *Session { return &Session{d: d, name: name} }

// Forget stops the connection actor of user session name and drops its entry, so a
// session that no longer exists is not reconnected forever. The owned session is never
// forgotten; a later call to the session connects again.
func (d *Driver) Forget(name string) {
	if !d.closed.Load() {
		d.sys.Root.Send(d.sup, &forgetSession{name: name})
	}
}

// Owned returns the handle of the owned session.
func (d *Driver) Owned() *Session { return d.Session(d.cfg.owned()) }

// Sessions lists herdr's sessions (`herdr session list --json` or the configured lister)
// for a poller: the binary's list is run again only when a session was made or removed,
// or after 30 s, each row's running looked up afresh in between ([sessionCache]).
func (d *Driver) Sessions(ctx context.Context) ([]SessionInfo, error) {
	if d.cfg.Sessions != nil {
		return d.cfg.sessions(ctx)
	}
	return d.listed.sessions(ctx)
}

// EnsureOwned starts the owned session's server when it is not running (needs Bin).
func (d *Driver) EnsureOwned(ctx context.Context) (SessionInfo, error) {
	c := d.cfg.cli()
	if c.bin == "" {
		return SessionInfo{}, wire.Env(wire.CauseHerdrMissing, "no herdr binary; "+InstallHint)
	}
	return c.ensureSession(ctx, d.cfg.owned())
}

// Conformance checks orcr's contract against the live `herdr api schema --json`.
func (d *Driver) Conformance(ctx context.Context) error {
	c := d.cfg.cli()
	if c.bin == "" {
		return wire.Env(wire.CauseHerdrMissing, "no herdr binary; "+InstallHint)
	}
	return c.checkLive(ctx)
}

// IntegrationStatus runs and parses `herdr integration status` (needs Bin).
func (d *Driver) IntegrationStatus(ctx context.Context) ([]IntegrationState, error) {
	c := d.cfg.cli()
	if c.bin == "" {
		return nil, wire.Env(wire.CauseHerdrMissing, "no herdr binary; "+InstallHint)
	}
	return c.integrationStatus(ctx)
}

// Health reports every session connection the supervisor knows, with restart counts.
func (d *Driver) Health() ([]SessionHealth, error) {
	res, err := d.sys.Root.RequestFuture(d.sup, &healthQuery{}, 5*time.Second).Result()
	if err != nil {
		return nil, err
	}
	return res.([]SessionHealth), nil
}

// Restarts returns how often the connection to session name was restarted.
func (d *Driver) Restarts(name string) int {
	hs, _ := d.Health()
	for _, h := range hs {
		if h.Session == name {
			return h.Restarts
		}
	}
	return 0
}

// StatusInfo is the `herdr` object of server.status (docs/protocol.md §5.2). Nil pointers
// encode as JSON null.
type StatusInfo = api.HerdrStatus

// Status builds server.status's herdr object: reachable means the binary was found;
// socket, version and protocol are filled only when the owned session is listed as
// running (version/protocol from a direct ping, null on failure). Error carries the
// failure that left the rest unfilled (a frozen herdr is told within about a second,
// [Client.TakenWithin]). It never starts a session; a ping that answers brings a
// connection waiting out its reconnect backoff back at once.
func (d *Driver) Status(ctx context.Context) StatusInfo {
	st := StatusInfo{Session: d.cfg.owned()}
	bin := d.cfg.bin()
	if bin == "" && d.cfg.Sessions == nil {
		st.Error = wire.Env(wire.CauseHerdrMissing, "no herdr binary; "+InstallHint)
		return st
	}
	if bin != "" {
		st.Bin, st.Reachable = &bin, true
	}
	rows, err := d.cfg.sessions(ctx)
	if err != nil {
		st.Error = statusError(err)
		return st
	}
	row, ok := FindSession(rows, st.Session)
	if !ok || !row.Running {
		return st
	}
	st.SessionRunning = true
	sock := row.SocketPath
	st.Socket = &sock
	r := &Remote{Client: Client{Socket: sock, Timeout: d.cfg.timeout()}}
	p, err := r.Ping(ctx)
	if err != nil {
		st.Error = statusError(err)
		return st
	}
	v, pr := p.Version, p.Protocol
	st.Version, st.Protocol = &v, &pr
	if !d.closed.Load() {
		d.sys.Root.Send(d.sup, &sessionAnswered{name: st.Session})
	}
	return st
}

// statusError is err as the protocol error of [StatusInfo.Error]: a protocol error as
// it is, anything else (a canceled context) as herdr_unreachable.
func statusError(err error) *wire.Error {
	if pe, ok := wire.As(err); ok {
		return pe
	}
	return wire.Env(wire.CauseHerdrUnreachable, err.Error()).Wrap(err)
}

// Session is a blocking handle on one herdr session for edge code; every method
// sends one request to the supervisor and waits for the connection actor's answer.
// While the session is down, calls fail at once with herdr_unreachable. Targets may
// be a terminal id (term_…, stable across moves; resolved through pane.list) or a
// pane id.
type Session struct {
	d    *Driver
	name string
}

// Name returns the herdr session name.
func (s *Session) Name() string { return s.name }

func (s *Session) do(ctx context.Context, o op) (any, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if s.d.closed.Load() {
		return nil, wire.Env(wire.CauseHerdrUnreachable, "herdr session "+s.name+" is unreachable (driver closed)", "session", s.name)
	}
	timeout := s.d.cfg.callTimeout()
	if dl, ok := ctx.Deadline(); ok {
		timeout = time.Until(dl) + time.Second
	}
	req := &opRequest{session: s.name, op: o, ctx: ctx}
	f := s.d.sys.Root.RequestFuture(s.d.sup, req, max(timeout, time.Millisecond))
	res, err := f.Result()
	if err != nil {
		if errors.Is(err, actor.ErrDeadLetter) {
			return nil, wire.Env(wire.CauseHerdrUnreachable, "herdr session "+s.name+" is unreachable (driver stopped)", "session", s.name)
		}
		if ctx.Err() != nil {
			if !req.started.Load() { // it waited its turn past its deadline
				return nil, notSent(ctx.Err())
			}
			return nil, ctx.Err()
		}
		return nil, wire.Env(wire.CauseHerdrUnreachable, "herdr session "+s.name+": "+o.name+" did not finish: "+err.Error(), "session", s.name)
	}
	rep := res.(*opReply)
	return rep.value, rep.err
}

func doTyped[T any](ctx context.Context, s *Session, o op) (T, error) {
	v, err := s.do(ctx, o)
	t, _ := v.(T)
	return t, err
}

// Ping pings the session (the handshake already happened on connect).
func (s *Session) Ping(ctx context.Context) (Pong, error) {
	return doTyped[Pong](ctx, s, op{name: "ping", run: func(ctx context.Context, e *opEnv) (any, error) {
		return e.r.Ping(ctx)
	}})
}

// WorkspaceList lists workspaces.
func (s *Session) WorkspaceList(ctx context.Context) ([]WorkspaceInfo, error) {
	return doTyped[[]WorkspaceInfo](ctx, s, op{name: "workspace.list", run: func(ctx context.Context, e *opEnv) (any, error) {
		return e.r.WorkspaceList(ctx)
	}})
}

// PaneList lists panes (of one workspace when workspaceID is not empty).
func (s *Session) PaneList(ctx context.Context, workspaceID string) ([]PaneInfo, error) {
	return doTyped[[]PaneInfo](ctx, s, op{name: "pane.list", run: func(ctx context.Context, e *opEnv) (any, error) {
		panes, err := e.r.PaneList(ctx, workspaceID)
		if err == nil && workspaceID == "" {
			e.panes.replace(panes)
		}
		return panes, err
	}})
}

// PaneGet returns the pane holding target (terminal id or pane id).
func (s *Session) PaneGet(ctx context.Context, target string) (PaneInfo, error) {
	return doTyped[PaneInfo](ctx, s, op{name: "pane.get", run: func(ctx context.Context, e *opEnv) (any, error) {
		return e.panes.resolve(ctx, e.r, target)
	}})
}

// AgentList lists the session's agent panes (done normalised to idle).
func (s *Session) AgentList(ctx context.Context) ([]AgentInfo, error) {
	l, err := s.AgentListSince(ctx, 0)
	return l.Agents, err
}

// AgentRows is an agent.list answer for a poller ([Session.AgentListSince]).
type AgentRows struct {
	Agents []AgentInfo
	// Gen identifies the answer among all of the process's (0: not identified); Same
	// says it is the generation the poller passed, whose rows it still has: Agents is
	// then nil.
	Gen  uint64
	Same bool
}

// AgentListSince is AgentList for a poller that keeps the rows of generation seen:
// herdr's answer unchanged since then comes back as Same, without rows, nothing
// decoded or copied (docs/herdr.md §11).
func (s *Session) AgentListSince(ctx context.Context, seen uint64) (AgentRows, error) {
	return doTyped[AgentRows](ctx, s, op{name: "agent.list", run: func(ctx context.Context, e *opEnv) (any, error) {
		list, gen, err := e.r.agentListSince(ctx, e.lists, seen)
		if err != nil {
			return AgentRows{}, err
		}
		if seen != 0 && gen == seen {
			return AgentRows{Gen: gen, Same: true}, nil
		}
		e.panes.putAgents(list)
		return AgentRows{Agents: list, Gen: gen}, nil
	}})
}

// Read reads target's visible screen (its last lines lines when lines > 0).
func (s *Session) Read(ctx context.Context, target string, lines int) (PaneRead, error) {
	return doTyped[PaneRead](ctx, s, op{name: "pane.read", run: func(ctx context.Context, e *opEnv) (any, error) {
		var rd PaneRead
		err := e.panes.onPane(ctx, e.r, target, func(pane string) (err error) {
			rd, err = e.r.Read(ctx, pane, ReadVisible, lines)
			return err
		})
		return rd, err
	}})
}

// Deliver types text into target, pauses (Config.DeliverPause) and presses Enter.
func (s *Session) Deliver(ctx context.Context, target, text string) error {
	_, err := s.do(ctx, op{name: "deliver", run: func(ctx context.Context, e *opEnv) (any, error) {
		return nil, e.panes.onPane(ctx, e.r, target, func(pane string) error {
			return e.r.Deliver(ctx, pane, text, e.pause)
		})
	}})
	return err
}

// SendText types text into target without pressing Enter (long text is chunked).
func (s *Session) SendText(ctx context.Context, target, text string) error {
	_, err := s.do(ctx, op{name: "pane.send_text", run: func(ctx context.Context, e *opEnv) (any, error) {
		return nil, e.panes.onPane(ctx, e.r, target, func(pane string) error {
			return e.r.SendText(ctx, pane, text)
		})
	}})
	return err
}

// DeliverWith is Deliver with an explicit text→Enter pause (re-deliveries use 300 ms).
func (s *Session) DeliverWith(ctx context.Context, target, text string, pause time.Duration) error {
	return s.Submit(ctx, target, Submission{Text: text, Pause: pause})
}

// Submit delivers one prompt to target as sub says: reset the input box, the text
// (in bracketed paste, chunked), sub.Pause, Enter (docs/lifecycle.md §9.1).
func (s *Session) Submit(ctx context.Context, target string, sub Submission) error {
	_, err := s.SubmitAt(ctx, target, sub)
	return err
}

// SubmitAt is [Session.Submit] that also returns when the Enter was sent
// ([Remote.SubmitAt]).
func (s *Session) SubmitAt(ctx context.Context, target string, sub Submission) (Typed, error) {
	return doTyped[Typed](ctx, s, op{name: "deliver", run: func(ctx context.Context, e *opEnv) (any, error) {
		var typed Typed
		err := e.panes.onPane(ctx, e.r, target, func(pane string) (err error) {
			typed, err = e.r.SubmitAt(ctx, pane, sub)
			return err
		})
		return typed, err
	}})
}

// SendKeys sends named keys to target.
func (s *Session) SendKeys(ctx context.Context, target string, keys ...string) error {
	_, err := s.do(ctx, op{name: "pane.send_keys", run: func(ctx context.Context, e *opEnv) (any, error) {
		return nil, e.panes.onPane(ctx, e.r, target, func(pane string) error {
			return e.r.SendKeys(ctx, pane, keys...)
		})
	}})
	return err
}

// Notify shows a herdr notification.
func (s *Session) Notify(ctx context.Context, title, body string) (Notification, error) {
	return doTyped[Notification](ctx, s, op{name: "notification.show", run: func(ctx context.Context, e *opEnv) (any, error) {
		return e.r.Notify(ctx, title, body)
	}})
}

// EnsureWorkspace returns the workspace labelled label, creating it when missing; a
// created workspace's root shell is closed once an agent pane is placed in it.
func (s *Session) EnsureWorkspace(ctx context.Context, label string) (WorkspaceInfo, error) {
	return doTyped[WorkspaceInfo](ctx, s, op{name: "ensure_workspace", structural: true,
		run: func(ctx context.Context, e *opEnv) (any, error) { return ensureWorkspace(ctx, e, label) }})
}

// Spawn creates the agent pane of spec: a new tab labelled spec.Label (its pane labelled
// spec.PaneLabel) in workspace spec.Workspace (created if needed) running spec.Argv via
// layout.apply, then pane.get for the terminal id; a fresh workspace's root shell is
// closed afterwards.
//
// Spawns into a workspace this connection found within [placeFresh] run side by side
// (docs/herdr.md §11): only finding or making the workspace is structural, one at a
// time per session. A spawn whose workspace is not known takes a structural turn,
// which places it as before — or, when a spawn queued ahead of it just found the
// workspace, hands it back to the side-by-side path without a call.
func (s *Session) Spawn(ctx context.Context, spec SpawnSpec) (Placement, error) {
	if len(spec.Argv) == 0 {
		return Placement{}, errors.New("herdr: spawn needs an argv")
	}
	for try := 0; ; try++ {
		r, err := doTyped[spawned](ctx, s, op{name: "spawn",
			run: func(ctx context.Context, e *opEnv) (any, error) { return spawnInKnown(ctx, e, spec) }})
		if err != nil || r.placed {
			return r.Placement, err
		}
		// The second structural turn always places: a workspace that vanished under a
		// side-by-side spawn is looked up (made) again there.
		full := try > 0
		r, err = doTyped[spawned](ctx, s, op{name: "spawn", structural: true,
			run: func(ctx context.Context, e *opEnv) (any, error) { return spawnPlacing(ctx, e, spec, full) }})
		if err != nil || r.placed {
			return r.Placement, err
		}
	}
}

// spawned is one spawn step's outcome: placed is false when the step left the spawn
// to the other path (no call made that could have made a pane).
type spawned struct {
	Placement
	placed bool
}

// spawnInKnown is the side-by-side spawn: layout.apply into the workspace the
// connection found within placeFresh. An unknown workspace, or one herdr no longer
// has, leaves the spawn to a structural turn (nothing was made).
func spawnInKnown(ctx context.Context, e *opEnv, spec SpawnSpec) (spawned, error) {
	ws, ok := e.places.get(spec.Workspace, time.Now())
	if !ok {
		return spawned{}, nil
	}
	_, pane, err := e.r.LayoutApply(ctx, ws, spec.Label, spec.Argv, spec.Cwd, spec.paneLabel(), spec.Env)
	if IsCode(err, "workspace_not_found") {
		e.places.drop(spec.Workspace, ws)
		return spawned{}, nil
	}
	if err != nil {
		return spawned{placed: true}, err
	}
	p, err := placedPane(ctx, e, spec, pane)
	return spawned{Placement: p, placed: true}, err
}

// spawnPlacing is the structural spawn: find or make the workspace, layout.apply,
// pane.get, close a fresh workspace's root shell. Unless full, a workspace found within
// placeFresh (by a spawn queued ahead) sends the spawn back to [spawnInKnown] unmade.
func spawnPlacing(ctx context.Context, e *opEnv, spec SpawnSpec, full bool) (spawned, error) {
	if _, ok := e.places.get(spec.Workspace, time.Now()); ok && !full {
		return spawned{}, nil
	}
	var pane string
	applied := false
	ws, err := inWorkspace(ctx, e, spec.Workspace, func(ws WorkspaceInfo) (err error) {
		applied = true
		_, pane, err = e.r.LayoutApply(ctx, ws.WorkspaceID, spec.Label, spec.Argv, spec.Cwd, spec.paneLabel(), spec.Env)
		return err
	})
	if err != nil {
		// The fresh workspace's root shell is closed too (docs/lifecycle.md §8.1
		// step 4), so a failed spawn leaves no pane behind.
		closeRoot(ctx, e, ws.WorkspaceID)
		if !applied {
			// Finding or making the workspace failed: the pane's request was not
			// sent, and asking again makes no second pane (a workspace made twice
			// keeps the first, the other's root shell is closed by reconciliation).
			err = notSent(err)
		}
		return spawned{placed: true}, err
	}
	p, err := placedPane(ctx, e, spec, pane)
	closeRoot(ctx, e, ws.WorkspaceID)
	if err == nil {
		e.places.put(spec.Workspace, ws.WorkspaceID, time.Now())
	}
	return spawned{Placement: p, placed: true}, err
}

// placedPane reads the pane layout.apply made (pane.get, for its terminal id, which
// layout.apply's answer lacks) and caches its terminal → pane ids.
func placedPane(ctx context.Context, e *opEnv, spec SpawnSpec, pane string) (Placement, error) {
	p, err := e.r.PaneGet(ctx, pane)
	if err != nil {
		if errors.Is(err, ErrNotSent) { // the pane was made: the spawn was sent
			err = wire.Env(wire.CauseHerdrUnreachable, "herdr made pane "+pane+" but its pane.get failed: "+err.Error(),
				"pane_id", pane)
		}
		return Placement{}, err
	}
	e.panes.put(p.TerminalID, p.PaneID)
	return Placement{Workspace: spec.Workspace, WorkspaceID: p.WorkspaceID, TabID: p.TabID,
		PaneID: p.PaneID, TerminalID: p.TerminalID}, nil
}

// Move moves target into a new tab labelled label in the workspace labelled
// workspace (created if needed; park = "idle", un-park = the home workspace) and
// returns the new ids. The terminal id is unchanged; an emptied source workspace
// disappears (herdr removes it).
func (s *Session) Move(ctx context.Context, target, workspace, label string) (MoveResult, error) {
	return doTyped[MoveResult](ctx, s, op{name: "move", structural: true,
		run: func(ctx context.Context, e *opEnv) (any, error) {
			p, err := e.panes.resolve(ctx, e.r, target)
			if err != nil {
				return nil, err
			}
			var m MoveResult
			same := false
			ws, err := inWorkspace(ctx, e, workspace, func(ws WorkspaceInfo) (err error) {
				if same = p.WorkspaceID == ws.WorkspaceID; same {
					return nil
				}
				m, err = e.r.MoveToNewTab(ctx, p.PaneID, ws.WorkspaceID, label)
				return err
			})
			if err != nil {
				closeRoot(ctx, e, ws.WorkspaceID)
				return nil, err
			}
			if same {
				return MoveResult{Placement: Placement{Workspace: workspace, WorkspaceID: p.WorkspaceID,
					TabID: p.TabID, PaneID: p.PaneID, TerminalID: p.TerminalID}, PreviousPaneID: p.PaneID}, nil
			}
			m.Workspace = workspace
			e.panes.put(p.TerminalID, m.PaneID)
			closeRoot(ctx, e, ws.WorkspaceID)
			return m, nil
		}})
}

// Close closes target's pane (its process is killed; empty tabs/workspaces vanish).
// Closes are not structural: they overlap each other and placements, which already
// take a workspace vanishing under them (a pane whose process exits by itself does
// the same; [inWorkspace]), so a bulk kill is not a queue of one close at a time.
func (s *Session) Close(ctx context.Context, target string) error {
	_, err := s.do(ctx, op{name: "pane.close", run: func(ctx context.Context, e *opEnv) (any, error) {
		return nil, e.panes.onPane(ctx, e.r, target, func(pane string) error {
			if err := e.r.Close(ctx, pane); err != nil {
				return err
			}
			if isTerminalID(target) {
				e.panes.forget(target, pane)
			}
			return nil
		})
	}})
	return err
}

// paneID resolves a terminal id to its current pane id; pane ids pass through (herdr
// accepts moved panes' old ids as aliases for pane.* methods).
func paneID(ctx context.Context, r *Remote, target string) (string, error) {
	if !isTerminalID(target) {
		return target, nil
	}
	p, err := r.ResolvePane(ctx, target)
	return p.PaneID, err
}

// placeAttempts bounds how often [inWorkspace] looks a vanished workspace up again.
const placeAttempts = 3

// inWorkspace runs place with the workspace labelled label, created when missing. The
// workspace can vanish between workspace.list and place's call: herdr removes a
// workspace once its last pane is gone, and a pane whose process exits on its own (an
// agent that quit, a kill's shutdown line) is not ordered by the structural ops. place
// then fails workspace_not_found, and the workspace is looked up — so created — again,
// at most placeAttempts times in all. It returns the workspace place last ran with.
func inWorkspace(ctx context.Context, e *opEnv, label string, place func(WorkspaceInfo) error) (WorkspaceInfo, error) {
	var ws WorkspaceInfo
	var err error
	for range placeAttempts {
		if ws, err = ensureWorkspace(ctx, e, label); err != nil {
			return ws, err
		}
		if err = place(ws); !IsCode(err, "workspace_not_found") {
			return ws, err
		}
	}
	return ws, err
}

func ensureWorkspace(ctx context.Context, e *opEnv, label string) (WorkspaceInfo, error) {
	wss, err := e.r.WorkspaceList(ctx)
	if err != nil {
		return WorkspaceInfo{}, err
	}
	for _, ws := range wss {
		if ws.Label == label {
			return ws, nil
		}
	}
	created, err := e.r.WorkspaceCreate(ctx, label, "")
	if err != nil {
		return WorkspaceInfo{}, err
	}
	if e.roots != nil && created.RootPane.PaneID != "" {
		e.roots[created.Workspace.WorkspaceID] = created.RootPane.PaneID
		// Labelled at once, so that a root shell a crash leaves behind (no row claims
		// it, and this server's ops no longer know it) can be found and closed
		// ([Session.CloseRootShells]). A failed rename leaves a plain shell, which
		// reconciliation reports as unmarked.
		_ = e.r.Rename(ctx, created.RootPane.PaneID, RootShellLabel)
	}
	return created.Workspace, nil
}

// RootShellLabel is the label orcr gives the root shell of a workspace it creates,
// which it closes once an agent pane is placed there (docs/herdr.md §11).
const RootShellLabel = "orcr:root-shell"

// CloseRootShells closes every pane of the session labelled [RootShellLabel] that no
// structural op of this driver still means to close: root shells a crash or a failed
// close left behind, which would keep their workspace alive for good
// (docs/lifecycle.md §13.2). Being structural, it runs between spawns and moves, so it
// never closes the root of a workspace a placement in flight is about to fill. It
// returns the pane ids it closed.
func (s *Session) CloseRootShells(ctx context.Context) ([]string, error) {
	return doTyped[[]string](ctx, s, op{name: "close_root_shells", structural: true,
		run: func(ctx context.Context, e *opEnv) (any, error) {
			panes, err := e.r.PaneList(ctx, "")
			if err != nil {
				return nil, err
			}
			pending := map[string]bool{}
			for _, root := range e.roots {
				pending[root] = true
			}
			var closed []string
			for _, p := range panes {
				if p.Label != RootShellLabel || pending[p.PaneID] {
					continue
				}
				if err := e.r.Close(ctx, p.PaneID); err != nil && !IsCode(err, "pane_not_found") {
					return closed, err
				}
				closed = append(closed, p.PaneID)
			}
			return closed, nil
		}})
}

// closeRoot closes the root shell of a workspace orcr created, once it holds an agent.
func closeRoot(ctx context.Context, e *opEnv, workspaceID string) {
	root, ok := e.roots[workspaceID]
	if !ok {
		return
	}
	delete(e.roots, workspaceID)
	_ = e.r.Close(ctx, root) // pane_not_found: already gone, which is what we want
}
