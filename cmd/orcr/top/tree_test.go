package top

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/store/agentpath"
)

// t0 is the fixed clock of these tests (UTC).
var t0 = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

func at(d time.Duration) *int64 { v := t0.Add(d).UnixMilli(); return &v }

func str(s string) *string { return &s }

// row is an agent row for the fixture: managed, provider mock, created an hour ago.
func row(uuid, path string, st api.Status) api.AgentRow {
	return api.AgentRow{UUID: uuid, Path: path, Status: st, Managed: true, Agent: str("mock"),
		Model: str("mock-1"), Effort: str("medium"), CreatedAt: *at(-time.Hour), LastStatusChangeAt: at(-10 * time.Minute)}
}

// fixture is the snapshot of the tree tests and golden frames: a loop with an active
// run and its agents, a team with a blocked agent, lineage across scopes, parked
// agents, unmanaged agents in the default and a named herdr session, a queued agent.
func fixture() api.Snapshot {
	blocked := row("u-blocked", "team/zed", api.StatusBlocked)
	blocked.BlockedKind = str("question")
	working := row("u-working", "team/alpha", api.StatusWorking)
	working.TurnDeliveredAt = at(-75 * time.Second)
	done := row("u-idle", "team/beta", api.StatusIdle)
	done.TurnDeliveredAt, done.TurnCompletedAt = at(-5*time.Minute), at(-4*time.Minute)
	inScope := row("u-child", "team/alpha/helper", api.StatusIdle)
	inScope.ParentID, inScope.ParentPath = str("u-working"), str("team/alpha")
	inScope.IdleSince = at(-30 * time.Second)
	cross := row("u-cross", "review/checker", api.StatusWorking)
	cross.ParentID, cross.ParentPath = str("u-working"), str("team/alpha")
	cross.TurnDeliveredAt = at(-2 * time.Hour)
	parked := row("u-parked", "team/old", api.StatusParked)
	parked.ParkedAt = at(-3 * time.Hour)
	parked2 := row("u-parked2", "solo", api.StatusParked)
	queued := row("u-queued", "team/later", api.StatusQueued)
	queued.QueuePosition = new(int64(1))
	lost := row("u-lost", "team/gone", api.StatusLost)
	runAgent := row("u-run", "nightly/r1/fix", api.StatusWorking)
	runAgent.TurnDeliveredAt = at(-20 * time.Second)
	um1 := api.AgentRow{UUID: "u-um1", Path: "unmanaged/default/w1p1", Status: api.StatusWorking, Agent: str("claude"), CreatedAt: *at(-time.Minute)}
	um2 := api.AgentRow{UUID: "u-um2", Path: "unmanaged/work/w2p1", Status: api.StatusIdle, Agent: str("codex"), CreatedAt: *at(-time.Minute)}
	// Usage on the rows: the cost column sums it over each subtree.
	working.Usage = &api.AgentUsage{Turns: 3, Tokens: 30000, CostUSD: 0.5}
	inScope.Usage = &api.AgentUsage{Turns: 1, Tokens: 9000, CostUSD: 0.25}
	blocked.Usage = &api.AgentUsage{Turns: 2, Tokens: 4000, CostUSD: 1.2, UnpricedTurns: 1}
	runAgent.Usage = &api.AgentUsage{Turns: 1, Tokens: 100, CostUSD: 0.0042}
	agents := []api.AgentRow{runAgent, cross, parked2, working, inScope, done, lost, queued, parked, blocked, um1, um2}
	return api.Snapshot{SnapshotSeq: 42, Agents: agents, Queue: []api.QueueEntry{{UUID: "u-queued", Path: "team/later", Agent: str("mock")}},
		Loops: []api.SnapshotLoop{{
			LoopRow: api.LoopRow{UUID: "l-1", Name: "nightly", Status: "active", Cadence: "0 3 * * *", CadenceKind: "cron", TZ: "UTC",
				NextFireAt: at(15 * time.Hour), CreatedAt: *at(-48 * time.Hour), MaxConcurrency: 1, Overlap: "skip"},
			Runs: []api.SnapshotRun{{UUID: "r-1", RunID: "r1", Kind: "scheduled", Status: "running", DueAt: at(-time.Minute), StartedAt: at(-50 * time.Second)}},
		}}}
}

