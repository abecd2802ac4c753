package server_test

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
