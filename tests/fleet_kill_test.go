package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/api"
	fleetpkg "github.com/orcr-go/orcr/socketapi/fleet"
	"github.com/orcr-go/orcr/socketapi/fleet/fleettest"
	"github.com/orcr-go/orcr/tests/poll"
)

// fleetHome is a home whose config.json is doc (servers of the real binary, debug
// methods on).
func fleetHome(t *testing.T, doc string) *home {
	t.Helper()
	h := newHome(t, "ORCR_ID=", "ORCR_PATH=")
	mustMkdir(t, h.dir, 0o700)
	if err := os.WriteFile(filepath.Join(h.dir, "config.json"), []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	return h
}

// fleetPair starts the servers of two homes of the real binary: hub, which embeds the
// fleet's NATS server on a free loopback port, and web, a member joined to it with the
// hub's token. It returns them with the hub's url and the token's path.
func fleetPair(t *testing.T) (hub, web *home, url, tok string) {
	t.Helper()
	return fleetPairWith(t, "")
}

// fleetPairWith is [fleetPair] with hubKeys (`"key": value, `) added to the hub's
// config.json.
func fleetPairWith(t *testing.T, hubKeys string) (hub, web *home, url, tok string) {
	t.Helper()
	return fleetPairKeys(t, hubKeys, "")
}

// fleetPairKeys is [fleetPairWith] with webKeys (`"key": value, ` pairs) in the
// member's config too.
func fleetPairKeys(t *testing.T, hubKeys, webKeys string) (hub, web *home, url, tok string) {
	t.Helper()
	return fleetPairOf(t, hubKeys, func(doc string) *home { return fleetHome(t, doc) }, webKeys)
}

// fleetPairMock is [fleetPairWith] with a member that runs mock agents on the herdr
// stand-in (a [herdrHome]).
func fleetPairMock(t *testing.T, hubKeys string) (hub, web *home, url, tok string) {
	t.Helper()
	return fleetPairOf(t, hubKeys, func(doc string) *home { h, _ := herdrHome(t, doc); return h }, "")
}

func fleetPairOf(t *testing.T, hubKeys string, newWeb func(doc string) *home, webKeys string) (hub, web *home, url, tok string) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url, port := "nats://"+l.Addr().String(), l.Addr().(*net.TCPAddr).Port
	l.Close()
	hub = fleetHome(t, fmt.Sprintf(`{%s"fleet": {"host": "hub", "hub": {"listen": "127.0.0.1:%d"}}}`, hubKeys, port))
	if r := hub.run("server", "start"); r.exit != 0 {
		t.Fatalf("hub start: %+v", r)
	}
	tok = filepath.Join(hub.dir, config.FleetDirName, fleetpkg.HubTokenName)
	web = newWeb(fmt.Sprintf(`{%s"fleet": {"host": "web", "url": %q, "token_file": %q}}`, webKeys, url, tok))
	if r := web.run("server", "start"); r.exit != 0 {
		t.Fatalf("web start: %+v", r)
	}
	return hub, web, url, tok
}

// setDebugAgent writes an agent row on h's server through __debug.set_agent.
func setDebugAgent(t *testing.T, h *home, uuid, path, status string) {
	t.Helper()
	c := &socketapi.Client{Socket: filepath.Join(h.dir, "orcr.sock")}
	if err := c.Call(context.Background(), "__debug.set_agent", map[string]any{"uuid": uuid, "path": path, "status": status}, nil); err != nil {
		t.Fatal(err)
	}
}

// emitEvents commits n events on h's server and returns the last one's seq.
func emitEvents(t *testing.T, h *home, n int) int64 {
	t.Helper()
	c := &socketapi.Client{Socket: filepath.Join(h.dir, "orcr.sock")}
	var out struct{ Seq int64 }
	for i := range n {
		if err := c.Call(context.Background(), "__debug.emit_event", map[string]any{"payload": map[string]any{"i": i}}, &out); err != nil {
			t.Fatalf("emit on %s: %v", h.dir, err)
		}
	}
	return out.Seq
}

