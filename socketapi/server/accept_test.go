package server_test

import (
	"context"
	"log/slog"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/orcr-go/orcr/socketapi/server"
)

// failingListener fails every Accept like a process out of file descriptors, except
// the calls listed in succeed (1-based), which return one end of a pipe.
type failingListener struct {
	calls   atomic.Int64
	succeed map[int64]bool
}

func (l *failingListener) Accept() (net.Conn, error) {
	if n := l.calls.Add(1); l.succeed[n] {
		a, b := net.Pipe()
		b.Close()
		return a, nil
	}
	return nil, &net.OpError{Op: "accept", Net: "unix", Err: os.NewSyscallError("accept4", syscall.EMFILE)}
}

func (l *failingListener) Close() error   { return nil }
func (l *failingListener) Addr() net.Addr { return &net.UnixAddr{Name: "fake", Net: "unix"} }

// countingHandler counts records and remembers their retry_in attributes.
type countingHandler struct {
	mu      sync.Mutex
	n       int
	retryIn []time.Duration
}

func (h *countingHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *countingHandler) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *countingHandler) WithGroup(string) slog.Handler            { return h }
func (h *countingHandler) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.n++
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "retry_in" {
			h.retryIn = append(h.retryIn, a.Value.Duration())
		}
		return true
	})
	return nil
}

func (h *countingHandler) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.n
}

// runAccept runs the accept loop on ln for d and returns the log it wrote.
func runAccept(t *testing.T, ln net.Listener, d time.Duration) *countingHandler {
	t.Helper()
	h := &countingHandler{}
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		server.AcceptConns(ctx, ln, slog.New(h), func(nc net.Conn) bool { nc.Close(); return true })
	}()
	select {
	case <-done:
	case <-time.After(d + 5*time.Second):
		t.Fatal("the accept loop did not return after its context ended")
	}
	return h
}

// An accept that keeps failing (EMFILE) is retried with a growing delay: in 300 ms the
// loop logs a handful of lines, not one per spin (which once wrote 300,000 lines in
// 15 s and rotated every older log away).
func TestAcceptErrorsBackOff(t *testing.T) {
	t.Parallel()
	ln := &failingListener{}
	h := runAccept(t, ln, 300*time.Millisecond)
	if n := h.count(); n > 10 {
		t.Errorf("300ms of failing accepts logged %d lines, want at most 10", n)
	}
	if calls := ln.calls.Load(); calls > 10 {
		t.Errorf("300ms of failing accepts retried %d times, want at most 10", calls)
	}
}

// A successful accept resets the delay. The loop gets 3 s, though it reaches the fifth
// retry after 75 ms of delays: at a load of 19 on 2 cores, 300 ms once ended it after
// the fourth (s20a-1).
func TestAcceptBackoffResetsOnSuccess(t *testing.T) {
	t.Parallel()
	ln := &failingListener{succeed: map[int64]bool{5: true}}
	h := runAccept(t, ln, 3*time.Second)
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.retryIn) < 5 || h.retryIn[4] != h.retryIn[0] {
		t.Errorf("retry delays %v: want the fifth (after a success) equal to the first", h.retryIn)
	}
}

func TestNextAcceptDelay(t *testing.T) {
	t.Parallel()
	cases := []struct{ prev, want time.Duration }{
		{0, 5 * time.Millisecond},
		{5 * time.Millisecond, 10 * time.Millisecond},
		{320 * time.Millisecond, 640 * time.Millisecond},
		{640 * time.Millisecond, time.Second},
		{time.Second, time.Second},
	}
	for _, tc := range cases {
		if got := server.NextAcceptDelay(tc.prev); got != tc.want {
			t.Errorf("NextAcceptDelay(%v): got %v, want %v", tc.prev, got, tc.want)
		}
	}
}
