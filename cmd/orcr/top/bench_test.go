package top

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/sockettest"
	"github.com/orcr-go/orcr/store/agentpath"
	"github.com/orcr-go/orcr/tests/poll"
)

// bigSnapshot is a fleet of n agents over ten scopes, a tenth of them working, one in
// twenty blocked, every turn finished except the working ones.
func bigSnapshot(n int) api.Snapshot {
	s := api.Snapshot{SnapshotSeq: 1, Loops: []api.SnapshotLoop{}, Queue: []api.QueueEntry{}}
	for i := range n {
		st := api.StatusIdle
		switch {
		case i%10 == 0:
			st = api.StatusWorking
		case i%20 == 5:
			st = api.StatusBlocked
		}
		a := row(fmt.Sprintf("u%05d", i), fmt.Sprintf("s%d/team%d/a%04d", i%10, i%7, i), st)
		a.TurnDeliveredAt = at(-time.Minute)
		if st != api.StatusWorking {
			a.TurnCompletedAt = at(-30 * time.Second)
		}
		s.Agents = append(s.Agents, a)
	}
	return s
}

// BenchmarkFrame1000 is one frame of `orcr top` over a 1,000-agent fleet: an event
// applied, the tree rebuilt, the screen rendered (160×48). The baseline, run in the
// same process, is decoding one api.snapshot of the same fleet — what a client that
// re-reads the snapshot on every change (the reference's top) pays before it draws
// anything. Reported: the frame as a share of the 100 ms budget, and against the
// baseline.
func BenchmarkFrame1000(b *testing.B) {
	snap := bigSnapshot(1000)
	doc, err := json.Marshal(snap)
	if err != nil {
		b.Fatal(err)
	}
	// The baseline: 20 decodes, timed here (testing.Benchmark cannot nest in a benchmark).
	began := time.Now()
	for range 20 {
		var s api.Snapshot
		if err := json.Unmarshal(doc, &s); err != nil {
			b.Fatal(err)
		}
	}
	decode := time.Since(began) / 20
	keep, _ := agentpath.CompileFilter("", agentpath.ListFilter{Managed: true})
	m := NewModel(Config{Options: Options{Keep: keep}, Now: func() time.Time { return t0 }, Location: time.UTC, Width: 160, Height: 48})
	m.Update(snapshotMsg{gen: 1, snap: snap})
	events := make([]socketapi.Event, 100)
	for i := range events {
		a := snap.Agents[i*10+1]
		a.Status = api.StatusWorking
		raw, _ := json.Marshal(map[string]any{"kind": "agent.status_changed", "agent": a})
		events[i] = socketapi.Event{Kind: "agent.status_changed", RefUUID: a.UUID, Raw: raw}
	}
	seq := int64(1)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		seq++
		ev := events[i%len(events)]
		ev.Seq = seq
		m.Update(eventMsg{gen: 1, ev: ev})
		m.Update(frameMsg{})
		_ = m.View()
	}
	b.StopTimer()
	frame := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	b.ReportMetric(frame/float64(frameBudget.Nanoseconds()), "of_budget")
	b.ReportMetric(frame/float64(decode.Nanoseconds()), "x_snapshot_decode")
	b.Logf("frame %.2f ms (budget %v); decoding one 1000-agent api.snapshot: %.2f ms", frame/1e6, frameBudget, float64(decode.Nanoseconds())/1e6)
}

// cpuTime is this process's user+system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkIdle measures an idle `orcr top`: the program and its watch running over a
// 1,000-agent fleet whose turns have all finished, with no event for the window. It
// reports the model's updates and renders per second (the aim is zero) and the CPU the
// process spends per second, against the same process idle without top (the in-process
// server alone) as the baseline.
func BenchmarkIdle(b *testing.B) {
	srv := sockettest.NewServer(b)
	c := srv.Client(b)
	for i := range 1000 {
		p := map[string]any{"uuid": fmt.Sprintf("0190d000-0000-7000-8000-%012d", i), "path": fmt.Sprintf("s%d/a%04d", i%10, i), "status": "idle"}
		if err := c.Call(context.Background(), "__debug.set_agent", p, nil); err != nil {
			b.Fatal(err)
		}
	}
	const window = 2 * time.Second
	measure := func() time.Duration {
		start := cpuTime()
		time.Sleep(window) // the measured window of CPU time
		return cpuTime() - start
	}
	b.ResetTimer()
	for b.Loop() {
		base := measure()

		keep, _ := agentpath.CompileFilter("", agentpath.ListFilter{Managed: true})
		m := NewModel(Config{Options: Options{Keep: keep}, Width: 160, Height: 48, NoColor: true})
		counted := &counter{Model: m}
		ctx, cancel := context.WithCancel(context.Background())
		in, _ := io.Pipe()
		p := tea.NewProgram(counted, tea.WithContext(ctx), tea.WithInput(in), tea.WithOutput(io.Discard), tea.WithoutSignals(), tea.WithWindowSize(160, 48), tea.WithFPS(fps))
		fed := make(chan struct{})
		go func() { defer close(fed); Feed(ctx, c, p.Send) }()
		ran := make(chan struct{})
		go func() { defer close(ran); _, _ = p.Run() }()
		poll.Eventually(b, 10*time.Second, "top to get its snapshot", counted.ready.Load)
		time.Sleep(200 * time.Millisecond) // the first frame and detail settle
		u0, r0 := counted.updates.Load(), counted.renders.Load()
		busy := measure()
		u1, r1 := counted.updates.Load(), counted.renders.Load()
		cancel()
		<-ran
		<-fed
		secs := window.Seconds()
		b.ReportMetric(float64(u1-u0)/secs, "updates/s")
		b.ReportMetric(float64(r1-r0)/secs, "renders/s")
		b.ReportMetric(float64(busy.Microseconds())/1000/secs, "cpu_ms/s")
		b.ReportMetric(float64(busy)/float64(max(base, time.Millisecond)), "x_idle_server")
		b.Logf("idle top: %d updates, %d renders in %v; CPU %v with top, %v without", u1-u0, r1-r0, window, busy, base)
	}
}

// counter counts what the program asks of the model.
type counter struct {
	*Model
	updates, renders atomic.Int64
	ready            atomic.Bool
}

func (c *counter) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	c.updates.Add(1)
	_, cmd := c.Model.Update(msg)
	if c.Model.data != nil {
		c.ready.Store(true)
	}
	return c, cmd
}

func (c *counter) View() tea.View {
	c.renders.Add(1)
	return c.Model.View()
}
