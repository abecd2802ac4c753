package actors

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/orcr-go/orcr/herdr"
	"github.com/orcr-go/orcr/store"
)

// The status rule of an unmanaged row (docs/decisions.md D11), on a fake clock.
func TestDecideUnmanaged(t *testing.T) {
	now := time.UnixMilli(1_000_000)
	at := func(ago time.Duration) int64 { return now.Add(-ago).UnixMilli() }
	open := func(deliveredAgo time.Duration, seenWorking bool) store.Turn {
		tr := store.Turn{Seq: 3, DeliveredAt: at(deliveredAgo)}
		if seenWorking {
			tr.WorkingSeenAt = at(time.Second)
		}
		return tr
	}
	W, I, B, U := store.StatusWorking, store.StatusIdle, store.StatusBlocked, store.StatusUnknown
	tests := []struct {
		name              string
		cur               store.Status
		turn              store.Turn
		herdr             store.Status
		to                store.Status
		seeWork, complete bool
	}{
		{"no turn: herdr's status is taken", I, store.Turn{}, W, W, false, false},
		{"no turn: idle after work", W, store.Turn{}, I, I, false, false},
		{"no turn: unknown is taken", I, store.Turn{}, U, U, false, false},
		{"no turn: blocked", W, store.Turn{}, B, B, false, false},
		{"open turn: herdr not caught up yet, stays working", W, open(2*time.Second, false), I, W, false, false},
		{"open turn: herdr reports work, noted once", W, open(2*time.Second, false), W, W, true, false},
		{"open turn: work already noted", W, open(5*time.Second, true), W, W, false, false},
		{"open turn: blocked counts as work", W, open(time.Second, false), B, B, true, false},
		{"open turn: idle after work seen completes", W, open(5*time.Second, true), I, I, false, true},
		{"open turn: blocked then idle completes", B, open(5*time.Second, true), I, I, false, true},
		{"open turn: never seen working, grace over, completes", W, open(ExternalTurnGrace, false), I, I, false, true},
		{"open turn: grace just short", W, open(ExternalTurnGrace-time.Millisecond, false), I, W, false, false},
		{"open turn: never delivered (crash) completes", W, store.Turn{Seq: 2}, I, I, false, true},
		{"open turn: unknown changes nothing", W, open(30*time.Second, true), U, W, false, false},
	}
	for _, tt := range tests {
		to, seeWork, complete := decideUnmanaged(tt.cur, tt.turn, tt.herdr, now)
		if to != tt.to || seeWork != tt.seeWork || complete != tt.complete {
			t.Errorf("%s: got (%s, %v, %v), want (%s, %v, %v)", tt.name, to, seeWork, complete, tt.to, tt.seeWork, tt.complete)
		}
	}
}

// One session's pass: new terminals are created, gone ones ended, moved panes and late
// agent_session pointers refreshed, status changes and turn ends applied.
func TestPlanDiscovery(t *testing.T) {
	now := time.UnixMilli(5_000_000)
	row := func(uuid, terminal, pane string, st store.Status) store.UnmanagedRow {
		return store.UnmanagedRow{Agent: store.Agent{UUID: uuid, TerminalID: terminal, PaneID: pane, Status: st, InputSeq: 1}}
	}
	seen := func(terminal, pane string, st store.Status) store.Sighting {
		return store.Sighting{TerminalID: terminal, PaneID: pane, Provider: "claude", Status: st}
	}
	withTurn := row("d", "t4", "w1:p4", store.StatusWorking)
	withTurn.Turn = store.Turn{Seq: 1, DeliveredAt: now.Add(-time.Second).UnixMilli(), WorkingSeenAt: now.UnixMilli()}
	closing := row("e", "t5", "w1:p5", store.StatusIdle) // being killed or adopted: gone already, never re-created
	closing.Closing = true
	rows := []store.UnmanagedRow{
		row("a", "t1", "w1:p1", store.StatusIdle),    // unchanged
		row("b", "t2", "w1:p2", store.StatusIdle),    // moved and now working
		row("c", "t3", "w1:p3", store.StatusWorking), // gone
		withTurn, // its turn ends
	}
	closingLate := row("f", "t6", "w1:p6", store.StatusIdle) // its pane still listed while it closes
	closingLate.Closing = true
	rows = append(rows, closingLate)
	ptr := seen("t1", "w1:p1", store.StatusIdle)
	ptr.SessionKind, ptr.SessionValue = "session_id", "abc"
	got := planDiscovery(rows, []store.Sighting{
		ptr, seen("t2", "w2:p1", store.StatusWorking), seen("t4", "w1:p4", store.StatusIdle), seen("t9", "w3:p1", store.StatusBlocked),
		seen("t6", "w1:p6", store.StatusWorking),
	}, now)
	want := []discChange{
		{Kind: discRefresh, UUID: "a", Sighting: ptr},
		{Kind: discRefresh, UUID: "b", Sighting: seen("t2", "w2:p1", store.StatusWorking)},
		{Kind: discStatus, UUID: "b", From: store.StatusIdle, To: store.StatusWorking, Seq: 1},
		{Kind: discEnd, UUID: "c", From: store.StatusWorking, Seq: 1},
		{Kind: discComplete, UUID: "d", From: store.StatusWorking, To: store.StatusIdle, Seq: 1, Turn: 1},
		{Kind: discCreate, Sighting: seen("t9", "w3:p1", store.StatusBlocked), To: store.StatusBlocked},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("plan (-want +got):\n%s", d)
	}
	if got := planDiscovery(rows[:1], []store.Sighting{seen("t1", "w1:p1", store.StatusIdle)}, now); len(got) != 0 {
		t.Errorf("a quiet session plans %v, want nothing", got)
	}
}

