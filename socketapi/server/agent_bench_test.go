package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/orcr-go/orcr/actors/paneexec"
	"github.com/orcr-go/orcr/herdr"
	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/sockettest"
	"github.com/orcr-go/orcr/tests/poll"
)

// BenchmarkSpawn200 times 200 mock agents from agent.run to all panes up
// (agent.location_changed for every one) against the floor: 200 bare layout.apply calls
// made directly on the same herdr stand-in session, as many in flight as the cap allows,
// running the same mock agent binary.
//
//   - cap50: concurrency.max = 50 (the benchmark). Only 50 agents can hold a slot,
//     so each gets a one-line prompt and gc immediate: it ends once its turn completes and
//     frees its slot; the last panes wait for earlier agents to finish.
//   - live200: concurrency.max = 200, no prompt: all 200 become live at once, which gives
//     the bare pipeline's ratio and the server's heap per live agent (HeapAlloc delta
//     after GC, all 200 idle, divided by 200; the server runs in this process).
//
// Metrics: orcr-ms and floor-ms per batch, x-floor (their ratio), launcher-floor-ms and
// x-launcher-floor (the same floor with each mock run through `orcr __pane-exec`, as
// orcr's panes run it, and orcr's time over it), heap-B/agent, and the
// store round trips of the batch per agent, from agent.run until its pane is up:
// writes/agent (writes through the store actor) and sql/agent (every SQL statement the
// server ran, the event stream the benchmark follows included).
func BenchmarkSpawn200(b *testing.B) {
	b.Run("cap50", func(b *testing.B) { benchSpawn(b, 50, false) })
	b.Run("live200", func(b *testing.B) { benchSpawn(b, 200, true) })
}

