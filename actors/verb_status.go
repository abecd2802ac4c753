package actors

import (
	"context"
	"os"
	"time"

	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/config/service"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/store"
	"github.com/orcr-go/orcr/store/agentpath"
)

// The read-only use cases: agent.ls, api.snapshot, server.status.

// Ls is agent.ls (docs/protocol.md §5.17): rows in tree order, filtered.
func (s *System) Ls(ctx context.Context, r api.LsRequest) (api.LsResult, error) {
	caller, err := s.caller(ctx, r.Caller)
	if err != nil {
		return api.LsResult{}, err
	}
	rows, err := agentpath.List(ctx, s.cfg.DB.Reader(), caller, agentpath.ListFilter{Pattern: r.Pattern, Agent: r.Agent, Status: r.Status,
		Managed: r.Managed, Unmanaged: r.Unmanaged, All: r.All})
	if err != nil {
		return api.LsResult{}, err
	}
	if rows == nil {
		rows = []store.AgentRow{}
	}
	return api.LsResult{Agents: rows}, nil
}

// Snapshot is api.snapshot: agents, loops and queue at one event cursor.
func (s *System) Snapshot(ctx context.Context) (api.Snapshot, error) {
	snap, err := s.cfg.DB.Snapshot(ctx)
	if err != nil {
		return api.Snapshot{}, wire.From(err, wire.CauseSQLite)
	}
	return *snap, nil
}

// Status is server.status: herdr as the driver sees it (binary, owned session, ping),
// per-provider integration layers, counts, loops and drift.
func (s *System) Status(ctx context.Context) (api.StatusResult, error) {
	counts := map[string]int64{"live": 0, "queued": 0, "starting": 0, "blocked": 0, "stalled": 0, "unmanaged": 0,
		"unmarked_panes": 0, "unknown_marked_panes": 0}
	c, err := s.cfg.DB.AgentCounts(ctx)
	if err != nil {
		s.cfg.Log.Warn("server.status: cannot count agents", "err", err)
	}
	counts["live"], counts["queued"], counts["blocked"], counts["unmanaged"] = c.Live, c.Queued, c.Blocked, c.Unmanaged
	counts["stalled"], counts["starting"] = c.Stalled, c.Starting
	stalled, err := s.cfg.DB.StalledAgents(ctx)
	if err != nil {
		s.cfg.Log.Warn("server.status: cannot list stalled agents", "err", err)
		stalled = []api.StalledAgent{}
	}
	paused, err := s.cfg.DB.ProviderPauses(ctx)
	if err != nil {
		s.cfg.Log.Warn("server.status: cannot read provider pauses", "err", err)
		paused = []api.ProviderPause{}
	}
	quota, err := s.quota(ctx)
	if err != nil {
		s.cfg.Log.Warn("server.status: cannot read quota windows", "err", err)
	}
	loops, err := s.cfg.DB.ActiveLoops(ctx)
	if err != nil {
		s.cfg.Log.Warn("server.status: cannot read loops", "err", err)
		loops = []store.LoopSummary{}
	}
	herdrErr := s.findHerdr()
	hctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	herdrStatus := s.driver.Status(hctx)
	cancel()
	if pe, ok := wire.As(herdrErr); ok {
		herdrStatus.Error = pe // what discovery tried, rather than the driver's "no binary"
	}
	drift := s.drift()
	counts["unmarked_panes"], counts["unknown_marked_panes"] = drift.UnmarkedPanes, drift.UnknownMarkedPanes
	integrations := map[string]api.Integration{}
	for name, i := range s.providerOptions().Integrations(s.herdrInstalled(ctx)) {
		integrations[name] = api.Integration(i)
	}
	return api.StatusResult{
		Today:        s.usageToday(ctx),
		Quota:        quota,
		Retention:    s.retentionStatus(ctx),
		Slots:        s.slotsStatus(ctx),
		Version:      s.cfg.Version,
		Protocol:     wire.Protocol,
		PID:          os.Getpid(),
		UptimeMS:     time.Since(s.cfg.Started).Milliseconds(),
		Socket:       s.cfg.Paths.Socket,
		Store:        s.cfg.Paths.DB,
		Herdr:        herdrStatus,
		Integrations: integrations,
		Counts:       counts,
		Stalled:      stalled,
		Paused:       paused,
		// The start-at-login unit, located with the server's environment as the CLI's
		// `server enable` locates it with its own (docs/loops.md §12).
		LoopsFiring: service.Manager{Getenv: s.getenv, SystemdRunDir: s.cfg.SystemdRunDir}.Registered(),
		Loops:       loops,
		Remote:      s.remoteStatus(ctx),
		Fleet:       s.fleetStatus(),
		Notify:      s.notifyStatus(ctx),
		Config:      s.configStatus(),
		Drift: map[string]int64{"lost": drift.Lost, "repaired": drift.Repaired,
			"unknown_marked_panes": drift.UnknownMarkedPanes, "unmarked_panes": drift.UnmarkedPanes,
			"root_shell_panes": drift.RootShellPanes},
	}, nil
}

