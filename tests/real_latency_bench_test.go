package tests

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/orcr-go/orcr/actors/provider"
	"github.com/orcr-go/orcr/actors/provider/modeltest"
)

// latencyTurns is how many turns BenchmarkRealCompletionLatency measures per provider.
const latencyTurns = 20

// BenchmarkRealCompletionLatency measures, for the real claude and codex against the
// model stand-in and for the mock beside them in the same run, how long orcr takes to
// report a turn complete after its answer: from the model stand-in's last byte (for the
// mock, its transcript's last write) to `orcr agent wait` answering turn_complete,
// p50 and p95 over latencyTurns turns each, and the real CLIs' p50 as a ratio of the
// mock's (README, Performance). The windows that make up the time are the providers'
// completion tuning (docs/providers.md §2.1).
func BenchmarkRealCompletionLatency(b *testing.B) {
	model := startModel(b)
	h, _, work := realHome(b, `{"timings": {"max_starting": "90s"}}`, model)
	providers := []string{"mock", provider.Claude, provider.Codex}
	uids := map[string]string{}
	for _, p := range providers {
		uids[p], _ = runAgent(b, h, "-a", p, "--path", "lat/"+p, "--cwd", work, "-p", "say=warm")
	}
	for _, p := range providers {
		waitTurn(b, h, "lat/"+p)
	}
	for range b.N {
		lat := map[string][]time.Duration{}
		var mu sync.Mutex
		var wg sync.WaitGroup
		for _, p := range providers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				name := "lat/" + p
				for i := range latencyTurns {
					prompt := fmt.Sprintf("say=%s-%d", p, i)
					if r := h.run("agent", "send", name, prompt); r.exit != 0 {
						b.Errorf("agent send %s: %+v", name, r)
						return
					}
					if r := h.run("agent", "wait", "--timeout", "60s", name); r.exit != 0 {
						b.Errorf("agent wait %s: %+v", name, r)
						return
					}
					end := time.Now()
					last, ok := lastEvent(h, model, p, uids[p], prompt)
					if !ok {
						b.Errorf("%s: no last event for %q", p, prompt)
						return
					}
					mu.Lock()
					lat[p] = append(lat[p], end.Sub(last))
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if b.Failed() {
			return
		}
		pct := func(ds []time.Duration, q float64) time.Duration {
			s := slices.Clone(ds)
			slices.Sort(s)
			return s[min(len(s)-1, int(q*float64(len(s))))]
		}
		for _, p := range providers {
			p50, p95 := pct(lat[p], 0.5), pct(lat[p], 0.95)
			b.ReportMetric(float64(p50.Milliseconds()), p+"-p50-ms")
			b.ReportMetric(float64(p95.Milliseconds()), p+"-p95-ms")
			b.Logf("%s: p50 %s p95 %s (x%.2f of the mock's p50)", p, p50, p95, float64(p50)/float64(pct(lat["mock"], 0.5)))
		}
	}
}

// lastEvent is when the answer to prompt was last written: the model stand-in's last
// byte for claude and codex, the mock's transcript's last write for the mock.
func lastEvent(h *home, model *modeltest.Server, p, uid, prompt string) (time.Time, bool) {
	if p == "mock" {
		st, err := os.Stat(filepath.Join(h.dir, "data", "lat", p, uid, provider.MockTranscriptFile))
		if err != nil {
			return time.Time{}, false
		}
		return st.ModTime(), true
	}
	var last time.Time
	for _, r := range model.Requests() {
		if r.Prompt == prompt && !r.Side && r.Done.After(last) {
			last = r.Done
		}
	}
	return last, !last.IsZero()
}
