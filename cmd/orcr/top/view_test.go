package top

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/google/go-cmp/cmp"

	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/api"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// frameModel is a model of the fixture at w×h on the fixed clock, no colour, herdr
// status known, no actions.
func frameModel(t *testing.T, w, h int) *Model {
	t.Helper()
	m := NewModel(Config{Options: managedOnly(t), Now: func() time.Time { return t0 }, Location: time.UTC, NoColor: true, Width: w, Height: h})
	proto := 20
	m.Update(snapshotMsg{gen: 1, snap: fixture(), status: &api.StatusResult{Herdr: api.HerdrStatus{
		Reachable: true, SessionRunning: true, Session: "orcr", Protocol: &proto}}})
	return m
}

func plain(s string) string { return ansi.Strip(s) }

func lineWith(screen, sub string) string {
	for l := range strings.SplitSeq(screen, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}

// special are the keys tests press by name.
var special = map[string]rune{"enter": tea.KeyEnter, "esc": tea.KeyEscape, "down": tea.KeyDown,
	"left": tea.KeyLeft, "right": tea.KeyRight, "backspace": tea.KeyBackspace}

func key(s string) tea.KeyPressMsg {
	if c, ok := special[s]; ok {
		return tea.KeyPressMsg{Code: c}
	}
	return tea.KeyPressMsg{Code: []rune(s)[0], Text: s}
}

func press(m *Model, keys ...string) tea.Cmd {
	var cmd tea.Cmd
	for _, k := range keys {
		_, cmd = m.Update(key(k))
	}
	return cmd
}

func typeText(m *Model, s string) {
	for _, r := range s {
		m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s (-want +got):\n%s", name, diff)
	}
}

// Golden frames of the fixture at 80×24 (detail pane under the table) and 160×48
// (detail pane beside it), with the selection on the blocked agent.
func TestGoldenFrames(t *testing.T) {
	for _, c := range []struct {
		w, h int
		name string
	}{{80, 24, "frame_80x24.golden"}, {160, 48, "frame_160x48.golden"}} {
		m := frameModel(t, c.w, c.h)
		m.acts.Detail = func(_ context.Context, _, uuid string) ([]api.LogEntry, *api.Response, error) {
			if uuid != "u-blocked" {
				t.Errorf("detail fetched for %s", uuid)
			}
			return []api.LogEntry{{Role: "user", Kind: "text", Text: "tidy the repo"}, {Role: "assistant", Kind: "tool_use", Tool: "Bash", Text: "git branch -a"}},
				&api.Response{Text: "Shall I delete the old branch?"}, nil
		}
		cmd := press(m, "n")
		if cmd == nil {
			t.Fatal("selecting an agent fetches no detail")
		}
		m.Update(cmd())
		got := plain(m.Render())
		for i, l := range strings.Split(got, "\n") {
			if w := ansi.StringWidth(l); w > c.w {
				t.Errorf("%dx%d line %d is %d cells wide: %q", c.w, c.h, i, w, l)
			}
		}
		if n := strings.Count(got, "\n") + 1; n != c.h {
			t.Errorf("%dx%d frame has %d lines", c.w, c.h, n)
		}
		golden(t, c.name, got)
	}
}

func TestHeaderAndLayout(t *testing.T) {
	m := frameModel(t, 100, 30)
	s := plain(m.Render())
	lines := strings.Split(s, "\n")
	if !strings.HasPrefix(lines[0], "orcr  live 9 · queued 1 · blocked 1 · lost 1  herdr: orcr (protocol 20)") {
		t.Errorf("header line 1 %q", lines[0])
	}
	if lines[1] != "10 agents · 1 needs input · 1 loop" {
		t.Errorf("header line 2 %q", lines[1])
	}
	if strings.ContainsAny(s, "┌┐└┘") && strings.Contains(s, "┌") {
		t.Errorf("the table has borders:\n%s", s)
	}
	// Aligned columns: every agent row's status column starts at the same cell.
	col := -1
	for _, name := range []string{"zed", "alpha", "beta", "gone", "later"} {
		l := lineWith(s, " "+name)
		i := strings.Index(l, "  ")
		for i >= 0 && i < len(l) && l[i] == ' ' {
			i++
		}
		w := ansi.StringWidth(l[:strings.Index(l, map[string]string{"zed": "needs input", "alpha": "running", "beta": "done", "gone": "failed", "later": "pending"}[name])])
		if col >= 0 && w != col {
			t.Errorf("row %s: status column at %d, want %d:\n%s", name, w, col, s)
		}
		col = w
	}
	if !strings.Contains(lineWith(s, "zed"), "needs input · question") {
		t.Errorf("blocked row lacks its kind: %q", lineWith(s, "zed"))
	}
	if !strings.Contains(lineWith(s, "checker"), "↖ team/alpha") {
		t.Errorf("cross-scope child lacks ↖: %q", lineWith(s, "checker"))
	}
	if !strings.Contains(lineWith(s, "alpha"), "1m15s") {
		t.Errorf("working row's turn clock: %q, want 1m15s", lineWith(s, "alpha"))
	}
}

// The selected row carries the ▌ marker and, in colour, the subdued background on
// every cell (not reverse video); NO_COLOR drops colours, the marker stays.
func TestSelectionMarkerAndBackground(t *testing.T) {
	m := NewModel(Config{Options: managedOnly(t), Now: func() time.Time { return t0 }, Location: time.UTC, Width: 100, Height: 30})
	m.Update(snapshotMsg{gen: 1, snap: fixture()})
	press(m, "n")
	s := m.Render()
	line := lineWith(s, "zed")
	if !strings.HasPrefix(plain(line), "▌ ") {
		t.Errorf("selected row %q lacks the marker", plain(line))
	}
	if !strings.Contains(line, "48;2;30;37;43") {
		t.Errorf("selected row has no RGB(30,37,43) background: %q", line)
	}
	if strings.Contains(line, "\x1b[7m") {
		t.Errorf("selected row uses reverse video: %q", line)
	}
	if other := lineWith(s, "beta"); strings.Contains(other, "48;2;30;37;43") {
		t.Errorf("unselected row has the selection background: %q", other)
	}
	nc := frameModel(t, 100, 30)
	press(nc, "n")
	out := nc.Render()
	if strings.Contains(out, "38;") || strings.Contains(out, "48;") || strings.Contains(out, "\x1b[3") {
		t.Errorf("NO_COLOR frame has colours: %q", lineWith(out, "zed"))
	}
	if !strings.HasPrefix(plain(lineWith(out, "zed")), "▌ ") {
		t.Errorf("NO_COLOR selected row lacks the marker")
	}
}

func TestKeysMoveFoldAndNext(t *testing.T) {
	m := frameModel(t, 100, 30)
	if m.sel != "team" {
		t.Fatalf("first selection %q, want the first row", m.sel)
	}
	press(m, "down")
	if m.sel != "team/zed" {
		t.Errorf("down: %q", m.sel)
	}
	press(m, "left") // a leaf: to its parent
	if m.sel != "team" {
		t.Errorf("left on a leaf: %q, want the parent", m.sel)
	}
	press(m, "left") // fold team
	if plain := plain(m.Render()); strings.Contains(plain, "zed") || !strings.Contains(lineWith(plain, "team"), "▸") {
		t.Errorf("folded team still shows its children:\n%s", plain)
	}
	press(m, "right")
	if !strings.Contains(plain(m.Render()), "zed") {
		t.Errorf("unfolded team hides its children")
	}
	// n cycles through the agents that need a human: blocked zed, then lost gone.
	press(m, "left", "n")
	if m.sel != "team/zed" || m.folded["team"] {
		t.Errorf("n: selection %q, team folded %v; want zed with team unfolded", m.sel, m.folded["team"])
	}
	press(m, "n")
	if m.sel != "team/gone" {
		t.Errorf("second n: %q, want team/gone (lost)", m.sel)
	}
	press(m, "n")
	if m.sel != "team/zed" {
		t.Errorf("third n wraps: %q", m.sel)
	}
	if cmd := press(m, "q"); cmd == nil {
		t.Errorf("q returns no command")
	} else if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Errorf("q does not quit")
	}
}

