package ws

import (
	"context"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// sink is a connection's outbound queue and writer (actors.StreamSink): a bounded queue
// of whole text frames, written in order by run. Nothing but run ever blocks.
type sink struct {
	ch chan queued

	mu     sync.Mutex
	closed bool
	ending bool // End was called: nothing more is queued
	final  []byte
	notify func()
	done   chan struct{} // closed by Close
	end    chan struct{} // closed by End
}

// queued is one frame and what to call once it is written (nil: nothing).
type queued struct {
	frame   []byte
	written func()
}

func newSink(capacity int) *sink {
	return &sink{ch: make(chan queued, max(capacity, 1)), done: make(chan struct{}), end: make(chan struct{})}
}

func (s *sink) Enqueue(frame []byte) bool {
	ok, _ := s.enqueue(queued{frame: frame})
	return ok
}

// enqueue queues q; closed reports a sink already closed (else a false ok is a full
// queue).
func (s *sink) enqueue(q queued) (ok, closed bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.ending {
		return false, true
	}
	select {
	case s.ch <- q:
		return true, false
	default:
		return false, false
	}
}

func (s *sink) Room() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.ending {
		return 0
	}
	return cap(s.ch) - len(s.ch)
}

func (s *sink) Cap() int { return cap(s.ch) }

func (s *sink) NotifyRoom(fn func()) {
	s.mu.Lock()
	if s.closed || s.ending || len(s.ch) > cap(s.ch)/2 {
		if !s.closed && !s.ending {
			s.notify = fn
		}
		s.mu.Unlock()
		return
	}
	s.mu.Unlock()
	fn()
}

func (s *sink) Close(final []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	s.closed, s.final, s.notify = true, final, nil
	close(s.done)
}

// End takes no more frames; run writes those queued, then closes the connection
// normally (actors.StreamSink).
func (s *sink) End() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.ending {
		return
	}
	s.ending, s.notify = true, nil
	close(s.end)
}

// written runs the room callback once the queue is at least half free.
func (s *sink) written() {
	s.mu.Lock()
	fn := s.notify
	if fn == nil || len(s.ch) > cap(s.ch)/2 {
		s.mu.Unlock()
		return
	}
	s.notify = nil
	s.mu.Unlock()
	fn()
}

// run writes queued frames until Close, End or a write error; after Close it writes the
// final frame (bounded by finalGrace) and closes the WebSocket: with the error code's
// status for a final error frame, normally otherwise. After End it writes the frames
// still queued, then closes normally.
func (s *sink) run(ctx context.Context, c *websocket.Conn) {
	// A client that stopped reading can hold a write forever: once closed, the
	// connection is torn down after the grace whatever the writer is doing.
	finished := make(chan struct{})
	defer close(finished)
	go func() {
		select {
		case <-s.done:
		case <-s.end:
		case <-finished:
			return
		}
		t := time.NewTimer(2 * finalGrace)
		defer t.Stop()
		select {
		case <-t.C:
			c.CloseNow()
		case <-finished:
		}
	}()
	for {
		select {
		case <-s.done:
			s.finish(ctx, c)
			return
		case <-ctx.Done():
			c.CloseNow()
			return
		case <-s.end:
			s.drain(ctx, c)
			return
		case q := <-s.ch:
			select {
			case <-s.done:
				s.finish(ctx, c)
				return
			default:
			}
			if err := c.Write(ctx, websocket.MessageText, q.frame); err != nil {
				c.CloseNow()
				s.Close(nil)
				return
			}
			if q.written != nil {
				q.written()
			}
			s.written()
		}
	}
}

// drain writes the frames queued before End (nothing is queued after it), then closes
// the connection normally; a Close meanwhile cuts it as usual.
func (s *sink) drain(ctx context.Context, c *websocket.Conn) {
	for {
		select {
		case <-s.done:
			s.finish(ctx, c)
			return
		default:
		}
		select {
		case q := <-s.ch:
			if err := c.Write(ctx, websocket.MessageText, q.frame); err != nil {
				c.CloseNow()
				s.Close(nil)
				return
			}
			if q.written != nil {
				q.written()
			}
		default:
			s.Close(nil)
			c.Close(websocket.StatusNormalClosure, "the agent ended")
			return
		}
	}
}

func (s *sink) finish(ctx context.Context, c *websocket.Conn) {
	s.mu.Lock()
	final := s.final
	s.mu.Unlock()
	if final == nil {
		c.Close(websocket.StatusNormalClosure, "")
		return
	}
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), finalGrace)
	defer cancel()
	if err := c.Write(wctx, websocket.MessageText, final); err != nil {
		c.CloseNow()
		return
	}
	closeCtx, cancel2 := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
	defer cancel2()
	go func() { <-closeCtx.Done(); c.CloseNow() }()
	c.Close(websocket.StatusPolicyViolation, "")
}
