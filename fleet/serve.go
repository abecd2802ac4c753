package fleet

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// callTimeout bounds one call a member answers over the fleet.
const callTimeout = 10 * time.Second

// maxInflight bounds the calls a member serves over the fleet at once.
const maxInflight = 8

// Responder answers this member's API on orcr.api.<host> (docs/fleet.md §4).
type Responder struct {
	sub    *nats.Subscription
	ctx    context.Context
	cancel context.CancelFunc
	slots  chan struct{}
	wg     sync.WaitGroup
}

// Serve answers requests on this member's API subject with the socket API's envelopes:
// the same method table (api.Lookup, Spec.Serve on f) and the same error shapes. A
// method outside allow answers invalid_request fleet_not_allowed. Until the member holds
// its host in the members bucket ([Member.Setup]) it answers nothing.
func (m *Member) Serve(f api.Facade, allow []string) (*Responder, error) {
	r := &Responder{slots: make(chan struct{}, maxInflight)}
	r.ctx, r.cancel = context.WithCancel(context.Background())
	sub, err := m.nc.Subscribe(APISubject(m.Host), func(msg *nats.Msg) {
		if msg.Reply == "" || !m.registered.Load() {
			return
		}
		r.slots <- struct{}{}
		r.wg.Add(1)
		go func() {
			defer func() { <-r.slots; r.wg.Done() }()
			ctx, cancel := context.WithTimeout(r.ctx, callTimeout)
			defer cancel()
			if err := msg.Respond(Handle(ctx, f, m.Host, allow, msg.Data)); err != nil {
				m.log.Warn("fleet: cannot answer a call", "err", err)
			}
		}()
	})
	if err != nil {
		return nil, err
	}
	r.sub = sub
	return r, nil
}

// Close stops answering and waits for the calls in flight.
func (r *Responder) Close() {
	_ = r.sub.Unsubscribe()
	r.cancel()
	r.wg.Wait()
}

// Handle answers one request frame: the response frame, as the socket would write it.
// Unlike a socket connection, which negotiates once, every frame must declare protocol 1.
func Handle(ctx context.Context, f api.Facade, host string, allow []string, frame []byte) []byte {
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
	if !slices.Contains(allow, req.Method) || !spec.Info().Facade || spec.Info().Streaming {
		return encode(req.ID, nil, wire.Invalid(wire.ReasonFleetNotAllowed,
			"`"+req.Method+"` is not allowed over the fleet on "+host+" (fleet.allow)", "method", req.Method, "host", host))
	}
	res, err := spec.Serve(ctx, f, req.Params)
	if err != nil {
		return encode(req.ID, nil, wire.From(err, wire.CauseInternal))
	}
	return encode(req.ID, res, nil)
}

func encode(id []byte, res any, err *wire.Error) []byte {
	b, e := wire.EncodeResponse(id, res, err)
	if e != nil {
		b, _ = wire.EncodeResponse(id, nil, wire.Internal(wire.CauseEncode, e.Error()))
	}
	return b
}
