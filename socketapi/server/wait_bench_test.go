package server_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/sockettest"
)

// processCPU is the CPU time (user + system) this process has used so far.
func processCPU(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// idleCPU is the CPU the process uses over d while the test does nothing.
func idleCPU(tb testing.TB, d time.Duration) time.Duration {
	before := processCPU(tb)
	time.Sleep(d) // the idle window under measurement
	return processCPU(tb) - before
}

func quantile(ds []time.Duration, q float64) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, int(q*float64(len(s))))]
}

func micros(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }

// BenchmarkWait100 (issue 5's benchmark): 100 concurrent agent.wait calls, one per busy
// agent. (a) Process CPU over one idle second with the 100 waits blocked, against the
// same idle second with no waits (server and client share the process; both seconds
// include the same idle client). (b) For each agent settled in turn with
// __debug.set_agent idle: the delay from that call returning (its event committed) to
// the wait's reply, and to a bare events.subscribe subscriber receiving that same event
// — medians and p95 of both, from the same run, and of their per-event difference. The
// reference point is taken after the set call's reply arrived, so a reply that beat it
// shows as a negative delay.
func BenchmarkWait100(b *testing.B) {
	const n = 100
	const idle = time.Second
	for range b.N {
		b.StopTimer()
		c, ids := benchAgents(b, n, func(i int) string { return fmt.Sprintf("bench/a%03d", i) })
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)

		// A bare subscriber following the stream from here on.
		subscriberAt := bareSubscriber(ctx, b, c)

		// (a) CPU: an idle second without waits, then with 100 blocked waits.
		base := idleCPU(b, idle)
		waits := make([]<-chan waitOutcome, n)
		for i := range waits {
			waits[i] = startWait(ctx, c, map[string]any{"targets": []string{ids[i]}})
		}
		time.Sleep(300 * time.Millisecond) // let every wait reach its blocked state
		for i, ch := range waits {
			select {
			case o := <-ch:
				b.Fatalf("wait %d answered while its agent works: %+v %v", i, o.res, o.err)
			default:
			}
		}
		waiting := idleCPU(b, idle)

		// (b) Settle one agent at a time.
		b.StartTimer()
		waitDelay := make([]time.Duration, 0, n)
		subDelay := make([]time.Duration, 0, n)
		gap := make([]time.Duration, 0, n) // wait reply − subscriber receipt, same event
		for i := range waits {
			seq := setAgent(b, c, ids[i], fmt.Sprintf("bench/a%03d", i), "idle")
			committed := time.Now()
			o := <-waits[i]
			if o.err != nil || !o.res.AllOK || o.res.DecisionSeq < seq {
				b.Fatalf("wait %d: %+v %v (settling seq %d)", i, o.res, o.err, seq)
			}
			waitDelay = append(waitDelay, o.at.Sub(committed))
			subAt := subscriberAt(seq)
			subDelay = append(subDelay, subAt.Sub(committed))
			gap = append(gap, o.at.Sub(subAt))
		}
		b.StopTimer()
		cancel()

		b.ReportMetric(float64(base.Microseconds())/1e3, "cpu-ms/idle-s-no-waits")
		b.ReportMetric(float64(waiting.Microseconds())/1e3, "cpu-ms/idle-s-100-waits")
		b.ReportMetric(float64((waiting-base).Microseconds())/1e3, "cpu-ms/idle-s-delta")
		reportWakeups(b, waitDelay, subDelay, gap)
	}
}

// bareSubscriber opens an events.subscribe from the current head and returns a function
// that blocks until the subscriber has received seq and says when it did. The
// subscription ends with ctx.
func bareSubscriber(ctx context.Context, b *testing.B, c *socketapi.Client) (receivedAt func(seq int64) time.Time) {
	var head struct {
		Seq int64 `json:"seq"`
	}
	if err := c.Call(ctx, "__debug.emit_event", nil, &head); err != nil {
		b.Fatal(err)
	}
	st, err := c.Subscribe(ctx, "events.subscribe", map[string]any{"since_seq": head.Seq})
	if err != nil {
		b.Fatal(err)
	}
	context.AfterFunc(ctx, func() { st.Close() })
	var mu sync.Mutex
	seen := map[int64]time.Time{}
	arrived := make(chan struct{}, 1)
	go func() {
		for {
			f, err := st.Next()
			if err != nil {
				return
			}
			mu.Lock()
			seen[f.Seq] = time.Now()
			mu.Unlock()
			select {
			case arrived <- struct{}{}:
			default:
			}
		}
	}()
	return func(seq int64) time.Time {
		for {
			mu.Lock()
			at, ok := seen[seq]
			mu.Unlock()
			if ok {
				return at
			}
			select {
			case <-arrived:
			case <-ctx.Done():
				b.Fatalf("subscriber never received seq %d", seq)
			}
		}
	}
}

