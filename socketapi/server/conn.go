package server

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/orcr-go/orcr/actors/actorkit"
	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/wire"
)

// Messages of the connection actor.
type (
	// inbound is one decoded request (or an envelope error) read from the socket.
	inbound struct {
		req *wire.Request
		err *wire.Error // bad_json / missing_method: answered with id null
	}
	// readEnded reports the end of the read side: EOF, a framing error or an I/O error.
	readEnded struct{ err error }
	// stopConn asks the connection to end: subscriptions write server_stopping first.
	stopConn struct{}
)

// connActor serves one client connection. A reader goroutine decodes frames and sends
// them here in arrival order; this actor negotiates the protocol version, dispatches by
// the method table and starts each request in arrival order. Inline handlers answer
// from Receive; blocking handlers run on a request goroutine (edge code, allowed to
// block on futures) and answer through the writer; streaming methods become child
// subscription actors. Responses may therefore leave out of request order.
type connActor struct {
	s          *Server
	id         int64
	netConn    net.Conn
	w          *connWriter
	negotiated bool
	ctx        context.Context
	cancel     context.CancelFunc
	subs       map[int64]*actor.PID // open subscriptions (children)
}

func (s *Server) connProps(id int64, nc net.Conn, w *connWriter) *actor.Props {
	return actorkit.Props(s.log, func() actor.Actor {
		return &connActor{s: s, id: id, netConn: nc, w: w, subs: map[int64]*actor.PID{}}
	})
}

func (a *connActor) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *actor.Started:
		a.ctx, a.cancel = context.WithCancel(a.s.ctx)
		go a.readLoop(c.ActorSystem().Root, c.Self())
	case inbound:
		a.handle(c, m)
	case readEnded:
		a.readEnded(c, m.err)
	case stopConn:
		// The final frame of every open subscription, written here rather than by the
		// children: a stop is a system message and would overtake their mailboxes.
		// CloseAfterFlush makes it final: frames enqueued later are dropped.
		for id := range a.subs {
			a.w.Enqueue(serverStoppingFrame(id), nil)
		}
		a.w.CloseAfterFlush()
		c.Stop(c.Self())
	case *actor.Terminated:
		for id, pid := range a.subs {
			if pid.Equal(m.Who) {
				delete(a.subs, id)
			}
		}
	case *actor.Stopping:
		a.cancel()
	case *actor.Stopped:
		a.w.CloseAfterFlush()
		a.s.connGone(a.id)
	}
}

func (a *connActor) readLoop(root *actor.RootContext, self *actor.PID) {
	fr := wire.NewFrameReader(a.netConn, a.s.maxFrame)
	for {
		line, err := fr.Next()
		if err != nil {
			root.Send(self, readEnded{err: err})
			return
		}
		req, perr := wire.DecodeRequest(line)
		root.Send(self, inbound{req: req, err: perr})
	}
}

func (a *connActor) readEnded(c actor.Context, err error) {
	switch {
	case errors.Is(err, wire.ErrFrameTooLarge):
		a.reply(nil, nil, wire.Invalid("frame_too_large", "request frame exceeds 16 MiB"))
	case errors.Is(err, wire.ErrTruncatedFrame):
		a.reply(nil, nil, wire.Invalid("truncated_frame", "connection ended inside a frame"))
	case err == nil || errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed):
	default:
		a.reply(nil, nil, wire.Internal("socket_io", "socket read failed: "+err.Error()))
	}
	c.Stop(c.Self())
}

// reply writes a response frame. id nil means null.
func (a *connActor) reply(id json.RawMessage, result any, perr *wire.Error) {
	a.s.writeResponse(a.w, id, result, perr, nil)
}

func (a *connActor) handle(c actor.Context, in inbound) {
	if in.err != nil {
		a.reply(nil, nil, in.err)
		return
	}
	req := in.req
	if (!a.negotiated || req.HasProtocol) && req.Protocol != wire.Protocol {
		a.reply(req.ID, nil, unsupportedVersion(req.Protocol))
		return
	}
	a.negotiated = true

	h, ok := a.s.handlers[req.Method]
	if !ok {
		a.reply(req.ID, nil, wire.Invalid("unknown_method", "unknown method `"+req.Method+"`", "method", req.Method))
		return
	}
	if m, _ := socketapi.Lookup(req.Method); !h.debug && !m.Implemented {
		a.reply(req.ID, nil, wire.Invalid("not_implemented", "method `"+req.Method+"` is not implemented yet", "method", req.Method))
		return
	}
	call := &Call{s: a.s, Req: req, w: a.w, conn: c.Self()}
	switch {
	case h.stream != nil:
		h.stream(c, call)
	case h.inline != nil:
		res, err := h.inline(call)
		call.finish(res, err)
	default:
		a.s.inflight.Add(1)
		ctx := a.ctx
		go func() {
			defer a.s.inflight.Done()
			res, err := h.async(ctx, call)
			call.finish(res, err)
		}()
	}
}

func serverStoppingFrame(sub int64) []byte {
	b, _ := json.Marshal(wire.EventFrame{Subscription: sub, Seq: 0, Event: json.RawMessage(`{"kind":"server_stopping"}`)})
	return b
}

func unsupportedVersion(declared int64) *wire.Error {
	return wire.Env("unsupported_version",
		"client declared socket protocol "+itoa(declared)+" but this orcr server speaks "+itoa(wire.Protocol),
		"declared_protocol", declared, "server_protocol", wire.Protocol)
}

// Call is one request being handled.
type Call struct {
	s    *Server
	Req  *wire.Request
	w    *connWriter
	conn *actor.PID
	// after, if set, runs once the response has been written (server.stop).
	after func()
}

// Params decodes the request params into v. A params value that is not an object
// leaves v untouched (handlers then find no keys, protocol.md §2.2).
func (c *Call) Params(v any) {
	_ = json.Unmarshal(c.Req.Params, v)
}

func (c *Call) finish(res any, err error) {
	var perr *wire.Error
	if err != nil {
		perr = wire.From(err, "internal")
	}
	c.s.writeResponse(c.w, c.Req.ID, res, perr, c.after)
}
