package server_test

import (
	"testing"
	"time"

	"github.com/orcr-go/orcr/socketapi/sockettest"
)

// Defect 5 of the reconciler issue: a turn that finishes while the server is down (the
// restart comes well after the turn's answer was written) still completes after the
// restart, from the transcript.
func TestTurnFinishedWhileServerDownCompletesAfterRestart(t *testing.T) {
	t.Parallel()
	withHerdr := sockettest.WithHerdr(t)
	home := sockettest.TempHome(t)
	srv1 := sockettest.NewServer(t, withHerdr, sockettest.WithHome(home))
	c1 := srv1.Client(t)
	rec := record(t, c1)
	a, err := run(t, c1, map[string]any{"path": "fr/a", "gc": "never", "prompt": "say=early turn_ms=1500"})
	if err != nil {
		t.Fatal(err)
	}
	// Stop as soon as the prompt is delivered: the turn is still running.
	rec.waitFor(t, 30*time.Second, "the first prompt delivered", func(evs []ev) bool {
		for _, e := range evs {
			if e.Kind == "agent.input_applied" && e.UUID == a.UUID {
				return true
			}
		}
		return false
	})
	srv1.Stop()
	if err := srv1.Wait(); err != nil {
		t.Fatal(err)
	}
	// The mock finishes its turn meanwhile; the restart comes more than 3 s later.
	time.Sleep(4 * time.Second) // the condition of the defect: down for longer than the fast-turn window
	srv2 := sockettest.NewServer(t, withHerdr, sockettest.WithHome(home))
	c2 := srv2.Client(t)
	if row := waitStatus(t, c2, a.UUID, "idle"); row.Status != "idle" {
		t.Fatalf("after the restart: %+v", row)
	}
	if got := lastResponse(t, c2, "fr/a"); got != "early\nDONE" {
		t.Errorf("answer %q", got)
	}
}
