package actors

import (
	"strings"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/orcr-go/orcr/actors/actorkit"
)

// agentsActor parents one agent actor per managed agent that has work to do, and routes
// messages to them by UUID. It holds no state of its own worth losing (a restart
// rebuilds it from the store), so a failing child is restarted alone.
//
// At start it runs restart recovery: every managed row that is live (starting, working,
// idle, blocked, parked, lost), and every other row with an open intent, gets an actor
// and a recoverAgent op; queued rows are left to the queue actor (they survive restarts
// and stay queued).
type agentsActor struct {
	env      *AgentEnv
	children map[string]*actor.PID
}

// NewAgentsProps returns the props of the agents actor.
func NewAgentsProps(env *AgentEnv) *actor.Props {
	return actorkit.Props(env.Log, func() actor.Actor {
		return &agentsActor{env: env, children: map[string]*actor.PID{}}
	})
}

func (a *agentsActor) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *actor.Started:
		a.recoverAll(c)
	case StartAgent:
		c.Forward(a.child(c, m.UUID))
	case SendInput:
		c.Forward(a.child(c, m.UUID))
	case KillAgent:
		c.Forward(a.child(c, m.UUID))
	case AdoptAgent:
		c.Forward(a.child(c, m.UUID))
	case ParkAgent:
		c.Send(a.child(c, m.UUID), m)
	case ReapAgent:
		c.Forward(a.child(c, m.UUID))
	case ReconcileAgent:
		c.Forward(a.child(c, m.UUID))
	case StatusReport:
		c.Send(a.child(c, m.UUID), m)
	case drainInbox:
		c.Send(a.child(c, m.UUID), m)
	case feedTools:
		if pid, ok := a.children[m.UUID]; ok {
			c.Send(pid, m)
		}
	case sendKeys:
		c.Forward(a.child(c, m.UUID))
	case CancelSpawn:
		if pid, ok := a.children[m.UUID]; ok {
			c.Send(pid, m)
		}
	case agentEnded:
		if pid, ok := a.children[m.UUID]; ok && pid.Equal(m.PID) {
			delete(a.children, m.UUID)
		}
		c.Poison(m.PID)
	case *actor.Terminated:
		for u, pid := range a.children {
			if pid.Equal(m.Who) {
				delete(a.children, u)
			}
		}
	}
}

func (a *agentsActor) child(c actor.Context, uuid string) *actor.PID {
	if pid, ok := a.children[uuid]; ok {
		return pid
	}
	pid := c.SpawnPrefix(newAgentProps(a.env, uuid), uuid+"-")
	a.children[uuid] = pid
	return pid
}

func (a *agentsActor) recoverAll(c actor.Context) {
	uuids, err := a.env.DB.LiveManagedUUIDs(contextBG)
	if err != nil {
		a.env.Log.Error("agent recovery: cannot list live agents", "err", err)
		return
	}
	live := map[string]bool{}
	for _, u := range uuids {
		live[u] = true
		c.Send(a.child(c, u), recoverAgent{UUID: u})
	}
	// A row that ended with an intent still open (a kill during its spawn, a crash in a
	// teardown) gets a recovery op too: it settles the intent, then the actor retires.
	intents, err := a.env.DB.OpenIntents()
	if err != nil {
		a.env.Log.Error("agent recovery: cannot list open intents", "err", err)
		return
	}
	for _, in := range intents {
		if in.Ref != "" && !live[in.Ref] && strings.HasPrefix(in.Kind, "agent.") {
			live[in.Ref] = true
			c.Send(a.child(c, in.Ref), recoverAgent{UUID: in.Ref})
		}
	}
	// A row that ended with its worktree not yet removed (a crash between the end and
	// the removal's intent) gets one too: the removal runs after its op.
	ended, err := a.env.DB.UnremovedWorktrees(contextBG)
	if err != nil {
		a.env.Log.Error("agent recovery: cannot list unremoved worktrees", "err", err)
		return
	}
	for _, u := range ended {
		if !live[u] {
			live[u] = true
			c.Send(a.child(c, u), recoverAgent{UUID: u})
		}
	}
}
