package actors

import (
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
