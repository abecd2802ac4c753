package socketapi

import (
	"context"
	"encoding/json"

	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// OnHost is a client whose calls go to the fleet member host through this client's
// server (fleet.call, docs/fleet.md §4.6): the same typed methods, with the member's
// results and errors, as far as the member's fleet.allow lets them (docs/fleet.md
// §4.1); a member that does not answer is environment_error fleet_unreachable. Its
// paths are the member's, in this client's scope. No caller identity goes along: an
// agent of this host is nobody on another. The streams (Subscribe, and Watch over it)
// are local to a server and refused on it; FollowLogs polls agent.logs, so it follows
// the member's agent. The fleet.* methods themselves stay local.
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