// The hub's server killed with SIGKILL (the embedded NATS server and its JetStream store
// die with it) and started again on the same home and port: the member web keeps
// committing while the hub is gone, nothing either of them published before the kill is
// lost, and both catch up with no gap and no duplicate; web's status shows it cut off,
// then connected again with no lag (docs/fleet.md §5).
func TestFleetHubKill9(t *testing.T) {
	t.Parallel()
	heavy(t)
	hub, web, url, tok := fleetPair(t)
	webHead, hubHead := emitEvents(t, web, 30), emitEvents(t, hub, 10)
	// A server may commit events of its own after these: a host's stream is checked to
	// hold 1..n once each for some n at least the head.
	caughtUp := func(seqs []int64, head int64) bool {
		return int64(len(seqs)) >= head && fleettest.Gapless(seqs, int64(len(seqs)))
	}
	poll.Eventually(t, 30*time.Second, "both members' events in the stream", func() bool {
		return caughtUp(fleettest.StreamSeqs(t, url, tok, "web"), webHead) && caughtUp(fleettest.StreamSeqs(t, url, tok, "hub"), hubHead)
	})
	// A reader of the fleet's events on web keeps its cursors (docs/fleet.md §5.3).
	_, before := fleetEventsFrom(t, web, nil)

	var pid int
	for p := range hub.serverPIDs() {
		pid = p
	}
	if pid == 0 {
		t.Fatal("no hub server process")
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitGone(t, pid)
	// Cut off, web still commits; its status says it holds the events back.
	webHead = emitEvents(t, web, 20)
	poll.Eventually(t, 20*time.Second, "web's status: cut off with its new events held back", func() bool {
		_, st, _ := web.jsonRun(t, "server.status", 0, "server", "status")
		f, _ := st["fleet"].(map[string]any)
		lag, _ := f["lag"].(float64)
		return f["connection"] != "connected" && lag >= 20
	})

	if r := hub.run("server", "start"); r.exit != 0 {
		t.Fatalf("hub restart: %+v", r)
	}
	hubHead = emitEvents(t, hub, 5)
	var webSeqs, hubSeqs []int64
	poll.Eventually(t, 60*time.Second, "both caught up after the hub's restart", func() bool {
		webSeqs, hubSeqs = fleettest.StreamSeqs(t, url, tok, "web"), fleettest.StreamSeqs(t, url, tok, "hub")
		return len(webSeqs) >= int(webHead) && len(hubSeqs) >= int(hubHead)
	}, func() string {
		return fmt.Sprintf("web %d of %d, hub %d of %d", len(webSeqs), webHead, len(hubSeqs), hubHead)
	})
	if !caughtUp(webSeqs, webHead) || !caughtUp(hubSeqs, hubHead) {
		t.Fatalf("stream after the hub's kill -9: web %v (want 1..%d or more, once each), hub %v (want 1..%d or more)", webSeqs, webHead, hubSeqs, hubHead)
	}
	poll.Eventually(t, 20*time.Second, "web's status: connected, nothing held back", func() bool {
		_, st, _ := web.jsonRun(t, "server.status", 0, "server", "status")
		f, _ := st["fleet"].(map[string]any)
		return f["connection"] == "connected" && f["lag"] == float64(0)
	})
	// The reader reads on from the cursors it had before the kill: each host's events
	// from the next seq, with no gap, up to its head.
	events, after := fleetEventsFrom(t, web, before)
	for host, head := range map[string]int64{"web": webHead, "hub": hubHead} {
		next := before[host] + 1
		for _, e := range events {
			if e.Host == host {
				if e.Seq != next {
					t.Fatalf("read on from %s=%d after the hub's kill -9: its event %d where %d was due", host, before[host], e.Seq, next)
				}
				next++
			}
		}
		if after[host] < head || after[host] != next-1 {
			t.Fatalf("read on from %s=%d after the hub's kill -9: up to %d, want %d or more", host, before[host], after[host], head)
		}
	}
}

// fleetEventsFrom reads every member's events through h's server with `orcr fleet events
// --json` after the cursors since, and returns them with the cursors to read on from.
func fleetEventsFrom(t *testing.T, h *home, since map[string]int64) ([]api.FleetEvent, map[string]int64) {
	t.Helper()
	args := []string{"fleet", "events", "--limit", "10000"}
	for host, c := range since {
		args = append(args, "--since", fmt.Sprintf("%s=%d", host, c))
	}
	_, res, _ := h.jsonRun(t, "fleet.events", 0, args...)
	var out api.FleetEventsResult
	b, _ := json.Marshal(res)
	if err := json.Unmarshal(b, &out); err != nil || out.More {
		t.Fatalf("orcr fleet events %v: %v (more %v)", args, err, out.More)
	}
	return out.Events, out.Cursors
}

// `orcr top --fleet` in a real terminal on the hub: web's agents show under "web:"
// beside the hub's own, and once web's server is stopped its node says it is
// unreachable and keeps its agents as they were; on a home in no fleet, `top --fleet`
// says so and exits 2 (docs/top.md §7).
func TestTopAcrossHostsInATerminal(t *testing.T) {
	t.Parallel()
	hub, web, _, _ := fleetPair(t)
	setDebugAgent(t, hub, "0190c000-0000-7000-8000-000000000001", "local/one", "idle")
	setDebugAgent(t, web, "0190c000-0000-7000-8000-000000000002", "review/two", "working")

	term := newTmuxSize(t, hub.env, "topfleet", topCmd("--fleet"), 120, 30)
	term.waitScreen(30*time.Second, "web's agent under web:", func(s string) bool {
		return strings.Contains(s, "⌂ web:") && strings.Contains(s, "● two") && strings.Contains(s, "✓ one") &&
			strings.Contains(s, "fleet: 1 other host")
	})
	if r := web.run("server", "stop"); r.exit != 0 {
		t.Fatalf("web stop: %+v", r)
	}
	term.waitScreen(30*time.Second, "web unreachable, its agent kept", func(s string) bool {
		return strings.Contains(s, "(1 unreachable)") && strings.Contains(lineOf(s, "⌂ web:"), "unreachable") && strings.Contains(s, "● two")
	})
	term.keys(true, "q")
	term.waitScreen(10*time.Second, "top's exit", func(s string) bool { return strings.Contains(s, "EXIT=0") })

	lone := fleetHome(t, `{}`)
	alone := newTmuxSize(t, lone.env, "toplone", topCmd("--fleet"), 120, 10)
	alone.waitScreen(30*time.Second, "top --fleet refused on a home in no fleet", func(s string) bool {
		return strings.Contains(s, "EXIT=2") && strings.Contains(s, "fleet")
	})
}

// lineOf is the first line of screen holding sub ("" when none).
func lineOf(screen, sub string) string {
	for l := range strings.SplitSeq(screen, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}