// BenchmarkWaitAny (issue 15's benchmark): the wake-up of one blocked agent.wait {any:
// true} over n working members when one of them settles, against a bare events.subscribe
// subscriber receiving the same commit. Each round starts a fresh any wait, lets it
// block, settles the round's member with __debug.set_agent idle and measures, from just
// before that call (so both delays include the write's request and commit, and neither
// can come out negative), the delay to the wait's reply and to the subscriber's receipt
// of that event; then the member goes back to working. Medians and p95 of both, of their
// per-event difference, and the ratio of the medians.
func BenchmarkWaitAny(b *testing.B) {
	for _, n := range []int{10, 100} {
		b.Run(fmt.Sprintf("members=%d", n), func(b *testing.B) { benchWaitAny(b, n, 50) })
	}
}

func benchWaitAny(b *testing.B, n, rounds int) {
	for range b.N {
		b.StopTimer()
		path := func(i int) string { return fmt.Sprintf("bench_any/a%03d", i) }
		c, ids := benchAgents(b, n, path)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		subscriberAt := bareSubscriber(ctx, b, c)
		waitDelay := make([]time.Duration, 0, rounds)
		subDelay := make([]time.Duration, 0, rounds)
		gap := make([]time.Duration, 0, rounds)
		for r := range rounds {
			i := r % n
			ch := startWait(ctx, c, map[string]any{"targets": []string{"bench_any/*"}, "any": true})
			time.Sleep(20 * time.Millisecond) // let the wait reach its blocked state
			b.StartTimer()
			sent := time.Now()
			seq := setAgent(b, c, ids[i], path(i), "idle")
			o := <-ch
			b.StopTimer()
			if o.err != nil || o.res.FirstSettled != ids[i] || o.res.DecisionSeq < seq {
				b.Fatalf("round %d: %+v %v (settling %s at seq %d)", r, o.res, o.err, ids[i], seq)
			}
			subAt := subscriberAt(seq)
			waitDelay = append(waitDelay, o.at.Sub(sent))
			subDelay = append(subDelay, subAt.Sub(sent))
			gap = append(gap, o.at.Sub(subAt))
			setAgent(b, c, ids[i], path(i), "working")
		}
		cancel()

		reportWakeups(b, waitDelay, subDelay, gap)
		b.ReportMetric(float64(quantile(waitDelay, 0.5))/float64(quantile(subDelay, 0.5)), "wait/sub-p50")
	}
}

// benchAgents starts a server with n working agents at path(i) and returns a client of it
// and their uuids.
func benchAgents(b *testing.B, n int, path func(i int) string) (*socketapi.Client, []string) {
	srv := sockettest.NewServer(b)
	c := &socketapi.Client{Socket: srv.Socket()}
	ids := make([]string, n)
	for i := range ids {
		ids[i] = newID()
		setAgent(b, c, ids[i], path(i), "working")
	}
	return c, ids
}

// reportWakeups reports the medians and p95 of the waits' delays, the subscriber's
// delays and their per-event differences.
func reportWakeups(b *testing.B, waitDelay, subDelay, gap []time.Duration) {
	b.ReportMetric(micros(quantile(waitDelay, 0.5)), "wait-p50-µs")
	b.ReportMetric(micros(quantile(waitDelay, 0.95)), "wait-p95-µs")
	b.ReportMetric(micros(quantile(subDelay, 0.5)), "sub-p50-µs")
	b.ReportMetric(micros(quantile(subDelay, 0.95)), "sub-p95-µs")
	b.ReportMetric(micros(quantile(gap, 0.5)), "wait-minus-sub-p50-µs")
	b.ReportMetric(micros(quantile(gap, 0.95)), "wait-minus-sub-p95-µs")
}
