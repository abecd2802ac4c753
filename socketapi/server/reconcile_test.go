package server_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/orcr-go/orcr/herdr"
	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/sockettest"
	"github.com/orcr-go/orcr/store"
	"github.com/orcr-go/orcr/tests/poll"
)

// closeBehindOrcrsBack closes a pane straight through herdr's socket, as a user or a
// crash would.
func closeBehindOrcrsBack(t *testing.T, sock, paneID string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := herdr.NewRemote(sock).Close(ctx, paneID); err != nil {
		t.Fatalf("close pane %s: %v", paneID, err)
	}
}

func idleAgent(t *testing.T, c *socketapi.Client, path string) agentRow {
	t.Helper()
	a, err := run(t, c, map[string]any{"path": path, "gc": "never", "prompt": "turn_ms=20"})
	if err != nil {
		t.Fatal(err)
	}
	return waitStatus(t, c, a.UUID, "idle")
}

func drift(t *testing.T, c *socketapi.Client) map[string]int64 {
	t.Helper()
	st, err := c.Status(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return st.Drift
}

// Acceptance 2 of the reconciler: a pane closed behind orcr's back makes its agent lost
// at the next pass (its slot free, its path still held), then ended lost at a later
// pass; the path is free again. The passes are 5 s apart, so the lost row is still
// there when the test tries its path (at 200 ms a loaded machine saw it ended first).
func TestPaneClosedBehindOrcrsBackIsLostThenEnded(t *testing.T) {
	t.Parallel()
	srv := sockettest.NewServer(t, sockettest.WithHerdr(t), sockettest.WithConfig(`{"timings": {"gc_tick": "5s"}}`))
	c := srv.Client(t)
	rec := record(t, c)
	a := idleAgent(t, c, "rc/a")
	closeBehindOrcrsBack(t, srv.HerdrSocket(), *a.PaneID)

	lost := waitStatus(t, c, a.UUID, "lost", "ended")
	if lost.Status != "lost" {
		t.Fatalf("after the pane closed: %+v, want lost first", lost)
	}
	// The path is still held while lost.
	if _, err := run(t, c, map[string]any{"path": "rc/a", "gc": "never"}); !api.IsCode(err, api.CodeStateConflict) {
		t.Errorf("run at a lost agent's path: got %v, want state_conflict", err)
	}
	ended := waitStatus(t, c, a.UUID, "ended")
	if ended.ExitReason != "lost" {
		t.Errorf("ended with %q, want lost", ended.ExitReason)
	}
	evs := rec.waitFor(t, 10*time.Second, "agent.ended", func(evs []ev) bool { return len(kinds(evs, "agent.ended")) == 1 })
	var statuses []string
	for _, e := range evs {
		if e.Kind == "agent.status_changed" && e.UUID == a.UUID && e.Row != nil {
			statuses = append(statuses, e.Row.Status)
		}
	}
	if n := len(statuses); n < 2 || statuses[n-2] != "lost" || statuses[n-1] != "ended" {
		t.Errorf("status events %v, want … lost, ended", statuses)
	}
	if _, err := run(t, c, map[string]any{"path": "rc/a", "gc": "never"}); err != nil {
		t.Errorf("run at the path after ended(lost): %v", err)
	}
}

// Acceptance 3: send to an agent whose pane is gone answers a typed error naming the
// status, marks the row lost, leaves nothing stuck; the next wait settles lost.
func TestSendToPanelessAgentIsTypedAndLost(t *testing.T) {
	t.Parallel()
	// A long tick: the send, not the reconciler, finds the pane gone.
	srv := sockettest.NewServer(t, sockettest.WithHerdr(t), sockettest.WithConfig(`{"timings": {"gc_tick": "1h"}}`))
	c := srv.Client(t)
	a := idleAgent(t, c, "rs/a")
	closeBehindOrcrsBack(t, srv.HerdrSocket(), *a.PaneID)

	_, err := c.Send(t.Context(), api.SendRequest{Target: a.UUID, Prompt: "turn_ms=20"})
	var pe *api.Error
	if !errors.As(err, &pe) || pe.Code == api.CodeServerError || pe.Details["current_status"] != "lost" {
		t.Fatalf("send to a pane-less agent: got %v (%+v), want not_found or state_conflict with current_status lost", err, pe)
	}
	if row := ls(t, c, map[string]any{"pattern": a.UUID})[0]; row.Status != "lost" {
		t.Errorf("row after the failed send: %+v, want lost", row)
	}
	w, err := c.Wait(t.Context(), api.WaitRequest{Targets: []string{a.UUID}, Timeout: "10s"})
	if err != nil || w.TimedOut || len(w.Targets) != 1 || w.Targets[0].Reason != "lost" {
		t.Errorf("wait on the lost agent: %+v %v, want settled lost", w, err)
	}
	// A second send is refused at once, the row unchanged.
	if _, err := c.Send(t.Context(), api.SendRequest{Target: a.UUID, Prompt: "x"}); !errors.As(err, &pe) || pe.Code == api.CodeServerError {
		t.Errorf("second send: %v", err)
	}
}

// Q4: a lost row whose terminal is visible revives with herdr's status (here idle, no
// open turn) — here across a restart: the row was marked lost while the server was
// down and its pane kept running.
func TestLostRowRevivesWhenItsTerminalIsVisible(t *testing.T) {
	t.Parallel()
	withHerdr := sockettest.WithHerdr(t)
	home := sockettest.TempHome(t)
	srv1 := sockettest.NewServer(t, withHerdr, sockettest.WithHome(home))
	a := idleAgent(t, srv1.Client(t), "rv/a")
	srv1.Stop()
	if err := srv1.Wait(); err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(home + "/orcr.db")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := db.Apply([]store.Op{func(tx *store.Tx) (any, error) { return nil, tx.MarkLost(a.UUID) }}); err != nil {
		t.Fatal(err)
	}
	db.Close()

	srv2 := sockettest.NewServer(t, withHerdr, sockettest.WithHome(home))
	c := srv2.Client(t)
	row := waitStatus(t, c, a.UUID, "idle", "ended")
	if row.Status != "idle" {
		t.Fatalf("lost row with a live pane after the start pass: %+v, want idle", row)
	}
	// The reconciler counts a repair when the agent's answer reaches it, a moment after
	// the row changed, so the count is polled (docs/lifecycle.md §13.4).
	poll.Eventually(t, 10*time.Second, "the revival counted in drift (repaired ≥ 1, lost 0)", func() bool {
		d := drift(t, c)
		return d["repaired"] >= 1 && d["lost"] == 0
	})
	// Alive for real: it takes a turn.
	if _, err := c.Send(t.Context(), api.SendRequest{Target: a.UUID, Prompt: "say=back turn_ms=20"}); err != nil {
		t.Fatal(err)
	}
	if w, err := c.Wait(t.Context(), api.WaitRequest{Targets: []string{a.UUID}, Timeout: "30s"}); err != nil || !w.AllOK {
		t.Errorf("turn after the revival: %+v %v", w, err)
	}
}

// Drift: owned-session panes no row claims are counted, marked or not, and left alone.
func TestDriftCountsUnclaimedPanes(t *testing.T) {
	t.Parallel()
	srv := sockettest.NewServer(t, sockettest.WithHerdr(t), sockettest.WithConfig(`{"timings": {"gc_tick": "200ms"}}`))
	c := srv.Client(t)
	a := idleAgent(t, c, "rd/a")
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	r := herdr.NewRemote(srv.HerdrSocket())
	p, err := r.PaneGet(ctx, *a.PaneID)
	if err != nil {
		t.Fatal(err)
	}
	_, shell, err := r.LayoutApply(ctx, p.WorkspaceID, "stray", []string{"sh", "-c", "sleep 300"}, "/", "stray", nil)
	if err != nil {
		t.Fatal(err)
	}
	poll.Eventually(t, 10*time.Second, "the stray pane counted", func() bool { return drift(t, c)["unmarked_panes"] == 1 })
	if _, err := r.PaneGet(ctx, shell); err != nil {
		t.Errorf("the stray pane was touched: %v", err)
	}
	st, err := c.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Counts["unmarked_panes"] != 1 || st.Counts["live"] != 1 {
		t.Errorf("counts: %v", st.Counts)
	}
}

// The GC never retries an agent that has no pane: whichever finds the pane gone first
// (a park, or the reconciler) marks it lost, and no park is tried after that.
func TestGCDoesNotRetryPanelessAgent(t *testing.T) {
	t.Parallel()
	srv := sockettest.NewServer(t, sockettest.WithHerdr(t),
		// idle_after well above the mock's idle_stable: the idle streak begins before the
		// turn completes, so a shorter one can park the agent before it is seen idle.
		sockettest.WithConfig(`{"timings": {"gc_tick": "200ms", "idle_after": "4s"}}`))
	c := srv.Client(t)
	rec := record(t, c)
	a, err := run(t, c, map[string]any{"path": "rg/a", "prompt": "turn_ms=20"}) // gc auto
	if err != nil {
		t.Fatal(err)
	}
	row := waitStatus(t, c, a.UUID, "idle")
	closeBehindOrcrsBack(t, srv.HerdrSocket(), *row.PaneID)
	ended := waitStatus(t, c, a.UUID, "ended")
	if ended.ExitReason != "lost" {
		t.Errorf("ended %q, want lost", ended.ExitReason)
	}
	// Between lost and ended(lost) at least one more GC tick passed: still at most the
	// one park that found the pane gone, and nothing for the agent after it ended.
	seq := rec.waitFor(t, 10*time.Second, "agent.ended", func(evs []ev) bool { return len(kinds(evs, "agent.ended")) == 1 })
	last := seq[len(seq)-1].Seq
	if _, err := run(t, c, map[string]any{"path": "rg/b", "gc": "never", "prompt": "turn_ms=20"}); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, c, ls(t, c, map[string]any{"pattern": "rg/b"})[0].UUID, "idle") // more ticks pass meanwhile
	moves := 0
	for _, e := range rec.events() {
		if e.Kind == "agent.move_requested" && e.UUID == a.UUID {
			moves++
		}
		if e.Seq > last && e.UUID == a.UUID {
			t.Errorf("event for the ended agent after it ended: %+v", e)
		}
	}
	if moves > 1 {
		t.Errorf("%d park attempts on a pane-less agent, want at most 1", moves)
	}
}
