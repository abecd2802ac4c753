package actors

import (
	"context"
	"testing"
	"time"

	"github.com/orcr-go/orcr/store"
	"github.com/orcr-go/orcr/store/storetest"
)

// A turn discovery completes (an unmanaged agent's, docs/usage.md §7.2) that reports a
// window at quota.pause_at pauses its provider until the reset and warns, in the
// discovery's transaction, as a managed agent's completion does.
func TestDiscoveryCompletionQuotaPausesAndWarns(t *testing.T) {
	db := storetest.Open(t)
	id, seq := storetest.TurnAgent(t, db, "ext/cx", "codex", "")
	reset := time.Now().Add(time.Hour).UnixMilli()
	ch := discChange{Kind: discComplete, UUID: id, Turn: seq, From: store.StatusWorking, Provider: "codex",
		Usage: &store.TurnUsage{Input: 1, Quota: []store.QuotaWindow{
			{Window: "primary", UsedPercent: 97, WindowMinutes: 300, ResetsAt: reset},
			{Window: "secondary", UsedPercent: 50, WindowMinutes: 10080, ResetsAt: reset + 1000}}}}
	storetest.Write(t, db, applyDiscovery("s", []discChange{ch}, 0.8, 0.95))

	pauses, err := db.ProviderPauses(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(pauses) != 1 || pauses[0].Provider != "codex" || pauses[0].Until != reset || pauses[0].Source != store.PauseSourceQuota {
		t.Errorf("pauses %+v, want codex until the primary's reset, source quota", pauses)
	}
	var warned int
	storetest.Write(t, db, func(tx *store.Tx) (any, error) {
		return nil, tx.QueryRow(`SELECT count(*) FROM events WHERE kind = 'quota.warned'`).Scan(&warned)
	})
	if warned != 1 {
		t.Errorf("%d quota.warned events, want 1 (primary)", warned)
	}
}
