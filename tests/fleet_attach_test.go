package tests

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// `orcr agent attach <host>:<path>` (docs/fleet.md §4.10): in a real terminal on the
// hub's home, a takeover attach of an agent on the member web shows its pane relayed
// over the fleet; a prompt typed there reaches the agent as an external turn that web's
// completion follows; ctrl+b q (herdr's detach key, through the raw terminal) detaches,
// the CLI prints `detached web:<path>` and exits 0, and web's lease, kept by the
// member's heartbeats past its 2 s TTL, is released. A member whose policy has no
// agent.attach refuses it: fleet_not_allowed, exit 1. web joins with a member token,
// so all of it holds within a member's NATS permissions.
func TestFleetAttachInATerminal(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url, port := "nats://"+l.Addr().String(), l.Addr().(*net.TCPAddr).Port
	l.Close()
	hub := fleetHome(t, fmt.Sprintf(`{"fleet": {"host": "hub", "hub": {"listen": "127.0.0.1:%d"}}}`, port))
	if r := hub.run("server", "start"); r.exit != 0 {
		t.Fatalf("hub start: %+v", r)
	}
	// web joins with a member token from the hub's `orcr fleet token` (docs/fleet.md
	// §3.1): the attach works within a member's NATS permissions.
	mint := hub.run("fleet", "token", "web")
	if mint.exit != 0 || len(strings.TrimSpace(mint.stdout)) < 40 || !strings.Contains(mint.stderr, "fleet.token_file") {
		t.Fatalf("orcr fleet token web: %+v", mint)
	}
	tok := filepath.Join(t.TempDir(), "web.token")
	if err := os.WriteFile(tok, []byte(mint.stdout), 0o600); err != nil {
		t.Fatal(err)
	}
	web, _ := herdrHome(t, fmt.Sprintf(`{"timings": {"attach_lease_ttl": "2s"},
		"fleet": {"host": "web", "url": %q, "token_file": %q, "allow": ["agent.ls", "agent.wait", "agent.attach"]}}`, url, tok))
	idleMock(t, web, "att/one")
	evs := followEvents(t, web)
	uuid := web.lsRows(t, "att/one")[0].UUID

	term := newTmux(t, hub.env, "fa", attachCmd("web:att/one", "--takeover"))
	term.waitScreen(30*time.Second, "web's agent's pane on the hub's terminal", func(s string) bool { return strings.Contains(s, "say=first") })
	started := evs.waitFor(t, 10*time.Second, "attach.started on web", func(e streamEvent) bool { return e.Kind == "attach.started" })
	if started.UUID != uuid || started.Mode != "takeover" {
		t.Errorf("attach.started %+v, want agent %s mode takeover", started, uuid)
	}
	began := time.Now()
	term.type_("say=typed turn_ms=2500")
	evs.waitFor(t, 20*time.Second, "the external turn on web", func(e streamEvent) bool {
		return e.Kind == "agent.status_changed" && e.UUID == uuid && e.Status == "working" && e.InputSeq == 2
	})
	if w := web.run("agent", "wait", "att/one"); w.exit != 0 || w.stdout != "att/one  turn_complete\n" {
		t.Fatalf("agent wait after the typed prompt: exit %d %q %q", w.exit, w.stdout, w.stderr)
	}
	term.waitScreen(10*time.Second, "the answer on the hub's terminal", func(s string) bool { return strings.Contains(s, "typed") })
	if d := time.Since(began); d < 2*time.Second {
		t.Errorf("the session lasted %s, less than the lease's TTL: its heartbeats are not shown", d)
	}
	term.keys(false, "C-b")
	term.keys(true, "q")
	term.waitScreen(20*time.Second, "the detach", func(s string) bool {
		return strings.Contains(s, "detached web:att/one") && strings.Contains(s, "EXIT=0")
	})
	ended := evs.waitFor(t, 10*time.Second, "web's lease released", func(e streamEvent) bool {
		return e.Kind == "attach.ended" && e.LeaseID == started.LeaseID
	})
	if ended.Reason != "" {
		t.Errorf("attach.ended %+v: the lease ended by %s, want it released", ended, ended.Reason)
	}

	r := web.run("agent", "attach", "hub:any/agent")
	if r.exit != 1 || !strings.Contains(r.stderr, "fleet_not_allowed") {
		t.Fatalf("attach of the hub's agent from web, outside the hub's policy: exit %d %q, want 1 fleet_not_allowed", r.exit, r.stderr)
	}
}