func TestFilterInput(t *testing.T) {
	m := frameModel(t, 100, 30)
	press(m, "/")
	typeText(m, "team/a*")
	press(m, "enter")
	if !strings.Contains(m.msg, "bad filter") || m.filter != "" {
		t.Errorf("bad filter: msg %q filter %q", m.msg, m.filter)
	}
	press(m, "/")
	for range len("team/a*") {
		press(m, "backspace")
	}
	typeText(m, "team/*")
	press(m, "enter")
	s := plain(m.Render())
	if m.filter != "team/*" || strings.Contains(s, "nightly") || !strings.Contains(s, "· /team/*") {
		t.Errorf("filter team/*: %q\n%s", m.filter, s)
	}
	if m.sel != m.rows[0].Node.ID {
		t.Errorf("applying a filter leaves selection at %q, want the first row", m.sel)
	}
	press(m, "/", "esc")
	if m.filter != "team/*" {
		t.Errorf("esc changed the filter")
	}
	press(m, "/")
	for range 6 {
		press(m, "backspace")
	}
	press(m, "enter")
	if m.filter != "" || !strings.Contains(plain(m.Render()), "nightly") {
		t.Errorf("an empty filter does not clear it: %q", m.filter)
	}
}

// K asks first, naming the subtree and its agent count; anything but y cancels.
func TestKillConfirmation(t *testing.T) {
	m := frameModel(t, 100, 30)
	var killed []string
	m.acts.Kill = func(_ context.Context, _ string, targets []string) (api.KillResult, error) {
		killed = targets
		return api.KillResult{Killed: []api.KillRef{{Path: "team/alpha"}, {Path: "team/alpha/helper"}}}, nil
	}
	m.sel = "team/alpha"
	press(m, "K")
	if foot := plain(m.footer()); foot != "kill team/alpha/** (2 agents)? y/n" {
		t.Errorf("confirmation %q", foot)
	}
	press(m, "n")
	if killed != nil || m.msg != "kill canceled" {
		t.Errorf("n killed %v (msg %q)", killed, m.msg)
	}
	press(m, "K")
	cmd := press(m, "y")
	if cmd == nil {
		t.Fatal("y runs nothing")
	}
	m.Update(cmd())
	if diff := cmp.Diff([]string{"u-working", "/team/alpha/**"}, killed); diff != "" {
		t.Errorf("kill targets (-want +got):\n%s", diff)
	}
	if m.msg != "killed 2" {
		t.Errorf("status line %q", m.msg)
	}
}