func benchSpawn(b *testing.B, limit int, live bool) {
	const n = 200
	srv := sockettest.NewServer(b, sockettest.WithHerdr(b), sockettest.WithConfig(fmt.Sprintf(`{"concurrency": {"max": %d}}`, limit)))
	c := &socketapi.Client{Socket: srv.Socket()}
	ctx := context.Background()
	bins := sockettest.BuildBinaries(b)

	// Warm up: one agent through orcr starts the owned herdr session.
	var warm struct{ Agent agentRow }
	if err := c.Call(ctx, "agent.run", map[string]any{"path": "warm/up", "agent": "mock"}, &warm); err != nil {
		b.Fatal(err)
	}
	benchWait(b, c, 30*time.Second, func(rows []agentRow) bool { return len(rows) == 1 && rows[0].PaneID != nil }, "warm/up")
	if err := c.Call(ctx, "agent.kill", map[string]any{"targets": []string{"warm/up"}}, nil); err != nil {
		b.Fatal(err)
	}
	remote := herdr.NewRemote(srv.HerdrSocket())
	dataRoot, err := os.MkdirTemp("", "bf")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(dataRoot)

	var orcrTotal, floorTotal, launcherTotal time.Duration
	var perAgent float64
	var writes, statements int64 // store actor writes and SQL statements during the orcr batches
	b.ResetTimer()
	for it := 0; it < b.N; it++ {
		// The floor: bare layout.apply calls, 50 in flight, running the mock as it is;
		// then the same running it through orcr's pane launcher (`orcr __pane-exec`,
		// docs/lifecycle.md §8.2), as orcr's own panes do.
		floorOf := func(name string, argv func(i int) []string) time.Duration {
			ws, err := remote.WorkspaceCreate(ctx, fmt.Sprintf("%s%d", name, it), "")
			if err != nil {
				b.Fatal(err)
			}
			panes := make([]string, n)
			start := time.Now()
			parallel(n, limit, func(i int) {
				env := map[string]string{"ORCR_AGENT_DATA_DIR": filepath.Join(dataRoot, fmt.Sprintf("%s-%d-%d", name, it, i))}
				_, pane, err := remote.LayoutApply(ctx, ws.Workspace.WorkspaceID, fmt.Sprintf("%s/p%03d", name, i),
					argv(i), "", fmt.Sprintf("%s/p%03d", name, i), env)
				if err != nil {
					b.Errorf("layout.apply: %v", err)
				}
				panes[i] = pane
			})
			took := time.Since(start)
			parallel(n, limit, func(i int) { remote.Close(ctx, panes[i]) })
			remote.Close(ctx, ws.RootPane.PaneID)
			return took
		}
		floor := floorOf("floor", func(int) []string { return []string{bins.MockAgent} })
		b.StopTimer()
		launcherTotal += floorOf("launcher", func(i int) []string {
			return paneexec.Argv([]string{bins.Orcr, "__pane-exec"}, filepath.Join(dataRoot, fmt.Sprintf("exit-%d-%d", it, i)), "", []string{bins.MockAgent})
		})

		// orcr: agent.run for 200 agents, until every one has its pane.
		prefix := fmt.Sprintf("bench%d", it)
		st, err := c.Subscribe(ctx, "events.subscribe", nil)
		if err != nil {
			b.Fatal(err)
		}
		up := make(chan struct{})
		go func() {
			seen := map[string]bool{}
			for {
				f, err := st.Next()
				if err != nil {
					return
				}
				var e struct {
					Kind  string `json:"kind"`
					UUID  string `json:"uuid"`
					Agent struct {
						Path string `json:"path"`
					} `json:"agent"`
				}
				json.Unmarshal(f.Event, &e)
				if e.Kind == "agent.location_changed" && strings.HasPrefix(e.Agent.Path, prefix+"/") && !seen[e.UUID] {
					seen[e.UUID] = true
					if len(seen) == n {
						close(up)
						return
					}
				}
			}
		}()
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		stats0, err := srv.System().StoreStats(ctx)
		if err != nil {
			b.Fatal(err)
		}
		sql0 := srv.System().Statements()
		b.StartTimer()
		start := time.Now()
		parallel(n, 16, func(i int) {
			p := map[string]any{"path": fmt.Sprintf("%s/a%03d", prefix, i), "agent": "mock"}
			if !live {
				p["prompt"], p["gc"] = "say=done", "immediate"
			}
			if err := c.Call(ctx, "agent.run", p, nil); err != nil {
				b.Errorf("agent.run: %v", err)
			}
		})
		select {
		case <-up:
		case <-time.After(2 * time.Minute):
			var res struct{ Agents []agentRow }
			c.Call(ctx, "agent.ls", map[string]any{"all": true}, &res)
			counts := map[string]int{}
			for _, r := range res.Agents {
				counts[r.Status+"/"+r.ExitReason]++
			}
			b.Fatalf("not all %d panes up after 2 minutes: rows by status %v", n, counts)
		}
		elapsed := time.Since(start)
		b.StopTimer()
		st.Close()
		stats1, err := srv.System().StoreStats(ctx)
		if err != nil {
			b.Fatal(err)
		}
		writes += stats1.Writes - stats0.Writes
		statements += srv.System().Statements() - sql0
		orcrTotal += elapsed
		floorTotal += floor

		if !live {
			benchWait(b, c, 2*time.Minute, func(rows []agentRow) bool { return len(rows) == 0 }, prefix+"/*")
			b.StartTimer()
			continue
		}
		// Memory with all 200 live and settled (idle: their pipelines are done).
		benchWait(b, c, 2*time.Minute, func(rows []agentRow) bool {
			idle := 0
			for _, r := range rows {
				if r.Status == "idle" {
					idle++
				}
			}
			return idle == n
		}, prefix+"/*")
		runtime.GC()
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		perAgent = (float64(after.HeapAlloc) - float64(before.HeapAlloc)) / n

		if err := c.Call(ctx, "agent.kill", map[string]any{"targets": []string{prefix + "/*"}}, nil); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.StopTimer()
	b.ReportMetric(float64(orcrTotal.Milliseconds())/float64(b.N), "orcr-ms")
	b.ReportMetric(float64(floorTotal.Milliseconds())/float64(b.N), "floor-ms")
	b.ReportMetric(float64(orcrTotal)/float64(floorTotal), "x-floor")
	b.ReportMetric(float64(launcherTotal.Milliseconds())/float64(b.N), "launcher-floor-ms")
	b.ReportMetric(float64(orcrTotal)/float64(launcherTotal), "x-launcher-floor")
	b.ReportMetric(float64(writes)/float64(n*b.N), "writes/agent")
	b.ReportMetric(float64(statements)/float64(n*b.N), "sql/agent")
	if live {
		b.ReportMetric(perAgent, "heap-B/agent")
	}
}

// parallel runs f(0..n-1) with at most width calls in flight.
func parallel(n, width int, f func(i int)) {
	var wg sync.WaitGroup
	sem := make(chan struct{}, width)
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			f(i)
		}()
	}
	wg.Wait()
}

func benchWait(tb testing.TB, c *socketapi.Client, d time.Duration, cond func([]agentRow) bool, pattern string) {
	tb.Helper()
	var res struct{ Agents []agentRow }
	poll.Eventually(tb, d, "agents of "+pattern, func() bool {
		if err := c.Call(context.Background(), "agent.ls", map[string]any{"pattern": pattern}, &res); err != nil {
			tb.Fatal(err)
		}
		return cond(res.Agents)
	}, func() string { return fmt.Sprintf("%d rows", len(res.Agents)) })
}