// slotsStatus is server.status's slots: the caps of config and the slot holders, by
// provider (docs/lifecycle.md §7, docs/fleet.md §4.3).
func (s *System) slotsStatus(ctx context.Context) api.SlotsStatus {
	c := s.cfg.Config.Concurrency
	used, err := s.cfg.DB.SlotsUsed(ctx)
	if err != nil {
		s.cfg.Log.Warn("server.status: cannot count slots", "err", err)
	}
	st := api.SlotsStatus{Max: int64(c.Max), DefaultAgent: s.cfg.Config.Defaults.Agent, Providers: map[string]api.ProviderSlots{}}
	for _, n := range used {
		st.Used += n
	}
	st.Free = max(st.Max-st.Used, 0)
	add := func(p string) {
		ps := api.ProviderSlots{Used: used[p], Free: st.Free}
		if n, ok := c.Caps[p]; ok {
			cp := int64(n)
			ps.Cap, ps.Free = &cp, min(st.Free, max(cp-ps.Used, 0))
		}
		st.Providers[p] = ps
	}
	for p := range c.Caps {
		add(p)
	}
	for p := range used {
		add(p)
	}
	return st
}

// retentionStatus is server.status's retention: the configured limits and what the gc
// forgot under them (docs/lifecycle.md §12.4).
func (s *System) retentionStatus(ctx context.Context) api.RetentionStatus {
	positive := func(n int64) *int64 {
		if n <= 0 {
			return nil
		}
		return &n
	}
	var st api.RetentionStatus
	if s.cfg.Config != nil {
		r := s.cfg.Config.Retention
		st.EndedForMS, st.EndedMax = positive(r.EndedFor.Milliseconds()), positive(int64(r.EndedMax))
	}
	got, err := s.cfg.DB.RetentionStats(ctx)
	if err != nil {
		s.cfg.Log.Warn("server.status: cannot read retention stats", "err", err)
	}
	st.TrimmedTotal, st.LastTrimAt = got.Trimmed, positive(got.LastAt)
	return st
}

// drift asks the reconciler for its counters (zero when it does not answer).
func (s *System) drift() Drift {
	res, err := s.sys.Root.RequestFuture(s.recon, DriftQuery{}, 2*time.Second).Result()
	if err != nil {
		s.cfg.Log.Warn("server.status: the reconciler did not answer", "err", err)
		return Drift{}
	}
	return res.(Drift)
}

// configStatus compares config.json on disk with the file the server started from
// (docs/config.md §1.9): it changed, which keys, and whether a start would refuse it now.
func (s *System) configStatus() api.ConfigStatus {
	was := s.cfg.ConfigSource
	st := api.ConfigStatus{Path: s.cfg.Paths.Config, ChangedKeys: []string{}}
	if was.Path == "" {
		return st // not recorded (a system built without a server)
	}
	st.Path = was.Path
	if d := was.Digest(); d != "" {
		st.Digest = &d
	}
	now, err := config.ReadSource(s.cfg.Home)
	if err == nil {
		var cfg *config.Config
		if cfg, _, err = now.Load(s.getenv); err == nil {
			err = cfg.Remote.CheckListen()
		}
	}
	if err != nil {
		msg := err.Error()
		st.Error = &msg
	}
	if now.Missing || now.Data != nil {
		st.Changed = !was.Same(now)
		if keys := config.ChangedKeys(was, now); st.Changed && keys != nil {
			st.ChangedKeys = keys
		}
	}
	return st
}

// configOnDisk is config.json as it is now, when it loads and differs from the file the
// server started from; nil otherwise (then the running config is the one to go by).
func (s *System) configOnDisk() *config.Config {
	was := s.cfg.ConfigSource
	if was.Path == "" {
		return nil
	}
	now, err := config.ReadSource(s.cfg.Home)
	if err != nil || was.Same(now) {
		return nil
	}
	cfg, _, err := now.Load(s.getenv)
	if err != nil {
		return nil
	}
	return cfg
}
