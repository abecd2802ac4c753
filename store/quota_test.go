package store_test

import (
	"context"
	"database/sql"
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

// TestQuotaWindowsAndPausesPerAccount (docs/usage.md §7.3): a turn's windows are kept
// under its agent's account, two accounts' pauses stand side by side, and admission
// holds only the queued agents of a paused account — a pause with account "" holds every
// account of its provider.
func TestQuotaWindowsAndPausesPerAccount(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	ctx := context.Background()
	a, sa := usageAgent(t, db, "proj/a", "codex", "")
	b, sb := usageAgent(t, db, "proj/b", "codex", "")
	storetest.Write(t, db, func(tx *store.Tx) (any, error) {
		if _, err := tx.Exec(`UPDATE agents SET account = 'ada@example.com' WHERE uuid = ?`, a); err != nil {
			return nil, err
		}
		return tx.Exec(`UPDATE agents SET account = '/home/u/.codex' WHERE uuid = ?`, b)
	})
	for _, c := range []struct {
		id   string
		seq  int64
		used float64
	}{{a, sa, 96}, {b, sb, 12}} {
		storetest.Write(t, db, func(tx *store.Tx) (any, error) {
			return nil, tx.CompleteTurn(store.TurnCompletion{UUID: c.id, Seq: c.seq, IdleFrom: store.StatusWorking,
				Usage: &store.TurnUsage{Input: 1, Quota: []store.QuotaWindow{{Window: "primary", UsedPercent: c.used, ResetsAt: 5000}}}})
		})
	}
	got, err := db.QuotaWindows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []store.QuotaWindow{
		{Provider: "codex", Account: "/home/u/.codex", Window: "primary", UsedPercent: 12, ResetsAt: 5000, AgentUUID: b},
		{Provider: "codex", Account: "ada@example.com", Window: "primary", UsedPercent: 96, ResetsAt: 5000, AgentUUID: a},
	}
	if d := cmp.Diff(want, got, cmpopts.IgnoreFields(store.QuotaWindow{}, "ObservedAt")); d != "" {
		t.Fatalf("QuotaWindows (-want +got):\n%s", d)
	}

	// Two accounts' pauses stand side by side; resuming one leaves the other.
	storetest.Write(t, db, func(tx *store.Tx) (any, error) {
		for _, acct := range []string{"ada@example.com", "/home/u/.codex"} {
			if err := tx.PauseProvider(store.ProviderPause{Provider: "codex", Account: acct, Since: 1, Until: 5000,
				Source: store.PauseSourceQuota}); err != nil {
				return nil, err
			}
		}
		return nil, tx.ResumeProvider("codex", "/home/u/.codex", "elapsed")
	})
	ps, err := db.ProviderPauses(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 1 || ps[0].Account != "ada@example.com" {
		t.Fatalf("pauses %+v, want ada's alone", ps)
	}

	// Admission: queued agents of three accounts under a pause of one, then of all.
	queued := map[string]string{}
	for i, acct := range []string{"ada@example.com", "/home/u/.codex", ""} {
		id := storetest.NewUUID(t)
		queued[id] = acct
		storetest.Write(t, db, func(tx *store.Tx) (any, error) {
			return tx.Enqueue(store.NewAgent{UUID: id, Path: "q/" + string(rune('a'+i)), Provider: "codex",
				GCMode: store.GCAuto, Session: "orcr", Account: acct})
		})
	}
	promote := func(paused store.PauseSet) []string {
		t.Helper()
		p := storetest.Write(t, db, func(tx *store.Tx) (any, error) {
			return tx.Promote(store.Admission{Max: 10, Paused: paused})
		}).(store.Promotion)
		var accts []string
		for _, id := range p.Promoted {
			accts = append(accts, queued[id])
		}
		return accts
	}
	if got := promote(store.PauseSet{{"codex", ""}: true}); len(got) != 0 {
		t.Fatalf("a pause of every account promoted %q", got)
	}
	got2 := promote(store.PauseSet{{"codex", "ada@example.com"}: true})
	if d := cmp.Diff([]string{"/home/u/.codex", ""}, got2); d != "" {
		t.Fatalf("under ada's pause, promoted (-want +got):\n%s", d)
	}
	if a, err := store.LoadAgent(ctx, db.Reader(), a); err != nil || a.Account != "ada@example.com" {
		t.Fatalf("LoadAgent account %q, %v", a.Account, err)
	}
}

// TestPauseMigratedToAccounts: schema 16 keeps a provider's standing pause, as the pause
// of all its accounts (account "").
func TestPauseMigratedToAccounts(t *testing.T) {
	t.Parallel()
	path := filepath.Join(storetest.Dir(t), "orcr.db")
	db, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	raw, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`DROP TABLE provider_pauses; CREATE TABLE provider_pauses (provider TEXT PRIMARY KEY,
		since INTEGER NOT NULL, until INTEGER NOT NULL, agent_uuid TEXT, source TEXT NOT NULL, message TEXT);
		INSERT INTO provider_pauses VALUES ('claude', 1, 9000, NULL, 'reset', 'limit reached');
		ALTER TABLE agents DROP COLUMN account; UPDATE meta SET value = '15' WHERE key = 'schema_version'`); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	if db, err = store.Open(path); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ps, err := db.ProviderPauses(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := []store.ProviderPause{{Provider: "claude", Since: 1, Until: 9000, Source: "reset", Message: "limit reached"}}
	if d := cmp.Diff(want, ps); d != "" {
		t.Fatalf("pauses after the migration (-want +got):\n%s", d)
	}
	held := store.PauseSet{}
	held.Add(ps[0].Provider, ps[0].Account)
	if !held.Holds("claude", "ada@example.com") || held.Holds("codex", "") {
		t.Fatal("the migrated pause must hold every claude account and nothing else")
	}
}
