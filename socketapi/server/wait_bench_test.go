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
	time.Sleep(d)
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
		srv := sockettest.NewServer(b)
		c := &socketapi.Client{Socket: srv.Socket()}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		ids := make([]string, n)
		for i := range ids {
			ids[i] = newID()
			setAgent(b, c, ids[i], fmt.Sprintf("bench/a%03d", i), "working")
		}

		// A bare subscriber following the stream from here on.
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
		subscriberAt := func(seq int64) time.Time {
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
		st.Close()
		cancel()

		b.ReportMetric(float64(base.Microseconds())/1e3, "cpu-ms/idle-s-no-waits")
		b.ReportMetric(float64(waiting.Microseconds())/1e3, "cpu-ms/idle-s-100-waits")
		b.ReportMetric(float64((waiting-base).Microseconds())/1e3, "cpu-ms/idle-s-delta")
		b.ReportMetric(micros(quantile(waitDelay, 0.5)), "wait-p50-µs")
		b.ReportMetric(micros(quantile(waitDelay, 0.95)), "wait-p95-µs")
		b.ReportMetric(micros(quantile(subDelay, 0.5)), "sub-p50-µs")
		b.ReportMetric(micros(quantile(subDelay, 0.95)), "sub-p95-µs")
		b.ReportMetric(micros(quantile(gap, 0.5)), "wait-minus-sub-p50-µs")
		b.ReportMetric(micros(quantile(gap, 0.95)), "wait-minus-sub-p95-µs")
	}
}
