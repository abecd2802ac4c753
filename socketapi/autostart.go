package socketapi

import (
	"context"
	"time"

	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// Ensure-running outcomes.
const (
	AlreadyRunning = "already_running"
	Started        = "started"
)

// Readiness timings (docs/config.md §1.8).
const (
	ReadyDeadline = 15 * time.Second
	ReadyPoll     = 100 * time.Millisecond
)

// Spawned is the server process a spawn function of [Client.EnsureRunning] started.
type Spawned struct {
	// PID is the process id; 0 when unknown.
	PID int
	// Exited, when not nil, delivers one value once the process has ended: the error it
	// failed to start with (the server's own typed error, docs/protocol.md §1.7), or nil
	// when it ended without reporting one (a losing racer ends with already_running
	// because another server answers). EnsureRunning only watches it while it waits.
	Exited <-chan error
}

// EnsureRunning makes sure a server answers on c.Socket and returns the outcome and the
// pid of the server that answered. A successful handshake means already_running;
// otherwise spawn is called once (it must start a detached server and return without
// waiting) and the handshake is polled every 100 ms for up to 15 s. Concurrent callers
// may all spawn; the server's instance lock elects one winner and the others' servers
// exit with already_running, so every caller ends up talking to the same server. The
// outcome is started only for the caller whose spawned process is the one answering (or
// whose spawn reported no pid); the others get already_running.
//
// When the spawned process reports a startup error on Spawned.Exited, that error is
// returned at once (after one last handshake, in case another server answers after
// all) instead of the 15 s timeout: environment_error unsafe_home for a refused
// socket path, say. Timeout → environment_error server_start_failed with last_error.
func (c *Client) EnsureRunning(ctx context.Context, spawn func() (Spawned, error)) (outcome string, serverPID int, err error) {
	if h, err := c.Handshake(ctx); err == nil {
		return AlreadyRunning, h.PID, nil
	}
	if err := ctx.Err(); err != nil {
		// A caller that is gone (an interrupted verb) starts no server: its handshake
		// failed because it was canceled, not because none answers.
		return "", 0, wire.Env(wire.CauseServerUnreachable, "the call ended before a server answered: "+err.Error()).Wrap(err)
	}
	child, err := spawn()
	if err != nil {
		return "", 0, wire.Env(wire.CauseServerStartFailed, "cannot start the orcr server: "+err.Error()).Wrap(err)
	}
	h, err := c.waitReady(ctx, ReadyDeadline, child.Exited)
	if err != nil {
		return "", 0, err
	}
	if child.PID != 0 && h.PID != child.PID {
		return AlreadyRunning, h.PID, nil
	}
	return Started, h.PID, nil
}

// WaitReady polls the handshake until it succeeds or d passes.
func (c *Client) WaitReady(ctx context.Context, d time.Duration) error {
	_, err := c.waitReady(ctx, d, nil)
	return err
}

// waitReady polls the handshake until it succeeds or d passes. A startup error on
// exited ends the wait early (see [Client.EnsureRunning]); a nil one only stops the
// watch.
func (c *Client) waitReady(ctx context.Context, d time.Duration, exited <-chan error) (api.Handshake, error) {
	deadline := time.Now().Add(d)
	var last error
	for {
		hctx, cancel := context.WithTimeout(ctx, time.Until(deadline)+time.Second)
		h, err := c.Handshake(hctx)
		cancel()
		if err == nil {
			return h, nil
		}
		last = err
		if ctx.Err() != nil || time.Now().After(deadline) {
			return api.Handshake{}, wire.Env(wire.CauseServerStartFailed, "the orcr server did not become ready in time",
				"last_error", last.Error())
		}
		t := time.NewTimer(ReadyPoll)
		select {
		case <-ctx.Done():
			t.Stop()
		case <-t.C:
		case failed := <-exited:
			t.Stop()
			exited = nil
			if failed != nil {
				if h, err := c.Handshake(ctx); err == nil {
					return h, nil
				}
				return api.Handshake{}, failed
			}
		}
	}
}
