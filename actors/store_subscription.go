package actors

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/orcr-go/orcr/actors/actorkit"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/store"
)

// FrameSink is where a subscription writes its frames: the connection's writer. Enqueue
// never blocks; onWritten (may be nil) is called once the frame has been written to the
// socket or dropped because the connection closed.
type FrameSink interface {
	Enqueue(frame []byte, onWritten func())
}

// SubscriptionKind selects events.subscribe (unpinned) or watch.open (pinned).
type SubscriptionKind int

// Subscription kinds.
const (
	KindSubscribe SubscriptionKind = iota // events.subscribe: replay from SinceSeq, unpinned
	KindWatch                             // watch.open: snapshot + pinned cursor
)

// SubscriptionSpec configures a subscription actor.
type SubscriptionSpec struct {
	ID        int64
	Kind      SubscriptionKind
	SinceSeq  int64           // KindSubscribe only; clamped to >= 0
	RequestID json.RawMessage // id of the request that opened it; the actor answers it
	Store     *actor.PID
	DB        *store.DB
	Sink      FrameSink
	Log       *slog.Logger
	// MaxInFlight bounds frames handed to the sink but not yet written (default
	// [DefaultMaxInFlight]).
	MaxInFlight int
	// Batch is the number of events read per query (default 256).
	Batch int
}

// DefaultMaxInFlight is a subscription's default bound on frames in its sink.
const DefaultMaxInFlight = 512

type framesWritten struct {
	n    int
	last int64
}

// subscription streams events to one client subscription. It replays from its cursor in
// batches, then follows the store actor's EventsCommitted notifications. Backpressure:
// at most MaxInFlight frames sit in the connection writer; the writer's onWritten
// callback returns credit. A watch pins its delivered cursor in the store actor so
// retention never trims past it (docs/protocol.md §7.5, docs/decisions.md D5).
type subscription struct {
	spec     SubscriptionSpec
	cursor   int64 // highest seq handed to the sink
	head     int64 // highest committed seq known
	inFlight int
	started  bool // initial response written
	done     bool
}

// NewSubscriptionProps returns the props of a subscription actor. The actor answers the
// opening request itself, so the response always precedes the first event frame.
func NewSubscriptionProps(spec SubscriptionSpec) *actor.Props {
	if spec.MaxInFlight <= 0 {
		spec.MaxInFlight = DefaultMaxInFlight
	}
	if spec.Batch <= 0 {
		spec.Batch = 256
	}
	if spec.SinceSeq < 0 {
		spec.SinceSeq = 0
	}
	if spec.Log == nil {
		spec.Log = slog.New(slog.DiscardHandler)
	}
	return actorkit.Props(spec.Log, func() actor.Actor { return &subscription{spec: spec} })
}

func (s *subscription) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *actor.Started:
		// Register for commit notifications before reading bounds, so no commit can fall
		// between the bounds read and the registration (same sender, FIFO mailbox).
		c.Send(s.spec.Store, Subscribe{PID: c.Self()})
		if s.spec.Kind == KindWatch {
			c.Request(s.spec.Store, WatchOpen{ID: s.spec.ID, Owner: c.Self()})
		} else {
			c.Request(s.spec.Store, Bounds{})
		}
	case BoundsResult:
		if s.started || s.done {
			return
		}
		since := s.spec.SinceSeq
		if since+1 < m.Oldest {
			s.respondErr(wire.Internal(wire.CauseCursorExpired,
				fmt.Sprintf("cursor %d is older than the oldest replayable event %d; re-snapshot", since, m.Oldest),
				"oldest_seq", m.Oldest))
			s.finish(c)
			return
		}
		s.respondOK(map[string]any{"subscription": s.spec.ID, "from_seq": since})
		s.cursor, s.head = since, m.Latest
		s.pump(c)
	case WatchOpenResult:
		if s.started || s.done {
			return
		}
		if m.Err != nil {
			s.respondErr(wire.From(m.Err, wire.CauseSQLite))
			s.finish(c)
			return
		}
		snap := m.Snapshot
		s.respondOK(map[string]any{"subscription": s.spec.ID, "snapshot_seq": snap.SnapshotSeq, "snapshot": snap})
		s.cursor, s.head = snap.SnapshotSeq, snap.SnapshotSeq
		s.pump(c)
	case EventsCommitted:
		if m.Head > s.head {
			s.head = m.Head
		}
		s.pump(c)
	case framesWritten:
		s.inFlight -= m.n
		if s.spec.Kind == KindWatch && !s.done {
			c.Send(s.spec.Store, Pin{ID: s.spec.ID, Seq: m.last})
		}
		s.pump(c)
	case PinDropped:
		s.expire(c, m.OldestSeq)
	case *actor.Stopping:
		c.Send(s.spec.Store, Unsubscribe{PID: c.Self()})
		if s.spec.Kind == KindWatch {
			c.Send(s.spec.Store, Unpin{ID: s.spec.ID})
		}
	}
}

