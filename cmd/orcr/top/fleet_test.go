package top

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/fleet"
	"github.com/orcr-go/orcr/socketapi/sockettest"
	"github.com/orcr-go/orcr/tests/poll"
)

// remoteRow is an agent row of another member.
func remoteRow(uuid, path string, st api.Status) api.AgentRow {
	since := t0.Add(-time.Minute).UnixMilli()
	pane := "p-" + uuid
	return api.AgentRow{UUID: uuid, Path: path, Status: st, Managed: true, CreatedAt: since, LastStatusChangeAt: &since, PaneID: &pane}
}

// fleetModel is frameModel with --fleet, after two rounds of the fleet reader: web
// answers both; gpu1 answers the first and is unreachable in the second, last seen
// 35 s before the clock.
func fleetModel(t *testing.T) *Model {
	t.Helper()
	m := frameModel(t, 120, 40)
	m.fleet = true
	seen := t0.Add(-35 * time.Second).UnixMilli()
	web := Remote{Host: "web", Reachable: true, Rows: []api.AgentRow{
		remoteRow("w-two", "review/two", api.StatusWorking), remoteRow("w-three", "review/three", api.StatusBlocked)}}
	m.Update(fleetMsg{hosts: []Remote{
		{Host: "gpu1", Reachable: true, Rows: []api.AgentRow{remoteRow("g-train", "train", api.StatusIdle)}, At: t0.Add(-40 * time.Second)},
		web}})
	m.Update(fleetMsg{hosts: []Remote{
		{Host: "gpu1", Err: "fleet member gpu1 is not connected", LastSeen: &seen},
		web}})
	return m
}

// `top --fleet` (docs/top.md §7): every other member under a node of its own, after
// this server's tree, its agents built as local ones are; a member that stopped
// answering keeps the agents top last read of it, and says since when it was not seen.
func TestFleetTree(t *testing.T) {
	m := fleetModel(t)
	canon := m.tree.Canonical()
	for _, want := range []string{"gpu1: [unreachable]\n  train [idle]\n", "web:\n  review\n    three [blocked]\n    two [working]\n"} {
		if !strings.Contains(canon, want) {
			t.Errorf("tree lacks %q:\n%s", want, canon)
		}
	}
	ids := []string{}
	for _, r := range m.rows {
		ids = append(ids, r.Node.ID)
	}
	if i, j := slices.Index(ids, "gpu1:"), slices.Index(ids, "web:"); i < 0 || j < i || ids[len(ids)-1] != "web:review/two" {
		t.Errorf("rows %v: want the hosts after this server's tree, by host", ids)
	}
	if n := m.tree.Node("web:review/three"); n == nil || n.Host != "web" || n.Path != "review/three" {
		t.Errorf("web's blocked agent: %+v", n)
	}
	screen := plain(m.Render())
	if l := lineWith(screen, "gpu1:"); !strings.Contains(l, "unreachable") || !strings.Contains(l, "seen 35s") {
		t.Errorf("gpu1's line %q", l)
	}
	if l := lineWith(screen, "web:"); !strings.Contains(l, "2 agents") {
		t.Errorf("web's line %q", l)
	}
	if l := lineWith(screen, "fleet:"); !strings.Contains(l, "fleet: 2 other hosts (1 unreachable)") {
		t.Errorf("header %q", l)
	}
	// The header's tree counts take in the other hosts' agents.
	if l := lineWith(screen, "needs input"); !strings.HasPrefix(l, fmt.Sprintf("%d agents · %d needs input", m.tree.Agents, m.tree.Blocked)) ||
		m.tree.Blocked < 2 {
		t.Errorf("header %q: %d agents, %d blocked", l, m.tree.Agents, m.tree.Blocked)
	}
	m.sel = "gpu1:"
	if d := oneLine(plain(strings.Join(m.detailLines(60, 10, true), " "))); !strings.Contains(d, "unreachable (seen 35s ago): fleet member gpu1 is not connected") ||
		!strings.Contains(d, "its agents as top last read them, 40s ago") {
		t.Errorf("gpu1's detail: %s", d)
	}

	// A round that failed says why in the header and keeps the hosts.
	m.Update(fleetMsg{err: fmt.Errorf("server gone")})
	if l := lineWith(plain(m.Render()), "fleet:"); !strings.Contains(l, "fleet: server gone") || m.tree.Node("web:review/two") == nil {
		t.Errorf("after a failed round: header %q", l)
	}
}

