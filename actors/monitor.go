package actors

import (
	"context"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/orcr-go/orcr/actors/actorkit"
	"github.com/orcr-go/orcr/herdr"
)

// MonitorTick is the completion monitor's period (lifecycle.md §10.2).
const MonitorTick = 200 * time.Millisecond

// StatusReport is herdr's view of one managed agent's pane at one poll: the agents
// actor routes it to the agent's actor, which runs the turn state machine on it.
type StatusReport struct {
	UUID         string
	Status       herdr.Status // done already normalised to idle
	AgentSession *herdr.AgentSession
	Title, Name  string // herdr's pane title and agent name (blocked classification)
	At           time.Time
}

type monitorTick struct{ gen int64 }
type monitorPolled struct{ reports []StatusReport }

// MonitorSpec configures the completion monitor.
type MonitorSpec struct {
	Env    *AgentEnv
	Agents *actor.PID
	Tick   time.Duration // default MonitorTick
}

// monitorActor polls herdr once per tick for the owned session — one agent.list for
// every managed agent, never one call per agent — and fans the statuses out to the
// agent actors through the agents actor. The poll (a DB read and a herdr call) runs on
// a goroutine; at most one is in flight, and the next tick is armed when it reports.
type monitorActor struct {
	spec  MonitorSpec
	gen   int64
	timer *time.Timer
	busy  bool
}

// NewMonitorProps returns the completion monitor's props.
func NewMonitorProps(spec MonitorSpec) *actor.Props {
	if spec.Tick <= 0 {
		spec.Tick = MonitorTick
	}
	return actorkit.Props(spec.Env.Log, func() actor.Actor { return &monitorActor{spec: spec} })
}

func (m *monitorActor) Receive(c actor.Context) {
	switch msg := c.Message().(type) {
	case *actor.Started:
		m.arm(c)
	case monitorTick:
		if msg.gen != m.gen || m.busy {
			return
		}
		m.busy = true
		self, root, env := c.Self(), c.ActorSystem().Root, m.spec.Env
		env.Ops.Add(1)
		go func() {
			defer env.Ops.Done()
			root.Send(self, monitorPolled{reports: poll(env)})
		}()
	case monitorPolled:
		m.busy = false
		for _, r := range msg.reports {
			c.Send(m.spec.Agents, r)
		}
		m.arm(c)
	case *actor.Stopping:
		m.gen++
		if m.timer != nil {
			m.timer.Stop()
		}
	}
}

func (m *monitorActor) arm(c actor.Context) {
	m.gen++
	gen, self, root := m.gen, c.Self(), c.ActorSystem().Root
	if m.timer != nil {
		m.timer.Stop()
	}
	m.timer = time.AfterFunc(m.spec.Tick, func() { root.Send(self, monitorTick{gen: gen}) })
}

// poll reads the managed rows that can have a turn in flight and herdr's agent list,
// and pairs them by terminal id (stable across moves), falling back to the pane id.
func poll(env *AgentEnv) []StatusReport {
	if env.Herdr == nil {
		return nil
	}
	rows, err := env.DB.Reader().QueryContext(contextBG, `SELECT uuid, terminal_id, pane_id FROM agents
		WHERE managed = 1 AND status IN ('working','idle','blocked','parked') AND terminal_id IS NOT NULL`)
	if err != nil {
		env.Log.Warn("monitor: cannot read agents", "err", err)
		return nil
	}
	type target struct{ uuid, term, pane string }
	var targets []target
	for rows.Next() {
		var t target
		var pane *string
		if rows.Scan(&t.uuid, &t.term, &pane) == nil {
			if pane != nil {
				t.pane = *pane
			}
			targets = append(targets, t)
		}
	}
	rows.Close()
	if len(targets) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	agents, err := env.Herdr.Owned().AgentList(ctx)
	if err != nil {
		env.Log.Debug("monitor: agent.list failed; skipping this tick", "err", err)
		return nil
	}
	byTerm := make(map[string]herdr.AgentInfo, len(agents))
	byPane := make(map[string]herdr.AgentInfo, len(agents))
	for _, a := range agents {
		byTerm[a.TerminalID] = a
		byPane[a.PaneID] = a
	}
	now := time.Now()
	var out []StatusReport
	for _, t := range targets {
		a, ok := byTerm[t.term]
		if !ok {
			if a, ok = byPane[t.pane]; !ok {
				continue // not listed: lost handling belongs to reconciliation
			}
		}
		out = append(out, StatusReport{UUID: t.uuid, Status: a.AgentStatus.Normalise(), AgentSession: a.AgentSession,
			Title: a.Title, Name: a.Name, At: now})
	}
	return out
}
