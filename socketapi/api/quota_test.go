package api_test

import (
	"testing"

	"github.com/orcr-go/orcr/socketapi/api"
)

// A stored window is judged against the clock and the thresholds of the reader: one
// whose reset is past is reset (0% used) however full its last report was, and a
// judged window keeps its state when a client re-judges it without thresholds.
func TestQuotaJudge(t *testing.T) {
	t.Parallel()
	const now = int64(1_800_000_000_000)
	w := func(used float64, resets int64) api.QuotaWindow {
		return api.QuotaWindow{Provider: "codex", Window: "primary", UsedPercent: used, ResetsAt: resets}
	}
	for _, c := range []struct {
		name       string
		w          api.QuotaWindow
		warn, stop float64
		state      string
		used       float64
	}{
		{"below warn", w(79.9, now+1), 0.8, 0.95, api.QuotaOK, 79.9},
		{"at warn", w(80, now+1), 0.8, 0.95, api.QuotaWarn, 80},
		{"at pause", w(95, now+1), 0.8, 0.95, api.QuotaPaused, 95},
		{"no reset time", w(99, 0), 0.8, 0.95, api.QuotaPaused, 99},
		{"reset at now", w(99, now), 0.8, 0.95, api.QuotaReset, 0},
		{"reset past", w(40, now-1), 0.8, 0.95, api.QuotaReset, 0},
		{"thresholds off", w(99, now+1), 0, 0, api.QuotaOK, 99},
		{"re-judged keeps paused", api.QuotaWindow{UsedPercent: 97, ResetsAt: now + 1, State: api.QuotaPaused}, 0, 0, api.QuotaPaused, 97},
		{"re-judged after its reset", api.QuotaWindow{UsedPercent: 97, ResetsAt: now - 1, State: api.QuotaPaused}, 0, 0, api.QuotaReset, 0},
		{"re-judged with new thresholds", api.QuotaWindow{UsedPercent: 90, ResetsAt: now + 1, State: api.QuotaPaused}, 0.8, 0.99, api.QuotaWarn, 90},
	} {
		got := c.w.Judge(now, c.warn, c.stop)
		if got.State != c.state || got.UsedPercent != c.used {
			t.Errorf("%s: Judge = %s %.1f%%, want %s %.1f%%", c.name, got.State, got.UsedPercent, c.state, c.used)
		}
		if again := got.Judge(now, 0, 0); again != got {
			t.Errorf("%s: re-judging without thresholds changed %+v to %+v", c.name, got, again)
		}
	}
}
