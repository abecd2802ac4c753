package actors

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/orcr-go/orcr/actors/actorkit"
	"github.com/orcr-go/orcr/socketapi/remote"
	"github.com/orcr-go/orcr/store"
)

// StreamSink is the outbound side of one stream connection (the WebSocket writer): a
// bounded queue of text frames (remote.outbound_queue). None of its methods blocks.
type StreamSink interface {
	// Enqueue queues frame; false when the queue is full or the sink is closed.
	Enqueue(frame []byte) bool
	// Room is the number of frames the queue can take now.
	Room() int
	// Cap is the queue's capacity.
	Cap() int
	// NotifyRoom calls fn once, from any goroutine, as soon as at least half of the
	// queue is free (at once when it already is).
	NotifyRoom(fn func())
	// Close writes final (an error frame; nil for none) after the frame being written and
	// closes the connection; frames still queued are dropped. Later calls do nothing.
	Close(final []byte)
	// End takes no more frames, writes those queued and closes the connection normally
	// (WebSocket status 1000, no error frame): the log is complete. A Close after it
	// still cuts the connection at once.
	End()
}

// streamFrame encodes a protocol frame of the stream (hello, replay_truncated, error).
func streamFrame(f json.Marshaler) []byte {
	b, err := f.MarshalJSON()
	if err != nil { // unreachable: the frames are plain values
		panic(err)
	}
	return b
}

// streamClose encodes the error frame a closing connection sends.
func streamClose(code remote.Code, message string) []byte {
	return streamFrame(remote.ErrorFrame{Code: code, Message: message})
}

// StreamSpec configures one stream connection actor.
type StreamSpec struct {
	Agent       string // the agent's uuid
	TokenHash   string // the hash of the token it presented (revocation)
	Sink        StreamSink
	ReplayLimit int // remote.replay_limit
	Batch       int // entries per replay read (default 256)
	// Order numbers the connections in the order they were opened (newer is greater);
	// the hub supersedes by it.
	Order int64

	store, hub *actor.PID
	agents     *actor.PID // feedTools goes there while the agent works (nil: never)
	db         *store.DB
	log        *slog.Logger
}

// ToolFeedInterval is how often a watched working agent's transcript is read for new
// tool calls and results (docs/remote.md §4).
const ToolFeedInterval = time.Second

// feedTick is the stream actor's timer for the tool feed.
type feedTick struct{}

// StreamSubscribe is a client's subscribe frame: replay from FromSeq, then tail.
type StreamSubscribe struct{ FromSeq int64 }

// streamGone tells the connection actor its socket is gone (the reader ended).
type streamGone struct{}

// streamRoom is the sink's NotifyRoom callback.
type streamRoom struct{ gen int }

// Modes of a stream connection.
const (
	streamIdle   = iota // no subscription yet
	streamReplay        // reading the log from the store, flow-controlled
	streamTail          // forwarding LogCommitted as it arrives
)

// streamConn is the actor of one stream connection (docs/remote.md §4, §6): it registers
// with the hub (one connection per agent) and for the agent's LogCommitted, and serves
// subscribe as replay-then-tail with no gap and no duplicate. Replay reads hold a hub
// slot only while they read; a full queue during replay waits for room (the client is
// never dropped for a slow replay), a full queue on the live tail closes with lagged.
type streamConn struct {
	spec       StreamSpec
	registered bool   // LogCommitted registration confirmed by the store actor
	pending    *int64 // a subscribe that arrived before registration
	mode       int
	next       int64    // next seq to send
	proto      [][]byte // protocol frames to send before the next entries
	haveSlot   bool
	wantSlot   bool
	roomGen    int // generation of the NotifyRoom in flight (0 = none)
	roomSeq    int // generations handed out
	closed     bool
	ended      bool        // session/ended was queued: the sink writes it and closes
	working    bool        // the last status entry forwarded was working
	feed       *time.Timer // the tool feed's timer while working
}

