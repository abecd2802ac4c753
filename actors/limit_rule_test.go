package actors

import (
	"testing"
	"time"

	"github.com/orcr-go/orcr/store"
)

func TestDecideLimit(t *testing.T) {
	const backoff = 15 * time.Minute
	bo := backoff.Milliseconds()
	t0 := tDelivered
	standing := &store.ProviderPause{Provider: "claude", Since: t0, Until: t0 + bo, Source: store.PauseSourceBackoff}
	tests := []struct {
		name string
		cur  *store.ProviderPause
		obs  limitObs
		want limitStep
	}{
		{"limit without a reset: backoff", nil, limitObs{At: t0, Blocked: true},
			limitStep{Action: limitPause, Since: t0, Until: t0 + bo, Source: store.PauseSourceBackoff}},
		{"limit with a reset: until the reset", nil, limitObs{At: t0, Blocked: true, ResetAt: t0 + 3_600_000},
			limitStep{Action: limitPause, Since: t0, Until: t0 + 3_600_000, Source: store.PauseSourceReset}},
		{"a reset in the past counts as none", nil, limitObs{At: t0, Blocked: true, ResetAt: t0 - 1},
			limitStep{Action: limitPause, Since: t0, Until: t0 + bo, Source: store.PauseSourceBackoff}},
		{"a reset shorter than the backoff wins", nil, limitObs{At: t0, Blocked: true, ResetAt: t0 + 60_000},
			limitStep{Action: limitPause, Since: t0, Until: t0 + 60_000, Source: store.PauseSourceReset}},
		{"a later limit extends the pause, keeping its start", standing, limitObs{At: t0 + 1000, Blocked: true, ResetAt: t0 + 2*bo},
			limitStep{Action: limitPause, Since: t0, Until: t0 + 2*bo, Source: store.PauseSourceReset}},
		{"an earlier reset does not shorten it", standing, limitObs{At: t0 + 1000, Blocked: true, ResetAt: t0 + 5000}, limitStep{}},
		{"the same until changes nothing", standing, limitObs{At: t0, Blocked: true}, limitStep{}},
		{"the clock before until: nothing", standing, limitObs{At: t0 + bo - 1}, limitStep{}},
		{"the clock at until: resume", standing, limitObs{At: t0 + bo}, limitStep{Action: limitResume}},
		{"the clock past until: resume", standing, limitObs{At: t0 + 10*bo}, limitStep{Action: limitResume}},
		{"the clock without a pause: nothing", nil, limitObs{At: t0}, limitStep{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := decideLimit(tt.cur, tt.obs, backoff); got != tt.want {
				t.Errorf("decideLimit(%+v, %+v): got %+v, want %+v", tt.cur, tt.obs, got, tt.want)
			}
		})
	}
}

// TestLimitClock walks a fake clock through one pause: an agent's limit at t0 (reset in
// 2 s), a second agent's limit that reads no reset (backoff 5 s) — the later until
// wins — and the queue's passes every 200 ms resume the provider exactly once, at the
// first pass at or after until.
func TestLimitClock(t *testing.T) {
	const backoff = 5 * time.Second
	t0 := tDelivered
	var cur *store.ProviderPause
	apply := func(s limitStep, provider string) {
		switch s.Action {
		case limitPause:
			cur = &store.ProviderPause{Provider: provider, Since: s.Since, Until: s.Until, Source: s.Source}
		case limitResume:
			cur = nil
		}
	}
	apply(decideLimit(cur, limitObs{At: t0, Blocked: true, ResetAt: t0 + 2000}, backoff), "codex")
	apply(decideLimit(cur, limitObs{At: t0 + 1000, Blocked: true}, backoff), "codex")
	if cur == nil || cur.Until != t0+6000 || cur.Since != t0 || cur.Source != store.PauseSourceBackoff {
		t.Fatalf("after two limits: %+v, want since t0, until t0+6000 by backoff", cur)
	}
	var resumed []int64
	for now := t0; now <= t0+8000; now += 200 {
		s := decideLimit(cur, limitObs{At: now}, backoff)
		if s.Action == limitResume {
			resumed = append(resumed, now-t0)
		}
		apply(s, "codex")
	}
	if len(resumed) != 1 || resumed[0] != 6000 {
		t.Errorf("resumed at %v ms, want once at 6000", resumed)
	}
}
