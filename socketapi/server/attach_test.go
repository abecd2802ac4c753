package server_test

// Attach leases (docs/lifecycle.md §11.6, §12.2): agent.attach.prepare, heartbeat and
// release, and the GC deferring park and reap while a lease is fresh.

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/socketapi/sockettest"
	"github.com/orcr-go/orcr/tests/poll"
)

func prepare(t *testing.T, c *socketapi.Client, target string, takeover bool) api.AttachPrepareResult {
	t.Helper()
	res, err := c.AttachPrepare(context.Background(), api.AttachPrepareRequest{Target: target, Takeover: takeover, ClientPID: 99})
	if err != nil {
		t.Fatalf("agent.attach.prepare %s: %v", target, err)
	}
	return res
}

// heartbeatFor heartbeats lease every 250 ms for d, failing if the server does not
// know it.
func heartbeatFor(t *testing.T, c *socketapi.Client, lease string, d time.Duration) {
	t.Helper()
	// The sleep paces the heartbeats; it waits for nothing.
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(250 * time.Millisecond) {
		res, err := c.AttachHeartbeat(context.Background(), lease)
		if err != nil || !res.OK {
			t.Fatalf("agent.attach.heartbeat %s: %+v %v, want ok", lease, res, err)
		}
	}
}

func attachEvents(evs []ev, kind, lease string) []ev {
	var out []ev
	for _, e := range evs {
		if e.Kind == kind && e.LeaseID == lease {
			out = append(out, e)
		}
	}
	return out
}

// heartbeatUntilIdle keeps lease fresh until the agent is idle.
func heartbeatUntilIdle(t *testing.T, c *socketapi.Client, lease, uuid string) {
	t.Helper()
	poll.Eventually(t, 30*time.Second, "agent "+uuid+" idle", func() bool {
		if ls(t, c, map[string]any{"pattern": uuid})[0].Status == "idle" {
			return true
		}
		if res, err := c.AttachHeartbeat(context.Background(), lease); err != nil || !res.OK {
			t.Fatalf("heartbeat: %+v %v", res, err)
		}
		return false
	})
}

func seqOf(evs []ev, match func(ev) bool) int64 {
	for _, e := range evs {
		if match(e) {
			return e.Seq
		}
	}
	return 0
}