// Receive handles the connection's messages. It blocks only on SQLite reads.
func (s *streamConn) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *actor.Started:
		c.Request(s.spec.store, SubscribeLog{Agent: s.spec.Agent, PID: c.Self()})
		c.Send(s.spec.hub, hubRegister{Agent: s.spec.Agent, Hash: s.spec.TokenHash, Conn: c.Self(), Order: s.spec.Order})
	case LogSubscribed:
		s.registered = true
		if s.pending != nil {
			from := *s.pending
			s.pending = nil
			s.subscribe(c, from)
		}
	case StreamSubscribe:
		if !s.registered {
			s.pending = &m.FromSeq
			return
		}
		s.subscribe(c, m.FromSeq)
	case replayGranted:
		s.haveSlot, s.wantSlot = true, false
		if s.mode != streamReplay || s.closed {
			s.releaseSlot(c)
			return
		}
		s.pump(c)
	case streamRoom:
		if m.gen != s.roomGen {
			return
		}
		s.roomGen = 0
		if s.mode == streamReplay {
			s.pump(c)
		}
	case LogCommitted:
		s.watchStatus(c, m.Entries)
		if s.mode == streamTail {
			s.tail(c, m.Entries)
		}
	case feedTick:
		s.feed = nil
		if s.working && !s.closed && s.spec.agents != nil {
			c.Send(s.spec.agents, feedTools{UUID: s.spec.Agent})
			s.armFeed(c)
		}
	case streamSuperseded:
		s.close(c, remote.Superseded, "a newer connection took over this agent's stream")
	case streamRevoked:
		s.close(c, remote.Unauthorized, "the token of this connection was revoked")
	case streamGone:
		s.closed = true
		c.Stop(c.Self())
	case *actor.Stopping:
		if s.feed != nil {
			s.feed.Stop()
		}
		s.releaseSlot(c)
		if !s.ended {
			s.spec.Sink.Close(nil)
		}
	}
}

// watchStatus follows the agent's status through its log: while it works, a watched
// agent's tool activity is fed into the log every [ToolFeedInterval], so clients see
// calls as they happen rather than when the turn ends.
func (s *streamConn) watchStatus(c actor.Context, es []store.LogEntry) {
	for _, e := range es {
		if e.Type != store.LogStatusChanged {
			continue
		}
		var p struct {
			Status string `json:"status"`
		}
		_ = json.Unmarshal(e.Payload, &p)
		s.working = p.Status == string(store.StatusWorking)
	}
	if s.working && s.feed == nil {
		s.armFeed(c)
	}
}

func (s *streamConn) armFeed(c actor.Context) {
	self, root := c.Self(), c.ActorSystem().Root
	s.feed = time.AfterFunc(ToolFeedInterval, func() { root.Send(self, feedTick{}) })
}

// subscribe (re)starts the subscription at from: the replay window is capped at
// replay_limit entries behind the tip, announced by replay_truncated.
func (s *streamConn) subscribe(c actor.Context, from int64) {
	if s.closed {
		return
	}
	info, err := store.Session(context.Background(), s.spec.db.Reader(), s.spec.Agent)
	if err != nil {
		s.fail(c, err)
		return
	}
	start := max(from, 0)
	if start > info.Tip && info.Tip >= 0 {
		// Past the tip: if the tip is session/ended, nothing is ever to come.
		last, err := s.spec.db.LogAfter(context.Background(), s.spec.Agent, info.Tip, 1)
		if err != nil {
			s.fail(c, err)
			return
		}
		if len(last) == 1 && last[0].Type == store.LogSessionEnded {
			s.end(c)
			return
		}
	}
	if limit := int64(s.spec.ReplayLimit); limit > 0 && info.Tip-start+1 > limit {
		start = info.Tip - limit + 1
		s.proto = append(s.proto, streamFrame(remote.ReplayTruncated{RequestedFromSeq: from, FromSeq: start}))
	}
	s.next, s.mode = start, streamReplay
	s.pump(c)
}