func filter(t *testing.T, scope string, f agentpath.ListFilter) *agentpath.Filter {
	t.Helper()
	k, err := agentpath.CompileFilter(scope, f)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// managedOnly is top's default filter.
func managedOnly(t *testing.T) Options {
	return Options{Keep: filter(t, "", agentpath.ListFilter{Managed: true})}
}

// Every node's cost is its subtree's: an agent's own row plus the agents under it, a
// scope and a loop the sum of theirs, * when a turn of the subtree had no price; a
// subtree that reported nothing shows nothing.
func TestTreeCostSubtreeTotals(t *testing.T) {
	tr := Build(fixture(), managedOnly(t))
	for id, want := range map[string]string{
		"team/alpha/helper": "$0.25", "team/alpha": "$0.75", "team/zed": "$1.20*", "team": "$1.95*",
		"nightly": "$0.0042", "nightly/r1": "$0.0042", "review/checker": "", "review": "",
	} {
		n := tr.Node(id)
		if n == nil {
			t.Errorf("no node %s", id)
			continue
		}
		if got := Cost(n.Usage); got != want {
			t.Errorf("%s: cost %q, want %q", id, got, want)
		}
	}
	for _, c := range []struct {
		u    api.AgentUsage
		want string
	}{{api.AgentUsage{Turns: 1}, "$0.00"}, {api.AgentUsage{Turns: 1, CostUSD: 1234.6}, "$1235"},
		{api.AgentUsage{Turns: 2, UnpricedTurns: 2}, "$0.00*"}} {
		if got := Cost(c.u); got != c.want {
			t.Errorf("Cost(%+v) = %q, want %q", c.u, got, c.want)
		}
	}
}

func TestTreeConstruction(t *testing.T) {
	tr := Build(fixture(), managedOnly(t))
	want := `done [2 agents]
  solo [parked]
  team/old [parked]
nightly [loop active]
  r1 [run running]
    fix [working]
review
  checker [working] ↖ team/alpha
team
  alpha [working]
    helper [idle]
  beta [idle]
  gone [lost]
  later [queued]
  zed [blocked]
`
	if diff := cmp.Diff(want, tr.Canonical()); diff != "" {
		t.Errorf("canonical tree (-want +got):\n%s", diff)
	}
	if tr.Agents != 10 || tr.Blocked != 1 || tr.Loops != 1 {
		t.Errorf("counts: %d agents, %d blocked, %d loops; want 10, 1, 1", tr.Agents, tr.Blocked, tr.Loops)
	}
	// Each agent once, and parked agents only under done.
	seen := map[string]int{}
	var walk func([]*Node)
	walk = func(ns []*Node) {
		for _, n := range ns {
			if n.Agent != nil {
				seen[n.Agent.UUID]++
			}
			walk(n.Children)
		}
	}
	walk(tr.Roots)
	for id, c := range seen {
		if c != 1 {
			t.Errorf("agent %s placed %d times", id, c)
		}
	}
	if n := tr.Node("team/old"); n != nil {
		t.Errorf("parked team/old also shown at its path: %+v", n)
	}
	if n := tr.Node("team/alpha/helper"); n == nil || n.Lineage != "" {
		t.Errorf("in-scope child: %+v, want placed under its parent with no ↖", n)
	}
}

func TestSiblingOrderBlockedFirst(t *testing.T) {
	tr := Build(fixture(), managedOnly(t))
	var top []string
	for _, r := range tr.Roots {
		top = append(top, r.Key)
	}
	// team holds the blocked agent: it floats above nightly and review; done is last.
	if diff := cmp.Diff([]string{"team", "nightly", "review", doneKey}, top); diff != "" {
		t.Errorf("root order (-want +got):\n%s", diff)
	}
	var team []string
	for _, c := range tr.Node("team").Children {
		team = append(team, c.Key)
	}
	if diff := cmp.Diff([]string{"zed", "alpha", "beta", "gone", "later"}, team); diff != "" {
		t.Errorf("team's children (-want +got):\n%s", diff)
	}
}

func TestUnmanagedGrouping(t *testing.T) {
	tr := Build(fixture(), Options{Keep: filter(t, "", agentpath.ListFilter{Unmanaged: true}), Unmanaged: true})
	want := `unmanaged
  w1p1 [working]
  work
    w2p1 [idle]
`
	if diff := cmp.Diff(want, tr.Canonical()); diff != "" {
		t.Errorf("--unmanaged: the default session is transparent, named sessions group, loops hidden (-want +got):\n%s", diff)
	}
	if tr.Loops != 0 {
		t.Errorf("--unmanaged shows %d loops", tr.Loops)
	}
	if n := tr.Node("unmanaged/w1p1"); n == nil || n.Path != "unmanaged/default/w1p1" {
		t.Errorf("the transparent session changes the display only; node %+v", n)
	}
}

func TestLoopsFilter(t *testing.T) {
	o := managedOnly(t)
	o.Loops = true
	want := `nightly [loop active]
  r1 [run running]
    fix [working]
`
	if diff := cmp.Diff(want, Build(fixture(), o).Canonical()); diff != "" {
		t.Errorf("--loops keeps loops and run agents only (-want +got):\n%s", diff)
	}
}

func TestProviderStatusAndPatternFilters(t *testing.T) {
	for _, c := range []struct {
		f    agentpath.ListFilter
		want []string
	}{
		{agentpath.ListFilter{Managed: true, Status: "working"}, []string{"nightly/r1/fix", "review/checker", "team/alpha"}},
		{agentpath.ListFilter{Managed: true, Status: "parked"}, []string{"solo", "team/old"}},
		{agentpath.ListFilter{Agent: "codex"}, []string{"unmanaged/work/w2p1"}},
		{agentpath.ListFilter{Managed: true, Pattern: "team/*"}, []string{"team/alpha", "team/beta", "team/gone", "team/later", "team/old", "team/zed"}},
		{agentpath.ListFilter{Managed: true, Pattern: "team/**", Status: "idle"}, []string{"team/alpha/helper", "team/beta"}},
		{agentpath.ListFilter{Managed: true, Pattern: "team"}, nil},
	} {
		got := Build(fixture(), Options{Keep: filter(t, "", c.f)}).AgentPaths()
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("filter %+v (-want +got):\n%s", c.f, diff)
		}
	}
	// The `/` filter narrows further, under the caller's scope.
	p, err := agentpath.CompilePattern("team", "al*")
	if err == nil {
		t.Fatalf("al* compiled: %v (wildcards are whole segments)", p)
	}
	extra, _ := agentpath.CompilePattern("team", "*")
	o := managedOnly(t)
	o.Extra = extra
	if got := Build(fixture(), o).AgentPaths(); len(got) != 6 {
		t.Errorf("/* under scope team: %v, want the six team agents", got)
	}
}

