package actors

import (
	"context"
	"testing"
	"time"

	"github.com/orcr-go/orcr/store"
	"github.com/orcr-go/orcr/store/storetest"
)

// The server applies quota.pause_at as configured when it starts to the windows already
// recorded (docs/usage.md §7.2): a lowered pause_at pauses a provider whose stored
// window is now over it, a raised one frees a provider its quota pause no longer holds,
// and a window whose reset is past pauses nothing.
func TestQuotaPauseAtAppliedAtStart(t *testing.T) {
	db := storetest.Open(t)
	ctx := context.Background()
	reset := time.Now().Add(time.Hour).UnixMilli()
	storetest.Write(t, db, func(tx *store.Tx) (any, error) {
		if err := tx.RecordQuota("", "codex", "", []store.QuotaWindow{{Window: "primary", UsedPercent: 96, ResetsAt: reset}}); err != nil {
			return nil, err
		}
		if err := tx.RecordQuota("", "gemini", "", []store.QuotaWindow{{Window: "primary", UsedPercent: 99,
			ResetsAt: time.Now().Add(-time.Minute).UnixMilli()}}); err != nil {
			return nil, err
		}
		return nil, tx.RecordQuota("", "claude", "", []store.QuotaWindow{{Window: "five_hour", UsedPercent: 98, ResetsAt: reset + 1000}})
	})
	pauses := func() map[string]store.ProviderPause {
		t.Helper()
		ps, err := db.ProviderPauses(ctx)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]store.ProviderPause{}
		for _, p := range ps {
			out[p.Provider] = p
		}
		return out
	}
	start := func(pauseAt float64) {
		storetest.Write(t, db, func(tx *store.Tx) (any, error) { return nil, applyQuotaPauseAt(tx, pauseAt) })
	}

	start(0.99) // nothing at 99% or more with a reset ahead
	if ps := pauses(); len(ps) != 0 {
		t.Fatalf("pause_at 0.99: pauses %+v, want none", ps)
	}
	start(0.95)
	ps := pauses()
	if len(ps) != 2 || ps["codex"].Until != reset || ps["codex"].Source != store.PauseSourceQuota ||
		ps["claude"].Until != reset+1000 {
		t.Fatalf("pause_at 0.95: pauses %+v, want codex and claude until their windows' resets, not gemini (reset past)", ps)
	}
	start(0.95) // the same config again: no new provider.paused
	var paused int
	storetest.Write(t, db, func(tx *store.Tx) (any, error) {
		return nil, tx.QueryRow(`SELECT count(*) FROM events WHERE kind = 'provider.paused'`).Scan(&paused)
	})
	if paused != 2 {
		t.Errorf("%d provider.paused events after two starts at 0.95, want 2", paused)
	}
	start(0.97) // codex's 96% no longer holds it; claude's 98% does
	if ps := pauses(); len(ps) != 1 || ps["claude"].Until != reset+1000 {
		t.Fatalf("pause_at 0.97: pauses %+v, want claude's alone", ps)
	}
	start(0) // off: every quota pause ends
	if ps := pauses(); len(ps) != 0 {
		t.Fatalf("pause_at off: pauses %+v, want none", ps)
	}
}
