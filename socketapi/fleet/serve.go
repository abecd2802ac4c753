package fleet

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// callTimeout bounds one call a member answers over the fleet, but for the unbounded
// methods (agent.wait, agent.ask), which run until they settle, their own timeout or the
// member's stop.
const callTimeout = 10 * time.Second

// maxInflight bounds the bounded calls a member serves over the fleet at once, and
// maxUnbounded the unbounded ones, so waits held open never starve an agent.ls.
const (
	maxInflight  = 8
	maxUnbounded = 64
)

// Responder answers this member's API on orcr.api.<host> (docs/fleet.md §4).
type Responder struct {
	sub    *nats.Subscription
	ping   *nats.Subscription
	ctx    context.Context
	cancel context.CancelFunc
	slots  chan struct{}
	long   chan struct{} // the unbounded calls' slots
	wg     sync.WaitGroup
}

// Policy is what a caller may call on this member: the methods for the caller's host
// and the policy's name, fleet.allow or fleet.allow_from.<caller> (config.Fleet.AllowFor).
type Policy func(caller string) (allow []string, policy string)

// Serve answers requests on this member's API subjects with the socket API's envelopes:
// the same method table (api.Lookup, Spec.Serve on f) and the same error shapes. A
// method outside what allow gives the caller answers invalid_request
// fleet_not_allowed. Until the member holds its host in the members bucket
// ([Member.Setup]) it answers nothing.
func (m *Member) Serve(f api.Facade, allow Policy) (*Responder, error) {
	r := &Responder{slots: make(chan struct{}, maxInflight), long: make(chan struct{}, maxUnbounded)}
	r.ctx, r.cancel = context.WithCancel(context.Background())
	prefix := APISubject(m.Host, "")
	sub, err := m.nc.Subscribe(APICalls(m.Host), func(msg *nats.Msg) {
		if msg.Reply == "" || !m.registered.Load() {
			return
		}
		caller := strings.TrimPrefix(msg.Subject, prefix)
		slots, ctx, cancel := r.slots, r.ctx, context.CancelFunc(func() {})
		long, progress := callKind(msg.Data)
		if long || progress {
			slots = r.long
		} else {
			ctx, cancel = context.WithTimeout(r.ctx, callTimeout)
		}
		if progress {
			// Progress frames to the caller's inbox as the call goes (docs/fleet.md
			// §4.9): while they come, the caller waits on.
			ctx = wire.WithProgress(ctx, func(p wire.Progress) {
				pm := nats.NewMsg(msg.Reply)
				pm.Header.Set(ProgressHeader, strconv.Itoa(p.Done)+"/"+strconv.Itoa(p.Total))
				_ = m.nc.PublishMsg(pm)
			})
		}
		slots <- struct{}{}
		r.wg.Add(1)
		go func() {
			defer func() { <-slots; r.wg.Done() }()
			defer cancel()
			methods, policy := allow(caller)
			if err := respond(m.nc, msg, Handle(ctx, f, Caller{Host: m.Host, From: caller, Allow: methods, Policy: policy}, msg.Data)); err != nil {
				m.log.Warn("fleet: cannot answer a call", "err", err)
			}
		}()
	})
	if err != nil {
		return nil, err
	}
	r.sub = sub
	// The probe is answered in NATS's own callback: it says the member is connected,
	// holds its host and reads its subscriptions, before a caller waits for a verb.
	r.ping, err = m.nc.Subscribe(PingSubject(m.Host), func(msg *nats.Msg) {
		if msg.Reply != "" && m.registered.Load() {
			_ = msg.Respond([]byte("{}"))
		}
	})
	if err != nil {
		_ = sub.Unsubscribe()
		return nil, err
	}
	subscribed(m.nc)
	return r, nil
}

// subscribeFlush bounds the wait for the NATS server to take a member's subscriptions.
const subscribeFlush = 2 * time.Second