// Acceptance 5 (leases): a fresh lease keeps an idle gc-auto agent from being parked
// past idle_after; once heartbeats stop the lease expires by its TTL (attach.ended
// reason expired, from the GC tick) and the park follows. A lease on the parked agent
// keeps it from being reaped past kill_after; its release (attach.ended, no reason)
// lets the reap happen. prepare's command names the pane's current id and carries
// --takeover when asked.
func TestAttachLeaseDefersGCAndExpires(t *testing.T) {
	t.Parallel()
	srv := sockettest.NewServer(t, sockettest.WithHerdr(t), sockettest.WithConfig(
		// The lease TTL leaves room for a heartbeat delayed by a loaded machine (a 1 s TTL
		// expired once in ten full runs on 2 cores between two 100 ms heartbeats).
		// kill_after leaves room for the steps between the park and the takeover prepare
		// (a 1 s kill_after reaped the parked agent first once on a loaded machine).
		`{"timings": {"gc_tick": "100ms", "idle_after": "1s", "kill_after": "4s", "attach_lease_ttl": "3s"}}`))
	c := srv.Client(t)
	rec := record(t, c)
	// The lease is taken while the agent works: once idle, its streak is already older
	// than idle_after (it began before the turn completed), so a park can follow at once.
	a := runOK(t, c, map[string]any{"path": "att/gc", "prompt": "say=hi turn_ms=1500"})
	waitStatus(t, c, a.UUID, "working")
	pane, _ := paneOf(t, srv.HerdrSocket(), "att/gc")

	l1 := prepare(t, c, "att/gc", false)
	heartbeatUntilIdle(t, c, l1.LeaseID, a.UUID)
	bin := sockettest.BuildBinaries(t).HerdrBin
	wantCmd := []string{bin, "--session", "orcr", "agent", "attach", pane.PaneID}
	wantFallback := []string{bin, "--session", "orcr", "terminal", "attach", pane.TerminalID}
	if l1.UUID != a.UUID || l1.Path != "att/gc" || l1.TTLMS != 3000 || l1.Takeover || l1.LeaseID == "" ||
		!slices.Equal(l1.Command, wantCmd) || !slices.Equal(l1.FallbackCommand, wantFallback) {
		t.Errorf("prepare: got %+v, want ttl 3000, observe, command %v, fallback %v", l1, wantCmd, wantFallback)
	}
	heartbeatFor(t, c, l1.LeaseID, 2500*time.Millisecond) // well past idle_after
	if st := statusEvents(rec.events(), a.UUID); slices.Contains(st, "parked") {
		t.Fatalf("parked while a fresh lease was held: %v", st)
	}
	if row := ls(t, c, map[string]any{"pattern": a.UUID})[0]; row.Status != "idle" {
		t.Fatalf("after 2.5 s of heartbeats: %+v, want still idle", row)
	}
	evs := rec.waitFor(t, 10*time.Second, "the lease to expire, then the park", func(evs []ev) bool {
		st := statusEvents(evs, a.UUID)
		return len(attachEvents(evs, "attach.ended", l1.LeaseID)) == 1 && len(st) > 0 && st[len(st)-1] == "parked"
	})
	ended := attachEvents(evs, "attach.ended", l1.LeaseID)[0]
	if ended.Reason != "expired" || ended.UUID != a.UUID {
		t.Errorf("attach.ended of the unrenewed lease: %+v, want reason expired", ended)
	}
	if started := attachEvents(evs, "attach.started", l1.LeaseID); len(started) != 1 || started[0].Mode != "observe" {
		t.Errorf("attach.started: %+v, want one, mode observe", started)
	}
	parkedAt := seqOf(evs, func(e ev) bool {
		return e.Kind == "agent.status_changed" && e.UUID == a.UUID && e.Row != nil && e.Row.Status == "parked"
	})
	if ended.Seq > parkedAt {
		t.Errorf("parked at seq %d before the lease ended at %d", parkedAt, ended.Seq)
	}
	if res, err := c.AttachHeartbeat(context.Background(), l1.LeaseID); err != nil || res.OK {
		t.Errorf("heartbeat of the expired lease: %+v %v, want ok false", res, err)
	}

	parked, _ := paneOf(t, srv.HerdrSocket(), "att/gc")
	l2 := prepare(t, c, a.UUID, true)
	if !l2.Takeover || !slices.Equal(l2.Command, []string{bin, "--session", "orcr", "agent", "attach", parked.PaneID, "--takeover"}) ||
		!slices.Equal(l2.FallbackCommand, []string{bin, "--session", "orcr", "terminal", "attach", parked.TerminalID, "--takeover"}) {
		t.Errorf("takeover prepare on the parked agent: %+v, want its new pane id %s and --takeover", l2, parked.PaneID)
	}
	heartbeatFor(t, c, l2.LeaseID, 5*time.Second) // past kill_after since the park
	if row := ls(t, c, map[string]any{"pattern": a.UUID})[0]; row.Status != "parked" {
		t.Fatalf("after 5 s of heartbeats on the parked agent: %+v, want still parked", row)
	}
	if res, err := c.AttachRelease(context.Background(), l2.LeaseID); err != nil || !res.Released {
		t.Fatalf("release: %+v %v, want released", res, err)
	}
	got := waitStatus(t, c, a.UUID, "ended")
	if got.ExitReason != "reaped" {
		t.Errorf("after the release: %+v, want reaped", got)
	}
	evs = rec.waitFor(t, 10*time.Second, "attach.ended of the released lease", func(evs []ev) bool {
		return len(attachEvents(evs, "attach.ended", l2.LeaseID)) == 1
	})
	if e := attachEvents(evs, "attach.ended", l2.LeaseID)[0]; e.Reason != "" {
		t.Errorf("attach.ended of a release: reason %q, want none", e.Reason)
	}
	if s := attachEvents(evs, "attach.started", l2.LeaseID); len(s) != 1 || s[0].Mode != "takeover" {
		t.Errorf("attach.started of the takeover lease: %+v, want mode takeover", s)
	}
	if res, err := c.AttachRelease(context.Background(), l2.LeaseID); err != nil || res.Released {
		t.Errorf("second release: %+v %v, want released false", res, err)
	}
}

