package actors

import (
	"context"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/orcr-go/orcr/actors/actorkit"
	"github.com/orcr-go/orcr/actors/paneexec"
	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/herdr"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/store"
	"github.com/orcr-go/orcr/store/agentpath"
)

// SystemConfig is what [Start] needs: the resolved home, its configuration and the
// open store. The caller owns the store and closes it after [System.Stop].
type SystemConfig struct {
	Home   string
	Paths  config.Paths
	Config *config.Config
	// ConfigSource is config.json as Config was loaded from it; server.status compares
	// it with the file on disk (docs/config.md §1.9). Its zero value: not recorded.
	ConfigSource config.Source
	// Getenv reads the server's environment (nil: os.Getenv).
	Getenv func(string) string
	// EnvKeys names variables Getenv knows beyond the process environment (a test's
	// environment map), so the server's environment handed to agents includes them.
	EnvKeys []string
	Log     *slog.Logger
	DB      *store.DB
	// Version is the server's version string (server.status).
	Version string
	// Started is when the server process started (uptime).
	Started time.Time
	// DeadLetterThrottle is the actor system's dead-letter log throttle (default 1 s).
	DeadLetterThrottle time.Duration
	// Retention is the number of newest events retention keeps (0: the default).
	Retention int
	// SystemdRunDir replaces /run/systemd/system in server.status's loops_firing (a
	// test seam; "": the real one).
	SystemdRunDir string
	// RunShim is the argv that starts a loop run's shim (docs/loops.md §6.4); empty:
	// this executable (or ORCR_RUN_SHIM) with the hidden `__run-shim` verb. Agents' panes
	// run their provider through that same binary's `__pane-exec` (docs/lifecycle.md §8.2).
	RunShim []string
}

// System is the one facade of orcr's use cases. Every face of the server — the Unix
// socket today; the WebSocket stream, `orcr top` and an MCP face later — calls its
// typed methods (Run, Ask, Send, Kill, Wait, Logs, Ls, Snapshot, Status, and the
// AttachPrepare, AttachHeartbeat, AttachRelease lease calls) and nothing below it. Methods are edge code: they may block (on store futures, on herdr, on a
// wait) and are called from request goroutines, never from inside an actor's Receive.
// Errors are *wire.Error values (the protocol's codes with details).
type System struct {
	cfg    SystemConfig
	getenv func(string) string

	sys      *actor.ActorSystem
	storePID *actor.PID
	agents   *actor.PID
	queue    *actor.PID
	monitor  *actor.PID
	gc       *actor.PID
	recon    *actor.PID
	discover *actor.PID
	loops    *actor.PID
	remote   *actor.PID // the remote stream's hub
	notifier *actor.PID // nil without notify rules
	fleet    *actor.PID // nil with the fleet off
	// leases and fleetLeases: the fleet-wide provider slots (docs/fleet.md §4.7); nil
	// without fleet.caps.
	leases      *leaseBook
	fleetLeases *actor.PID
	// fleetCaller is the member's connection fleet.call goes through; nil with the
	// fleet off.
	fleetCaller FleetCaller
	// fleetHub is the embedded hub whose member tokens fleet.token issues; nil
	// without fleet.hub.
	fleetHub FleetHub
	budgets  []store.BudgetRule

	remoteMu   sync.Mutex
	remoteAddr string // the remote listener's address ("" = off)
	remoteTLS  bool
	dashMu     sync.Mutex
	dashFeeds  map[*DashboardFeed]struct{} // the open dashboard fleet feeds (revocation)
	stopped    chan struct{}               // closed by Stop: the loops' waiting goroutines end
	driver     *herdr.Driver
	env        *AgentEnv
	providers  Providers // systemProviders; the agent actors get the same (AgentEnv.Providers)

	integ herdrIntegrations
	// ocExports paces opencode's export (docs/providers.md §6.9).
	ocExports opencodeExports
	gateMu    sync.Mutex
	gateOK    bool
	killSeq   atomic.Int64
	// waits counts the agent.wait calls whose membership is resolved and whose waiter
	// is registered ([System.DebugWaits]).
	waits atomic.Int64
}

