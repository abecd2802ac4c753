package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/orcr-go/orcr/store"
	"github.com/orcr-go/orcr/store/storetest"
)

// endedAgent runs a turn of a new agent at path to completion with usage, gives it
// the remote stream's and a budget's leftovers (an inbox item, an attach lease, a stream
// token, a run budget and budget scopes) and ends it at endedAt.
func endedAgent(t *testing.T, db *store.DB, path string, endedAt int64) string {
	t.Helper()
	id, seq := usageAgent(t, db, path, "claude", "sonnet")
	storetest.Write(t, db, func(tx *store.Tx) (any, error) {
		u := store.TurnUsage{Input: 10, Output: 5, CostMicros: micros(700)}
		if err := tx.CompleteTurn(store.TurnCompletion{UUID: id, Seq: seq, IdleFrom: store.StatusWorking, Usage: &u}); err != nil {
			return nil, err
		}
		if _, _, err := tx.OpenTurn(id, store.InputStatuses); err != nil { // a second turn, without usage
			return nil, err
		}
		if _, err := tx.IssueToken(id, "hash-"+id, false); err != nil {
			return nil, err
		}
		if _, err := tx.Exec(`INSERT INTO attaches (agent_uuid, lease_id, mode, started_at, heartbeat_at, expires_at)
			VALUES (?, ?, 'rw', 1, 1, 2)`, id, "lease-"+id); err != nil {
			return nil, err
		}
		if _, err := tx.Exec(`INSERT INTO run_budgets (agent_uuid, path, created_at) VALUES (?, ?, 1)`, id, path); err != nil {
			return nil, err
		}
		if _, err := tx.Exec(`INSERT INTO budget_scopes (budget, scope, updated_at) VALUES ('b', ?, 1), ('b', ? || '#1', 1)`,
			id, id); err != nil {
			return nil, err
		}
		if err := tx.EndAgent(id, []store.Status{store.StatusWorking}, store.ExitKilled); err != nil {
			return nil, err
		}
		if _, err := tx.Exec(`UPDATE agents SET ended_at = ? WHERE uuid = ?`, endedAt, id); err != nil {
			return nil, err
		}
		_, err := tx.InboxPut(id, "never delivered", store.SourceOrcr, false)
		return nil, err
	})
	return id
}

// leftovers counts what the store holds of agent id, table by table.
func leftovers(t *testing.T, db *store.DB, id string) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	for table, q := range map[string]string{
		"agents":        `SELECT count(*) FROM agents WHERE uuid = ?1`,
		"session_log":   `SELECT count(*) FROM session_log WHERE agent_uuid = ?1`,
		"sessions":      `SELECT count(*) FROM sessions WHERE agent_uuid = ?1`,
		"inbox":         `SELECT count(*) FROM inbox WHERE agent_uuid = ?1`,
		"attaches":      `SELECT count(*) FROM attaches WHERE agent_uuid = ?1`,
		"remote_tokens": `SELECT count(*) FROM remote_tokens WHERE agent_uuid = ?1`,
		"run_budgets":   `SELECT count(*) FROM run_budgets WHERE agent_uuid = ?1`,
		"budget_scopes": `SELECT count(*) FROM budget_scopes WHERE scope = ?1 OR scope = ?1 || '#1'`,
		"turns":         `SELECT count(*) FROM turns WHERE agent_uuid = ?1`,
		"usage_turns":   `SELECT count(*) FROM turns WHERE agent_uuid = ?1 AND usage_at IS NOT NULL`,
	} {
		var n int64
		if err := db.Reader().QueryRow(q, id).Scan(&n); err != nil {
			t.Fatal(err)
		}
		out[table] = n
	}
	return out
}

func forget(t *testing.T, db *store.DB, endedFor time.Duration, keep, limit int) []store.Forgotten {
	t.Helper()
	ctx := context.Background()
	cutoff, ok, err := db.RetentionCutoff(ctx, time.Now().UnixMilli(), endedFor.Milliseconds(), keep)
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		return nil
	}
	gone, _ := storetest.Write(t, db, func(tx *store.Tx) (any, error) { return tx.ForgetEnded(cutoff, limit) }).([]store.Forgotten)
	return gone
}