// prepare refuses rows with no pane to attach to (state_conflict with current_status);
// heartbeat and release need a lease_id and answer false for one that is not stored.
func TestAttachRefusals(t *testing.T) {
	t.Parallel()
	// One slot, held by an idle row made first: the queue never promotes the queued row
	// while the test looks at it (it did, once, between its set and its prepare).
	srv := sockettest.NewServer(t, sockettest.WithConfig(`{"concurrency": {"max": 1}}`))
	c := srv.Client(t)
	ctx := context.Background()
	if err := c.Call(ctx, "__debug.set_agent", map[string]any{"uuid": "0190a000-0000-7000-8000-000000000000", "path": "att/holder", "status": "idle"}, nil); err != nil {
		t.Fatalf("__debug.set_agent: %v", err)
	}
	for i, status := range []string{"queued", "starting", "ended", "lost", "idle"} {
		uuid := "0190a000-0000-7000-8000-00000000000" + string(rune('1'+i))
		path := "att/" + status
		if err := c.Call(ctx, "__debug.set_agent", map[string]any{"uuid": uuid, "path": path, "status": status}, nil); err != nil {
			t.Fatalf("__debug.set_agent: %v", err)
		}
		_, err := c.AttachPrepare(ctx, api.AttachPrepareRequest{Target: path})
		e, ok := wire.As(err)
		if !ok || e.Code != wire.StateConflict || e.Details["current_status"] != status {
			t.Errorf("prepare of a %s row (no pane): got %v, want state_conflict with current_status %s", status, err, status)
		}
	}
	for _, tc := range []struct {
		target, code, reason string
	}{{"", "invalid_request", "target_required"}, {"att/*", "invalid_request", "wildcard_not_allowed"}, {"att/nosuch", "not_found", ""}} {
		_, err := c.AttachPrepare(ctx, api.AttachPrepareRequest{Target: tc.target})
		if e, ok := wire.As(err); !ok || string(e.Code) != tc.code || e.Reason() != tc.reason {
			t.Errorf("prepare %q: got %v, want %s %s", tc.target, err, tc.code, tc.reason)
		}
	}
	if _, err := c.AttachHeartbeat(ctx, ""); !wire.Is(err, wire.InvalidRequest, "lease_required") {
		t.Errorf("heartbeat without lease_id: got %v, want invalid_request lease_required", err)
	}
	if _, err := c.AttachRelease(ctx, ""); !wire.Is(err, wire.InvalidRequest, "lease_required") {
		t.Errorf("release without lease_id: got %v, want invalid_request lease_required", err)
	}
	if res, err := c.AttachHeartbeat(ctx, "0190a000-0000-4000-8000-000000000000"); err != nil || res.OK {
		t.Errorf("heartbeat of an unknown lease: %+v %v, want ok false", res, err)
	}
	if res, err := c.AttachRelease(ctx, "0190a000-0000-4000-8000-000000000000"); err != nil || res.Released {
		t.Errorf("release of an unknown lease: %+v %v, want released false", res, err)
	}
}

// Leases are stored (docs/lifecycle.md §11.6, Q9): a lease taken before a server stop
// still defers the park after the restart, the new server renews and releases it, and
// the park follows the release.
func TestAttachLeaseSurvivesRestart(t *testing.T) {
	t.Parallel()
	withHerdr := sockettest.WithHerdr(t)
	home := sockettest.TempHome(t)
	cfg := sockettest.WithConfig(`{"timings": {"gc_tick": "100ms", "idle_after": "1s", "attach_lease_ttl": "1m"}}`)
	srv1 := sockettest.NewServer(t, withHerdr, sockettest.WithHome(home), cfg)
	c1 := srv1.Client(t)
	a := runOK(t, c1, map[string]any{"path": "att/restart", "prompt": "say=hi turn_ms=1500"})
	waitStatus(t, c1, a.UUID, "working")
	lease := prepare(t, c1, "att/restart", false) // while working: see TestAttachLeaseDefersGCAndExpires
	waitStatus(t, c1, a.UUID, "idle")
	srv1.Stop()
	if err := srv1.Wait(); err != nil {
		t.Fatalf("first server stop: %v", err)
	}

	srv2 := sockettest.NewServer(t, withHerdr, sockettest.WithHome(home), cfg)
	c2 := srv2.Client(t)
	time.Sleep(2 * time.Second) // past idle_after, many GC ticks
	if row := ls(t, c2, map[string]any{"pattern": a.UUID})[0]; row.Status != "idle" {
		t.Fatalf("after the restart: %+v, want still idle under the stored lease", row)
	}
	if res, err := c2.AttachHeartbeat(context.Background(), lease.LeaseID); err != nil || !res.OK {
		t.Fatalf("heartbeat on the new server: %+v %v, want ok", res, err)
	}
	if res, err := c2.AttachRelease(context.Background(), lease.LeaseID); err != nil || !res.Released {
		t.Fatalf("release on the new server: %+v %v, want released", res, err)
	}
	waitStatus(t, c2, a.UUID, "parked")
}