// Start builds the actor tree of actors/doc.go in its start order: the store actor,
// the herdr driver, the restart re-arm, the completion monitor, the agents actor (which
// runs restart recovery), the queue and the GC actor.
func Start(cfg SystemConfig) (*System, error) {
	s := &System{cfg: cfg, getenv: cfg.Getenv, stopped: make(chan struct{}), dashFeeds: map[*DashboardFeed]struct{}{}}
	if s.getenv == nil {
		s.getenv = os.Getenv
	}
	if cfg.Log == nil {
		s.cfg.Log = slog.New(slog.DiscardHandler)
	}
	log := s.cfg.Log
	s.budgets = budgetRules(cfg.Config.Budgets)
	cfg.DB.SetBudgets(s.budgets)
	s.sys = actorkit.NewSystem(log, cfg.DeadLetterThrottle)
	var err error
	if s.storePID, err = s.sys.Root.SpawnNamed(NewStoreProps(cfg.DB, log, StoreOptions{Retention: cfg.Retention}), "store"); err != nil {
		return nil, wire.Internal(wire.CauseActor, "cannot start the store actor: "+err.Error())
	}
	fail := func(err error) (*System, error) {
		s.Stop()
		return nil, err
	}
	if s.remote, err = s.sys.Root.SpawnNamed(newRemoteHubProps(log, cfg.Config.Remote.MaxConcurrentReplays), "remote"); err != nil {
		return fail(wire.Internal(wire.CauseActor, "cannot start the remote hub: "+err.Error()))
	}
	bin, err := herdr.FindBinary(cfg.Config.Herdr.Bin, s.getenv)
	if err != nil {
		log.Warn("no herdr binary; agents cannot be spawned until one is configured", "err", err)
		bin = ""
	}
	hc := herdr.Config{Bin: bin, Owned: cfg.Config.Herdr.Session, Props: actorkit.Props}
	if cfg.Getenv != nil {
		hc.Env = s.serverEnv() // herdr runs in the server's environment, not the process's
	}
	if s.driver, err = herdr.NewDriver(s.sys, hc, log); err != nil {
		return fail(wire.Internal(wire.CauseActor, "cannot start the herdr driver: "+err.Error()))
	}
	// Restart re-arm (docs/lifecycle.md §10.5): completion must observe a fresh idle
	// streak; the park clock of idle rows restarts.
	if _, err := s.write(func(tx *store.Tx) (any, error) { return nil, tx.Rearm() }); err != nil {
		return fail(err)
	}
	// quota.pause_at as configured now holds or frees providers by the windows already
	// recorded (docs/usage.md §7.2).
	if _, err := s.write(func(tx *store.Tx) (any, error) {
		return nil, applyQuotaPauseAt(tx, cfg.Config.Quota.PauseAt)
	}); err != nil {
		return fail(err)
	}
	// The orcr binary loop runs and agents' panes are started through (ORCR_RUN_SHIM,
	// else this executable).
	orcrBin := s.getenv("ORCR_RUN_SHIM")
	if orcrBin == "" {
		exe, err := os.Executable()
		if err != nil {
			return fail(wire.Internal(wire.CauseExecutable, "cannot find this executable for loop runs and agent panes: "+err.Error()))
		}
		orcrBin = exe
	}
	tr := transcripts{s: s}
	s.providers = systemProviders{s: s, tr: tr}
	s.env = &AgentEnv{
		Store: s.storePID, DB: cfg.DB, Herdr: s.driver, Home: cfg.Home, Log: log,
		Providers:        s.providers,
		Transcripts:      tr,
		AgentSessionWait: 3 * time.Second,
		OwnedStart:       make(chan struct{}, 1),
		LimitBackoff:     cfg.Config.Timings.LimitBackoff,
		QuotaPauseAt:     cfg.Config.Quota.PauseAt,
		QuotaWarnAt:      cfg.Config.Quota.WarnAt,
		PaneExec:         []string{orcrBin, paneexec.Verb},
	}
	if err := s.startNotifier(); err != nil {
		return fail(err)
	}
	if s.monitor, err = s.sys.Root.SpawnNamed(NewMonitorProps(MonitorSpec{Env: s.env}), "monitor"); err != nil {
		return fail(wire.Internal(wire.CauseActor, "cannot start the completion monitor: "+err.Error()))
	}
	s.env.Monitor = s.monitor
	if s.agents, err = s.sys.Root.SpawnNamed(NewAgentsProps(s.env), "agents"); err != nil {
		return fail(wire.Internal(wire.CauseActor, "cannot start the agents actor: "+err.Error()))
	}
	s.sys.Root.Send(s.monitor, SetAgents{PID: s.agents})
	s.env.Agents = s.agents
	if f := cfg.Config.Fleet; f.On && len(f.Caps) > 0 {
		s.leases = newLeaseBook(f.Caps, f.LeaseTTL, time.Now())
	}
	caps := Caps{Max: cfg.Config.Concurrency.Max, Provider: s.providerCap}
	if s.queue, err = s.sys.Root.SpawnNamed(NewQueueProps(QueueSpec{
		Store: s.storePID, Agents: s.agents, Caps: caps, MaxStarting: cfg.Config.Timings.MaxStarting, Log: log,
		Fallback: s.fallbackFor,
	}), "queue"); err != nil {
		return fail(wire.Internal(wire.CauseActor, "cannot start the queue actor: "+err.Error()))
	}
	// The reconciler's first pass completes the start pass of docs/lifecycle.md §13.1.
	// The agents actor queued every agent's recovery op in its Started, which it handles
	// before any message, so each recovery runs before a repair of the same agent.
	if s.recon, err = s.sys.Root.SpawnNamed(NewReconcilerProps(ReconcilerSpec{
		Env: s.env, Agents: s.agents, Queue: s.queue, Tick: cfg.Config.Timings.GCTick,
	}), "reconciler"); err != nil {
		return fail(wire.Internal(wire.CauseActor, "cannot start the reconciler: "+err.Error()))
	}
	s.sys.Root.Send(s.monitor, SetReconciler{PID: s.recon})
	if s.gc, err = s.sys.Root.SpawnNamed(NewGCProps(GCSpec{
		Env: s.env, Agents: s.agents, Queue: s.queue,
		IdleAfter: cfg.Config.Timings.IdleAfter, KillAfter: cfg.Config.Timings.KillAfter, Tick: cfg.Config.Timings.GCTick,
		Retention: cfg.Config.Retention,
	}), "gc"); err != nil {
		return fail(wire.Internal(wire.CauseActor, "cannot start the gc actor: "+err.Error()))
	}
	if s.getenv(EnvDisableDiscovery) != "1" {
		if s.discover, err = s.sys.Root.SpawnNamed(NewDiscoveryProps(DiscoverySpec{
			Env: s.env, Supported: s.supported,
		}), "discovery"); err != nil {
			return fail(wire.Internal(wire.CauseActor, "cannot start the discovery actor: "+err.Error()))
		}
	}
	shim := cfg.RunShim
	if len(shim) == 0 {
		shim = []string{orcrBin, "__run-shim"}
	}
	started := cfg.Started
	if started.IsZero() {
		started = time.Now()
	}
	if s.loops, err = s.sys.Root.SpawnNamed(NewLoopsProps(LoopsSpec{
		Env: s.env, Tick: cfg.Config.Timings.LoopTick, Stopped: s.stopped, Started: started,
		Run: RunEnv{Home: cfg.Home, Session: s.driver.Owned().Name(), ServerEnv: s.serverEnv, Shim: shim,
			LogMaxBytes: cfg.Config.Logs.MaxBytes, LogMaxFiles: cfg.Config.Logs.MaxFiles,
			Grace: cfg.Config.Timings.RunTermGrace, KillUnder: s.killUnder},
	}), "loops"); err != nil {
		return fail(wire.Internal(wire.CauseActor, "cannot start the loops actor: "+err.Error()))
	}
	return s, nil
}

