package herdr

import (
	"log/slog"
	"math/rand/v2"
	"sort"
	"sync"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// SessionHealth is the supervisor's view of one session connection.
type SessionHealth struct {
	Session  string `json:"session"`
	State    string `json:"state"` // connecting, up or down
	Socket   string `json:"socket,omitempty"`
	Version  string `json:"version,omitempty"`
	Protocol int    `json:"protocol,omitempty"`
	// Restarts counts connection actors spawned again after a failure.
	Restarts int `json:"restarts"`
	// Failures counts consecutive failures (reset when a handshake succeeds).
	Failures  int    `json:"failures"`
	LastError string `json:"last_error,omitempty"`
}

// healthQuery asks the supervisor (by RequestFuture, from edge code) for []SessionHealth.
type healthQuery struct{}

// forgetSession drops a user session's connection actor and entry (the session is gone).
type forgetSession struct{ name string }

// sessionAnswered says a direct call (server.status's ping) found session name
// answering: a connection waiting out its backoff is brought back now rather than
// when the timer fires (after a long outage the backoff is up to 10 s).
type sessionAnswered struct{ name string }

// respawnTick is sent by a time.AfterFunc timer; gen must still match the entry.
type respawnTick struct {
	name string
	gen  uint64
}

type sessionEntry struct {
	name     string
	pid      *actor.PID
	gen      uint64
	state    connState
	timer    *time.Timer
	restarts int
	failures int
	socket   string
	pong     Pong
	lastErr  error
}

// supervisor parents one sessionActor per herdr session and restarts failed ones
// with jittered exponential backoff, using its own time.AfterFunc timers (stopped in
// Stopping) rather than protoactor's backoff strategy, whose timers outlive shutdown.
// While a session is down it answers requests itself with herdr_unreachable.
type supervisor struct {
	cfg      *Config
	log      *slog.Logger
	wg       *sync.WaitGroup
	sessions map[string]*sessionEntry
	stopping bool
	sys      *actor.ActorSystem
	self     *actor.PID
}

func newSupervisorProps(cfg *Config, log *slog.Logger, wg *sync.WaitGroup) *actor.Props {
	// A panicking session actor is stopped, not restarted in place: its Terminated
	// then goes through the same backoff path as a reported failure.
	strategy := actor.NewOneForOneStrategy(0, time.Second, func(any) actor.Directive { return actor.StopDirective })
	return cfg.props(log, func() actor.Actor {
		return &supervisor{cfg: cfg, log: log, wg: wg, sessions: map[string]*sessionEntry{}}
	}, actor.WithSupervisor(strategy))
}

func (s *supervisor) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *actor.Started:
		s.sys, s.self = c.ActorSystem(), c.Self()
	case *opRequest:
		e := s.entry(c, m.session)
		if e.pid == nil {
			c.Respond(&opReply{err: notSent(s.downError(e))})
			return
		}
		c.Forward(e.pid)
	case *sessionUp:
		if e := s.sessions[m.name]; e != nil && e.gen == m.gen {
			e.state, e.socket, e.pong, e.failures, e.lastErr = stateUp, m.socket, m.pong, 0, nil
			s.log.Debug("herdr session up", "session", m.name, "socket", m.socket, "protocol", m.pong.Protocol)
		}
	case *sessionFailed:
		if e := s.sessions[m.name]; e != nil && e.gen == m.gen && e.pid != nil {
			// Poison, not Stop: requests already forwarded to the failed actor sit
			// ahead of the pill and are answered (herdr_unreachable); Stop would drop
			// them and leave their callers waiting. No request is forwarded after this.
			c.Poison(e.pid)
			s.down(e, m.err)
		}
	case *actor.Terminated:
		for _, e := range s.sessions {
			if e.pid != nil && e.pid.Equal(m.Who) {
				s.down(e, wire.Env(wire.CauseHerdrUnreachable, "the connection actor for herdr session "+e.name+" stopped", "session", e.name))
			}
		}
	case *respawnTick:
		if e := s.sessions[m.name]; e != nil && e.gen == m.gen && e.pid == nil && !s.stopping {
			e.restarts++
			s.spawn(c, e)
		}
	case *sessionAnswered:
		if e := s.sessions[m.name]; e != nil && e.pid == nil && !s.stopping {
			if e.timer != nil {
				e.timer.Stop()
			}
			e.restarts++
			s.spawn(c, e)
		}
	case *healthQuery:
		c.Respond(s.health())
	case *forgetSession:
		if e := s.sessions[m.name]; e != nil && m.name != s.cfg.owned() {
			if e.timer != nil {
				e.timer.Stop()
			}
			if e.pid != nil {
				c.Poison(e.pid) // requests already forwarded are answered first
			}
			delete(s.sessions, m.name)
		}
	case *actor.Stopping:
		s.stopping = true
		for _, e := range s.sessions {
			if e.timer != nil {
				e.timer.Stop()
			}
		}
	}
}

