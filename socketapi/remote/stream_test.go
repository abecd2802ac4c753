package remote

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/google/go-cmp/cmp"
)

// fastDialer re-dials after a millisecond or two.
func fastDialer() *Dialer {
	return &Dialer{backoffMin: time.Millisecond, backoffMax: 2 * time.Millisecond}
}

// collect ranges over a Stream until stop (nil: never) says so or the iteration ends. It returns the
// seqs of the events and the text of the *Truncated values in order, and the error that
// ended the iteration (nil when stop did). Each event must be the log's own.
func collect(t *testing.T, seq func(yield func(Event, error) bool), stop func(Event) bool) ([]string, error) {
	t.Helper()
	var got []string
	for ev, err := range seq {
		if tr, ok := errors.AsType[*Truncated](err); ok {
			if ev.ID != "" || ev.Payload != nil {
				t.Errorf("a *Truncated came with event %+v", ev)
			}
			got = append(got, fmt.Sprintf("truncated %d..%d", tr.RequestedFromSeq, tr.FromSeq))
			continue
		}
		if err != nil {
			return got, err
		}
		if want := testEvent(ev.Seq); !reflect.DeepEqual(want, ev) { // cmp walks a 100 KiB payload slowly
			t.Errorf("event %d (-want +got):\n%s", ev.Seq, cmp.Diff(want, ev))
		}
		got = append(got, fmt.Sprint(ev.Seq))
		if stop != nil && stop(ev) {
			return got, nil
		}
	}
	t.Error("the iteration ended without an error")
	return got, nil
}

// receive reads n values from ch.
func receive[T any](t *testing.T, ch <-chan T, n int) []T {
	t.Helper()
	var got []T
	for range n {
		select {
		case v := <-ch:
			got = append(got, v)
		case <-time.After(10 * time.Second):
			t.Fatalf("got %v, want %d values", got, n)
		}
	}
	return got
}

