package store_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/orcr-go/orcr/store"
	"github.com/orcr-go/orcr/store/storetest"
)

// TestQuotaWindowsKeptPerProvider: a turn's reported windows are kept per provider and
// window, a later report replaces an earlier one, and they survive a reopen.
func TestQuotaWindowsKeptPerProvider(t *testing.T) {
	t.Parallel()
	path := filepath.Join(storetest.Dir(t), "orcr.db")
	db, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	a, sa := usageAgent(t, db, "proj/a", "codex", "")
	b, sb := usageAgent(t, db, "proj/b", "codex", "")
	c, sc := usageAgent(t, db, "proj/c", "claude", "")
	complete := func(id string, seq int64, ws ...store.QuotaWindow) {
		t.Helper()
		res, _, err := db.Apply([]store.Op{func(tx *store.Tx) (any, error) {
			return nil, tx.CompleteTurn(store.TurnCompletion{UUID: id, Seq: seq, IdleFrom: store.StatusWorking,
				Usage: &store.TurnUsage{Input: 1, Quota: ws}})
		}})
		if err == nil {
			err = res[0].Err
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	complete(a, sa, store.QuotaWindow{Window: "primary", UsedPercent: 10, WindowMinutes: 300, ResetsAt: 5000},
		store.QuotaWindow{Window: "secondary", UsedPercent: 3, WindowMinutes: 10080, ResetsAt: 9000})
	complete(b, sb, store.QuotaWindow{Window: "primary", UsedPercent: 20, WindowMinutes: 300, ResetsAt: 5000})
	complete(c, sc) // claude's transcript reports none
	db.Close()
	if db, err = store.Open(path); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got, err := db.QuotaWindows(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := []store.QuotaWindow{
		{Provider: "codex", Window: "primary", UsedPercent: 20, WindowMinutes: 300, ResetsAt: 5000, AgentUUID: b},
		{Provider: "codex", Window: "secondary", UsedPercent: 3, WindowMinutes: 10080, ResetsAt: 9000, AgentUUID: a},
	}
	if d := cmp.Diff(want, got, cmpopts.IgnoreFields(store.QuotaWindow{}, "ObservedAt")); d != "" {
		t.Fatalf("QuotaWindows (-want +got):\n%s", d)
	}
	inTx := storetest.Write(t, db, func(tx *store.Tx) (any, error) { return tx.QuotaWindows() })
	if d := cmp.Diff(got, inTx); d != "" {
		t.Fatalf("Tx.QuotaWindows differs from DB.QuotaWindows (-db +tx):\n%s", d)
	}
	for _, w := range got {
		if w.ObservedAt == 0 {
			t.Fatalf("%+v: no observed_at", w)
		}
	}
}
