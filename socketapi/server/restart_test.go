package server_test

import (
	"fmt"
	"testing"

	"github.com/orcr-go/orcr/socketapi/sockettest"
)

// Defect: `agent run x; server stop; agent ls` left x ended failed — the spawn cut off
// by the stop failed its row. A stop must never fail an agent it interrupted: the next
// start resumes the spawn (pane recorded) or puts the row back at its place in the
// queue (no pane yet), and x becomes idle with its answer, in one pane.
func TestStopDuringSpawnResumesAtRestart(t *testing.T) {
	t.Parallel()
	withHerdr := sockettest.WithHerdr(t)
	home := sockettest.TempHome(t)
	const n = 4
	srv1 := sockettest.NewServer(t, withHerdr, sockettest.WithHome(home))
	c1 := srv1.Client(t)
	var uuids []string
	for i := range n {
		a, err := run(t, c1, map[string]any{"path": fmt.Sprintf("cut/a%d", i), "prompt": "say=hello turn_ms=100"})
		if err != nil {
			t.Fatal(err)
		}
		uuids = append(uuids, a.UUID)
	}
	// Stop at once: the spawns are somewhere between promotion and the first prompt.
	srv1.Stop()
	if err := srv1.Wait(); err != nil {
		t.Fatalf("first server stop: %v", err)
	}

	srv2 := sockettest.NewServer(t, withHerdr, sockettest.WithHome(home))
	c2 := srv2.Client(t)
	for i, u := range uuids {
		row := waitStatus(t, c2, u, "idle", "ended")
		if row.Status != "idle" {
			t.Errorf("cut/a%d after the restart: status %s exit %q, want idle", i, row.Status, row.ExitReason)
		}
		if got := lastResponse(t, c2, fmt.Sprintf("cut/a%d", i)); got != "hello\nDONE" {
			t.Errorf("cut/a%d answer: %q", i, got)
		}
		if panes := len(panesUnder(t, srv2.HerdrSocket(), fmt.Sprintf("cut/a%d", i))); panes != 1 {
			t.Errorf("cut/a%d: %d panes carry its label, want exactly 1", i, panes)
		}
	}
}
