package herdr

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/orcr-go/orcr/actors/actorkit"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/tests/poll"
)

// newTestDriver starts an actor system and a driver with fast backoff.
func newTestDriver(t *testing.T, cfg Config) *Driver {
	t.Helper()
	sys := actorkit.NewSystem(nil, 10*time.Millisecond)
	if cfg.BackoffInitial == 0 {
		cfg.BackoffInitial, cfg.BackoffMax = 20*time.Millisecond, 200*time.Millisecond
	}
	if cfg.DeliverPause == 0 {
		cfg.DeliverPause = 20 * time.Millisecond
	}
	d, err := NewDriver(sys, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		d.Close()
		sys.Shutdown()
	})
	return d
}

func staticSessions(rows ...SessionInfo) func(context.Context) ([]SessionInfo, error) {
	return func(context.Context) ([]SessionInfo, error) {
		out := make([]SessionInfo, len(rows))
		for i, r := range rows {
			r.Running = true
			if _, err := os.Stat(r.SocketPath); err != nil {
				r.Running = false
			}
			out[i] = r
		}
		return out, nil
	}
}

func TestDriverReconnectsScripted(t *testing.T) {
	s := newScripted(t, func(req map[string]any) string {
		switch req["method"] {
		case "ping":
			return ok(req, `{"type":"pong","version":"0.8.0","protocol":20}`)
		default:
			return ok(req, `{"type":"agent_list","agents":[{"terminal_id":"term_1","pane_id":"w1:p1","workspace_id":"w1","tab_id":"w1:t1","agent_status":"done","focused":false,"revision":0,"state_change_seq":0}]}`)
		}
	})
	d := newTestDriver(t, Config{Sessions: staticSessions(SessionInfo{Name: "orcr", SocketPath: s.path})})
	ctx := context.Background()
	agents, err := d.Owned().AgentList(ctx)
	if err != nil || len(agents) != 1 || agents[0].AgentStatus != StatusIdle {
		t.Fatalf("AgentList: got %+v %v", agents, err)
	}

	s.close() // the listener goes away and its socket file with it
	_, err = d.Owned().AgentList(ctx)
	if !IsUnreachable(err) {
		t.Fatalf("AgentList while down: got %v, want herdr_unreachable", err)
	}
	start := time.Now()
	_, err = d.Owned().AgentList(ctx)
	if !IsUnreachable(err) || time.Since(start) > 2*time.Second {
		t.Fatalf("AgentList while down: got %v after %s, want herdr_unreachable fast", err, time.Since(start))
	}
	poll.Eventually(t, 5*time.Second, "a restart", func() bool { return d.Restarts("orcr") >= 1 })

	s.listen(t)
	poll.Eventually(t, 10*time.Second, "reconnect", func() bool {
		_, err := d.Owned().AgentList(ctx)
		return err == nil
	})
	hs, _ := d.Health()
	if len(hs) != 1 || hs[0].State != "up" || hs[0].Protocol != 20 {
		t.Errorf("Health: got %+v", hs)
	}
}

// A herdr of an unsupported protocol is a version skew to every caller, however its
// call meets the handshake: queued behind it, after the session failed and before the
// supervisor replaced it (once answered as a bare herdr_unreachable), or while the
// session is down. Each round is a fresh driver calling at once.
func TestDriverVersionSkewHandshake(t *testing.T) {
	s := newScripted(t, func(req map[string]any) string {
		return ok(req, `{"type":"pong","version":"0.1.0","protocol":12}`)
	})
	for i := range 20 {
		d := newTestDriver(t, Config{Sessions: staticSessions(SessionInfo{Name: "orcr", SocketPath: s.path})})
		for j := range 3 {
			_, err := d.Owned().AgentList(context.Background())
			we := WireError(err)
			if we.Cause() != wire.CauseHerdrVersionSkew || we.Details["reported_protocol"] != 12 {
				t.Fatalf("round %d, call %d: AgentList: got %v, want herdr_version_skew", i, j, err)
			}
		}
	}
}

func TestDriverStatus(t *testing.T) {
	s := newScripted(t, func(req map[string]any) string {
		return ok(req, `{"type":"pong","version":"0.8.0","protocol":20}`)
	})
	d := newTestDriver(t, Config{Sessions: staticSessions(SessionInfo{Name: "orcr", SocketPath: s.path})})
	st := d.Status(context.Background())
	if !st.SessionRunning || st.Socket == nil || *st.Socket != s.path || st.Protocol == nil || *st.Protocol != 20 {
		t.Errorf("Status: got %+v", st)
	}
	none := newTestDriver(t, Config{Owned: "x"})
	if st := none.Status(context.Background()); st.Bin != nil || st.Reachable || st.Session != "x" {
		t.Errorf("Status without bin: got %+v", st)
	}
}

