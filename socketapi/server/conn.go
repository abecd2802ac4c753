package server

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"sync"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/orcr-go/orcr/actors/actorkit"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// Messages of the connection actor.
type (
	// openStream asks the connection actor to start a subscription child for call.
	openStream struct {
		call  *Call
		start func(actor.Context, *Call)
	}
	// readEnded reports the end of the read side: EOF, a framing error or an I/O error.
	readEnded struct{}
	// stopConn asks the connection to end: subscriptions get server_stopping first.
	stopConn struct{}
)

// connActor is one client connection. It parents the connection's subscription actors
// and owns the connection's lifecycle. Frames are read, the protocol version negotiated
// and requests dispatched by the connection's reader goroutine ([connReader]), which sees
// frames in arrival order: inline handlers answer right there, blocking handlers run on
// request goroutines, and streaming methods come here as openStream to become children.
// Responses may therefore leave out of request order; frames are written whole by the
// connection writer.
type connActor struct {
	s      *Server
	id     int64
	nc     net.Conn
	w      *connWriter
	ctx    context.Context
	cancel context.CancelFunc
	subs   map[int64]*actor.PID // open subscriptions (children)
}

func (s *Server) connProps(id int64, nc net.Conn, w *connWriter) *actor.Props {
	return actorkit.Props(s.log, func() actor.Actor {
		return &connActor{s: s, id: id, nc: nc, w: w, subs: map[int64]*actor.PID{}}
	})
}

func (a *connActor) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *actor.Started:
		a.ctx, a.cancel = context.WithCancel(a.s.ctx)
		r := &connReader{s: a.s, w: a.w, ctx: a.ctx, root: c.ActorSystem().Root, self: c.Self()}
		go r.loop(a.nc)
	case openStream:
		m.start(c, m.call)
	case readEnded:
		c.Stop(c.Self())
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

// connReader is the read side of one connection: edge code on its own goroutine.
type connReader struct {
	s          *Server
	w          *connWriter
	ctx        context.Context
	root       *actor.RootContext
	self       *actor.PID
	negotiated bool
}

func (r *connReader) loop(nc net.Conn) {
	defer r.s.readers.Done()
	defer r.root.Send(r.self, readEnded{})
	fr := wire.NewFrameReader(nc, r.s.maxFrame)
	for {
		line, err := fr.Next()
		switch {
		case err == nil:
			r.handle(line)
			continue
		case errors.Is(err, wire.ErrFrameTooLarge):
			r.reply(nil, nil, wire.FrameTooLarge(r.s.maxFrame, 0))
		case errors.Is(err, wire.ErrTruncatedFrame):
			r.reply(nil, nil, wire.Invalid(wire.ReasonTruncatedFrame, "connection ended inside a frame"))
		case errors.Is(err, io.EOF), errors.Is(err, net.ErrClosed):
		default:
			r.reply(nil, nil, wire.Internal(wire.CauseSocketIO, "socket read failed: "+err.Error()))
		}
		return
	}
}

func (r *connReader) reply(id json.RawMessage, result any, perr *wire.Error) {
	r.s.writeResponse(r.w, id, result, perr, nil)
}

// handle negotiates and dispatches one frame (docs/protocol.md §2.5, §3, §5.28).
func (r *connReader) handle(line []byte) {
	req, perr := wire.DecodeRequest(line)
	if perr != nil {
		r.reply(nil, nil, perr)
		return
	}
	if (!r.negotiated || req.HasProtocol) && req.Protocol != wire.Protocol {
		r.reply(req.ID, nil, wire.UnsupportedVersion(req.Protocol))
		return
	}
	r.negotiated = true

	h, ok := r.s.handlers[req.Method]
	if !ok {
		r.reply(req.ID, nil, wire.Invalid(wire.ReasonUnknownMethod, "unknown method `"+req.Method+"`", "method", req.Method))
		return
	}
	if h.decode != nil {
		if _, err := h.decode(req.Params); err != nil {
			r.reply(req.ID, nil, wire.From(err, wire.CauseInternal))
			return
		}
	}
	call := &Call{s: r.s, Req: req, w: r.w}
	switch {
	case h.stream != nil:
		r.root.Send(r.self, openStream{call: call, start: h.stream})
	case h.inline != nil:
		res, err := h.inline(call)
		call.finish(res, err)
	default:
		if !r.s.inflight.start() {
			call.finish(nil, wire.Internal(wire.CauseStopping, "the server is stopping"))
			return
		}
		ctx := r.ctx
		if req.Progress {
			ctx = wire.WithProgress(ctx, call.progress)
		}
		go func() {
			defer r.s.inflight.done()
			res, err := h.async(ctx, call)
			call.finish(res, err)
		}()
	}
}

func serverStoppingFrame(sub int64) []byte {
	b, _ := json.Marshal(wire.EventFrame{Subscription: sub, Seq: 0, Event: json.RawMessage(`{"kind":"server_stopping"}`)})
	return b
}

// Call is one request being handled.
type Call struct {
	s   *Server
	Req *wire.Request
	w   *connWriter
	// after, if set, runs once the response has been written (server.stop).
	after func()

	// pmu orders progress frames before the response; finished is set, under pmu,
	// before the response is written, and lastProgress paces the frames.
	pmu          sync.Mutex
	finished     bool
	lastProgress time.Time
}

// progressEvery paces a call's progress frames (docs/protocol.md §2.7).
const progressEvery = 250 * time.Millisecond

// progress writes a progress frame for the call, at most one per progressEvery (the
// first at once), and none once the response is on its way.
func (c *Call) progress(p wire.Progress) {
	c.pmu.Lock()
	defer c.pmu.Unlock()
	now := time.Now()
	if c.finished || now.Sub(c.lastProgress) < progressEvery {
		return
	}
	c.lastProgress = now
	frame, err := json.Marshal(wire.ProgressFrame{ID: c.Req.ID, Progress: p})
	if err == nil {
		c.w.WriteNow(frame, nil)
	}
}

// Params decodes the request params into v. Table methods had their params checked
// against their params type before the handler ran (api.DecodeParams); for the
// hidden debug methods a field of the wrong type reads as absent.
func (c *Call) Params(v any) {
	_ = json.Unmarshal(c.Req.Params, v)
}

func (c *Call) finish(res any, err error) {
	c.pmu.Lock()
	c.finished = true
	c.pmu.Unlock()
	var perr *wire.Error
	if err != nil {
		perr = wire.From(err, wire.CauseInternal)
	}
	c.s.writeResponse(c.w, c.Req.ID, res, perr, c.after)
}