// An agent that ended longer ago than ended_for is forgotten with everything it left in
// the store but its turns' usage; live agents, agents that ended recently and ended
// agents something still needs (an open intent, a worktree being removed, a live child,
// a run budget a live agent counts against) stay whole, and usage reports read the same.
func TestRetentionForgetsOldEndedAgents(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	ctx := context.Background()
	old := time.Now().Add(-8 * 24 * time.Hour).UnixMilli()

	gone := endedAgent(t, db, "p/gone", old)
	recent := endedAgent(t, db, "p/recent", time.Now().UnixMilli())
	live, _ := usageAgent(t, db, "p/live", "claude", "sonnet")
	intent := endedAgent(t, db, "p/intent", old)
	storetest.Insert(t, db, "intents", map[string]any{"op_id": "op1", "kind": "agent.worktree_remove_requested",
		"ref_uuid": intent, "requested_seq": 1, "params_json": "{}", "created_at": 1})
	removing := endedAgent(t, db, "p/removing", old)
	parent := endedAgent(t, db, "p/parent", old)
	budgeted := endedAgent(t, db, "p/budgeted", old)
	storetest.Write(t, db, func(tx *store.Tx) (any, error) {
		if _, err := tx.Exec(`UPDATE agents SET worktree_state = 'removing' WHERE uuid = ?`, removing); err != nil {
			return nil, err
		}
		if _, err := tx.Exec(`UPDATE agents SET parent_id = ? WHERE uuid = ?`, parent, live); err != nil {
			return nil, err
		}
		// live owns a run budget that budgeted counted against.
		_, err := tx.Exec(`UPDATE agents SET run_budget = ? WHERE uuid IN (?, ?)`, live, live, budgeted)
		return nil, err
	})

	before, err := store.ReadUsage(ctx, db.Reader(), store.UsageQuery{By: store.UsageByAgent})
	if err != nil {
		t.Fatal(err)
	}
	kept := map[string]map[string]int64{}
	for _, id := range []string{recent, live, intent, removing, parent, budgeted} {
		kept[id] = leftovers(t, db, id)
	}

	got := forget(t, db, 7*24*time.Hour, 0, store.RetentionBatch)
	if diff := cmp.Diff([]store.Forgotten{{UUID: gone, Path: "p/gone"}}, got); diff != "" {
		t.Errorf("forgotten (-want +got):\n%s", diff)
	}
	want := map[string]int64{"agents": 0, "session_log": 0, "sessions": 0, "inbox": 0, "attaches": 0, "remote_tokens": 0,
		"run_budgets": 0, "budget_scopes": 0, "turns": 1, "usage_turns": 1}
	if diff := cmp.Diff(want, leftovers(t, db, gone)); diff != "" {
		t.Errorf("what the forgotten agent left (-want +got):\n%s", diff)
	}
	for id, w := range kept {
		if diff := cmp.Diff(w, leftovers(t, db, id)); diff != "" {
			t.Errorf("kept agent %s changed (-before +after):\n%s", id, diff)
		}
	}
	after, err := store.ReadUsage(ctx, db.Reader(), store.UsageQuery{By: store.UsageByAgent})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("the usage report changed (-before +after):\n%s", diff)
	}
	since := time.Now().Add(-time.Hour).UnixMilli() + 123 // inside a day: read from the turns too
	if r, err := store.ReadUsage(ctx, db.Reader(), store.UsageQuery{Since: since}); err != nil || r.Total.Turns != 6 {
		t.Errorf("report since an hour ago: %+v, %v; want the 6 turns with usage", r.Total, err)
	}

	// Once what held them is gone, they go too.
	storetest.Write(t, db, func(tx *store.Tx) (any, error) {
		if _, err := tx.Exec(`DELETE FROM intents`); err != nil {
			return nil, err
		}
		if _, err := tx.Exec(`UPDATE agents SET worktree_state = 'removed' WHERE uuid = ?`, removing); err != nil {
			return nil, err
		}
		return nil, tx.EndAgent(live, []store.Status{store.StatusWorking}, store.ExitKilled)
	})
	if got := forget(t, db, 7*24*time.Hour, 0, store.RetentionBatch); len(got) != 4 {
		t.Errorf("forgotten once nothing holds them: %v, want intent, removing, parent, budgeted", got)
	}
	st, err := db.RetentionStats(ctx)
	if err != nil || st.Trimmed != 5 || st.LastAt == 0 {
		t.Errorf("stats: %+v, %v; want 5 trimmed and a time", st, err)
	}
	if after, err := store.ReadUsage(ctx, db.Reader(), store.UsageQuery{By: store.UsageByAgent}); err != nil ||
		after.Total != before.Total {
		t.Errorf("the usage total changed: %+v, want %+v (%v)", after.Total, before.Total, err)
	}
}

