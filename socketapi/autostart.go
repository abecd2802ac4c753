package socketapi

import (
	"context"
	"time"

	"github.com/orcr-go/orcr/socketapi/wire"
)

// Ensure-running outcomes.
const (
	AlreadyRunning = "already_running"
	Started        = "started"
)

// Readiness timings (config.md §1.8).
const (
	ReadyDeadline = 15 * time.Second
	ReadyPoll     = 100 * time.Millisecond
)

// EnsureRunning makes sure a server answers on c.Socket: a successful handshake means
// already_running; otherwise spawn is called once (it must start a detached server and
// return without waiting) and the handshake is polled every 100 ms for up to 15 s.
// Concurrent callers may all spawn; the server's instance lock elects one winner and
// the others' servers exit with already_running, so every caller ends up talking to the
// same server. Timeout → environment_error server_start_failed with last_error.
func (c *Client) EnsureRunning(ctx context.Context, spawn func() error) (string, error) {
	if _, err := c.Handshake(ctx); err == nil {
		return AlreadyRunning, nil
	}
	if err := spawn(); err != nil {
		return "", wire.Env("server_start_failed", "cannot start the orcr server: "+err.Error()).Wrap(err)
	}
	return Started, c.WaitReady(ctx, ReadyDeadline)
}

// WaitReady polls the handshake until it succeeds or d passes.
func (c *Client) WaitReady(ctx context.Context, d time.Duration) error {
	deadline := time.Now().Add(d)
	var last error
	for {
		hctx, cancel := context.WithTimeout(ctx, time.Until(deadline)+time.Second)
		_, err := c.Handshake(hctx)
		cancel()
		if err == nil {
			return nil
		}
		last = err
		if ctx.Err() != nil || time.Now().After(deadline) {
			return wire.Env("server_start_failed", "the orcr server did not become ready in time",
				"last_error", last.Error())
		}
		t := time.NewTimer(ReadyPoll)
		select {
		case <-ctx.Done():
			t.Stop()
		case <-t.C:
		}
	}
}