// The driver builds its actors (the supervisor, each connection actor) with
// Config.Props: the server passes actorkit.Props so they log a panic's stack like every
// actor of its tree (actors/doc.go), without herdr importing anything under actors/.
func TestDriverBuildsItsActorsWithConfigProps(t *testing.T) {
	s := newScripted(t, func(req map[string]any) string {
		if req["method"] == "ping" {
			return ok(req, `{"type":"pong","version":"0.8.0","protocol":20}`)
		}
		return ok(req, `{"type":"agent_list","agents":[]}`)
	})
	var built atomic.Int32
	props := func(log *slog.Logger, producer actor.Producer, opts ...actor.PropsOption) *actor.Props {
		built.Add(1)
		return actorkit.Props(log, producer, opts...)
	}
	d := newTestDriver(t, Config{Sessions: staticSessions(SessionInfo{Name: "orcr", SocketPath: s.path}), Props: props})
	if n := built.Load(); n != 1 {
		t.Fatalf("after NewDriver: %d Props built, want 1 (the supervisor)", n)
	}
	if _, err := d.Owned().AgentList(context.Background()); err != nil {
		t.Fatalf("AgentList: %v", err)
	}
	if n := built.Load(); n != 2 {
		t.Errorf("after the first call: %d Props built, want 2 (the supervisor and the session's connection actor)", n)
	}
}