// pump moves events from the store to the sink while credit lasts.
func (s *subscription) pump(c actor.Context) {
	for s.started && !s.done && s.inFlight < s.spec.MaxInFlight && s.cursor < s.head {
		limit := min(s.spec.Batch, s.spec.MaxInFlight-s.inFlight)
		evs, err := s.spec.DB.EventsAfter(context.Background(), s.cursor, limit)
		if err != nil {
			s.spec.Log.Error("subscription read failed", "subscription", s.spec.ID, "err", err)
			s.finish(c)
			return
		}
		if len(evs) == 0 || evs[0].Seq != s.cursor+1 {
			// The next event was trimmed by retention: the cursor expired mid-stream.
			oldest := s.cursor + 1
			if len(evs) > 0 {
				oldest = evs[0].Seq
			}
			s.expire(c, oldest)
			return
		}
		self := c.Self()
		root := c.ActorSystem().Root
		for i, ev := range evs {
			var cb func()
			if i == len(evs)-1 {
				n, last := len(evs), ev.Seq
				cb = func() { root.Send(self, framesWritten{n: n, last: last}) }
			}
			frame, err := json.Marshal(wire.EventFrame{Subscription: s.spec.ID, Seq: ev.Seq, Event: ev.Frame()})
			if err != nil {
				s.spec.Log.Error("encode event frame", "seq", ev.Seq, "err", err)
				s.finish(c)
				return
			}
			s.spec.Sink.Enqueue(frame, cb)
		}
		s.inFlight += len(evs)
		s.cursor = evs[len(evs)-1].Seq
	}
}

func (s *subscription) expire(c actor.Context, oldest int64) {
	if s.done {
		return
	}
	s.control(cursorExpired{Kind: wire.KindCursorExpired, OldestSeq: oldest})
	s.finish(c)
}

func (s *subscription) finish(c actor.Context) {
	s.done = true
	c.Stop(c.Self())
}

// cursorExpired is the control frame of a subscription whose cursor fell behind
// retention (docs/protocol.md §7.2).
type cursorExpired struct {
	Kind      string `json:"kind"`
	OldestSeq int64  `json:"oldest_seq"`
}

func (s *subscription) control(event any) {
	ev, _ := json.Marshal(event)
	frame, _ := json.Marshal(wire.EventFrame{Subscription: s.spec.ID, Seq: 0, Event: ev})
	s.spec.Sink.Enqueue(frame, nil)
}

func (s *subscription) respondOK(result any) {
	s.started = true
	frame, err := wire.EncodeResponse(s.spec.RequestID, result, nil)
	if err != nil {
		frame, _ = wire.EncodeResponse(s.spec.RequestID, nil, wire.Internal(wire.CauseEncode, err.Error()))
	}
	s.spec.Sink.Enqueue(frame, nil)
}

func (s *subscription) respondErr(e *wire.Error) {
	frame, _ := wire.EncodeResponse(s.spec.RequestID, nil, e)
	s.spec.Sink.Enqueue(frame, nil)
}
