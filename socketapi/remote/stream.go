package remote

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/coder/websocket"
)

// Stream's re-dial timings.
const (
	defaultBackoffMin = 100 * time.Millisecond // the first re-dial delay, before jitter
	defaultBackoffMax = 10 * time.Second       // the longest re-dial delay
	dialTimeout       = 30 * time.Second       // one attempt's handshake and hello
)

// Truncated is the non-fatal error [Dialer.Stream] yields for a replay_truncated frame:
// the events in [RequestedFromSeq, FromSeq) were not replayed, and the stream goes on
// from FromSeq.
type Truncated struct {
	RequestedFromSeq int64
	FromSeq          int64
}

func (e *Truncated) Error() string {
	return fmt.Sprintf("remote: replay truncated: events %d to %d are not replayed, the stream resumes at %d",
		e.RequestedFromSeq, e.FromSeq-1, e.FromSeq)
}

// errStop ends a stream whose consumer broke out of the loop, or whose log ended.
var errStop = errors.New("remote: stream stopped")

// SessionEnded is the type of the last entry of every agent's log: the agent ended, its
// tokens were revoked, and the server closes the connection once it is sent.
const SessionEnded = "session/ended"

// Stream dials, subscribes from fromSeq and yields the agent's session events in seq
// order, exactly once each (docs/remote.md §6):
//
//   - On every connection it discards events until seq equals the first seq it expects:
//     fromSeq, then the seq after the last event yielded, or the from_seq of a
//     replay_truncated frame answering its subscribe. Frames of an earlier subscription
//     therefore never reach the caller, and an event seen twice is yielded once. Should
//     an event skip ahead of the expected seq, Stream subscribes again from the expected
//     seq on the same connection.
//   - A replay_truncated frame is yielded as a [*Truncated] error with a zero Event;
//     the iteration goes on from its from_seq.
//   - On lagged or internal, a dropped connection, an HTTP 5xx, 408 or 429 or a network
//     error it re-dials with jittered exponential backoff (100 ms doubling to at most
//     10 s; the delay resets after a connection that yielded an event) and resubscribes
//     from the seq after the last event yielded. Each attempt's handshake is bounded by
//     30 s.
//   - unauthorized, superseded and every other error frame (Stream sends nothing but
//     subscribe, so any other code means the subscription is refused) end the iteration
//     with an [*Error]; so do other HTTP answers ([*HandshakeError]), [ErrProto], a
//     malformed server frame, one over [MaxServerFrame], a bad base URL and a negative
//     fromSeq.
//   - After a [SessionEnded] event, the last of every log, the iteration ends without
//     an error (the agent ended; the server closes the connection normally).
//   - When ctx ends, the iteration yields ctx.Err() and ends.
//
// Every error but [*Truncated] is the last value yielded. Breaking out of the loop closes
// the connection.
func (d *Dialer) Stream(ctx context.Context, base, agentID, token string, fromSeq int64) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		u, err := streamURL(base, agentID)
		if err == nil && fromSeq < 0 {
			err = fmt.Errorf("remote: from_seq %d is negative", fromSeq)
		}
		if err != nil {
			yield(Event{}, err)
			return
		}
		s := stream{next: fromSeq, yield: yield}
		for failures := 0; ; failures++ {
			before := s.next
			err := d.streamOnce(ctx, &s, u, token)
			switch {
			case errors.Is(err, errStop):
				return
			case ctx.Err() != nil:
				yield(Event{}, ctx.Err())
				return
			case !retryable(err):
				yield(Event{}, err)
				return
			}
			if s.next != before {
				failures = 0
			}
			t := time.NewTimer(d.backoff(failures))
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				yield(Event{}, ctx.Err())
				return
			}
		}
	}
}

// streamOnce dials one connection and serves s on it until it ends.
func (d *Dialer) streamOnce(ctx context.Context, s *stream, u, token string) error {
	dctx, cancel := context.WithTimeout(ctx, dialTimeout)
	c, err := d.dial(dctx, u, token)
	cancel()
	if err != nil {
		return err
	}
	defer c.Close()
	return s.serve(ctx, c)
}

// backoff returns the delay before the re-dial that follows failures failed attempts:
// min doubled failures times, capped at max, of which a random half is taken off.
func (d *Dialer) backoff(failures int) time.Duration {
	lo, hi := d.backoffMin, d.backoffMax
	if lo <= 0 {
		lo = defaultBackoffMin
	}
	if hi <= 0 {
		hi = defaultBackoffMax
	}
	b := lo
	for range failures {
		if b >= hi/2 {
			b = hi
			break
		}
		b *= 2
	}
	b = min(b, hi)
	return b - rand.N(b/2+1)
}

// retryable reports whether Stream re-dials after err.
func retryable(err error) bool {
	if e, ok := errors.AsType[*Error](err); ok {
		return e.Code == Lagged || e.Code == Internal
	}
	if e, ok := errors.AsType[*HandshakeError](err); ok {
		s := e.StatusCode
		return s >= 500 || s == http.StatusRequestTimeout || s == http.StatusTooManyRequests
	}
	if _, ok := errors.AsType[*FrameError](err); ok { // the server sent a malformed frame
		return false
	}
	return !errors.Is(err, ErrProto) && !errors.Is(err, websocket.ErrMessageTooBig)
}

// stream is the state of one Stream iteration across its connections.
type stream struct {
	next  int64 // the seq to yield next
	yield func(Event, error) bool
}

// serve subscribes on c from s.next and yields its events until c ends, an error frame
// arrives or the consumer stops (errStop).
func (s *stream) serve(ctx context.Context, c *Conn) error {
	if err := c.Subscribe(ctx, s.next); err != nil {
		return err
	}
	synced := false // whether the current subscription's first event has arrived
	for {
		f, err := c.Next(ctx)
		if err != nil {
			return err
		}
		switch f := f.(type) {
		case Event:
			switch {
			case !synced && f.Seq != s.next:
				// in flight from an earlier subscription: discarded
			case f.Seq < s.next:
				// already yielded
			case f.Seq > s.next:
				// a gap: ask again from the missing event
				if err := c.Subscribe(ctx, s.next); err != nil {
					return err
				}
				synced = false
			default:
				synced = true
				if !s.yield(f, nil) || f.Type == SessionEnded {
					return errStop
				}
				s.next++
			}
		case ReplayTruncated:
			if !synced && f.RequestedFromSeq == s.next && f.FromSeq > s.next {
				s.next = f.FromSeq
				if !s.yield(Event{}, &Truncated{RequestedFromSeq: f.RequestedFromSeq, FromSeq: f.FromSeq}) {
					return errStop
				}
			}
		case ErrorFrame:
			return f.Err()
		}
	}
}
