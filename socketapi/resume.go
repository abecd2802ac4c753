package socketapi

import (
	"context"
	"fmt"
	"time"

	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// Blocking calls ride over a server restart (docs/protocol.md §1.10): [Client.Wait],
// [Client.Ask] once its agent is acknowledged, and [Client.FollowLogs] treat a server
// that went away (environment_error server_unreachable: the connection broke before the
// answer, or no server answers) as a pause, not an end. They get a server back —
// started through Client.Spawn when it is set, as the CLI's auto-start does, else by
// waiting for one to answer — and resume from where they were, within their own
// timeout. Only a server that does not answer again within [ResumeWithin] is an error.

// ResumeWithin bounds how long a blocking call waits for a server to answer again after
// the one it talked to went away.
const ResumeWithin = 30 * time.Second

// ServerGone reports whether err says the server went away: none answers on the socket,
// or the connection broke before the answer (environment_error server_unreachable).
func ServerGone(err error) bool {
	return wire.Is(err, wire.EnvironmentError, wire.CauseServerUnreachable)
}

// Reconnect gets a server back after lost (a [ServerGone] error of a call of method):
// it starts one through c.Spawn (docs/protocol.md §1.7) when set, else polls the
// handshake, until a server answers or [ResumeWithin] passes, and then tells
// c.OnResume. The error, when none came back, is server_unreachable with the method and
// the last handshake failure in its details; ctx ending returns lost.
func (c *Client) Reconnect(ctx context.Context, method string, lost error) error {
	deadline := time.Now().Add(ResumeWithin)
	last := lost
	for {
		var pid int
		var err error
		if c.Spawn != nil {
			_, pid, err = c.EnsureRunning(ctx, c.Spawn)
		} else {
			var h api.Handshake
			h, err = c.Handshake(ctx)
			pid = h.PID
		}
		if err == nil {
			if c.OnResume != nil {
				c.OnResume(method, pid)
			}
			return nil
		}
		last = err
		if ctx.Err() != nil {
			return lost
		}
		if !time.Now().Before(deadline) {
			return wire.Env(wire.CauseServerUnreachable, fmt.Sprintf("the orcr server went away during %s and did not answer again within %s",
				method, ResumeWithin), "method", method, "last_error", last.Error()).Wrap(lost)
		}
		t := time.NewTimer(ReadyPoll)
		select {
		case <-ctx.Done():
			t.Stop()
			return lost
		case <-t.C:
		}
	}
}

// Resuming runs call, one blocking request of method, and each time it fails because
// the server went away ([ServerGone]) gets a server back ([Client.Reconnect]) and runs
// it again, as long as ctx lasts; call is told the attempt (0 first) so that a resumed
// request can start from its cursor.
func Resuming[T any](ctx context.Context, c *Client, method string, call func(attempt int) (T, error)) (T, error) {
	for attempt := 0; ; attempt++ {
		v, err := call(attempt)
		if err == nil || !ServerGone(err) || ctx.Err() != nil {
			return v, err
		}
		if rerr := c.Reconnect(ctx, method, err); rerr != nil {
			return v, rerr
		}
	}
}

// Remaining is the timeout param of a request that resumes one first sent elapsed ago
// (agent.wait, agent.ask): what is left of timeout (at least 1 ms, so that a wait whose
// time ran out while no server answered answers timed_out with the current state). No
// timeout, or one that does not parse (the first attempt was refused for it), is
// timeout unchanged.
func Remaining(timeout string, elapsed time.Duration) string {
	if timeout == "" {
		return ""
	}
	d, err := config.ParseDuration(timeout)
	if err != nil {
		return timeout
	}
	return fmt.Sprintf("%dms", max(1, (d-elapsed).Milliseconds()))
}