// The keys act on the agent's own host: send, kill and wait go to that member (over
// the fleet), the detail is read there, and an attach goes to `<host>:<uuid>`, over the
// fleet.
func TestFleetKeys(t *testing.T) {
	m := fleetModel(t)
	var calls []string
	m.acts.Send = func(_ context.Context, host, uuid, prompt string) (api.SendResult, error) {
		calls = append(calls, "send "+host+" "+uuid+" "+prompt)
		return api.SendResult{Path: "review/three", DeliveredWhile: api.StatusBlocked}, nil
	}
	m.acts.Kill = func(_ context.Context, host string, targets []string) (api.KillResult, error) {
		calls = append(calls, "kill "+host+" "+strings.Join(targets, ","))
		return api.KillResult{Killed: []api.KillRef{{Path: "review/two"}, {Path: "review/three"}}}, nil
	}
	m.acts.Wait = func(_ context.Context, host string, targets []string) (api.WaitResult, error) {
		calls = append(calls, "wait "+host+" "+strings.Join(targets, ","))
		return api.WaitResult{Targets: []api.WaitTarget{{Path: "review/two", OK: true, Reason: "turn_complete"}}}, nil
	}
	m.acts.Detail = func(_ context.Context, host, uuid string) ([]api.LogEntry, *api.Response, error) {
		calls = append(calls, "detail "+host+" "+uuid)
		return nil, nil, nil
	}
	m.sel = "web:review/three"
	if cmd := m.detailCmd(); cmd != nil {
		m.Update(cmd())
	}
	press(m, "s")
	typeText(m, "go on")
	m.Update(press(m, "enter")())
	if m.msg != "sent to web:review/three (it was blocked)" {
		t.Errorf("status after the send %q", m.msg)
	}
	var attached string
	m.acts.Attach = func(target string) *exec.Cmd {
		attached = target
		return exec.Command("true")
	}
	if cmd := press(m, "a"); cmd == nil || attached != "web:"+m.selected().Agent.UUID {
		t.Errorf("a on another host's agent: attach %q, status %q; want web:<its uuid>", attached, m.msg)
	}
	m.sel = "web:review/two"
	m.Update(press(m, "w")())
	if m.msg != "web:review/two settled: turn_complete" {
		t.Errorf("status after the wait %q", m.msg)
	}
	m.sel = "web:"
	press(m, "K")
	if foot := plain(m.footer()); foot != "kill all agents on web (2 agents)? y/n" {
		t.Errorf("confirmation %q", foot)
	}
	m.Update(press(m, "y")())
	want := []string{"detail web w-three", "send web w-three go on", "wait web w-two", "kill web w-three,w-two"}
	if diff := cmp.Diff(want, calls); diff != "" {
		t.Errorf("actions (-want +got):\n%s", diff)
	}
}

// Through a real fleet (an embedded hub and a member, each its own home): the fleet
// reader finds the member's agents through the hub's own server; a kill from top goes
// to the member over the fleet and ends its agent there; a member stopped shows
// unreachable with its last-seen time.
func TestFleetReaderLive(t *testing.T) {
	t.Parallel()
	hub := sockettest.NewServer(t, sockettest.WithConfig(`{"fleet": {"host": "hub", "hub": {"listen": "127.0.0.1:0"}}}`))
	tok := filepath.Join(hub.Home, config.FleetDirName, fleet.HubTokenName)
	web := sockettest.NewServer(t, sockettest.WithConfig(fmt.Sprintf(
		`{"fleet": {"host": "web", "url": %q, "token_file": %q, "allow": ["agent.ls", "agent.kill"]}}`, hub.FleetHubURL(), tok)))
	setAgent(t, hub.Client(t), uuidN(1), "here/one", "idle", "")
	setAgent(t, web.Client(t), uuidN(2), "there/two", "working", "")
	cl := hub.Client(t)
	ctx := t.Context()

	var round fleetMsg
	poll.Eventually(t, 30*time.Second, "the fleet reader to list web's agent", func() bool {
		round = readFleet(ctx, cl)
		return round.err == nil && len(round.hosts) == 1 && len(round.hosts[0].Rows) == 1
	})
	if r := round.hosts[0]; r.Host != "web" || !r.Reachable || r.Rows[0].Path != "there/two" || r.Rows[0].Status != api.StatusWorking {
		t.Fatalf("web as read: %+v", r)
	}

	acts := ClientActions(cl, "orcr")
	k, err := acts.Kill(ctx, "web", []string{uuidN(2)})
	if err != nil || len(k.Killed) != 1 || k.Killed[0].Path != "there/two" {
		t.Fatalf("kill on web through the hub: %+v, %v", k, err)
	}
	var ls api.LsResult
	if err := web.Client(t).Call(ctx, "agent.ls", map[string]any{"all": true}, &ls); err != nil {
		t.Fatal(err)
	}
	if len(ls.Agents) != 1 || !ls.Agents[0].Status.Gone() {
		t.Errorf("web's agents after the kill: %+v", ls.Agents)
	}
	// web's fleet.allow has no agent.send: refused there, as for any fleet caller.
	if _, err := acts.Send(ctx, "web", uuidN(2), "hi"); err == nil || !strings.Contains(err.Error(), "fleet.allow") {
		t.Errorf("a send outside web's fleet.allow: %v", err)
	}

	web.Stop()
	if err := web.Wait(); err != nil {
		t.Fatal(err)
	}
	poll.Eventually(t, 30*time.Second, "web to read as unreachable", func() bool {
		round = readFleet(ctx, cl)
		return round.err == nil && len(round.hosts) == 1 && !round.hosts[0].Reachable
	})
	if r := round.hosts[0]; r.Err == "" || r.LastSeen == nil || len(r.Rows) != 0 {
		t.Errorf("web once stopped: %+v", r)
	}
}
