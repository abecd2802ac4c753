package socketapi

import (
	"context"
	"encoding/json"
	"net"
	"sync"

	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// Stream is a subscription on its own connection: the initial result of
// events.subscribe or watch.open, then event frames until the server ends it.
type Stream struct {
	// ID is the subscription id the server assigned.
	ID int64
	// Result is the raw initial result (from_seq, or snapshot_seq + snapshot).
	Result json.RawMessage

	conn      net.Conn
	fr        *wire.FrameReader
	closeOnce sync.Once
	// feed, on a client of another host, reads the member's events from the fleet's
	// stream instead of a connection (hostStream); cancel ends it.
	feed   func() (*wire.EventFrame, error)
	cancel context.CancelFunc
}

// Subscribe opens a dedicated connection, sends method (events.subscribe or
// watch.open) and returns the stream once the initial response arrived.
func (c *Client) Subscribe(ctx context.Context, method string, params any) (*Stream, error) {
	if c.host != "" {
		return c.hostStream(ctx, method, params)
	}
	conn, err := c.dial(ctx)
	if err != nil {
		return nil, err
	}
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	frame, err := encodeRequest(c.ids.Add(1), method, params, false)
	if err != nil {
		conn.Close()
		return nil, err
	}
	if _, err := conn.Write(frame); err != nil {
		conn.Close()
		return nil, ioError(ctx, err)
	}
	s := &Stream{conn: conn, fr: wire.NewFrameReader(conn, wire.MaxFrame)}
	for {
		line, err := s.fr.Next()
		if err != nil {
			conn.Close()
			return nil, ioError(ctx, err)
		}
		var rf wire.ReplyFrame
		if err := json.Unmarshal(line, &rf); err != nil {
			conn.Close()
			return nil, wire.Internal(wire.CauseDecode, err.Error())
		}
		if rf.IsEvent() {
			continue // cannot happen before the response; ignore defensively
		}
		if e := rf.Err(); e != nil {
			conn.Close()
			return nil, e
		}
		var head struct {
			Subscription int64 `json:"subscription"`
		}
		_ = json.Unmarshal(rf.Result, &head)
		s.ID, s.Result = head.Subscription, rf.Result
		return s, nil
	}
}

// Next blocks for the next event frame. Control frames (seq 0: server_stopping,
// cursor_expired) are returned like any other; io.EOF-like errors end the stream.
func (s *Stream) Next() (*wire.EventFrame, error) {
	if s.feed != nil {
		return s.feed()
	}
	for {
		line, err := s.fr.Next()
		if err != nil {
			return nil, err
		}
		var ef wire.EventFrame
		if err := json.Unmarshal(line, &ef); err != nil {
			return nil, wire.Internal(wire.CauseDecode, err.Error())
		}
		if ef.Event == nil {
			continue
		}
		return &ef, nil
	}
}

// Close ends the subscription by closing its connection.
func (s *Stream) Close() error {
	var err error
	s.closeOnce.Do(func() {
		if s.cancel != nil {
			s.cancel()
			return
		}
		err = s.conn.Close()
	})
	return err
}
