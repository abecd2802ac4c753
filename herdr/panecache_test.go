package herdr

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/orcr-go/orcr/herdr/herdrtest"
)

// paneLists counts the pane.list requests the stand-in saw.
func (l *wireLog) paneLists() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, r := range l.requests {
		if bytes.Contains(r, []byte(`"method":"pane.list"`)) {
			n++
		}
	}
	return n
}

// Calls aimed at a spawned terminal find its pane in the cache: typing into, reading
// and closing a pane cost no pane.list, and a pane gone afterwards is answered
// pane_not_found without reading the list again.
func TestPaneCacheSparesPaneList(t *testing.T) {
	var log wireLog
	f := herdrtest.Start(t, log.options(), "orcr")
	s := fixtureDriver(t, f, "orcr").Owned()
	ctx := context.Background()
	var terms []string
	for _, name := range []string{"one", "two"} {
		pl, err := s.Spawn(ctx, SpawnSpec{Workspace: "w", Label: "w/" + name, Argv: shellAgent(name)})
		if err != nil {
			t.Fatal(err)
		}
		terms = append(terms, pl.TerminalID)
	}
	waitScreen(t, s, terms[0], "ready-one")
	before := log.paneLists()
	if err := s.SendText(ctx, terms[0], "hello"); err != nil {
		t.Fatal(err)
	}
	if err := s.SendKeys(ctx, terms[0], KeyEnter); err != nil {
		t.Fatal(err)
	}
	waitScreen(t, s, terms[0], "hello")
	if _, err := s.PaneGet(ctx, terms[1]); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(ctx, terms[1]); err != nil {
		t.Fatal(err)
	}
	if got := log.paneLists() - before; got != 0 {
		t.Errorf("send, read, get and close of cached terminals read pane.list %d times, want 0", got)
	}
	// The closed terminal is gone: one fresh lookup says so, later calls remember it.
	for range 3 {
		if err := s.SendKeys(ctx, terms[1], KeyEnter); !IsCode(err, "pane_not_found") {
			t.Fatalf("send to a closed terminal: %v, want pane_not_found", err)
		}
	}
	if got := log.paneLists() - before; got != 1 {
		t.Errorf("three sends to a closed terminal read pane.list %d times, want 1", got)
	}
}

// A cached pane id herdr says is gone is looked up afresh, and the call lands on the
// terminal's real pane; a terminal no pane holds is pane_not_found, never another
// pane.
func TestPaneCacheStaleEntryFallsBack(t *testing.T) {
	var log wireLog
	f := herdrtest.Start(t, log.options(), "orcr")
	s := fixtureDriver(t, f, "orcr").Owned()
	ctx := context.Background()
	one, err := s.Spawn(ctx, SpawnSpec{Workspace: "w", Label: "w/one", Argv: shellAgent("one")})
	if err != nil {
		t.Fatal(err)
	}
	two, err := s.Spawn(ctx, SpawnSpec{Workspace: "w", Label: "w/two", Argv: shellAgent("two")})
	if err != nil {
		t.Fatal(err)
	}
	waitScreen(t, s, one.TerminalID, "ready-one")

	r := &Remote{Client: Client{Socket: f.Sessions["orcr"].SocketPath()}}
	c := newPaneCache(f.Sessions["orcr"].SocketPath(), false)
	c.put(one.TerminalID, "w1:pZZ") // a pane herdr never had
	var landed string
	err = c.onPane(ctx, r, one.TerminalID, func(pane string) error {
		landed = pane
		return r.SendText(ctx, pane, "fallback")
	})
	if err != nil {
		t.Fatalf("send through a stale entry: %v", err)
	}
	if landed != one.PaneID {
		t.Errorf("the send landed on %s, want %s", landed, one.PaneID)
	}
	waitScreen(t, s, one.TerminalID, "fallback")
	if p, _ := c.get(one.TerminalID); p != one.PaneID {
		t.Errorf("the cache holds %q for the terminal after the fallback, want %s", p, one.PaneID)
	}
	if p, err := c.resolve(ctx, r, two.TerminalID); err != nil || p.TerminalID != two.TerminalID {
		t.Errorf("resolve(two) = %+v, %v", p, err)
	}

	// The terminal's pane closes behind the cache's back: the call is pane_not_found,
	// and nothing else is touched.
	if err := r.Close(ctx, one.PaneID); err != nil {
		t.Fatal(err)
	}
	calls := 0
	err = c.onPane(ctx, r, one.TerminalID, func(pane string) error {
		calls++
		if pane != one.PaneID {
			t.Errorf("the call ran on %s, a pane that never held the terminal", pane)
		}
		return r.SendText(ctx, pane, "x")
	})
	if !IsCode(err, "pane_not_found") || calls != 1 {
		t.Errorf("send to a closed pane: err %v after %d calls, want pane_not_found after 1", err, calls)
	}
	if _, err := c.resolve(ctx, r, one.TerminalID); !IsCode(err, "pane_not_found") {
		t.Errorf("resolve of a closed terminal: %v, want pane_not_found", err)
	}
}

// A herdr server that binds its socket again (a restart: its pane ids start over) makes
// a new socket file, and the cache learnt against the old one is dropped.
func TestPaneCacheForgetsAcrossASocketChange(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "s.sock")
	if err := os.WriteFile(sock, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	c := newPaneCache(sock, false)
	c.put("term_1", "w1:p1")
	if _, ok := c.get("term_1"); !ok {
		t.Fatal("entry not kept")
	}
	if err := os.Remove(sock); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(sock+".new", []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(sock+".new", sock); err != nil {
		t.Fatal(err)
	}
	if p, ok := c.get("term_1"); ok {
		t.Errorf("after the socket file changed the cache still says term_1 is in %s", p)
	}
}
