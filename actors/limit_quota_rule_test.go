package actors

import (
	"slices"
	"testing"

	"github.com/orcr-go/orcr/store"
)

func TestDecideQuota(t *testing.T) {
	const now = 1_000_000
	w := func(name string, used float64, reset int64) store.QuotaWindow {
		return store.QuotaWindow{Window: name, UsedPercent: used, ResetsAt: reset}
	}
	tests := []struct {
		name      string
		ws        []store.QuotaWindow
		pauseAt   float64
		wantUntil int64
		wantOK    bool
	}{
		{"no windows", nil, 0.95, 0, false},
		{"just below the threshold", []store.QuotaWindow{w("primary", 94.9, now+10)}, 0.95, 0, false},
		{"at the threshold", []store.QuotaWindow{w("primary", 95, now+10)}, 0.95, now + 10, true},
		{"above, reset already passed", []store.QuotaWindow{w("primary", 99, now)}, 0.95, 0, false},
		{"above, no reset reported", []store.QuotaWindow{w("primary", 100, 0)}, 0.95, 0, false},
		{"both windows over: the later reset", []store.QuotaWindow{w("primary", 96, now+10), w("secondary", 97, now+500)}, 0.95, now + 500, true},
		{"only the week over", []store.QuotaWindow{w("primary", 10, now+10), w("secondary", 97, now+500)}, 0.95, now + 500, true},
		{"a lower pause_at", []store.QuotaWindow{w("primary", 80, now+10)}, 0.8, now + 10, true},
		{"pause_at 1: only a full window", []store.QuotaWindow{w("primary", 99.9, now+10)}, 1, 0, false},
	}
	for _, tt := range tests {
		until, why, ok := decideQuota(tt.ws, tt.pauseAt, now)
		if until != tt.wantUntil || ok != tt.wantOK || ok != (why != "") {
			t.Errorf("%s: decideQuota = %d, %q, %v; want %d, %v", tt.name, until, why, ok, tt.wantUntil, tt.wantOK)
		}
	}
}

// quotaWarnings: a window warns once per period — when it reaches warn_at after a report
// below it, after its reset, or at its first report — and never below warn_at.
func TestQuotaWarnings(t *testing.T) {
	const now = 1_000_000
	w := func(provider, name string, used float64, reset int64) store.QuotaWindow {
		return store.QuotaWindow{Provider: provider, Window: name, UsedPercent: used, ResetsAt: reset}
	}
	tests := []struct {
		name string
		prev []store.QuotaWindow
		cur  []store.QuotaWindow
		want []string
	}{
		{"first report at warn_at", nil, []store.QuotaWindow{w("", "five_hour", 80, now+10)}, []string{"five_hour"}},
		{"first report below", nil, []store.QuotaWindow{w("", "five_hour", 79.9, now+10)}, nil},
		{"crossing", []store.QuotaWindow{w("claude", "five_hour", 70, now+10)}, []store.QuotaWindow{w("", "five_hour", 85, now+10)}, []string{"five_hour"}},
		{"already warned this period", []store.QuotaWindow{w("claude", "five_hour", 85, now+10)}, []store.QuotaWindow{w("", "five_hour", 96, now+10)}, nil},
		{"warned last period, reset since", []store.QuotaWindow{w("claude", "five_hour", 90, now-1)}, []store.QuotaWindow{w("", "five_hour", 82, now+5000)}, []string{"five_hour"}},
		{"another provider's window does not count", []store.QuotaWindow{w("codex", "five_hour", 90, now+10)}, []store.QuotaWindow{w("", "five_hour", 90, now+10)}, []string{"five_hour"}},
		{"another account's window does not count", []store.QuotaWindow{{Provider: "claude", Account: "b@example.com", Window: "five_hour",
			UsedPercent: 90, ResetsAt: now + 10}}, []store.QuotaWindow{w("", "five_hour", 90, now+10)}, []string{"five_hour"}},
		{"only the window over", []store.QuotaWindow{w("claude", "five_hour", 10, now+10)}, []store.QuotaWindow{w("", "five_hour", 20, now+10), w("", "seven_day", 81, now+99)}, []string{"seven_day"}},
	}
	for _, tt := range tests {
		var got []string
		for _, e := range quotaWarnings(tt.prev, tt.cur, "claude", "", "u1", 0.8, now) {
			if e.Provider != "claude" || e.AgentUUID != "u1" || e.WarnAt != 0.8 {
				t.Errorf("%s: event %+v", tt.name, e)
			}
			got = append(got, e.Window)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: warned %v, want %v", tt.name, got, tt.want)
		}
	}
	if got := quotaWarnings(nil, []store.QuotaWindow{w("", "x", 100, now+1)}, "claude", "", "", 0, now); got != nil {
		t.Errorf("warn_at 0 warned %v", got)
	}
}
