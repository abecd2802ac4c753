package server_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/orcr-go/orcr/herdr"
	"github.com/orcr-go/orcr/socketapi/sockettest"
	"github.com/orcr-go/orcr/tests/poll"
)

// Defect 8 of the reconciler issue: a run accepted while herdr does not answer waits for
// herdr (bounded by max_starting) instead of ending failed, and spawns once herdr is
// back. herdr is "down" here because its session will not start: a wrapper around the
// stand-in makes `herdr --session orcr server` a no-op while a flag file exists.
func TestRunWaitsForHerdrInsteadOfFailing(t *testing.T) {
	t.Parallel()
	env := sockettest.HerdrEnv(t)
	dir := t.TempDir()
	flag := filepath.Join(dir, "down")
	if err := os.WriteFile(flag, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	wrapper := filepath.Join(dir, "herdr")
	script := "#!/bin/sh\nif [ -e " + flag + " ] && [ \"$3\" = server ]; then exit 0; fi\nexec " + env["ORCR_HERDR_BIN"] + " \"$@\"\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	var log sockettest.SyncBuffer
	opts := []sockettest.Option{sockettest.WithLog(slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelWarn})))}
	for k, v := range env {
		opts = append(opts, sockettest.WithEnv(k, v))
	}
	opts = append(opts, sockettest.WithEnv("ORCR_HERDR_BIN", wrapper))
	srv := sockettest.NewServer(t, opts...)
	c := srv.Client(t)

	a, err := run(t, c, map[string]any{"path": "hd/a", "gc": "never", "prompt": "say=back turn_ms=20"})
	if err != nil {
		t.Fatalf("agent.run while herdr is down: %v", err)
	}
	poll.Eventually(t, 40*time.Second, "the spawn to report that herdr does not answer", func() bool {
		return strings.Contains(log.String(), "herdr does not answer")
	})
	if row := ls(t, c, map[string]any{"pattern": a.UUID})[0]; row.Status != "starting" {
		t.Fatalf("while herdr is down: %+v, want still starting", row)
	}
	os.Remove(flag) // herdr comes back
	if row := waitStatus(t, c, a.UUID, "idle", "ended"); row.Status != "idle" {
		t.Fatalf("after herdr came back: %+v, want idle", row)
	}
	if got := lastResponse(t, c, "hd/a"); got != "back\nDONE" {
		t.Errorf("answer %q", got)
	}
}

// A spawn herdr takes but answers after the call's deadline (its application thread
// busy: the stand-in holds every layout.apply 17 s, past the 15 s deadline) is not made
// twice and does not fail: the pane it made is found by its label and becomes the
// agent's (docs/lifecycle.md §7.5).
func TestSpawnAnsweredLateIsTheAgentsPane(t *testing.T) {
	t.Parallel()
	var log sockettest.SyncBuffer
	srv := sockettest.NewServer(t, sockettest.WithHerdr(t), sockettest.WithEnv("HERDR_STANDIN_LATE", "layout.apply=17s"),
		sockettest.WithLog(slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelInfo}))))
	c := srv.Client(t)
	a, err := run(t, c, map[string]any{"path": "late/a", "gc": "never", "prompt": "say=made"})
	if err != nil {
		t.Fatalf("agent.run: %v", err)
	}
	var row agentRow
	poll.Eventually(t, 60*time.Second, "the agent's start to end one way or the other", func() bool {
		row = ls(t, c, map[string]any{"pattern": a.UUID})[0]
		return row.Status == "idle" || row.Status == "ended"
	}, func() string { return fmt.Sprintf("got %+v", row) })
	if row.Status != "idle" || row.PaneID == nil {
		t.Fatalf("after herdr answered late: %+v, want idle in its pane (log:\n%s)", row, log.String())
	}
	if !strings.Contains(log.String(), "its pane is looked for") {
		t.Fatalf("the spawn's call did not time out (the path under test was not taken); log:\n%s", log.String())
	}
	if got := lastResponse(t, c, "late/a"); got != "made\nDONE" {
		t.Errorf("answer %q", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	panes, err := herdr.NewRemote(srv.HerdrSocket()).PaneList(ctx, "")
	if err != nil {
		t.Fatalf("herdr pane.list: %v", err)
	}
	if len(panes) != 1 || panes[0].PaneID != *row.PaneID {
		t.Errorf("herdr's panes: %+v, want only the agent's %s (no second spawn, no root shell left)", panes, *row.PaneID)
	}
}
