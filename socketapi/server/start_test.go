package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gofrs/flock"

	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/socketapi/server"
	"github.com/orcr-go/orcr/socketapi/sockettest"
)

// quietOptions are the options of an in-process server with no log and no signals.
func quietOptions(home string) server.Options {
	return server.Options{
		Home: home, Getenv: func(string) string { return "" },
		Log: slog.New(slog.DiscardHandler), NoSignals: true, DeadLetterThrottle: 10 * time.Millisecond,
	}
}

// holdLock takes the instance lock of home the way another process would (flock locks
// belong to the open file, so a second Flock in this process contends like a stranger)
// and releases it after d; the returned channel receives the release time.
func holdLock(t *testing.T, home string, d time.Duration) <-chan time.Time {
	t.Helper()
	if err := config.EnsureHome(home); err != nil {
		t.Fatal(err)
	}
	held := flock.New(filepath.Join(home, config.LockName))
	ok, err := held.TryLock()
	if err != nil || !ok {
		t.Fatalf("taking the instance lock: ok=%v err=%v", ok, err)
	}
	released := make(chan time.Time, 1)
	timer := time.AfterFunc(d, func() {
		held.Unlock()
		released <- time.Now()
	})
	t.Cleanup(func() {
		if timer.Stop() {
			held.Unlock()
		}
	})
	return released
}

// A server that is still winding down holds the instance lock for a moment after its
// socket stopped answering. A server starting in that window must become the server as
// soon as the lock is free, not poll the handshake for 15 s and fail.
func TestStartTakesTheLockOnceFreed(t *testing.T) {
	t.Parallel()
	// What a start costs on this machine now, with no lock in the way: the bound below
	// is relative to it, as a loaded machine makes every start slow.
	free := sockettest.TempHome(t)
	began := time.Now()
	s0, _, err := server.Start(context.Background(), quietOptions(free))
	if err != nil || s0 == nil {
		t.Fatalf("server.Start on a free home: %v", err)
	}
	baseline := time.Since(began)
	s0.Stop()
	if err := s0.Wait(); err != nil {
		t.Fatalf("stop: %v", err)
	}

	home := sockettest.TempHome(t)
	released := holdLock(t, home, 300*time.Millisecond)

	s, outcome, err := server.Start(context.Background(), quietOptions(home))
	if err != nil {
		t.Fatalf("server.Start with the lock held for 300ms: %v, want a started server", err)
	}
	if s == nil {
		t.Fatalf("server.Start: outcome %s, want a started server", outcome)
	}
	defer func() {
		s.Stop()
		if err := s.Wait(); err != nil {
			t.Errorf("stop: %v", err)
		}
	}()
	select {
	case at := <-released:
		// The defect polled the handshake for 15 s; taking the lock is a poll of at
		// most 100 ms, so the start may cost its baseline a few times over, no more.
		if late, bound := time.Since(at), max(5*time.Second, 3*baseline); late > bound {
			t.Errorf("the server started %v after the lock was freed, want within %v (a free start took %v)", late, bound, baseline)
		}
	default:
		t.Fatal("server.Start returned before the lock was freed")
	}
}

// fakeHandshake answers server.handshake on socket with pid 4242 until the test ends.
// It may run on any goroutine.
func fakeHandshake(t *testing.T, socket string) {
	ln, err := net.Listen("unix", socket)
	if err != nil {
		t.Errorf("listening on %s: %v", socket, err)
		return
	}
	done := make(chan struct{})
	t.Cleanup(func() { ln.Close(); <-done })
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			var req struct {
				ID json.RawMessage `json:"id"`
			}
			line, _ := bufio.NewReader(c).ReadBytes('\n')
			if json.Unmarshal(line, &req) == nil {
				c.Write([]byte(`{"id":` + string(req.ID) + `,"ok":true,"result":{"pid":4242,"protocol":1,"store":"/x","ready":true}}` + "\n"))
			}
			c.Close()
		}
	}()
}

// While the lock stays held, a server that starts answering wins the other way: the
// starting server reports already_running.
func TestStartWithHeldLockFindsTheLiveServer(t *testing.T) {
	t.Parallel()
	home := sockettest.TempHome(t)
	holdLock(t, home, time.Hour)
	socket := filepath.Join(home, config.SocketName)
	appeared := make(chan struct{})
	time.AfterFunc(200*time.Millisecond, func() {
		fakeHandshake(t, socket)
		close(appeared)
	})

	start := time.Now()
	s, outcome, err := server.Start(context.Background(), quietOptions(home))
	if err != nil || s != nil || outcome != server.OutcomeAlreadyRunning {
		t.Fatalf("server.Start: got (%v, %q, %v), want already_running", s, outcome, err)
	}
	<-appeared
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("already_running took %v, want promptly after the server appeared", took)
	}
	if _, err := os.Stat(filepath.Join(home, config.DBName)); err == nil {
		t.Errorf("the losing server opened the store")
	}
}
