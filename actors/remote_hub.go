package actors

import (
	"log/slog"
	"slices"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/orcr-go/orcr/actors/actorkit"
)

// The remote hub (docs/remote.md §3, §4, §6): the registry of open stream connections —
// one per agent, a newer one supersedes the older — the door revocation reaches, and the
// gate that lets at most max_concurrent_replays replay reads run at once across all
// connections. It never blocks and never sends a Request.

// Messages of the hub.
type (
	// hubRegister makes conn the agent's stream connection; an older one is superseded.
	// Order is when the connection was opened (before its hello): a connection actor
	// can start after a newer one of the same agent, and it is the older one still.
	hubRegister struct {
		Agent, Hash string
		Conn        *actor.PID
		Order       int64
	}
	// hubRevoke drops the agent's connection when it presented one of Hashes; with no
	// Agent, every connection that presented one of them (a revoked dashboard session).
	hubRevoke struct {
		Agent  string
		Hashes []string
	}
	// replayAcquire asks for a replay slot; [replayGranted] arrives when one is free.
	replayAcquire struct{ Conn *actor.PID }
	// replayRelease returns a slot (a no-op for a connection that holds none, and it
	// also withdraws a waiting request).
	replayRelease struct{ Conn *actor.PID }
	// RemoteStatsQuery asks the hub for [RemoteStats].
	RemoteStatsQuery struct{}
)

// Messages the hub sends a connection.
type (
	replayGranted    struct{}
	streamSuperseded struct{}
	streamRevoked    struct{}
)

// RemoteStats counts the stream's connections and replay slots (server.status).
type RemoteStats struct {
	Connections    int // open stream connections
	ReplaysActive  int // replay reads holding a slot now
	ReplaysWaiting int // connections waiting for a slot
	ReplaysPeak    int // the most slots ever held at once
}

type hubConn struct {
	pid   *actor.PID
	hash  string
	order int64
}

type remoteHub struct {
	max     int
	conns   map[string]hubConn // agent → its connection
	agentOf map[string]string  // connection → agent
	active  map[string]bool    // connections holding a slot
	waiting []*actor.PID       // FIFO of connections waiting for a slot
	peak    int
	// revoked holds every token hash revoked since the start: a connection that passed
	// its token check before the revocation committed but registers after the hub
	// handled it is revoked at registration (a revoked token never becomes valid again).
	revoked map[string]bool
}

// newRemoteHubProps returns the hub's props; maxReplays (>= 1) is
// remote.max_concurrent_replays.
func newRemoteHubProps(log *slog.Logger, maxReplays int) *actor.Props {
	return actorkit.Props(log, func() actor.Actor {
		return &remoteHub{max: max(maxReplays, 1), conns: map[string]hubConn{}, agentOf: map[string]string{},
			active: map[string]bool{}, revoked: map[string]bool{}}
	})
}

func (h *remoteHub) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case hubRegister:
		if h.revoked[m.Hash] {
			c.Send(m.Conn, streamRevoked{})
			c.Watch(m.Conn)
			return
		}
		if old, ok := h.conns[m.Agent]; ok && !old.pid.Equal(m.Conn) {
			if old.order > m.Order {
				// A newer connection registered first: this one is the superseded one
				// (watched all the same, so a replay slot it takes is freed when it ends).
				c.Send(m.Conn, streamSuperseded{})
				c.Watch(m.Conn)
				return
			}
			c.Send(old.pid, streamSuperseded{})
			delete(h.agentOf, old.pid.String())
		}
		h.conns[m.Agent] = hubConn{pid: m.Conn, hash: m.Hash, order: m.Order}
		h.agentOf[m.Conn.String()] = m.Agent
		c.Watch(m.Conn)
	case hubRevoke:
		for _, hash := range m.Hashes {
			h.revoked[hash] = true
		}
		for agent, cn := range h.conns {
			if (m.Agent == "" || agent == m.Agent) && slices.Contains(m.Hashes, cn.hash) {
				c.Send(cn.pid, streamRevoked{})
			}
		}
	case replayAcquire:
		key := m.Conn.String()
		if h.active[key] {
			c.Send(m.Conn, replayGranted{})
			return
		}
		for _, w := range h.waiting {
			if w.Equal(m.Conn) {
				return
			}
		}
		h.waiting = append(h.waiting, m.Conn)
		h.grant(c)
	case replayRelease:
		h.release(c, m.Conn)
	case RemoteStatsQuery:
		c.Respond(RemoteStats{Connections: len(h.conns), ReplaysActive: len(h.active), ReplaysWaiting: len(h.waiting),
			ReplaysPeak: h.peak})
	case *actor.Terminated:
		key := m.Who.String()
		if agent, ok := h.agentOf[key]; ok {
			delete(h.agentOf, key)
			if cn := h.conns[agent]; cn.pid.Equal(m.Who) {
				delete(h.conns, agent)
			}
		}
		h.release(c, m.Who)
	}
}

// release frees conn's slot or withdraws its waiting request, then grants slots.
func (h *remoteHub) release(c actor.Context, conn *actor.PID) {
	key := conn.String()
	delete(h.active, key)
	for i, w := range h.waiting {
		if w.Equal(conn) {
			h.waiting = append(h.waiting[:i], h.waiting[i+1:]...)
			break
		}
	}
	h.grant(c)
}

// grant hands free slots to waiting connections, oldest first.
func (h *remoteHub) grant(c actor.Context) {
	for len(h.active) < h.max && len(h.waiting) > 0 {
		next := h.waiting[0]
		h.waiting = h.waiting[1:]
		h.active[next.String()] = true
		h.peak = max(h.peak, len(h.active))
		c.Send(next, replayGranted{})
	}
}
