package herdr

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// op is one driver operation on a session. run does the blocking herdr socket I/O;
// it executes on a goroutine spawned by the session actor, never inside Receive.
// Structural ops (those that create, move or close places) run one at a time per
// session and own the session's placement state while they run.
type op struct {
	name       string
	structural bool
	run        func(ctx context.Context, env *opEnv) (any, error)
}

// opEnv is what an op's goroutine may use. roots is non-nil only for structural ops:
// ownership of the map passes to the goroutine with the op and back with opDone (the
// actor never touches it while a structural op is in flight).
type opEnv struct {
	r      *Remote
	pause  time.Duration
	panes  *paneCache        // this connection's terminal → pane cache
	lists  *agentListCache   // this connection's last agent.list answer
	places *placeCache       // this connection's workspace label → id (structural spawns)
	roots  map[string]string // workspace id → root shell pane id still to close
}

// opRequest is sent by edge code (Driver/Session) to the supervisor with
// RequestFuture; the supervisor forwards it (sender kept) to the session actor, which
// answers the original sender with *opReply.
type opRequest struct {
	session string
	op      op
	ctx     context.Context
	// started is set when the session actor launches the op: a caller whose deadline
	// passed before then knows nothing of it was sent (an op launched after its deadline
	// fails at its first connect, sending nothing).
	started atomic.Bool
}

// opReply answers an opRequest.
type opReply struct {
	value any
	err   error
}

// opDone is piped from an op goroutine back to its session actor.
type opDone struct {
	seq        uint64
	sender     *actor.PID
	name       string
	structural bool
	roots      map[string]string
	value      any
	err        error
}

// handshakeDone is piped from the handshake goroutine back to its session actor.
type handshakeDone struct {
	socket string
	pong   Pong
	err    error
}

// sessionUp and sessionFailed are sent (never requested) by a session actor to the
// supervisor; gen identifies the incarnation so stale reports are ignored.
type sessionUp struct {
	name   string
	gen    uint64
	socket string
	pong   Pong
}

type sessionFailed struct {
	name string
	gen  uint64
	err  error
}

type connState int

const (
	stateConnecting connState = iota
	stateUp
	stateFailed
)

func (s connState) String() string {
	switch s {
	case stateConnecting:
		return "connecting"
	case stateUp:
		return "up"
	default:
		return "down"
	}
}

type pendingOp struct {
	sender *actor.PID
	req    *opRequest
}

// sessionActor is the connection to one herdr session. On start it resolves the
// session's socket and handshakes (in a goroutine); while connecting it queues
// requests; once up it runs each op on its own goroutine and pipes the result back as
// opDone; the first herdr_unreachable result (or a failed handshake) turns it to
// failed: it answers herdr_unreachable at once and tells the supervisor, which stops
// it and spawns a fresh one after a backoff.
type sessionActor struct {
	name   string
	gen    uint64
	cfg    *Config
	wg     *sync.WaitGroup
	sys    *actor.ActorSystem
	self   *actor.PID
	parent *actor.PID

	state   connState
	remote  *Remote
	panes   *paneCache
	lists   *agentListCache
	places  *placeCache
	base    context.Context
	cancel  context.CancelFunc
	queued  []pendingOp // while connecting
	failErr error       // why the session failed (stateFailed): requests until the supervisor replaces it get it
	waiting []pendingOp // structural ops behind the running one
	busy    bool        // a structural op is running (its goroutine owns roots)
	roots   map[string]string
	seq     uint64
	running map[uint64]*actor.PID // senders of ops whose goroutines are in flight
}

func newSessionActor(name string, gen uint64, cfg *Config, wg *sync.WaitGroup) actor.Producer {
	return func() actor.Actor {
		return &sessionActor{name: name, gen: gen, cfg: cfg, wg: wg, roots: map[string]string{},
			running: map[uint64]*actor.PID{}}
	}
}

func (a *sessionActor) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *actor.Started:
		a.sys, a.self, a.parent = c.ActorSystem(), c.Self(), c.Parent()
		a.base, a.cancel = context.WithCancel(context.Background())
		a.startHandshake()
	case *handshakeDone:
		a.onHandshake(c, m)
	case *opRequest:
		a.onRequest(c, pendingOp{sender: c.Sender(), req: m})
	case *opDone:
		a.onDone(c, m)
	case *actor.Stopping:
		// Answer everything still owed: ops in flight (their late opDone goes to dead
		// letters) and queued ones; cancelling base closes their sockets.
		a.cancel()
		err := a.unreachable("the connection to herdr session " + a.name + " was stopped")
		for _, sender := range a.running {
			a.reply(c, sender, nil, err)
		}
		a.running = nil
		a.failPending(c, err)
	}
}

func (a *sessionActor) startHandshake() {
	sys, self, base, cfg, name := a.sys, a.self, a.base, a.cfg, a.name
	a.wg.Go(func() {
		ctx, cancel := context.WithTimeout(base, cfg.timeout()+5*time.Second)
		defer cancel()
		res := &handshakeDone{}
		res.socket, res.pong, res.err = handshake(ctx, cfg, name)
		sys.Root.Send(self, res)
	})
}