func TestRowsCollapse(t *testing.T) {
	tr := Build(fixture(), managedOnly(t))
	open := tr.Rows(nil)
	closed := tr.Rows(map[string]bool{"team": true})
	if len(open)-len(closed) != 6 {
		t.Errorf("collapsing team hides %d rows, want its 6 descendants", len(open)-len(closed))
	}
	var prefixes []string
	for _, r := range open[:4] {
		prefixes = append(prefixes, r.Prefix+r.Node.Key)
	}
	if diff := cmp.Diff([]string{"team", "├─ zed", "├─ alpha", "│  └─ helper"}, prefixes); diff != "" {
		t.Errorf("box drawing (-want +got):\n%s", diff)
	}
}

func TestLabelsAndGlyphs(t *testing.T) {
	for _, c := range []struct {
		st           api.Status
		label, glyph string
		tone         tone
	}{
		{api.StatusWorking, "running", "●", toneGreen},
		{api.StatusIdle, "done", "✓", toneGreen},
		{api.StatusParked, "done", "✓", toneGreen},
		{api.StatusBlocked, "needs input", "◐", toneMagenta},
		{api.StatusQueued, "pending", "◌", toneDim},
		{api.StatusStarting, "starting", "◌", toneDim},
		{api.StatusLost, "failed", "✗", toneRed},
		{api.StatusUnknown, "unknown", "·", toneGray},
	} {
		g, tn := Glyph(c.st)
		if Label(c.st) != c.label || g != c.glyph || tn != c.tone {
			t.Errorf("%s: %q %q %v, want %q %q %v", c.st, Label(c.st), g, tn, c.label, c.glyph, c.tone)
		}
	}
}