// Only agents of supported providers become sightings; done folds to idle.
func TestSightings(t *testing.T) {
	agents := []herdr.AgentInfo{
		{TerminalID: "t1", PaneID: "w1:p1", Agent: "claude", AgentStatus: "done",
			AgentSession: &herdr.AgentSession{Kind: "session_id", Value: "s1"}},
		{TerminalID: "t2", PaneID: "w1:p2", Agent: "aider", AgentStatus: "working"},
		{TerminalID: "t3", PaneID: "w1:p3", AgentStatus: "idle"},
		{TerminalID: "t4", PaneID: "w1:p4", Agent: "mock", AgentStatus: "weird"},
	}
	got := sightings(agents, func(p string) bool { return p == "claude" || p == "mock" })
	want := []store.Sighting{
		{TerminalID: "t1", PaneID: "w1:p1", Provider: "claude", Status: store.StatusIdle, SessionKind: "session_id", SessionValue: "s1"},
		{TerminalID: "t4", PaneID: "w1:p4", Provider: "mock", Status: store.StatusUnknown},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("sightings (-want +got):\n%s", d)
	}
}

// The pane mark two orcr homes on one herdr tell their agents' panes by
// (docs/lifecycle.md §13.5): every home's label is recognised, a person's labels are not,
// and two homes label the same path apart.
func TestOrcrPaneLabel(t *testing.T) {
	a, b := PaneLabel("/home/u/.orcr", "team/a"), PaneLabel("/tmp/other/", "team/a")
	if a == b || HomeID("/tmp/other/") != HomeID("/tmp/other") {
		t.Errorf("labels %q %q", a, b)
	}
	for label, want := range map[string]bool{
		a: true, b: true, "team/a": false, "": false, "orcr:": false, "orcr:team/a": false,
		"orcr:0123456789ab:": false, "orcr:0123456789AB:x": false, "orcr:0123456789abc:x": false,
		"orcr:0123456789ab:x": true, "my orcr:0123456789ab:x": false,
	} {
		if got := OrcrPane(label); got != want {
			t.Errorf("OrcrPane(%q) = %v, want %v", label, got, want)
		}
		if path, ok := PanePath(label); ok && path != "team/a" && path != "x" {
			t.Errorf("PanePath(%q) = %q", label, path)
		}
	}
}

// FuzzOrcrPane: a pane label comes from herdr (a person can set any). OrcrPane never
// panics, and every label a home gives is recognised, its path read back.
func FuzzOrcrPane(f *testing.F) {
	for _, s := range []string{"orcr:0123456789ab:team/a", "team/a", "orcr:", "orcr::", "\xff"} {
		f.Add(s, "/home/u/.orcr", "team/a")
	}
	f.Fuzz(func(t *testing.T, label, home, path string) {
		OrcrPane(label)
		if got, ok := PanePath(PaneLabel(home, path)); path != "" && (!ok || got != path) {
			t.Errorf("PaneLabel(%q, %q) = %q is not recognised", home, path, PaneLabel(home, path))
		}
	})
}

// Discovery passes every DiscoveryEvery while a user session runs, keeping its agents
// current, and at twice that while none does (docs/lifecycle.md §13.5).
func TestDiscoveryDelay(t *testing.T) {
	if got := discoveryDelay(1, DiscoveryEvery); got != DiscoveryEvery {
		t.Errorf("a user session read: %v, want %v", got, DiscoveryEvery)
	}
	if got := discoveryDelay(0, DiscoveryEvery); got != 2*DiscoveryEvery {
		t.Errorf("no user session: %v, want %v", got, 2*DiscoveryEvery)
	}
}