func TestSendInput(t *testing.T) {
	m := frameModel(t, 100, 30)
	var sent string
	m.acts.Send = func(_ context.Context, _, uuid, prompt string) (api.SendResult, error) {
		sent = uuid + ":" + prompt
		return api.SendResult{Path: "team/zed", DeliveredWhile: api.StatusBlocked}, nil
	}
	press(m, "n", "s")
	typeText(m, "yes, delete it")
	if foot := plain(m.footer()); !strings.HasPrefix(foot, "send> yes, delete it") {
		t.Errorf("input line %q", foot)
	}
	cmd := press(m, "enter")
	m.Update(cmd())
	if sent != "u-blocked:yes, delete it" || m.msg != "sent to team/zed (it was blocked)" {
		t.Errorf("sent %q, status %q", sent, m.msg)
	}
	m.sel = "team"
	press(m, "s")
	if m.mode != modeNormal || !strings.Contains(m.msg, "live agent") {
		t.Errorf("s on a scope node: mode %v msg %q", m.mode, m.msg)
	}
}

// Events of a watch that ended are never applied over the next snapshot; a lost
// watch shows reconnecting… and keeps the last tree.
func TestReconnectGenerations(t *testing.T) {
	m := frameModel(t, 100, 30)
	before := m.tree.Canonical()
	m.Update(lostMsg{gen: 1})
	if s := plain(m.Render()); !strings.Contains(s, "reconnecting…") || m.tree.Canonical() != before {
		t.Errorf("lost watch: banner missing or tree dropped:\n%s", s)
	}
	snap := fixture()
	snap.SnapshotSeq = 50
	m.Update(snapshotMsg{gen: 2, snap: snap})
	stale := row("u-new", "late/one", api.StatusIdle)
	m.Update(eventMsg{gen: 1, ev: agentEvent(t, 43, stale)})
	if _, ok := m.data.Agent("u-new"); ok || m.data.Seq != 50 {
		t.Errorf("an event of generation 1 was applied to generation 2 (seq %d)", m.data.Seq)
	}
	if strings.Contains(plain(m.Render()), "reconnecting") {
		t.Errorf("banner stays after the new snapshot")
	}
}