func TestAge(t *testing.T) {
	for d, want := range map[time.Duration]string{
		-time.Second: "0s", 0: "0s", 59 * time.Second: "59s", time.Minute: "1m", 61 * time.Second: "1m01s",
		59*time.Minute + 59*time.Second: "59m59s", time.Hour: "1h", 23*time.Hour + 59*time.Minute: "23h",
		24 * time.Hour: "1d", 100 * 24 * time.Hour: "100d",
	} {
		if got := Age(d); got != want {
			t.Errorf("Age(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestDurationFreezeAndRestart(t *testing.T) {
	now := t0
	a := row("u", "p", api.StatusWorking)
	a.TurnDeliveredAt = at(-90 * time.Second)
	if d, run := Duration(&a, now); d != "1m30s" || !run {
		t.Errorf("working: %q %v, want 1m30s running", d, run)
	}
	a.Status, a.TurnCompletedAt = api.StatusIdle, at(-30*time.Second)
	if d, run := Duration(&a, now); d != "1m" || run {
		t.Errorf("idle after the turn: %q %v, want frozen at 1m", d, run)
	}
	if d, _ := Duration(&a, now.Add(time.Hour)); d != "1m" {
		t.Errorf("an hour later: %q, want still 1m", d)
	}
	// A new input starts a new turn: the clock restarts from its delivery.
	a.Status, a.TurnDeliveredAt, a.TurnCompletedAt = api.StatusWorking, at(-2*time.Second), nil
	if d, _ := Duration(&a, now); d != "2s" {
		t.Errorf("the next turn: %q, want 2s", d)
	}
	// Blocked mid-turn with no completion: frozen at the status change.
	a.Status, a.LastStatusChangeAt = api.StatusBlocked, at(-time.Second)
	if d, run := Duration(&a, now); d != "1s" || run {
		t.Errorf("blocked: %q %v, want frozen 1s", d, run)
	}
	// No turn: the lifecycle clock of the status.
	q := row("q", "p", api.StatusQueued)
	q.QueuePosition = new(int64(3))
	if d, _ := Duration(&q, now); d != "10m" {
		t.Errorf("queued: %q, want 10m since its last status change", d)
	}
	s := row("s", "p", api.StatusStarting)
	s.StartingAt = at(-3 * time.Second)
	if d, _ := Duration(&s, now); d != "3s" {
		t.Errorf("starting: %q, want 3s", d)
	}
}

// Queued rows read "pending" and never show their queue position.
func TestQueuedRowShowsPendingWithoutPosition(t *testing.T) {
	m := frameModel(t, 100, 30)
	screen := plain(m.Render())
	line := lineWith(screen, "later")
	if !strings.Contains(line, "pending") || strings.Contains(line, "#1") || strings.Contains(line, "queue") {
		t.Errorf("queued row %q: want pending, no position", line)
	}
}
