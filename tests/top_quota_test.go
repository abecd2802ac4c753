package tests

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/orcr-go/orcr/socketapi"
)

// TestTopQuotaInATerminal: `orcr top` in a real terminal shows the quota windows the
// server recorded (docs/top.md §3): codex's 5h and 7d with used percent and time to
// reset, the one at quota.pause_at marked paused; a new report reaches the open screen
// at top's next status read, and a window recorded with its reset past shows reset.
func TestTopQuotaInATerminal(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	if r := h.run("server", "start"); r.exit != 0 {
		t.Fatalf("server start: %+v", r)
	}
	c := &socketapi.Client{Socket: filepath.Join(h.dir, "orcr.sock")}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	record := func(primary float64, primaryReset time.Time) {
		t.Helper()
		err := c.Call(ctx, "quota.record", map[string]any{"provider": "codex", "windows": []any{
			map[string]any{"window": "primary", "used_percent": primary, "window_minutes": 300, "resets_at": primaryReset.UnixMilli()},
			map[string]any{"window": "secondary", "used_percent": 96, "window_minutes": 10080,
				"resets_at": time.Now().Add(3*24*time.Hour + 30*time.Minute).UnixMilli()},
		}}, nil)
		if err != nil {
			t.Fatalf("quota.record: %v", err)
		}
	}
	record(50, time.Now().Add(2*time.Hour+30*time.Second))

	term := newTmuxSize(t, h.env, "top", topCmd(), 120, 30)
	term.waitScreen(20*time.Second, "the quota line", func(s string) bool {
		return strings.Contains(s, "quota  codex 5h 50% (2h01m) 7d 96% paused (3d") ||
			strings.Contains(s, "quota  codex 5h 50% (2h00m) 7d 96% paused (3d")
	})

	record(85, time.Now().Add(2*time.Hour))
	term.waitScreen(20*time.Second, "the new report", func(s string) bool { return strings.Contains(s, "codex 5h 85% (") })

	record(99, time.Now().Add(-time.Minute))
	term.waitScreen(20*time.Second, "the window reset", func(s string) bool { return strings.Contains(s, "codex 5h reset 7d 96% paused") })

	term.keys(true, "q")
	term.waitScreen(10*time.Second, "top's exit", func(s string) bool { return strings.Contains(s, "EXIT=0") })
}