// subscribed waits until the NATS server holds the connection's subscriptions, so a
// call made once Serve returned finds its responder; a member not connected yet
// subscribes when it connects, and does not wait.
func subscribed(nc *nats.Conn) {
	if nc.IsConnected() {
		_ = nc.FlushTimeout(subscribeFlush)
	}
}

// Close stops answering and waits for the calls in flight.
func (r *Responder) Close() {
	_ = r.ping.Unsubscribe()
	_ = r.sub.Unsubscribe()
	r.cancel()
	r.wg.Wait()
}

// callKind reads how frame's call is served: long for an unbounded method (agent.wait,
// agent.ask), progress for a method that reports progress when the frame asks for it
// (agent.kill, docs/protocol.md §2.7) — served without the bounded calls' timeout,
// its progress frames telling the caller it goes on. A frame that does not decode is
// answered as a bounded call.
func callKind(frame []byte) (long, progress bool) {
	var req struct {
		Method   string `json:"method"`
		Progress bool   `json:"progress"`
	}
	if json.Unmarshal(frame, &req) != nil {
		return false, false
	}
	spec, ok := api.Lookup(req.Method)
	return ok && spec.Info().Unbounded, ok && req.Progress && api.ReportsProgress(req.Method)
}

// ProgressHeader marks a message to a caller's inbox as a progress frame of its call,
// "<done>/<total>", not (a part of) its answer.
const ProgressHeader = "Orcr-Progress"

// ProgressIdle bounds the wait for the next message of a call that reports progress:
// the member writes a progress frame at least once a second while it works.
const ProgressIdle = 15 * time.Second

// Caller is who calls a member over the fleet and what it may call there.
type Caller struct {
	Host   string   // the member answering
	From   string   // the calling host
	Allow  []string // the methods From may call on Host
	Policy string   // the config key Allow comes from
}

// Handle answers one request frame from c.From: the response frame, as the socket would
// write it. Unlike a socket connection, which negotiates once, every frame must declare
// protocol 1.
func Handle(ctx context.Context, f api.Facade, c Caller, frame []byte) []byte {
	req, werr := wire.DecodeRequest(frame)
	if werr != nil {
		return encode(wire.NullID(), nil, werr)
	}
	// Each message stands alone: every request declares the protocol.
	if req.Protocol != wire.Protocol {
		return encode(req.ID, nil, wire.UnsupportedVersion(req.Protocol))
	}
	spec, ok := api.Lookup(req.Method)
	if !ok {
		return encode(req.ID, nil, wire.Invalid(wire.ReasonUnknownMethod, "unknown method `"+req.Method+"`", "method", req.Method))
	}
	if !slices.Contains(c.Allow, req.Method) || !spec.Info().Facade || spec.Info().Streaming {
		return encode(req.ID, nil, NotAllowed(req.Method, c))
	}
	res, err := spec.Serve(ctx, f, req.Params)
	if err != nil {
		return encode(req.ID, nil, wire.From(err, wire.CauseInternal))
	}
	return encode(req.ID, res, nil)
}

// NotAllowed is the refusal of a call outside what a member's policy gives its caller
// (docs/fleet.md §4.1): invalid_request fleet_not_allowed naming the method, the host,
// the caller, the policy (fleet.allow, or fleet.allow_from.<caller> when the caller has
// its own entry) and what it allows.
func NotAllowed(method string, c Caller) *wire.Error {
	return wire.Invalid(wire.ReasonFleetNotAllowed,
		"`"+method+"` is not allowed over the fleet on "+c.Host+" for "+c.From+": its "+c.Policy+" allows "+strings.Join(c.Allow, ", "),
		"method", method, "host", c.Host, "caller", c.From, "policy", c.Policy, "allow", slices.Clone(c.Allow))
}

func encode(id []byte, res any, err *wire.Error) []byte {
	b, e := wire.EncodeResponse(id, res, err)
	if e != nil {
		b, _ = wire.EncodeResponse(id, nil, wire.Internal(wire.CauseEncode, e.Error()))
	}
	return b
}