// One Stream across four connections: a capped replay with stray and repeated events
// around its start, then lagged, internal and a silent drop, each resumed from the seq
// after the last event yielded; breaking out of the loop closes the last connection.
func TestStreamResumes(t *testing.T) {
	subscribed := make(chan int64, 8)
	closed := make(chan websocket.StatusCode, 1)
	srv := newTestServer(t, func(n int, c *scriptConn) {
		c.hello(9)
		subscribed <- c.expectSubscribe()
		switch n {
		case 1:
			c.events(6) // in flight from an earlier subscription: discarded
			c.send(ReplayTruncated{RequestedFromSeq: 0, FromSeq: 3})
			c.events(2, 3, 4, 3, 5) // 2 is before the window, the second 3 a repeat
			c.closeWith(Lagged)
		case 2:
			c.events(6, 7)
			c.closeWith(Internal)
		case 3:
			c.events(8)
			c.ws.CloseNow()
		case 4:
			c.events(9)
			closed <- c.waitClosed()
		}
	})
	stream := fastDialer().Stream(testCtx(t), srv.URL, "agent-1", testToken, 0)
	got, err := collect(t, stream, func(ev Event) bool { return ev.Seq == 9 })
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	if diff := cmp.Diff([]string{"truncated 0..3", "3", "4", "5", "6", "7", "8", "9"}, got); diff != "" {
		t.Errorf("yielded (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int64{0, 6, 8, 9}, receive(t, subscribed, 4)); diff != "" {
		t.Errorf("subscribed from (-want +got):\n%s", diff)
	}
	if got := receive(t, closed, 1)[0]; got != websocket.StatusNormalClosure {
		t.Errorf("the last connection closed with %v, want %v", got, websocket.StatusNormalClosure)
	}
}

// An event that skips ahead makes Stream subscribe again on the same connection, and
// the rest of the old subscription is discarded until the new replay starts.
func TestStreamResubscribesOnAGap(t *testing.T) {
	subscribed := make(chan int64, 4)
	srv := newTestServer(t, func(n int, c *scriptConn) {
		c.hello(5)
		subscribed <- c.expectSubscribe()
		c.events(0, 1, 3, 4) // 2 is missing
		subscribed <- c.expectSubscribe()
		c.events(5, 2, 3) // 5 was still in flight
		c.waitClosed()
	})
	stream := fastDialer().Stream(testCtx(t), srv.URL, "agent-1", testToken, 0)
	got, err := collect(t, stream, func(ev Event) bool { return ev.Seq == 3 })
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	if diff := cmp.Diff([]string{"0", "1", "2", "3"}, got); diff != "" {
		t.Errorf("yielded (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int64{0, 2}, receive(t, subscribed, 2)); diff != "" {
		t.Errorf("subscribed from (-want +got):\n%s", diff)
	}
	if n := srv.conns.Load(); n != 1 {
		t.Errorf("connections: got %d, want 1", n)
	}
}

// Refusals that re-dialing cannot fix end the iteration with their error, after the
// events already yielded, without another connection.
func TestStreamEnds(t *testing.T) {
	tests := []struct {
		name   string
		token  string
		script func(c *scriptConn)
		want   func(error) bool
		seqs   []string
	}{
		{"superseded", testToken, func(c *scriptConn) {
			c.hello(0)
			c.expectSubscribe()
			c.events(0)
			c.closeWith(Superseded)
		}, func(err error) bool { return IsCode(err, Superseded) }, []string{"0"}},
		{"unauthorized at the door", "wrong", nil, func(err error) bool { return IsCode(err, Unauthorized) }, nil},
		{"subscribe refused", testToken, func(c *scriptConn) {
			c.hello(0)
			c.expectSubscribe()
			c.send(ErrorFrame{Code: BadFrame, Message: "no"})
			c.waitClosed()
		}, func(err error) bool { return IsCode(err, BadFrame) }, nil},
		{"a malformed frame", testToken, func(c *scriptConn) {
			c.hello(0)
			c.expectSubscribe()
			c.ws.Write(c.ctx, websocket.MessageText, []byte(`{"seq":"0"}`))
			c.waitClosed()
		}, func(err error) bool { _, ok := errors.AsType[*FrameError](err); return ok }, nil},
		{"another protocol", testToken, func(c *scriptConn) {
			c.send(Hello{Proto: 2})
			c.waitClosed()
		}, func(err error) bool { return errors.Is(err, ErrProto) }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newTestServer(t, func(n int, c *scriptConn) { tt.script(c) })
			stream := fastDialer().Stream(testCtx(t), srv.URL, "agent-1", tt.token, 0)
			got, err := collect(t, stream, func(Event) bool { return false })
			if !tt.want(err) {
				t.Errorf("Stream ended with %v", err)
			}
			if diff := cmp.Diff(tt.seqs, got); diff != "" {
				t.Errorf("yielded (-want +got):\n%s", diff)
			}
			if n := srv.conns.Load(); n != 1 {
				t.Errorf("connections: got %d, want 1", n)
			}
		})
	}
	t.Run("HTTP 404", func(t *testing.T) {
		srv := httptest.NewServer(http.NotFoundHandler())
		defer srv.Close()
		_, err := collect(t, fastDialer().Stream(testCtx(t), srv.URL, "agent-1", testToken, 0), nil)
		if e, ok := errors.AsType[*HandshakeError](err); !ok || e.StatusCode != http.StatusNotFound {
			t.Errorf("Stream ended with %v, want a *HandshakeError 404", err)
		}
	})
	t.Run("bad arguments", func(t *testing.T) {
		if _, err := collect(t, fastDialer().Stream(testCtx(t), "h:1", "agent-1", testToken, 0), nil); err == nil {
			t.Error("Stream of a bad URL: got no error")
		}
		if _, err := collect(t, fastDialer().Stream(testCtx(t), "http://h", "agent-1", testToken, -1), nil); err == nil {
			t.Error("Stream from -1: got no error")
		}
	})
}

// Stream re-dials past HTTP 503 answers and a refused first connection, and its context
// ends it wherever it is: inside a read, or waiting to re-dial.
func TestStreamRetriesUntilItsContextEnds(t *testing.T) {
	srv := newTestServer(t, func(n int, c *scriptConn) {
		c.hello(0)
		c.expectSubscribe()
		c.events(0)
		c.waitClosed()
	})
	var requests atomic.Int32
	flaky := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if requests.Add(1) <= 2 {
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		srv.serve(w, r)
	}))
	t.Cleanup(flaky.Close)
	ctx, cancel := context.WithCancel(testCtx(t))
	got, err := collect(t, fastDialer().Stream(ctx, flaky.URL, "agent-1", testToken, 0), func(Event) bool {
		cancel()
		return false
	})
	if !errors.Is(err, context.Canceled) || len(got) != 1 {
		t.Errorf("Stream: got %v ending with %v, want event 0 and context.Canceled", got, err)
	}
	if n := requests.Load(); n != 3 {
		t.Errorf("requests: got %d, want 3", n)
	}

	// Nothing listens at all: the context ends the waiting between attempts.
	down := httptest.NewServer(http.NotFoundHandler())
	url := down.URL
	down.Close()
	ctx, cancel = context.WithTimeout(testCtx(t), 50*time.Millisecond)
	defer cancel()
	if _, err := collect(t, fastDialer().Stream(ctx, url, "agent-1", testToken, 0), nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Stream with no server: ended with %v, want context.DeadlineExceeded", err)
	}
}

// Re-dial delays double from the minimum to the maximum, each with up to half taken off
// at random.
func TestBackoff(t *testing.T) {
	var d Dialer
	for failures := range 40 {
		hi := min(defaultBackoffMin<<min(failures, 20), defaultBackoffMax)
		for range 20 {
			if got := d.backoff(failures); got < hi/2 || got > hi {
				t.Fatalf("backoff(%d): got %v, want within [%v, %v]", failures, got, hi/2, hi)
			}
		}
	}
}
