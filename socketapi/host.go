package socketapi

import (
	"context"
	"encoding/json"
	"net"

	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// OnHost is a client whose calls go to the fleet member host through this client's
// server (fleet.call, docs/fleet.md §4.6): the same typed methods, with the member's
// results and errors, as far as the member's fleet.allow lets them (docs/fleet.md
// §4.1); a member that does not answer is environment_error fleet_unreachable. Its
// paths are the member's, in this client's scope. No caller identity goes along: an
// agent of this host is nobody on another. Its streams (events.subscribe, watch.open,
// and Watch over them) read the member's events from the fleet's stream through this
// client's server (fleet.events, docs/fleet.md §4.6); FollowLogs polls agent.logs, so it
// follows the member's agent. The fleet.* methods themselves stay local.
func (c *Client) OnHost(host string) *Client {
	return &Client{Socket: c.Socket, Dial: c.Dial, Timeout: c.Timeout, OnProgress: c.OnProgress,
		FollowInterval: c.FollowInterval, Spawn: c.Spawn, OnResume: c.OnResume,
		scope: c.scope, scoped: c.scoped, host: host}
}

// Host is the fleet member c's calls go to ("": this client's own server).
func (c *Client) Host() string { return c.host }

// exchangeOnHost is exchange through fleet.call on c's host: the answer line is the
// member's, as its own socket would have sent it.
func (c *Client) exchangeOnHost(ctx context.Context, unbounded bool, method string, params any) ([]byte, error) {
	raw := json.RawMessage("{}")
	if params != nil {
		b, err := json.Marshal(params)
		if err != nil {
			return nil, wire.Internal(wire.CauseDecode, "cannot encode the params of "+method+": "+err.Error())
		}
		if string(b) != "null" {
			raw = b
		}
	}
	line, err := c.exchange(ctx, unbounded, api.FleetCall.Name, api.FleetCallRequest{Host: c.host, Method: method, Params: raw})
	if err != nil {
		return nil, err
	}
	var rf wire.ReplyFrame
	if err := json.Unmarshal(line, &rf); err != nil || rf.Err() != nil {
		return line, nil // the caller decodes it and reports the error
	}
	var res api.FleetCallResult
	if err := json.Unmarshal(rf.Result, &res); err != nil {
		return nil, wire.Internal(wire.CauseDecode, "cannot decode the fleet.call answer of "+method+": "+err.Error())
	}
	ok := true
	return json.Marshal(wire.ReplyFrame{ID: rf.ID, OK: &ok, Result: res.Result})
}

// hostWait is how long one fleet.events read of a host stream waits for the next event
// (at most the method's 25 s).
const hostWait = 20000

// hostStream is Subscribe on a client of another host: events.subscribe and watch.open
// of the member, their first result as the member's socket would answer it, then its
// events after that cursor, in its seq order with no gap, read from the fleet's stream
// through this client's server (fleet.events with the host alone). Another stream is
// refused: it holds a connection to one server.
func (c *Client) hostStream(ctx context.Context, method string, params any) (*Stream, error) {
	var cursor int64
	var first any
	switch method {
	case api.EventsSubscribe.Name:
		var p struct {
			SinceSeq int64 `json:"since_seq"`
		}
		if b, err := json.Marshal(params); err == nil {
			_ = json.Unmarshal(b, &p)
		}
		cursor = max(p.SinceSeq, 0)
		first = map[string]int64{"subscription": 0, "from_seq": cursor}
	case api.WatchOpen.Name:
		snap, err := Invoke(ctx, c, api.APISnapshot, api.NoParams{})
		if err != nil {
			return nil, err
		}
		cursor = snap.SnapshotSeq
		first = api.WatchResult{SnapshotSeq: snap.SnapshotSeq, Snapshot: snap}
	default:
		return nil, wire.Invalid(wire.ReasonFleetNotAllowed,
			"`"+method+"` is a stream of one server; open it on "+c.host+"'s own socket (a client of that home), not over the fleet",
			"method", method, "host", c.host, "policy", "local")
	}
	res, err := json.Marshal(first)
	if err != nil {
		return nil, wire.Internal(wire.CauseDecode, err.Error())
	}
	local := c.OnHost("")
	fctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, cancel)
	var buf []api.FleetEvent
	next := func() (*wire.EventFrame, error) {
		for len(buf) == 0 {
			if fctx.Err() != nil {
				return nil, net.ErrClosed
			}
			page, err := Invoke(fctx, local, api.FleetEvents, api.FleetEventsRequest{
				Since: map[string]int64{c.host: cursor}, Hosts: []string{c.host}, WaitMS: hostWait})
			if err != nil {
				if fctx.Err() != nil {
					return nil, net.ErrClosed
				}
				return nil, err
			}
			buf = page.Events
		}
		e := buf[0]
		buf = buf[1:]
		cursor = e.Seq
		return &wire.EventFrame{Seq: e.Seq, Event: json.RawMessage(e.Event)}, nil
	}
	return &Stream{Result: res, feed: next, cancel: func() { stop(); cancel() }}, nil
}