// pump runs the replay: with a slot, it reads batches into the sink while there is
// room; without room it gives the slot back and waits; caught up with the log (and the
// queue at least half free, so the live tail does not start on a full queue) it
// switches to the tail.
func (s *streamConn) pump(c actor.Context) {
	for s.mode == streamReplay && !s.closed {
		for len(s.proto) > 0 && s.spec.Sink.Room() > 0 {
			if !s.spec.Sink.Enqueue(s.proto[0]) {
				break
			}
			s.proto = s.proto[1:]
		}
		room := s.spec.Sink.Room()
		if room == 0 || len(s.proto) > 0 {
			s.releaseSlot(c)
			s.waitRoom(c)
			return
		}
		if !s.haveSlot {
			if !s.wantSlot {
				s.wantSlot = true
				c.Send(s.spec.hub, replayAcquire{Conn: c.Self()})
			}
			return
		}
		n := min(s.spec.Batch, room)
		es, err := s.spec.db.LogAfter(context.Background(), s.spec.Agent, s.next, n)
		if err != nil {
			s.fail(c, err)
			return
		}
		for _, e := range es {
			if e.Seq != s.next || !s.spec.Sink.Enqueue(e.Frame()) {
				break
			}
			s.next++
			if e.Type == store.LogSessionEnded {
				s.end(c)
				return
			}
		}
		if len(es) == n {
			continue
		}
		s.releaseSlot(c)
		if s.spec.Sink.Room() >= (s.spec.Sink.Cap()+1)/2 {
			s.mode = streamTail
			return
		}
		s.waitRoom(c)
		return
	}
}

// tail forwards committed entries; one that skips ahead (it committed before the
// replay's last read, or a notification was missed) goes back to the replay, which reads
// the store; an entry the queue cannot take drops the client with lagged.
func (s *streamConn) tail(c actor.Context, es []store.LogEntry) {
	for _, e := range es {
		switch {
		case e.Seq < s.next:
			continue
		case e.Seq > s.next:
			s.mode = streamReplay
			s.pump(c)
			return
		}
		if !s.spec.Sink.Enqueue(e.Frame()) {
			s.close(c, remote.Lagged, "the client read too slowly and its outbound queue overflowed; resubscribe from your last durable seq")
			return
		}
		s.next++
		if e.Type == store.LogSessionEnded {
			s.end(c)
			return
		}
	}
}

func (s *streamConn) waitRoom(c actor.Context) {
	if s.roomGen != 0 {
		return
	}
	s.roomSeq++
	s.roomGen = s.roomSeq
	gen := s.roomGen
	self, root := c.Self(), c.ActorSystem().Root
	s.spec.Sink.NotifyRoom(func() { root.Send(self, streamRoom{gen: gen}) })
}

func (s *streamConn) releaseSlot(c actor.Context) {
	if s.haveSlot || s.wantSlot {
		s.haveSlot, s.wantSlot = false, false
		c.Send(s.spec.hub, replayRelease{Conn: c.Self()})
	}
}

func (s *streamConn) fail(c actor.Context, err error) {
	s.spec.log.Error("remote stream: serving a connection failed", "agent", s.spec.Agent, "err", err)
	s.close(c, remote.Internal, "the server hit an unexpected error serving this connection; resubscribe from your last durable seq")
}

// end closes the connection cleanly once session/ended, the last entry of every log, is
// queued (or the subscription starts past it): the sink writes what it holds and
// closes normally, and the actor stops (docs/remote.md §3). The agent's tokens were
// revoked with its end, so a client knows its log is complete.
func (s *streamConn) end(c actor.Context) {
	if s.closed {
		return
	}
	s.closed, s.ended = true, true
	s.releaseSlot(c)
	s.spec.Sink.End()
	c.Stop(c.Self())
}

// close sends the closing error frame and stops the actor.
func (s *streamConn) close(c actor.Context, code remote.Code, message string) {
	if s.closed {
		return
	}
	s.closed = true
	s.spec.Sink.Close(streamClose(code, message))
	c.Stop(c.Self())
}

func newStreamProps(spec StreamSpec) *actor.Props {
	if spec.Batch <= 0 {
		spec.Batch = 256
	}
	if spec.log == nil {
		spec.log = slog.New(slog.DiscardHandler)
	}
	return actorkit.Props(spec.log, func() actor.Actor { return &streamConn{spec: spec} })
}