// killUnder kills every active agent under path, round after round until a round kills
// nothing (at most 100): the barrier kill of a stopped loop run (docs/loops.md §7 step 5).
func (s *System) killUnder(ctx context.Context, path string) error {
	for round := 0; round < 100; round++ {
		res, err := s.Kill(ctx, api.KillRequest{Targets: []string{"/" + path + "/**"}})
		if wire.Is(err, wire.NotFound, "") {
			return nil
		}
		if err != nil {
			return err
		}
		if len(res.Killed) == 0 {
			return nil
		}
	}
	return nil
}

// Stop stops the tree in the order of actors/doc.go: the GC, the monitor and the queue
// (no more sweeps, polls or promotions); then the agents, whose running ops are
// canceled at their next checkpoint and waited for (they may still be writing); then
// the herdr driver; the store actor last, so every write queued before it is applied.
// It does not close the store.
func (s *System) Stop() {
	root := s.sys.Root
	if s.stopped != nil {
		select {
		case <-s.stopped:
		default:
			close(s.stopped)
		}
	}
	for _, pid := range []*actor.PID{s.loops, s.discover, s.gc, s.recon, s.monitor, s.queue, s.remote, s.notifier, s.fleet, s.fleetLeases} {
		if pid != nil {
			root.PoisonFuture(pid).Wait()
		}
	}
	if s.agents != nil {
		root.PoisonFuture(s.agents).Wait()
	}
	if s.env != nil {
		s.env.Ops.Wait()
	}
	if s.driver != nil {
		s.driver.Close()
	}
	if s.storePID != nil {
		root.PoisonFuture(s.storePID).Wait()
	}
	s.sys.Shutdown()
}

