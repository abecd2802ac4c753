package socketapi_test

import (
	"context"
	"errors"
	"net"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/socketapi/sockettest"
)

// dialFailing fails the first n dials, then dials for real.
func dialFailing(n int32) func(context.Context, string, string) (net.Conn, error) {
	var calls atomic.Int32
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		if calls.Add(1) <= n {
			return nil, errors.New("not listening yet")
		}
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	}
}

// spawned returns a spawn function whose process has already exited with err.
func spawned(err error) func() (socketapi.Spawned, error) {
	return func() (socketapi.Spawned, error) {
		exited := make(chan error, 1)
		exited <- err
		return socketapi.Spawned{Exited: exited}, nil
	}
}

// A spawned server that fails to start hands its own error to the waiting client, which
// returns it instead of polling until the 15 s readiness deadline.
func TestEnsureRunningReportsTheServersError(t *testing.T) {
	t.Parallel()
	c := &socketapi.Client{Socket: filepath.Join(sockettest.TempHome(t), "orcr.sock")}
	refused := wire.Env("unsafe_home", "socket path is a symlink; refusing to use it")
	start := time.Now()
	_, _, err := c.EnsureRunning(context.Background(), spawned(refused))
	if pe, ok := wire.As(err); !ok || pe != refused {
		t.Fatalf("EnsureRunning: got %v, want the server's own error %v", err, refused)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("EnsureRunning took %v", d)
	}
}

// When the spawned server failed but another one answers after all (it won a start
// race), that server is used.
func TestEnsureRunningChecksOnceMoreAfterAFailure(t *testing.T) {
	t.Parallel()
	srv := sockettest.NewServer(t)
	// Dial 1 is the first handshake, 2 the first poll; the failure then comes before
	// the next poll.
	c := &socketapi.Client{Socket: srv.Socket(), Dial: dialFailing(2)}
	outcome, _, err := c.EnsureRunning(context.Background(), spawned(wire.Env("store_locked", "locked")))
	if err != nil || outcome != socketapi.Started {
		t.Errorf("EnsureRunning: got %q %v, want started (another server answers)", outcome, err)
	}
}

// A spawned server that exits without an error (it lost the start race and another
// server answers) does not end the wait.
func TestEnsureRunningWaitsPastACleanExit(t *testing.T) {
	t.Parallel()
	srv := sockettest.NewServer(t)
	c := &socketapi.Client{Socket: srv.Socket(), Dial: dialFailing(3)}
	outcome, pid, err := c.EnsureRunning(context.Background(), spawned(nil))
	if err != nil || outcome != socketapi.Started || pid == 0 {
		t.Errorf("EnsureRunning: got %q pid %d %v, want started once the server answers", outcome, pid, err)
	}
}

// A caller whose context has ended (an interrupted `agent wait` getting its server back)
// starts no server: the failed handshake says nothing about the server then, and a
// server started for nobody would outlive it (s27f-1: one started that way took the
// home once the test had stopped its own).
func TestEnsureRunningSpawnsNothingForAnEndedCaller(t *testing.T) {
	t.Parallel()
	c := &socketapi.Client{Socket: filepath.Join(sockettest.TempHome(t), "orcr.sock")}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var spawns atomic.Int32
	_, _, err := c.EnsureRunning(ctx, func() (socketapi.Spawned, error) {
		spawns.Add(1)
		return socketapi.Spawned{}, nil
	})
	if err == nil || spawns.Load() != 0 || !wire.Is(err, wire.EnvironmentError, wire.CauseServerUnreachable) {
		t.Fatalf("EnsureRunning with an ended context: %v, %d spawns; want server_unreachable and none", err, spawns.Load())
	}
}