// handshake resolves name's socket from the session list and pings it.
func handshake(ctx context.Context, cfg *Config, name string) (string, Pong, error) {
	rows, err := cfg.sessions(ctx)
	if err != nil {
		return "", Pong{}, err
	}
	row, ok := FindSession(rows, name)
	if !ok || !row.Running {
		return row.SocketPath, Pong{}, wire.Env(wire.CauseHerdrUnreachable,
			fmt.Sprintf("herdr session %s is not running", name), "session", name)
	}
	r := &Remote{Client: Client{Socket: row.SocketPath, Timeout: cfg.timeout()}}
	p, err := r.Handshake(ctx)
	return row.SocketPath, p, err
}

func (a *sessionActor) onHandshake(c actor.Context, m *handshakeDone) {
	if a.state != stateConnecting {
		return
	}
	if m.err != nil {
		a.fail(c, m.err)
		return
	}
	a.state = stateUp
	a.remote = &Remote{Client: Client{Socket: m.socket, Timeout: a.cfg.timeout(), Dial: a.cfg.dial,
		Slots: make(chan struct{}, a.cfg.maxCalls())}}
	a.panes = newPaneCache(m.socket, a.cfg.noPaneCache)
	a.lists = &agentListCache{}
	a.places = &placeCache{fresh: or(a.cfg.placeFresh, placeFresh)}
	c.Send(a.parent, &sessionUp{name: a.name, gen: a.gen, socket: m.socket, pong: m.pong})
	q := a.queued
	a.queued = nil
	for _, p := range q {
		a.onRequest(c, p)
	}
}

func (a *sessionActor) onRequest(c actor.Context, p pendingOp) {
	switch a.state {
	case stateConnecting:
		a.queued = append(a.queued, p)
	case stateFailed:
		a.reply(c, p.sender, nil, notSent(downError(a.name, a.failErr))) // as the supervisor answers while it is down
	case stateUp:
		if p.req.op.structural {
			if a.busy {
				a.waiting = append(a.waiting, p)
				return
			}
			a.busy = true
		}
		a.launch(p)
	}
}

// launch runs p's op on a goroutine that pipes its result back as *opDone.
func (a *sessionActor) launch(p pendingOp) {
	env := &opEnv{r: a.remote, pause: a.cfg.pause(), panes: a.panes, lists: a.lists, places: a.places}
	var roots map[string]string
	if p.req.op.structural {
		roots, a.roots = a.roots, nil // hand-off: the goroutine owns it until opDone
		env.roots = roots
	}
	sys, self, base := a.sys, a.self, a.base
	a.seq++
	seq := a.seq
	a.running[seq] = p.sender
	p.req.started.Store(true)
	a.wg.Go(func() {
		opCtx := p.req.ctx
		if opCtx == nil {
			opCtx = context.Background()
		}
		ctx, cancel := context.WithCancel(opCtx)
		stop := context.AfterFunc(base, cancel)
		v, err := p.req.op.run(ctx, env)
		stop()
		cancel()
		sys.Root.Send(self, &opDone{seq: seq, sender: p.sender, name: p.req.op.name, structural: p.req.op.structural,
			roots: env.roots, value: v, err: err})
	})
}

func (a *sessionActor) onDone(c actor.Context, m *opDone) {
	delete(a.running, m.seq)
	a.reply(c, m.sender, m.value, m.err)
	if m.structural {
		a.busy = false
		a.roots = m.roots
		if a.roots == nil {
			a.roots = map[string]string{}
		}
	}
	// A call herdr did not accept or answer in time says herdr is slow, not gone:
	// failing the session for it would fail every call in flight and waiting with it.
	if IsUnreachable(m.err) && !herdrSlow(m.err) && a.state == stateUp {
		a.fail(c, m.err)
		return
	}
	for a.state == stateUp && !a.busy && len(a.waiting) > 0 {
		p := a.waiting[0]
		a.waiting = a.waiting[1:]
		a.onRequest(c, p)
	}
}

// fail turns the actor to failed, answers everything pending and tells the supervisor.
func (a *sessionActor) fail(c actor.Context, err error) {
	a.state, a.failErr = stateFailed, err
	a.failPending(c, a.unreachableFrom(err))
	c.Send(a.parent, &sessionFailed{name: a.name, gen: a.gen, err: err})
}

func (a *sessionActor) failPending(c actor.Context, err error) {
	err = notSent(err) // these ops never ran
	for _, p := range append(a.queued, a.waiting...) {
		a.reply(c, p.sender, nil, err)
	}
	a.queued, a.waiting = nil, nil
}

func (a *sessionActor) reply(c actor.Context, to *actor.PID, v any, err error) {
	if to != nil {
		c.Send(to, &opReply{value: v, err: err})
	}
}

func (a *sessionActor) unreachable(msg string) error {
	return wire.Env(wire.CauseHerdrUnreachable, msg, "session", a.name)
}

// unreachableFrom keeps err when it already is a protocol error (a version skew must
// stay a version skew), else wraps it as herdr_unreachable.
func (a *sessionActor) unreachableFrom(err error) error {
	if _, ok := wire.As(err); ok {
		return err
	}
	return a.unreachable("herdr session " + a.name + ": " + err.Error())
}