// An event changes the data at once but the tree only at the next frame, and a burst
// of events schedules a single frame.
func TestEventsCoalesceIntoOneFrame(t *testing.T) {
	m := frameModel(t, 100, 30)
	var cmds int
	for i := range 50 {
		_, cmd := m.Update(eventMsg{gen: 1, ev: agentEvent(t, int64(43+i), row("u-b"+string(rune('a'+i%26))+string(rune('a'+i/26)), "burst/x"+string(rune('a'+i%26))+string(rune('a'+i/26)), api.StatusIdle))})
		if cmd != nil {
			cmds++
		}
	}
	if cmds != 1 {
		t.Errorf("50 events scheduled %d frames, want 1", cmds)
	}
	if m.tree.Node("burst") != nil {
		t.Errorf("the tree changed before the frame")
	}
	m.Update(frameMsg{})
	if n := m.tree.Node("burst"); n == nil || len(n.Children) != 50 {
		t.Errorf("after the frame: %+v", n)
	}
	// Nothing running and nothing arriving: no timer at all.
	idle := NewModel(Config{Options: managedOnly(t), Now: func() time.Time { return t0 }, Width: 100, Height: 30})
	done := row("u-1", "a/b", api.StatusIdle)
	done.TurnDeliveredAt, done.TurnCompletedAt = at(-time.Minute), at(-30*time.Second)
	if _, cmd := idle.Update(snapshotMsg{gen: 1, snap: api.Snapshot{Agents: []api.AgentRow{done}}}); cmd != nil {
		t.Errorf("an idle fleet schedules a command")
	}
}

// agentEvent is an agent.status_changed event carrying a (docs/decisions.md D2).
func agentEvent(t *testing.T, seq int64, a api.AgentRow) socketapi.Event {
	t.Helper()
	raw, err := json.Marshal(map[string]any{"kind": "agent.status_changed", "ref_uuid": a.UUID, "agent": a})
	if err != nil {
		t.Fatal(err)
	}
	return socketapi.Event{Seq: seq, Kind: "agent.status_changed", RefUUID: a.UUID, Raw: raw}
}

// The header's quota line (docs/top.md §3): each provider's windows with used percent
// and time to reset, paused at quota.pause_at, reset once the reset passed (at top's
// clock, though server.status judged it before); the line comes with the first window
// a status read brings and takes a row of the table.
func TestQuotaLine(t *testing.T) {
	t.Parallel()
	m := frameModel(t, 100, 30)
	before := m.tableHeight()
	if l := lineWith(plain(m.Render()), "quota"); l != "" {
		t.Fatalf("quota line before any window: %q", l)
	}
	at := func(d time.Duration) int64 { return t0.Add(d).UnixMilli() }
	st := *m.status
	st.Quota = []api.QuotaWindow{
		{Provider: "claude", Window: "five_hour", UsedPercent: 96, ResetsAt: at(72 * time.Minute), State: api.QuotaPaused},
		{Provider: "claude", Window: "seven_day", UsedPercent: 42, ResetsAt: at(3*24*time.Hour + 5*time.Hour), State: api.QuotaOK},
		{Provider: "codex", Window: "primary", UsedPercent: 85, WindowMinutes: 300, ResetsAt: at(-time.Second), State: api.QuotaWarn},
		{Provider: "codex", Window: "secondary", UsedPercent: 81.6, WindowMinutes: 10080, ResetsAt: at(30*time.Second + time.Millisecond), State: api.QuotaWarn},
	}
	m.Update(statusMsg{status: st})
	screen := plain(m.Render())
	want := "quota  claude 5h 96% paused (1h12m) 7d 42% (3d5h) · codex 5h reset 7d 82% (1m)"
	if l := strings.Split(screen, "\n")[2]; strings.TrimRight(l, " ") != want {
		t.Errorf("header line 3 %q, want %q\n%s", l, want, screen)
	}
	if got := m.tableHeight(); got != before-1 {
		t.Errorf("table height %d with the quota line, want %d", got, before-1)
	}
	if n := len(strings.Split(screen, "\n")); n != 30 {
		t.Errorf("screen of %d lines, want 30", n)
	}
}
