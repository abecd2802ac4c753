package tests

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/orcr-go/orcr/config"
	fleetpkg "github.com/orcr-go/orcr/fleet"
	"github.com/orcr-go/orcr/fleet/fleettest"
	"github.com/orcr-go/orcr/socketapi"
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
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "nats://" + l.Addr().String()
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	hub := fleetHome(t, fmt.Sprintf(`{"fleet": {"host": "hub", "hub": {"listen": "127.0.0.1:%d"}}}`, port))
	if r := hub.run("server", "start"); r.exit != 0 {
		t.Fatalf("hub start: %+v", r)
	}
	tok := filepath.Join(hub.dir, config.FleetDirName, fleetpkg.HubTokenName)
	web := fleetHome(t, fmt.Sprintf(`{"fleet": {"host": "web", "url": %q, "token_file": %q}}`, url, tok))
	if r := web.run("server", "start"); r.exit != 0 {
		t.Fatalf("web start: %+v", r)
	}
	webHead, hubHead := emitEvents(t, web, 30), emitEvents(t, hub, 10)
	// A server may commit events of its own after these: a host's stream is checked to
	// hold 1..n once each for some n at least the head.
	caughtUp := func(seqs []int64, head int64) bool {
		return int64(len(seqs)) >= head && fleettest.Gapless(seqs, int64(len(seqs)))
	}
	poll.Eventually(t, 30*time.Second, "both members' events in the stream", func() bool {
		return caughtUp(fleettest.StreamSeqs(t, url, tok, "web"), webHead) && caughtUp(fleettest.StreamSeqs(t, url, tok, "hub"), hubHead)
	})

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
}