// ended_max keeps the newest ended agents, however recent the others; a batch forgets at
// most its limit, oldest first; both limits off forget nothing.
func TestRetentionCountLimitAndBatches(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	now := time.Now().UnixMilli()
	var ids []string
	for i := range 4 {
		ids = append(ids, storetest.InsertAgent(t, db, map[string]any{"status": "ended", "ended_at": now - int64(4-i)*1000}))
	}
	live := storetest.InsertAgent(t, db, map[string]any{"status": "idle"})
	// An unmanaged agent whose herdr session is gone: ended by discovery, then counted
	// and forgotten like any other (the oldest of all here).
	unmanaged := storetest.Write(t, db, func(tx *store.Tx) (any, error) {
		row, err := tx.CreateUnmanaged("gone", store.Sighting{TerminalID: "t1", PaneID: "p1", Provider: "claude", Status: store.StatusIdle})
		if err != nil {
			return nil, err
		}
		if err := tx.EndUnmanaged(row.UUID); err != nil {
			return nil, err
		}
		_, err = tx.Exec(`UPDATE agents SET ended_at = ? WHERE uuid = ?`, now-10000, row.UUID)
		return row.UUID, err
	}).(string)
	ids = append([]string{unmanaged}, ids...)
	if _, ok, err := db.RetentionCutoff(context.Background(), now, 0, 0); ok || err != nil {
		t.Errorf("both limits off: ok %v, %v; want nothing to forget", ok, err)
	}
	if _, ok, err := db.RetentionCutoff(context.Background(), now, 0, 10); ok || err != nil {
		t.Errorf("fewer ended than ended_max: ok %v, %v; want nothing to forget", ok, err)
	}
	if _, ok, err := db.RetentionCutoff(context.Background(), now, time.Minute.Milliseconds(), 0); ok || err != nil {
		t.Errorf("none ended a minute ago: ok %v, %v; want nothing to forget (no write)", ok, err)
	}
	got := forget(t, db, 0, 2, 2)
	if len(got) != 2 || got[0].UUID != ids[0] || got[1].UUID != ids[1] {
		t.Errorf("first batch: %v, want the two oldest", got)
	}
	got = forget(t, db, 0, 2, 2)
	if len(got) != 1 || got[0].UUID != ids[2] {
		t.Errorf("second batch: %v, want the third oldest", got)
	}
	for _, id := range append(ids[3:], live) {
		if n := leftovers(t, db, id)["agents"]; n != 1 {
			t.Errorf("agent %s forgotten, want it kept", id)
		}
	}
	// ended_for and ended_max together: whichever limit is reached first forgets.
	if got := forget(t, db, time.Hour, 1, 200); len(got) != 1 || got[0].UUID != ids[3] {
		t.Errorf("ended_for 1h with ended_max 1 forgot %v; want the older of the two", got)
	}
	for _, id := range []string{ids[4], live} {
		if n := leftovers(t, db, id)["agents"]; n != 1 {
			t.Errorf("agent %s forgotten, want it kept", id)
		}
	}
}

// ended_max keeps exactly that many when more ended in the same millisecond (a bulk kill
// ends hundreds at once): of those, the ones created last are the newest.
func TestRetentionCountLimitTies(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	now := time.Now().UnixMilli()
	var ids []string
	for range 5 {
		ids = append(ids, storetest.InsertAgent(t, db, map[string]any{"status": "ended", "ended_at": now - 1000}))
	}
	got := forget(t, db, 0, 2, 200)
	if len(got) != 3 {
		t.Fatalf("ended_max 2 over 5 agents ended in the same ms forgot %v, want 3", got)
	}
	for i, f := range got {
		if f.UUID != ids[i] {
			t.Errorf("forgot %v, want the three created first %v", got, ids[:3])
		}
	}
	for _, id := range ids[3:] {
		if n := leftovers(t, db, id)["agents"]; n != 1 {
			t.Errorf("agent %s forgotten, want it kept", id)
		}
	}
	if got := forget(t, db, 0, 2, 200); len(got) != 0 {
		t.Errorf("a second pass forgot %v, want nothing", got)
	}
}
