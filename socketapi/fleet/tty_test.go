package fleet

import (
	"bytes"
	"context"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/tests/poll"
)

// leaseFacade hands out one attach lease whose command is argv, and counts heartbeats
// and releases.
type leaseFacade struct {
	argv       []string
	heartbeats atomic.Int32
	releases   atomic.Int32
}

func (f *leaseFacade) AttachPrepare(_ context.Context, r api.AttachPrepareRequest) (api.AttachPrepareResult, error) {
	if r.Target != "job/one" {
		return api.AttachPrepareResult{}, wire.New(wire.NotFound, "no agent "+r.Target)
	}
	return api.AttachPrepareResult{UUID: "u1", Path: "job/one", LeaseID: "l1", Takeover: r.Takeover, TTLMS: 2000, Command: f.argv}, nil
}

func (f *leaseFacade) AttachHeartbeat(context.Context, api.LeaseRequest) (api.HeartbeatResult, error) {
	f.heartbeats.Add(1)
	return api.HeartbeatResult{OK: true}, nil
}

func (f *leaseFacade) AttachRelease(context.Context, api.LeaseRequest) (api.ReleaseResult, error) {
	f.releases.Add(1)
	return api.ReleaseResult{Released: true}, nil
}

// screen is a caller's terminal output, read while it is written.
type screen struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *screen) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// attachPair is a hub and a member web serving attaches with f (policy: agent.attach
// for every caller but "db").
func attachPair(t *testing.T, f AttachFacade) (hub *Member) {
	t.Helper()
	dir := t.TempDir()
	tok, err := EnsureToken(dir)
	if err != nil {
		t.Fatal(err)
	}
	h, err := StartHub(dir, config.FleetHub{Listen: "127.0.0.1:0"}, tok, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	hub, _ = joinAs(t, h.URL(), "hub", tok)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := hub.Setup(ctx, MemberInfo{Host: "hub", ID: "id-hub"}); err != nil {
		t.Fatal(err)
	}
	web, _ := joinAs(t, h.URL(), "web", tok)
	if err := web.Setup(ctx, MemberInfo{Host: "web", ID: "id-web"}); err != nil {
		t.Fatal(err)
	}
	resp, err := web.Serve(lsFacade{host: "web"}, func(string) ([]string, string) { return nil, "fleet.allow" })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(resp.Close)
	a, err := web.ServeAttach(f, func(caller string) ([]string, string) {
		if caller == "db" {
			return []string{"agent.ls"}, "fleet.allow"
		}
		return []string{config.FleetAttachVerb}, "fleet.allow"
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	return hub
}

// The attach relay (docs/fleet.md §4.10): the member runs the lease's command under a
// PTY, the caller's keys reach it and its output comes back, its exit status ends the
// caller's Attach, and the lease is renewed while it runs and released once.
func TestAttachRelay(t *testing.T) {
	t.Parallel()
	f := &leaseFacade{argv: []string{"sh", "-c", "stty -echo; echo ready; read line; sleep 2.5; echo got:$line; exit 3"}}
	hub := attachPair(t, f)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	inR, inW := io.Pipe()
	defer inW.Close()
	out := &screen{}
	var opened api.AttachPrepareResult
	done := make(chan struct{})
	var code int
	var werr *wire.Error
	go func() {
		defer close(done)
		code, werr = hub.Attach(ctx, "web", "job/one", true, TTY{In: inR, Out: out, Cols: 100, Rows: 30,
			Opened: func(r api.AttachPrepareResult) { opened = r }})
	}()
	poll.Eventually(t, 10*time.Second, "the command's first line", func() bool { return strings.Contains(out.String(), "ready") }, out.String)
	if _, err := inW.Write([]byte("hello\n")); err != nil {
		t.Fatal(err)
	}
	<-done
	if werr != nil || code != 3 || !strings.Contains(out.String(), "got:hello") || opened.Path != "job/one" || !opened.Takeover {
		t.Fatalf("attach: code %d err %v opened %+v, output %q", code, werr, opened, out.String())
	}
	poll.Eventually(t, 5*time.Second, "the lease released", func() bool { return f.releases.Load() == 1 })
	if f.heartbeats.Load() < 1 {
		t.Errorf("no heartbeat in a session longer than half the lease's TTL")
	}

	// An unknown agent is the member's own error; a caller outside the policy is refused.
	if _, werr := hub.Attach(ctx, "web", "job/none", false, TTY{In: strings.NewReader(""), Out: io.Discard}); werr == nil || werr.Code != wire.NotFound {
		t.Fatalf("attach of an unknown agent: %v, want not_found", werr)
	}
}

// A caller that leaves (its ctx ends) is hung up on: the member's command gets SIGHUP
// (and SIGKILL when it ignores that) and the caller's Attach returns its status, the
// lease released — also when the command left a process behind that ignores the
// hang-up.
func TestAttachCallerLeaves(t *testing.T) {
	t.Parallel()
	// A child that ignores the hang-up keeps the PTY open: the member kills the
	// command's process group, so the session still ends.
	f := &leaseFacade{argv: []string{"sh", "-c", "(trap '' HUP; sleep 60) & echo ready; wait; echo after"}}
	hub := attachPair(t, f)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := &screen{}
	done := make(chan int, 1)
	inR, inW := io.Pipe()
	defer inW.Close()
	go func() {
		code, werr := hub.Attach(ctx, "web", "job/one", false, TTY{In: inR, Out: out})
		if werr != nil {
			t.Errorf("attach: %v", werr)
		}
		done <- code
	}()
	poll.Eventually(t, 10*time.Second, "the command's first line", func() bool { return strings.Contains(out.String(), "ready") }, out.String)
	cancel()
	select {
	case code := <-done:
		// SIGHUP ends it (129), or, when it ignores SIGHUP — as every child of a
		// process started under nohup does, the test's included — SIGKILL 5 s later (137).
		if code != 128+int(syscall.SIGHUP) && code != 128+int(syscall.SIGKILL) {
			t.Errorf("the hung-up command's status %d, want 129 (SIGHUP) or 137 (SIGKILL)", code)
		}
	case <-time.After(ttyGiveUp + 5*time.Second):
		t.Fatal("the caller's Attach did not end after it left")
	}
	poll.Eventually(t, 5*time.Second, "the lease released", func() bool { return f.releases.Load() == 1 })
}