// Actors is the actor system, for faces that run actors of their own (connection and
// subscription actors of the socket layer).
func (s *System) Actors() *actor.ActorSystem { return s.sys }

// SubscriptionProps returns the props of a subscription actor (events.subscribe,
// watch.open) wired to this system's store.
func (s *System) SubscriptionProps(spec SubscriptionSpec) *actor.Props {
	spec.Store, spec.DB, spec.Log = s.storePID, s.cfg.DB, s.cfg.Log
	return NewSubscriptionProps(spec)
}

// StoreStats asks the store actor for its counters.
func (s *System) StoreStats(ctx context.Context) (StoreStatsResult, error) {
	res, err := s.sys.Root.RequestFuture(s.storePID, StoreStats{}, 10*time.Second).Result()
	if err != nil {
		return StoreStatsResult{}, wire.Internal(wire.CauseActor, "store actor did not answer: "+err.Error())
	}
	return res.(StoreStatsResult), nil
}

// write runs op through the store actor (the only writer) and waits for its result.
func (s *System) write(op store.Op) (any, error) {
	v, err := WriteSync(s.sys.Root, s.storePID, op)
	if err != nil {
		return nil, wire.From(err, wire.CauseSQLite)
	}
	return v, nil
}

// writeGuarded runs an op that reads the kill barriers through the store actor. Its
// error comes back as the op returned it, so callers can match typed store errors.
func (s *System) writeGuarded(op func(*store.Tx, BarrierView) (any, error)) (any, error) {
	return requestWrite(s.sys.Root, s.storePID, Write{Guarded: op})
}

func (s *System) caller(ctx context.Context, c api.Caller) (agentpath.Caller, error) {
	return agentpath.ResolveCaller(ctx, s.cfg.DB.Reader(), c.CallerID, c.CallerPath)
}

// exactTarget resolves the target of an exact-target verb (send, logs) in the
// caller's scope.
func (s *System) exactTarget(ctx context.Context, c api.Caller, target string) (store.AgentRow, string, error) {
	if target == "" {
		return store.AgentRow{}, "", wire.Invalid(wire.ReasonTargetRequired, "a target is required")
	}
	caller, err := s.caller(ctx, c)
	if err != nil {
		return store.AgentRow{}, "", err
	}
	return agentpath.ResolveExact(ctx, s.cfg.DB.Reader(), caller, target)
}

// bulkTargets drops empty targets of a bulk verb (wait, kill): none left is
// target_required.
func bulkTargets(raw []string) ([]string, error) {
	var targets []string
	for _, t := range raw {
		if t != "" {
			targets = append(targets, t)
		}
	}
	if len(targets) == 0 {
		return nil, wire.Invalid(wire.ReasonTargetRequired, "at least one target is required")
	}
	return targets, nil
}

// serverEnv is the server's environment as KEY=VALUE entries (for the mock's knobs).
func (s *System) serverEnv() []string {
	if s.cfg.Getenv == nil {
		return os.Environ()
	}
	var env []string
	seen := map[string]bool{}
	for _, kv := range append(os.Environ(), s.cfg.EnvKeys...) {
		k, _, _ := strings.Cut(kv, "=")
		if seen[k] {
			continue
		}
		seen[k] = true
		if v := s.getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// Statements is the number of SQL statements the store has run since it was opened.
func (s *System) Statements() int64 { return s.cfg.DB.Statements() }

// System is the facade the socket face dispatches to (api.Methods).
var _ api.Facade = (*System)(nil)