// entry returns the session's entry, spawning its connection actor on first use.
func (s *supervisor) entry(c actor.Context, name string) *sessionEntry {
	e := s.sessions[name]
	if e == nil {
		e = &sessionEntry{name: name}
		s.sessions[name] = e
		if !s.stopping {
			s.spawn(c, e)
		}
	}
	return e
}

func (s *supervisor) spawn(c actor.Context, e *sessionEntry) {
	e.gen++
	e.state = stateConnecting
	e.timer = nil
	props := s.cfg.props(s.log, newSessionActor(e.name, e.gen, s.cfg, s.wg))
	e.pid = c.SpawnPrefix(props, "herdr-session-"+e.name+"-")
}

// down records a failure and schedules a respawn after the backoff.
func (s *supervisor) down(e *sessionEntry, err error) {
	e.pid = nil
	e.state = stateFailed
	e.failures++
	e.lastErr = err
	if s.stopping {
		return
	}
	d := backoffFor(s.cfg.backoffInitial(), s.cfg.backoffMax(), e.failures)
	s.log.Info("herdr session down", "session", e.name, "error", err, "retry_in", d)
	sys, self, tick := s.sys, s.self, &respawnTick{name: e.name, gen: e.gen}
	e.timer = time.AfterFunc(d, func() { sys.Root.Send(self, tick) })
}

func (s *supervisor) downError(e *sessionEntry) error { return downError(e.name, e.lastErr) }

// downError is the answer to a call for session name while it is down after failing
// with lastErr: a version skew or a missing herdr stays itself (a persistent cause stays
// visible while the supervisor keeps retrying), anything else is herdr_unreachable
// carrying the failure.
func downError(name string, lastErr error) error {
	if we, ok := wire.As(lastErr); ok && (we.Cause() == wire.CauseHerdrVersionSkew || we.Cause() == wire.CauseHerdrMissing) {
		return we
	}
	msg := "herdr session " + name + " is unreachable; reconnecting"
	if lastErr != nil {
		msg += ": " + lastErr.Error()
	}
	return wire.Env(wire.CauseHerdrUnreachable, msg, "session", name)
}

func (s *supervisor) health() []SessionHealth {
	out := make([]SessionHealth, 0, len(s.sessions))
	for _, e := range s.sessions {
		h := SessionHealth{Session: e.name, State: e.state.String(), Socket: e.socket,
			Version: e.pong.Version, Protocol: e.pong.Protocol, Restarts: e.restarts, Failures: e.failures}
		if e.lastErr != nil {
			h.LastError = e.lastErr.Error()
		}
		out = append(out, h)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Session < out[j].Session })
	return out
}

// backoffFor returns initial·2^(failures-1), capped at max, with ±25 % jitter.
func backoffFor(initial, ceiling time.Duration, failures int) time.Duration {
	d := initial
	for i := 1; i < failures && d < ceiling; i++ {
		d *= 2
	}
	d = min(d, ceiling)
	jitter := time.Duration(rand.Int64N(int64(d)/2+1)) - d/4
	return max(d+jitter, time.Millisecond)
}
