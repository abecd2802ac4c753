package server

import (
	"context"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/orcr-go/orcr/actors"
	"github.com/orcr-go/orcr/actors/provider"
	"github.com/orcr-go/orcr/herdr"
	"github.com/orcr-go/orcr/socketapi/wire"
)

// startAgentCore starts the herdr driver, the agents actor (which runs restart
// recovery), the queue actor, the completion monitor and the GC actor, in that order
// (actors/doc.go).
func (s *Server) startAgentCore() error {
	bin, err := herdr.FindBinary(s.cfg.Herdr.Bin, s.getenv)
	if err != nil {
		s.log.Warn("no herdr binary; agents cannot be spawned until one is configured", "err", err)
		bin = ""
	}
	s.herdrBin = bin
	s.driver, err = herdr.NewDriver(s.sys, herdr.Config{Bin: bin, Owned: s.cfg.Herdr.Session}, s.log)
	if err != nil {
		return wire.Internal("actor", "cannot start the herdr driver: "+err.Error())
	}
	s.barriers = actors.NewBarriers()
	// Restart re-arm (lifecycle.md §10.5): completion must observe a fresh idle streak;
	// the park clock of idle rows restarts.
	if _, err := actors.WriteSync(s.sys.Root, s.storePID, actors.OpRearm()); err != nil {
		return err
	}
	s.agentEnv = &actors.AgentEnv{
		Store: s.storePID, DB: s.db, Herdr: s.driver, Home: s.opts.Home, Log: s.log,
		Shutdown:    s.shutdownPlan,
		HerdrGate:   s.herdrGate,
		Tuning:      s.cfg.TuningFor,
		Transcripts: transcripts{s: s},
		Submit:      s.submitPlan,
		NeedsAgentSession: func(name string) bool {
			return transcripts{s: s}.spec(name).DataDirFile == ""
		},
		AgentSessionWait: 3 * time.Second,
	}
	if s.agentsPID, err = s.sys.Root.SpawnNamed(actors.NewAgentsProps(s.agentEnv), "agents"); err != nil {
		return wire.Internal("actor", "cannot start the agents actor: "+err.Error())
	}
	caps := actors.Caps{Max: s.cfg.Concurrency.Max, Provider: s.cfg.ProviderCap}
	if s.queuePID, err = s.sys.Root.SpawnNamed(actors.NewQueueProps(actors.QueueSpec{
		Store: s.storePID, Agents: s.agentsPID, Caps: caps, MaxStarting: s.cfg.Timings.MaxStarting,
		Barriers: s.barriers, Log: s.log,
	}), "queue"); err != nil {
		return wire.Internal("actor", "cannot start the queue actor: "+err.Error())
	}
	if s.monitorPID, err = s.sys.Root.SpawnNamed(actors.NewMonitorProps(actors.MonitorSpec{
		Env: s.agentEnv, Agents: s.agentsPID,
	}), "monitor"); err != nil {
		return wire.Internal("actor", "cannot start the completion monitor: "+err.Error())
	}
	if s.gcPID, err = s.sys.Root.SpawnNamed(actors.NewGCProps(actors.GCSpec{
		Env: s.agentEnv, Agents: s.agentsPID, Queue: s.queuePID,
		IdleAfter: s.cfg.Timings.IdleAfter, KillAfter: s.cfg.Timings.KillAfter, Tick: s.cfg.Timings.GCTick,
	}), "gc"); err != nil {
		return wire.Internal("actor", "cannot start the gc actor: "+err.Error())
	}
	return nil
}

// stopAgentCore stops the GC, the monitor and the queue (no more sweeps, polls or
// promotions), then the agents (running ops are
// canceled at their next checkpoint and waited for: they may still be writing), then
// the herdr driver. The store actor stops after this returns.
func (s *Server) stopAgentCore() {
	for _, pid := range []*actor.PID{s.gcPID, s.monitorPID, s.queuePID} {
		if pid != nil {
			s.sys.Root.PoisonFuture(pid).Wait()
		}
	}
	if s.agentsPID != nil {
		s.sys.Root.PoisonFuture(s.agentsPID).Wait()
		s.agentEnv.Ops.Wait()
	}
	if s.driver != nil {
		s.driver.Close()
	}
}

// shutdownPlan is the provider's graceful-shutdown recipe (lifecycle.md §15.2): a line
// to type (claude and codex have none; the mock's is /quit) and the grace before close.
func (s *Server) shutdownPlan(name string) (string, time.Duration) {
	prov, err := provider.Lookup(name, s.providerOptions())
	if err != nil {
		return "", 0
	}
	sd := prov.Shutdown(s.cfg)
	return sd.Line, sd.Grace
}

// herdrGate runs the contract check against the live `herdr api schema --json` once;
// a passing check is remembered, a failing one is retried at the next spawn (herdr may
// be upgraded meanwhile).
func (s *Server) herdrGate(ctx context.Context) error {
	s.gateMu.Lock()
	defer s.gateMu.Unlock()
	if s.gateOK {
		return nil
	}
	if err := s.driver.Conformance(ctx); err != nil {
		s.log.Error("herdr contract check failed", "err", err)
		return err
	}
	s.gateOK = true
	return nil
}

// submitPlan maps a provider's startup recipe to the agent actor's delivery plan.
func (s *Server) submitPlan(name string) actors.SubmitPlan {
	prov, err := provider.Lookup(name, s.providerOptions())
	if err != nil {
		return actors.SubmitPlan{}
	}
	st := prov.Startup(s.cfg)
	return actors.SubmitPlan{
		ReadyBudget: st.ReadyBudget, ReadyPoll: st.ReadyPoll, EnterDelay: st.EnterDelay,
		ConfirmBudget: st.Confirm.Budget, ConfirmPoll: st.Confirm.Poll, RetypeDelay: st.Confirm.RetypeDelay,
		Attempts: st.Confirm.Attempts, ProbeMaxChars: st.Confirm.ProbeMaxChars,
	}
}