// TestDriverCloseAnswersInFlight checks that Close answers a call in flight (here a
// Deliver in its pause) instead of leaving it to time out, and that later calls fail
// fast.
func TestDriverCloseAnswersInFlight(t *testing.T) {
	s := newScripted(t, func(req map[string]any) string {
		switch req["method"] {
		case "ping":
			return ok(req, `{"type":"pong","version":"0.8.0","protocol":20}`)
		default:
			return ok(req, `{"type":"ok"}`)
		}
	})
	d := newTestDriver(t, Config{DeliverPause: time.Minute, Sessions: staticSessions(SessionInfo{Name: "orcr", SocketPath: s.path})})
	if _, err := d.Owned().Ping(context.Background()); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- d.Owned().Deliver(context.Background(), "w1:p1", "x") }()
	poll.Eventually(t, 5*time.Second, "send_text", func() bool { return len(s.requests()) >= 3 }) // ping, ping, send_text
	start := time.Now()
	closed := make(chan struct{})
	go func() { d.Close(); close(closed) }()
	select {
	case err := <-done:
		if !IsUnreachable(err) {
			t.Errorf("Deliver across Close: got %v, want herdr_unreachable", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Deliver still blocked 5s after Close")
	}
	<-closed
	if _, err := d.Owned().Ping(context.Background()); !IsUnreachable(err) || time.Since(start) > 5*time.Second {
		t.Errorf("Ping after Close: got %v", err)
	}
}

// Status says why it stops short, and a binary set after NewDriver is the one used.
func TestDriverStatusErrorAndSetBin(t *testing.T) {
	d := newTestDriver(t, Config{})
	if st := d.Status(context.Background()); st.Reachable || st.Error == nil || !wire.Is(st.Error, wire.EnvironmentError, wire.CauseHerdrMissing) {
		t.Errorf("Status without bin: got reachable %v error %v, want herdr_missing", st.Reachable, st.Error)
	}
	broken := filepath.Join(t.TempDir(), "herdr")
	if err := os.WriteFile(broken, []byte("#!/bin/sh\necho 'herdr: config is broken' >&2\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	d.SetBin(broken)
	if got := d.Bin(); got != broken {
		t.Errorf("Bin after SetBin: got %q, want %q", got, broken)
	}
	st := d.Status(context.Background())
	if !st.Reachable || st.Bin == nil || *st.Bin != broken || st.Error == nil || !wire.Is(st.Error, wire.EnvironmentError, wire.CauseHerdrError) ||
		!strings.Contains(st.Error.Message, "config is broken") {
		t.Errorf("Status with a failing session list: got %+v (error %+v), want reachable with herdr_error naming herdr's stderr", st, st.Error)
	}
	d.SetBin("")
	if st := d.Status(context.Background()); st.Reachable || st.Bin != nil || st.Error == nil {
		t.Errorf("Status after SetBin(\"\"): got %+v, want unreachable with an error", st)
	}
}

// A status ping that finds the owned session answering ends the reconnect backoff of
// its connection at once: after a long outage the backoff is up to 10 s, during which
// every call failed although herdr answered again (issue 32, defect 8).
func TestStatusPingEndsReconnectBackoff(t *testing.T) {
	var broken atomic.Bool
	s := newScripted(t, func(req map[string]any) string {
		switch {
		case req["method"] == "ping":
			return ok(req, `{"type":"pong","version":"0.8.0","protocol":20}`)
		case broken.Load():
			return "" // the connection closes without an answer: unreachable
		}
		return ok(req, `{"type":"agent_list","agents":[]}`)
	})
	d := newTestDriver(t, Config{Sessions: staticSessions(SessionInfo{Name: "orcr", SocketPath: s.path}),
		BackoffInitial: time.Hour, BackoffMax: time.Hour})
	ctx := context.Background()
	if _, err := d.Owned().AgentList(ctx); err != nil {
		t.Fatalf("AgentList: %v", err)
	}
	broken.Store(true)
	if _, err := d.Owned().AgentList(ctx); !IsUnreachable(err) {
		t.Fatalf("AgentList on a broken herdr: got %v, want herdr_unreachable", err)
	}
	broken.Store(false)
	if _, err := d.Owned().AgentList(ctx); !IsUnreachable(err) {
		t.Fatalf("AgentList while the connection waits out its backoff: got %v, want herdr_unreachable", err)
	}
	if st := d.Status(ctx); st.Version == nil || st.Error != nil {
		t.Fatalf("Status: %+v, want the owned session answering", st)
	}
	poll.Eventually(t, 5*time.Second, "AgentList to succeed after the status ping", func() bool {
		_, err := d.Owned().AgentList(ctx)
		return err == nil
	})
}

// A call whose connection herdr does not accept in time (herdr slow to accept a burst of
// calls, docs/herdr.md §2.2) fails alone, marked not sent: the session stays up, so the
// next call goes through at once and nothing in flight or waiting fails with it.
func TestDriverSlowAcceptFailsOnlyThatCall(t *testing.T) {
	s := newScripted(t, func(req map[string]any) string {
		switch req["method"] {
		case "ping":
			return ok(req, `{"type":"pong","version":"0.8.0","protocol":20}`)
		default:
			return ok(req, `{"type":"agent_list","agents":[]}`)
		}
	})
	var slow atomic.Bool
	d := newTestDriver(t, Config{Sessions: staticSessions(SessionInfo{Name: "orcr", SocketPath: s.path}),
		dial: func(ctx context.Context, network, addr string) (net.Conn, error) {
			if slow.Load() {
				return nil, &net.OpError{Op: "dial", Net: network, Err: os.ErrDeadlineExceeded}
			}
			var nd net.Dialer
			return nd.DialContext(ctx, network, addr)
		}})
	ctx := context.Background()
	if _, err := d.Owned().AgentList(ctx); err != nil {
		t.Fatalf("AgentList: %v", err)
	}
	slow.Store(true)
	_, err := d.Owned().AgentList(ctx)
	if !IsUnreachable(err) || !errors.Is(err, ErrNotSent) {
		t.Fatalf("AgentList while herdr accepts nothing in time: got %v, want herdr_unreachable marked not sent", err)
	}
	slow.Store(false)
	if _, err := d.Owned().AgentList(ctx); err != nil {
		t.Fatalf("AgentList once herdr accepts again: %v (the slow accept took the session down)", err)
	}
	if n := d.Restarts("orcr"); n != 0 {
		t.Errorf("the session was restarted %d times for one slow accept", n)
	}
}

// A call herdr took but answered after the call's deadline fails alone, as sent (herdr
// may have acted on it); the session stays up (docs/herdr.md §2.2): a herdr busy with
// earlier work is slow, not gone.
func TestDriverSlowAnswerFailsOnlyThatCall(t *testing.T) {
	var slow atomic.Bool
	s := newScripted(t, func(req map[string]any) string {
		if req["method"] == "ping" {
			return ok(req, `{"type":"pong","version":"0.8.0","protocol":20}`)
		}
		if slow.Load() {
			time.Sleep(600 * time.Millisecond)
		}
		return ok(req, `{"type":"agent_list","agents":[]}`)
	})
	d := newTestDriver(t, Config{Sessions: staticSessions(SessionInfo{Name: "orcr", SocketPath: s.path}), Timeout: 200 * time.Millisecond})
	ctx := context.Background()
	if _, err := d.Owned().AgentList(ctx); err != nil {
		t.Fatalf("AgentList: %v", err)
	}
	slow.Store(true)
	_, err := d.Owned().AgentList(ctx)
	if !IsUnreachable(err) || errors.Is(err, ErrNotSent) {
		t.Fatalf("AgentList answered after its deadline: got %v, want herdr_unreachable, not marked not sent", err)
	}
	slow.Store(false)
	if _, err := d.Owned().AgentList(ctx); err != nil {
		t.Fatalf("AgentList once herdr answers in time: %v (the slow answer took the session down)", err)
	}
	if n := d.Restarts("orcr"); n != 0 {
		t.Errorf("the session was restarted %d times for one slow answer", n)
	}
}

// A structural op that waited its turn behind another past its caller's deadline is
// answered as not sent (docs/herdr.md §2.2): it had not started, and once launched with
// its deadline gone it fails at its first connect, so the caller may ask again.
func TestDriverOpQueuedPastItsDeadlineIsNotSent(t *testing.T) {
	holding := make(chan struct{}, 1)
	s := newScripted(t, func(req map[string]any) string {
		switch req["method"] {
		case "ping":
			return ok(req, `{"type":"pong","version":"0.8.0","protocol":20}`)
		case "workspace.list":
			holding <- struct{}{}
			time.Sleep(1500 * time.Millisecond) // the first op holds the structural turn
			return ok(req, `{"type":"workspace_list","workspaces":[{"workspace_id":"w1","number":1,"label":"a","focused":false,"pane_count":1,"tab_count":1,"active_tab_id":"w1:t1","agent_status":"none"}]}`)
		default:
			return ok(req, `{"type":"ok"}`)
		}
	})
	d := newTestDriver(t, Config{Sessions: staticSessions(SessionInfo{Name: "orcr", SocketPath: s.path})})
	if _, err := d.Owned().Ping(context.Background()); err != nil {
		t.Fatalf("Ping: %v", err)
	}
	first := make(chan error, 1)
	go func() {
		_, err := d.Owned().EnsureWorkspace(context.Background(), "a")
		first <- err
	}()
	<-holding // the first holds the turn: its workspace.list takes 1.5 s
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := d.Owned().EnsureWorkspace(ctx, "a")
	if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, ErrNotSent) {
		t.Errorf("an op queued past its deadline: got %v, want the deadline, marked not sent", err)
	}
	if err := <-first; err != nil {
		t.Errorf("the first op: %v", err)
	}
}

// A session's calls in flight are bounded (Config.MaxCalls, docs/herdr.md §2.4): the
// calls past the bound wait in orcr, not inside herdr, and one whose deadline passes
// while it waits was not sent, so it may be asked again.
func TestDriverBoundsCallsInFlight(t *testing.T) {
	const bound, calls = 3, 10
	var cur, most atomic.Int32
	release := make(chan struct{})
	s := newScripted(t, func(req map[string]any) string {
		if req["method"] == "ping" {
			return ok(req, `{"type":"pong","version":"0.8.0","protocol":20}`)
		}
		n := cur.Add(1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		<-release
		cur.Add(-1)
		return ok(req, `{"type":"agent_list","agents":[]}`)
	})
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	t.Cleanup(free) // before the scripted herdr's cleanup, which waits for its handlers
	d := newTestDriver(t, Config{Sessions: staticSessions(SessionInfo{Name: "orcr", SocketPath: s.path}), MaxCalls: bound})
	if _, err := d.Owned().Ping(context.Background()); err != nil {
		t.Fatalf("Ping: %v", err)
	}
	errs := make(chan error, calls)
	for range calls {
		go func() {
			_, err := d.Owned().AgentList(context.Background())
			errs <- err
		}()
	}
	poll.Eventually(t, 10*time.Second, "the bound's worth of calls to reach herdr", func() bool { return cur.Load() == bound },
		func() string { return fmt.Sprintf("%d in herdr", cur.Load()) })
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := d.Owned().AgentList(ctx)
	if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, ErrNotSent) {
		t.Errorf("a call whose deadline passed while it waited for a slot: got %v, want the deadline, marked not sent", err)
	}
	lists := 0
	for _, r := range s.requests() {
		if r["method"] == "agent.list" {
			lists++
		}
	}
	if lists != bound {
		t.Errorf("herdr got %d of the %d calls made, want the bound, %d", lists, calls+1, bound)
	}
	free()
	for range calls {
		if err := <-errs; err != nil {
			t.Errorf("AgentList: %v", err)
		}
	}
	if m := most.Load(); m != bound {
		t.Errorf("at most %d calls were in herdr at once, want %d", m, bound)
	}
}
