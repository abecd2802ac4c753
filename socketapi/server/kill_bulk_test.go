package server_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/orcr-go/orcr/herdr"
	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/socketapi/sockettest"
)

// spawnIdle runs n mock agents under prefix and waits until each is idle in its pane.
func spawnIdle(tb testing.TB, c *socketapi.Client, prefix string, n int) {
	tb.Helper()
	var errMu sync.Mutex
	var firstErr error
	parallel(n, 16, func(i int) {
		err := c.Call(context.Background(), "agent.run", map[string]any{"path": fmt.Sprintf("%s/a%04d", prefix, i), "agent": "mock"}, nil)
		if err != nil {
			errMu.Lock()
			firstErr = err
			errMu.Unlock()
		}
	})
	if firstErr != nil {
		tb.Fatal(firstErr)
	}
	benchWait(tb, c, 2*time.Minute, func(rows []agentRow) bool {
		if len(rows) != n {
			return false
		}
		for _, r := range rows {
			if r.PaneID == nil || r.Status != "idle" {
				return false
			}
		}
		return true
	}, prefix+"/**")
}

// A kill that outlasts the client's call timeout — each agent takes its whole grace to
// go — fails client_timeout for a caller that did not ask for progress, and completes
// for one that did: the server's progress frames keep its deadline moving, and the
// final frame is the result.
func TestKillProgressOutlivesTheCallTimeout(t *testing.T) {
	srv := sockettest.NewServer(t, sockettest.WithHerdr(t),
		sockettest.WithEnv("ORCR_MOCK_QUIT_DELAY_MS", "60000"),
		sockettest.WithConfig(`{"integrations": {"mock": {"shutdown_grace_ms": 4000}}}`))
	c := &socketapi.Client{Socket: srv.Socket()}
	spawnIdle(t, c, "slow", 3)

	short := &socketapi.Client{Socket: srv.Socket(), Timeout: 1500 * time.Millisecond}
	err := short.Call(context.Background(), "agent.kill", map[string]any{"targets": []string{"slow/a0000"}}, nil)
	if !wire.Is(err, wire.EnvironmentError, wire.CauseClientTimeout) {
		t.Fatalf("a kill longer than the call timeout, without progress: %v, want client_timeout", err)
	}

	var mu sync.Mutex
	var frames []wire.Progress
	patient := &socketapi.Client{Socket: srv.Socket(), Timeout: 1500 * time.Millisecond,
		OnProgress: func(method string, p wire.Progress) {
			mu.Lock()
			defer mu.Unlock()
			if method != "agent.kill" {
				t.Errorf("progress for %s", method)
			}
			frames = append(frames, p)
		}}
	var res struct {
		Killed []struct{ Path string }
	}
	start := time.Now()
	if err := patient.Call(context.Background(), "agent.kill", map[string]any{"targets": []string{"slow/a0001", "slow/a0002"}}, &res); err != nil {
		t.Fatalf("a kill with progress: %v", err)
	}
	took := time.Since(start)
	if len(res.Killed) != 2 {
		t.Errorf("killed %+v, want slow/a0001 and slow/a0002", res.Killed)
	}
	if took < 3*time.Second {
		t.Errorf("the kill took %s, less than the grace it waits out: the test shows nothing", took)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(frames) < 2 || frames[0].Total != 2 {
		t.Errorf("progress frames %+v, want several, total 2", frames)
	}
	for i := 1; i < len(frames); i++ {
		if frames[i].Done < frames[i-1].Done || frames[i].Done > frames[i].Total {
			t.Errorf("progress went %+v then %+v", frames[i-1], frames[i])
		}
	}
}

// BenchmarkBulkKill kills N idle mock agents with one agent.kill of a pattern, against
// the floor: closing N panes running the same mock agent directly on the same herdr
// stand-in, 64 closes in flight (as many as a kill shuts down at once). N is
// ORCR_BENCH_KILL_N (200 by default, sized for 2 cores). Metric x-floor is orcr's time
// over the floor's, measured in the same run (issue goal: ≤ 5).
func BenchmarkBulkKill(b *testing.B) {
	n := 200
	if v, err := strconv.Atoi(os.Getenv("ORCR_BENCH_KILL_N")); err == nil && v > 0 {
		n = v
	}
	srv := sockettest.NewServer(b, sockettest.WithHerdr(b), sockettest.WithConfig(fmt.Sprintf(`{"concurrency": {"max": %d}}`, n+1)))
	c := &socketapi.Client{Socket: srv.Socket(), OnProgress: func(string, wire.Progress) {}}
	ctx := context.Background()
	bins := sockettest.BuildBinaries(b)
	spawnIdle(b, c, "warm", 1) // starts the owned herdr session
	remote := herdr.NewRemote(srv.HerdrSocket())
	dataRoot, err := os.MkdirTemp("", "bk")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(dataRoot)

	var orcrTotal, floorTotal time.Duration
	b.ResetTimer()
	for it := 0; it < b.N; it++ {
		b.StopTimer()
		ws, err := remote.WorkspaceCreate(ctx, fmt.Sprintf("floor%d", it), "")
		if err != nil {
			b.Fatal(err)
		}
		panes := make([]string, n)
		parallel(n, 16, func(i int) {
			env := map[string]string{"ORCR_AGENT_DATA_DIR": filepath.Join(dataRoot, fmt.Sprintf("%d-%d", it, i))}
			_, pane, err := remote.LayoutApply(ctx, ws.Workspace.WorkspaceID, fmt.Sprintf("floor/p%04d", i),
				[]string{bins.MockAgent}, "", fmt.Sprintf("floor/p%04d", i), env)
			if err != nil {
				b.Errorf("layout.apply: %v", err)
			}
			panes[i] = pane
		})
		remote.Close(ctx, ws.RootPane.PaneID)
		prefix := fmt.Sprintf("bulk%d", it)
		spawnIdle(b, c, prefix, n)
		b.StartTimer()

		start := time.Now()
		parallel(n, 64, func(i int) {
			if err := remote.Close(ctx, panes[i]); err != nil {
				b.Errorf("pane.close: %v", err)
			}
		})
		floorTotal += time.Since(start)

		start = time.Now()
		var res struct{ Killed []struct{ Path string } }
		if err := c.Call(ctx, "agent.kill", map[string]any{"targets": []string{prefix + "/**"}}, &res); err != nil {
			b.Fatal(err)
		}
		orcrTotal += time.Since(start)
		if len(res.Killed) != n {
			b.Fatalf("killed %d agents, want %d", len(res.Killed), n)
		}
	}
	b.ReportMetric(float64(orcrTotal.Milliseconds())/float64(b.N), "orcr-ms")
	b.ReportMetric(float64(floorTotal.Milliseconds())/float64(b.N), "floor-ms")
	b.ReportMetric(float64(orcrTotal)/float64(floorTotal), "x-floor")
	b.ReportMetric(0, "ns/op")
}
