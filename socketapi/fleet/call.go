package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// HostReply is one member's answer to a fleet-wide call.
type HostReply struct {
	Host string
	// Err is the member's error, or environment_error fleet_unreachable when it did not
	// answer in time: the member may be fine, so its agents are never reported lost.
	Err    *wire.Error
	Result json.RawMessage
}

// Unreachable reports whether the member did not answer.
func (h HostReply) Unreachable() bool {
	return h.Err != nil && h.Err.Code == wire.EnvironmentError && h.Err.Cause() == wire.CauseFleetUnreachable
}

// PingTimeout bounds [Member.CallHost]'s probe: a member that does not answer it in
// this long is unreachable, whatever the verb's own bound.
const PingTimeout = 3 * time.Second

// Ping probes host: nil when it answered within ctx and [PingTimeout], else
// environment_error fleet_unreachable.
func (m *Member) Ping(ctx context.Context, host string) *wire.Error {
	ctx, cancel := context.WithTimeout(ctx, PingTimeout)
	defer cancel()
	if _, err := m.nc.RequestWithContext(ctx, PingSubject(host), nil); err != nil {
		return unreachable(host, err)
	}
	return nil
}

// WatchEvery is how often [Member.CallHost] probes the member while a call is in flight.
const WatchEvery = 5 * time.Second

// CallHost is [Member.Call] after a [Member.Ping]: a member that is gone or hung fails
// within PingTimeout even when ctx allows the verb longer (docs/fleet.md §4.2). While
// the call runs (an agent.wait may run for hours) the member is probed every
// WatchEvery, and one that stops answering ends the call with fleet_unreachable: a
// member killed or cut off never leaves its caller waiting for an answer that cannot
// come.
func (m *Member) CallHost(ctx context.Context, host, method string, params any) (json.RawMessage, *wire.Error) {
	if err := m.Ping(ctx, host); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	go m.watch(ctx, host, cancel)
	res, err := m.Call(ctx, host, method, params)
	var lost *wire.Error
	if err != nil && errors.As(context.Cause(ctx), &lost) {
		return nil, lost
	}
	return res, err
}

// watch probes host every WatchEvery until ctx ends, and cancels it with the probe's
// error when one fails.
func (m *Member) watch(ctx context.Context, host string, cancel context.CancelCauseFunc) {
	t := time.NewTicker(WatchEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if err := m.Ping(ctx, host); err != nil && ctx.Err() == nil {
			cancel(err)
			return
		}
	}
}

func unreachable(host string, err error) *wire.Error {
	msg := "fleet member " + host + " did not answer: " + err.Error()
	if errors.Is(err, nats.ErrNoResponders) {
		msg = "fleet member " + host + " is not connected"
	}
	return wire.Env(wire.CauseFleetUnreachable, msg, "host", host)
}

// Call calls method on host over the fleet; ctx bounds the wait. An answer larger
// than the NATS server's max_payload comes in parts ([ChunkHeader]). A method that
// reports progress (api.ReportsProgress) is asked for it: its frames go to ctx's
// reporter, and the call goes on while they come, each within [ProgressIdle].
func (m *Member) Call(ctx context.Context, host, method string, params any) (json.RawMessage, *wire.Error) {
	req := map[string]any{"protocol": wire.Protocol, "id": 1, "method": method, "params": params}
	var idle time.Duration
	if api.ReportsProgress(method) {
		req["progress"], idle = true, ProgressIdle
	}
	frame, err := json.Marshal(req)
	if err != nil {
		return nil, wire.Internal(wire.CauseEncode, err.Error())
	}
	data, werr := m.request(ctx, host, frame, idle)
	if werr != nil {
		return nil, werr
	}
	return DecodeReply(data)
}

// DecodeReply reads a member's response frame: its result, or its error (a frame that
// is not a response is server_error decode).
func DecodeReply(data []byte) (json.RawMessage, *wire.Error) {
	var f wire.ReplyFrame
	if err := json.Unmarshal(data, &f); err != nil || f.OK == nil {
		return nil, wire.Internal(wire.CauseDecode, "fleet: a member's reply is not a response frame")
	}
	if e := f.Err(); e != nil {
		return nil, e
	}
	return f.Result, nil
}

// CallAll calls method on every registered member at once and returns their replies in
// host order; ctx bounds the wait for each.
func (m *Member) CallAll(ctx context.Context, method string, params any) ([]HostReply, error) {
	hosts, err := m.Members(ctx)
	if err != nil {
		return nil, wire.Env(wire.CauseFleetUnreachable, "fleet: cannot list the members: "+err.Error())
	}
	slices.Sort(hosts)
	out := make([]HostReply, len(hosts))
	var wg sync.WaitGroup
	for i, h := range hosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := m.Call(ctx, h, method, params)
			out[i] = HostReply{Host: h, Err: err, Result: res}
		}()
	}
	wg.Wait()
	return out, nil
}
