package server_test

// Garbage collection (docs/lifecycle.md §12): parking idle gc-auto agents into workspace
// idle, un-parking on send, reaping parked agents, against the herdr stand-in and the
// mock agent. Timings are shortened through the config; every wait is a poll with a
// deadline.

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/orcr-go/orcr/actors"
	"github.com/orcr-go/orcr/herdr"
	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/sockettest"
	"github.com/orcr-go/orcr/store"
	"github.com/orcr-go/orcr/tests/poll"
)

// gcConfig is a config document with fast GC timings.
func gcConfig(extra string, killAfter string) string {
	doc := `{"timings": {"gc_tick": "1s", "idle_after": "2s", "kill_after": "` + killAfter + `"}`
	if extra != "" {
		doc += ", " + extra
	}
	return doc + "}"
}

// paneOf returns the single pane labelled path and the label of its workspace.
func paneOf(t *testing.T, sock, path string) (herdr.PaneInfo, string) {
	t.Helper()
	panes := panesUnder(t, sock, path)
	var mine []herdr.PaneInfo
	for _, p := range panes {
		if at, _ := actors.PanePath(p.Label); at == path {
			mine = append(mine, p)
		}
	}
	if len(mine) != 1 {
		t.Fatalf("panes labelled %s: got %+v, want exactly one", path, mine)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	wss, err := herdr.NewRemote(sock).WorkspaceList(ctx)
	if err != nil {
		t.Fatalf("herdr workspace.list: %v", err)
	}
	for _, ws := range wss {
		if ws.WorkspaceID == mine[0].WorkspaceID {
			return mine[0], ws.Label
		}
	}
	t.Fatalf("pane %+v: workspace not listed in %+v", mine[0], wss)
	return herdr.PaneInfo{}, ""
}

// statusEvents returns the statuses of uuid's agent.status_changed events in order.
func statusEvents(evs []ev, uuid string) []string {
	var out []string
	for _, e := range evs {
		if e.Kind == "agent.status_changed" && e.UUID == uuid && e.Row != nil {
			out = append(out, e.Row.Status)
		}
	}
	return out
}

func countEvents(evs []ev, kind, uuid string) int {
	n := 0
	for _, e := range evs {
		if e.Kind == kind && e.UUID == uuid {
			n++
		}
	}
	return n
}

// movePairs returns uuid's move intents and their applied outcome (op id → ok; nil =
// still open), failing if an applied precedes its intent.
func movePairs(t *testing.T, evs []ev, uuid string) map[string]*bool {
	t.Helper()
	pairs := map[string]*bool{}
	for _, e := range evs {
		if e.UUID != uuid {
			continue
		}
		switch e.Kind {
		case "agent.move_requested":
			pairs[e.OpID] = nil
		case "agent.move_applied":
			if _, ok := pairs[e.OpID]; !ok {
				t.Fatalf("move_applied %s without a prior move_requested", e.OpID)
			}
			pairs[e.OpID] = e.OK
		}
	}
	return pairs
}

func runOK(t *testing.T, c *socketapi.Client, params map[string]any) agentRow {
	t.Helper()
	a, err := run(t, c, params)
	if err != nil {
		t.Fatalf("agent.run %v: %v", params, err)
	}
	return a
}

// An idle gc-auto agent is parked after idle_after: its pane moves to workspace idle
// with the same terminal, and the stream carries the move pair, location_changed and
// status_changed(parked), in that order relative to the intent.
func TestGCParksIdleAgent(t *testing.T) {
	t.Parallel()
	srv := sockettest.NewServer(t, sockettest.WithHerdr(t), sockettest.WithConfig(gcConfig("", "60s")))
	c := srv.Client(t)
	rec := record(t, c)
	a := runOK(t, c, map[string]any{"path": "gcp/one", "prompt": "say=hi turn_ms=200"})
	waitStatus(t, c, a.UUID, "idle")
	before, ws := paneOf(t, srv.HerdrSocket(), "gcp/one")
	if ws != "gcp" {
		t.Fatalf("idle agent's pane in workspace %q, want gcp", ws)
	}
	evs := rec.waitFor(t, 20*time.Second, "status_changed(parked)", func(evs []ev) bool {
		st := statusEvents(evs, a.UUID)
		return len(st) > 0 && st[len(st)-1] == "parked"
	})
	after, ws := paneOf(t, srv.HerdrSocket(), "gcp/one")
	if ws != "idle" {
		t.Errorf("parked agent's pane in workspace %q, want idle", ws)
	}
	if after.TerminalID != before.TerminalID {
		t.Errorf("terminal id changed by the park: %s → %s", before.TerminalID, after.TerminalID)
	}
	if row := ls(t, c, map[string]any{"pattern": a.UUID})[0]; row.Status != "parked" || row.PaneID == nil || *row.PaneID != after.PaneID {
		t.Errorf("parked row: got %+v, want status parked at pane %s", row, after.PaneID)
	}
	pairs := movePairs(t, evs, a.UUID)
	if len(pairs) != 1 {
		t.Fatalf("move pairs: got %v, want one", pairs)
	}
	for op, ok := range pairs {
		if ok == nil || !*ok {
			t.Errorf("move %s: applied ok = %v, want true", op, ok)
		}
	}
	// Order: move_requested, then the second location_changed and status_changed(parked).
	var reqSeq, locSeq, parkSeq int64
	for _, e := range evs {
		if e.UUID != a.UUID {
			continue
		}
		switch {
		case e.Kind == "agent.move_requested":
			reqSeq = e.Seq
		case e.Kind == "agent.location_changed":
			locSeq = e.Seq
		case e.Kind == "agent.status_changed" && e.Row != nil && e.Row.Status == "parked":
			parkSeq = e.Seq
		}
	}
	if !(reqSeq > 0 && reqSeq < locSeq && locSeq < parkSeq) {
		t.Errorf("event order: move_requested %d, location_changed %d, status_changed(parked) %d", reqSeq, locSeq, parkSeq)
	}
	if n := countEvents(evs, "agent.location_changed", a.UUID); n != 2 {
		t.Errorf("location_changed events: got %d, want 2 (spawn, park)", n)
	}
}

// A send to a parked agent un-parks it first (pane back home, status idle), then
// delivers; the result says delivered_while parked and the turn completes.
func TestGCSendUnparks(t *testing.T) {
	t.Parallel()
	srv := sockettest.NewServer(t, sockettest.WithHerdr(t), sockettest.WithConfig(gcConfig("", "60s")))
	c := srv.Client(t)
	rec := record(t, c)
	a := runOK(t, c, map[string]any{"path": "gcs/one", "prompt": "say=hi turn_ms=200"})
	waitStatus(t, c, a.UUID, "parked")
	var sent struct {
		InputSeq       int64  `json:"input_seq"`
		DeliveredWhile string `json:"delivered_while"`
	}
	if err := c.Call(context.Background(), "agent.send", map[string]any{"target": "gcs/one", "prompt": "say=again turn_ms=200"}, &sent); err != nil {
		t.Fatalf("agent.send: %v", err)
	}
	if sent.InputSeq != 2 || sent.DeliveredWhile != "parked" {
		t.Errorf("send: got %+v, want input_seq 2 delivered while parked", sent)
	}
	// The un-park finished before the send answered; the agent works at home now (it
	// can park again only after another idle_after).
	if _, ws := paneOf(t, srv.HerdrSocket(), "gcs/one"); ws != "gcs" {
		t.Errorf("un-parked agent's pane in workspace %q, want gcs", ws)
	}
	// …parked, idle (un-park), working (the send), idle (turn complete)…
	unparked := func(st []string) bool {
		for i := 0; i+3 < len(st); i++ {
			if st[i] == "parked" && st[i+1] == "idle" && st[i+2] == "working" && st[i+3] == "idle" {
				return true
			}
		}
		return false
	}
	evs := rec.waitForD(t, 20*time.Second, "turn 2 completed after the un-park", func(evs []ev) bool {
		return countEvents(evs, "agent.turn_completed", a.UUID) >= 2 && unparked(statusEvents(evs, a.UUID))
	}, func(evs []ev) string { return fmt.Sprint(statusEvents(evs, a.UUID)) })
	pairs := movePairs(t, evs, a.UUID)
	if len(pairs) < 2 {
		t.Errorf("move pairs: got %v, want park and un-park", pairs)
	}
	for op, ok := range pairs {
		if ok == nil || !*ok {
			t.Errorf("move %s: applied ok = %v, want true", op, ok)
		}
	}
}

// A parked agent is reaped after kill_after: it ends reaped, its pane is closed, and the
// agent queued behind the cap is promoted into the freed slot.
func TestGCReapsParkedAgentAndPromotes(t *testing.T) {
	t.Parallel()
	srv := sockettest.NewServer(t, sockettest.WithHerdr(t),
		sockettest.WithConfig(gcConfig(`"concurrency": {"max": 1}`, "3s")))
	c := srv.Client(t)
	rec := record(t, c)
	a := runOK(t, c, map[string]any{"path": "gcr/one", "prompt": "say=hi turn_ms=200"})
	waitStatus(t, c, a.UUID, "idle", "parked")
	b := runOK(t, c, map[string]any{"path": "gcr/two", "prompt": "say=later", "gc": "never"})
	if got := ls(t, c, map[string]any{"pattern": b.UUID})[0]; got.Status != "queued" {
		t.Fatalf("second agent under max 1: status %s, want queued", got.Status)
	}
	got := waitStatus(t, c, a.UUID, "ended")
	if got.ExitReason != "reaped" {
		t.Errorf("exit_reason: got %q, want reaped", got.ExitReason)
	}
	// The stream may trail agent.ls: wait for the ended event itself.
	evsEnded := rec.waitFor(t, 10*time.Second, "status_changed(ended)", func(evs []ev) bool {
		st := statusEvents(evs, a.UUID)
		return len(st) > 0 && st[len(st)-1] == "ended"
	})
	if st := statusEvents(evsEnded, a.UUID); len(st) < 2 || st[len(st)-2] != "parked" {
		t.Errorf("statuses %v: want parked right before ended", st)
	}
	waitStatus(t, c, b.UUID, "working", "idle")
	poll.Eventually(t, 10*time.Second, "reaped pane closed", func() bool {
		for _, p := range panesUnder(t, srv.HerdrSocket(), "gcr") {
			if at, _ := actors.PanePath(p.Label); at == "gcr/one" {
				return false
			}
		}
		return true
	})
	evs := rec.waitFor(t, 10*time.Second, "close pair of the reap", func(evs []ev) bool {
		return countEvents(evs, "agent.close_applied", a.UUID) == 1
	})
	checkCaps(t, evs, 1, nil)
	// The reaped agent left nothing in flight (the promoted one may still be typing).
	for op, what := range openIntents(evs) {
		if strings.HasSuffix(what, " "+a.UUID) {
			t.Errorf("open intent of the reaped agent: %s %s", op, what)
		}
	}
}

// gc never and gc immediate agents are never parked: they stay idle (never; immediate
// without a prompt) or end completed (immediate with a prompt) while a gc-auto agent
// beside them is parked and reaped.
func TestGCNeverAndImmediateNotParked(t *testing.T) {
	t.Parallel()
	srv := sockettest.NewServer(t, sockettest.WithHerdr(t), sockettest.WithConfig(gcConfig("", "2s")))
	c := srv.Client(t)
	rec := record(t, c)
	never := runOK(t, c, map[string]any{"path": "gcn/never", "prompt": "say=hi turn_ms=200", "gc": "never"})
	immIdle := runOK(t, c, map[string]any{"path": "gcn/primed", "gc": "immediate"})
	imm := runOK(t, c, map[string]any{"path": "gcn/imm", "prompt": "say=hi turn_ms=200", "gc": "immediate"})
	waitStatus(t, c, never.UUID, "idle")
	waitStatus(t, c, immIdle.UUID, "idle")
	auto := runOK(t, c, map[string]any{"path": "gcn/auto", "prompt": "say=hi turn_ms=200"})
	// The control agent idles after the others, so by its reap the others were idle
	// for longer than idle_after + kill_after: many GC ticks have passed them by.
	if got := waitStatus(t, c, auto.UUID, "ended"); got.ExitReason != "reaped" {
		t.Fatalf("control agent: exit_reason %q, want reaped", got.ExitReason)
	}
	if got := waitStatus(t, c, imm.UUID, "ended"); got.ExitReason != "completed" {
		t.Errorf("gc immediate agent: exit_reason %q, want completed", got.ExitReason)
	}
	// Everything up to the control agent's end (and the immediate one's) is in the
	// stream before it is checked.
	evs := rec.waitFor(t, 10*time.Second, "both ended events", func(evs []ev) bool {
		return countEvents(evs, "agent.ended", auto.UUID) == 1 && countEvents(evs, "agent.ended", imm.UUID) == 1
	})
	for _, u := range []string{never.UUID, immIdle.UUID, imm.UUID} {
		for _, s := range statusEvents(evs, u) {
			if s == "parked" {
				t.Errorf("agent %s was parked: %v", u, statusEvents(evs, u))
			}
		}
		if n := countEvents(evs, "agent.move_requested", u); n > 0 {
			t.Errorf("agent %s: %d move intents, want none", u, n)
		}
	}
	for _, u := range []string{never.UUID, immIdle.UUID} {
		if row := ls(t, c, map[string]any{"pattern": u})[0]; row.Status != "idle" {
			t.Errorf("agent %s: status %s, want idle", u, row.Status)
		}
	}
}

// agent.wait on a parked agent settles at once with turn_complete.
func TestGCWaitOnParkedSettles(t *testing.T) {
	t.Parallel()
	srv := sockettest.NewServer(t, sockettest.WithHerdr(t), sockettest.WithConfig(gcConfig("", "60s")))
	c := srv.Client(t)
	a := runOK(t, c, map[string]any{"path": "gcw/one", "prompt": "say=hi turn_ms=200"})
	waitStatus(t, c, a.UUID, "parked")
	res := callWait(t, c, map[string]any{"targets": []string{"gcw/one"}, "timeout": "10s"})
	if len(res.Targets) != 1 {
		t.Fatalf("wait: got %+v", res)
	}
	if e := res.Targets[0]; e.Status != "parked" || e.Reason != "turn_complete" || !e.OK {
		t.Errorf("wait on parked: got %+v, want parked ok turn_complete", e)
	}
}

// A move cut off by a server stop is settled at restart (docs/lifecycle.md §13.3): a park
// whose pane already reached workspace idle is finished (parked), one whose pane never
// moved is rolled back (still idle); both intents are closed, and the recovered parked
// agent un-parks on send as usual.
func TestGCMoveRecoveryAtRestart(t *testing.T) {
	t.Parallel()
	withHerdr := sockettest.WithHerdr(t)
	home := sockettest.TempHome(t)
	cfg := sockettest.WithConfig(gcConfig("", "1h"))
	srv1 := sockettest.NewServer(t, withHerdr, sockettest.WithHome(home), cfg)
	c1 := srv1.Client(t)
	moved := runOK(t, c1, map[string]any{"path": "gcm/moved", "prompt": "say=hi turn_ms=100", "gc": "never"})
	stayed := runOK(t, c1, map[string]any{"path": "gcm/stayed", "prompt": "say=hi turn_ms=100", "gc": "never"})
	waitStatus(t, c1, moved.UUID, "idle")
	waitStatus(t, c1, stayed.UUID, "idle")
	var status struct {
		Store string `json:"store"`
	}
	if err := c1.Call(context.Background(), "server.status", map[string]any{}, &status); err != nil || status.Store == "" {
		t.Fatalf("server.status: %+v %v", status, err)
	}
	pane, _ := paneOf(t, srv1.HerdrSocket(), "gcm/moved")
	srv1.Stop()
	if err := srv1.Wait(); err != nil {
		t.Fatalf("first server stop: %v", err)
	}

	// Forge the crash: both rows hold a park lease with an open move intent; only the
	// first pane reached workspace idle before the "crash".
	db, err := store.Open(status.Store)
	if err != nil {
		t.Fatal(err)
	}
	ops := []store.Op{}
	for _, u := range []string{moved.UUID, stayed.UUID} {
		ops = append(ops, func(tx *store.Tx) (any, error) {
			if _, err := tx.Exec(`UPDATE agents SET move_state = 'parking', move_token = ? WHERE uuid = ?`, "tok-"+u, u); err != nil {
				return nil, err
			}
			_, _, err := tx.Intent(u, &api.AgentMoveRequested{Move: "park"})
			return nil, err
		})
	}
	if res, _, err := db.Apply(ops); err != nil {
		t.Fatalf("forge leases: %v", err)
	} else {
		for _, r := range res {
			if r.Err != nil {
				t.Fatalf("forge leases: %v", r.Err)
			}
		}
	}
	db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	remote := herdr.NewRemote(srv1.HerdrSocket())
	ws, err := remote.WorkspaceCreate(ctx, "idle", "")
	if err != nil {
		t.Fatalf("workspace.create idle: %v", err)
	}
	if _, err := remote.MoveToNewTab(ctx, pane.PaneID, ws.Workspace.WorkspaceID, "gcm/moved"); err != nil {
		t.Fatalf("pane.move: %v", err)
	}

	srv2 := sockettest.NewServer(t, withHerdr, sockettest.WithHome(home), cfg)
	c := srv2.Client(t)
	rec := record(t, c)
	waitStatus(t, c, moved.UUID, "parked")
	evs := rec.waitFor(t, 20*time.Second, "both move intents closed", func(evs []ev) bool {
		p1, p2 := movePairs(t, evs, moved.UUID), movePairs(t, evs, stayed.UUID)
		return len(p1) == 1 && len(p2) == 1 &&
			func() bool {
				for _, ok := range p1 {
					if ok == nil {
						return false
					}
				}
				for _, ok := range p2 {
					if ok == nil {
						return false
					}
				}
				return true
			}()
	})
	for _, ok := range movePairs(t, evs, moved.UUID) {
		if !*ok {
			t.Errorf("finished park: applied ok false")
		}
	}
	for _, ok := range movePairs(t, evs, stayed.UUID) {
		if *ok {
			t.Errorf("rolled-back park: applied ok true")
		}
	}
	if row := ls(t, c, map[string]any{"pattern": stayed.UUID})[0]; row.Status != "idle" {
		t.Errorf("rolled-back park: status %s, want idle", row.Status)
	}
	if after, label := paneOf(t, srv2.HerdrSocket(), "gcm/moved"); label != "idle" || after.TerminalID != pane.TerminalID {
		t.Errorf("recovered parked pane: workspace %q terminal %s, want idle %s", label, after.TerminalID, pane.TerminalID)
	}
	if row := ls(t, c, map[string]any{"pattern": moved.UUID})[0]; row.PaneID == nil {
		t.Errorf("recovered parked row has no pane: %+v", row)
	}
	// Both leases are gone: a send to each goes through (the parked one un-parks).
	for _, a := range []agentRow{moved, stayed} {
		var sent struct {
			DeliveredWhile string `json:"delivered_while"`
		}
		if err := c.Call(context.Background(), "agent.send", map[string]any{"target": a.Path, "prompt": "say=again turn_ms=100"}, &sent); err != nil {
			t.Fatalf("send to %s: %v", a.Path, err)
		}
		want := map[string]string{moved.UUID: "parked", stayed.UUID: "idle"}[a.UUID]
		if sent.DeliveredWhile != want {
			t.Errorf("send to %s: delivered while %q, want %q", a.Path, sent.DeliveredWhile, want)
		}
	}
	if _, label := paneOf(t, srv2.HerdrSocket(), "gcm/moved"); label != "gcm" {
		t.Errorf("after the send the pane is in workspace %q, want gcm", label)
	}
}
