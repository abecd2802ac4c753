package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/store"
	"github.com/orcr-go/orcr/store/storetest"
)

// Fixed uuids so the golden snapshot is stable.
const (
	uAlpha  = "01900000-0000-7000-8000-00000000000a"
	uChild  = "01900000-0000-7000-8000-00000000000b"
	uBeta   = "01900000-0000-7000-8000-00000000000c"
	uWorker = "01900000-0000-7000-8000-00000000000d"
	uGone   = "01900000-0000-7000-8000-00000000000e"
	uLost   = "01900000-0000-7000-8000-00000000000f"
	uLoop1  = "01900000-0000-7000-8000-0000000000a1"
	uLoop2  = "01900000-0000-7000-8000-0000000000a2"
	uLoop3  = "01900000-0000-7000-8000-0000000000a3"
	uRun1   = "01900000-0000-7000-8000-0000000000b1"
	uRun2   = "01900000-0000-7000-8000-0000000000b2"
	uRun3   = "01900000-0000-7000-8000-0000000000b3"
)

// fixture fills db with a representative state and returns it.
func fixture(t *testing.T) *store.DB {
	t.Helper()
	db := storetest.Open(t)
	storetest.InsertAgent(t, db, map[string]any{
		"uuid": uAlpha, "path": "ws/alpha", "status": "working", "agent": "claude", "model": "opus",
		"effort": "high", "gc_mode": "auto", "cwd": "/work", "herdr_session": "orcr", "pane_id": "p-1",
		"terminal_id": "t-1", "starting_at": 1100, "last_status_change_at": 1200, "created_at": 1000,
		"queue_seq": 1,
	})
	storetest.InsertTurn(t, db, uAlpha, 1, map[string]any{"delivered_at": 1300, "completed_at": 1400})
	storetest.InsertTurn(t, db, uAlpha, 2, map[string]any{"delivered_at": 1500})
	storetest.InsertAgent(t, db, map[string]any{
		"uuid": uChild, "path": "ws/alpha/child", "agent": "codex", "parent_id": uAlpha,
		"queue_seq": 5, "created_at": 2000,
	})
	storetest.InsertAgent(t, db, map[string]any{
		"uuid": uBeta, "path": "ws/beta", "agent": "claude", "queue_seq": 3, "created_at": 1900,
	})
	storetest.InsertAgent(t, db, map[string]any{
		"uuid": uWorker, "path": "loop1/r00001/worker", "managed": 0, "origin": "detected",
		"status": "idle", "parent_id": uRun1, "herdr_session": "user", "pane_id": "p-9",
		"idle_since": 3100, "last_status_change_at": 3100, "created_at": 3000,
	})
	storetest.InsertAgent(t, db, map[string]any{
		"uuid": uGone, "path": "ws/gone", "status": "ended", "exit_reason": "completed",
		"ended_at": 900, "created_at": 500,
	})
	storetest.InsertAgent(t, db, map[string]any{
		"uuid": uLost, "path": "ws/lost", "status": "lost", "agent": "claude", "exit_reason": "lost",
		"blocked_kind": "limit", "parked_at": 800, "created_at": 700, "last_status_change_at": 850,
	})
	storetest.InsertLoop(t, db, map[string]any{
		"uuid": uLoop1, "name": "loop1", "next_fire_at": 5000, "last_fire_at": 4000, "created_at": 100,
	})
	storetest.InsertLoop(t, db, map[string]any{
		"uuid": uLoop2, "name": "loop2", "status": "paused", "cadence_kind": "once",
		"cadence_value": "2030-01-01T00:00:00Z", "overlap": "skip", "max_concurrency": 3, "created_at": 200,
	})
	storetest.InsertLoop(t, db, map[string]any{
		"uuid": uLoop3, "name": "loop3", "status": "ended", "ended_reason": "removed", "created_at": 50,
	})
	storetest.InsertRun(t, db, uLoop1, map[string]any{
		"uuid": uRun1, "run_id": "r00001", "kind": "scheduled", "due_at": 4000, "started_at": 4001,
		"pid": 77, "pgid": 77, "created_at": 4000,
	})
	storetest.InsertRun(t, db, uLoop1, map[string]any{
		"uuid": uRun2, "run_id": "r00002", "status": "ok", "exit_code": 0, "started_at": 3001,
		"ended_at": 3500, "created_at": 3000,
	})
	storetest.InsertRun(t, db, uLoop1, map[string]any{
		"uuid": uRun3, "run_id": "r00003", "status": "stopping", "due_at": 4500, "created_at": 4500,
	})
	// Near misses for the run's agent count.
	storetest.InsertAgent(t, db, map[string]any{"path": "loop1/r00001", "status": "ended", "created_at": 1})
	storetest.InsertAgent(t, db, map[string]any{"path": "loop1/r00001/done", "status": "ended", "created_at": 1})
	for range 3 {
		storetest.Emit(t, db, "debug.x", "", nil)
	}
	return db
}

func TestSnapshotGolden(t *testing.T) {
	t.Parallel()
	db := fixture(t)
	snap, err := db.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.MarshalIndent(snap, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	golden := filepath.Join("testdata", "snapshot.golden.json")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("snapshot (-want +got):\n%s", diff)
	}
}

func TestSnapshotEmpty(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	snap, err := db.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(snap)
	if want := `{"snapshot_seq":0,"agents":[],"loops":[],"queue":[]}`; string(b) != want {
		t.Errorf("empty snapshot: got %s, want %s", b, want)
	}
}

func keysOf(t *testing.T, v any) []string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	json.Unmarshal(b, &m)
	return slices.Sorted(maps.Keys(m))
}

func TestAgentRowKeys(t *testing.T) {
	t.Parallel()
	db := fixture(t)
	ctx := context.Background()
	always := []string{"agent", "created_at", "cwd", "effort", "last_status_change_at", "managed",
		"model", "move_state", "pane_id", "path", "status", "uuid"}
	cases := []struct {
		uuid  string
		extra []string
	}{
		{uBeta, []string{"queue_position"}},
		{uChild, []string{"parent_id", "parent_path", "queue_position"}},
		{uAlpha, []string{"herdr_session", "starting_at", "turn_delivered_at"}},
		{uWorker, []string{"herdr_session", "idle_since", "parent_id"}}, // run parent: no parent_path
		{uLost, []string{"blocked_kind", "exit_reason", "parked_at"}},
		{uGone, []string{"ended_at", "exit_reason"}},
	}
	for _, c := range cases {
		row, err := store.AgentByUUID(ctx, db.Reader(), c.uuid)
		if err != nil {
			t.Fatal(err)
		}
		want := slices.Sorted(slices.Values(append(slices.Clone(always), c.extra...)))
		if diff := cmp.Diff(want, keysOf(t, row)); diff != "" {
			t.Errorf("AgentRow %s keys (-want +got):\n%s", row.Path, diff)
		}
	}
	// Nullable always-present keys serialise as null.
	row, _ := store.AgentByUUID(ctx, db.Reader(), uGone)
	b, _ := json.Marshal(row)
	var m map[string]any
	json.Unmarshal(b, &m)
	for _, k := range []string{"agent", "model", "effort", "cwd", "pane_id", "last_status_change_at"} {
		if v, ok := m[k]; !ok || v != nil {
			t.Errorf("key %s: got %v (present %v), want null", k, v, ok)
		}
	}
	if _, err := store.AgentByUUID(ctx, db.Reader(), "nope"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("AgentByUUID(missing): got %v, want ErrNotFound", err)
	}
	// Derived queue positions and latest-turn values.
	beta, _ := store.AgentByUUID(ctx, db.Reader(), uBeta)
	child, _ := store.AgentByUUID(ctx, db.Reader(), uChild)
	alpha, _ := store.AgentByUUID(ctx, db.Reader(), uAlpha)
	if *beta.QueuePosition != 1 || *child.QueuePosition != 2 {
		t.Errorf("queue positions: beta %d child %d, want 1 and 2", *beta.QueuePosition, *child.QueuePosition)
	}
	if *alpha.TurnDeliveredAt != 1500 || alpha.TurnCompletedAt != nil {
		t.Errorf("latest turn: got delivered %v completed %v, want 1500 and unset", alpha.TurnDeliveredAt, alpha.TurnCompletedAt)
	}
}

func TestAgentByUUIDInTx(t *testing.T) {
	t.Parallel()
	db := fixture(t)
	got := storetest.Write(t, db, func(tx *store.Tx) (any, error) {
		if _, err := tx.Exec(`UPDATE agents SET status = 'starting', starting_at = ? WHERE uuid = ?`, tx.Now(), uBeta); err != nil {
			return nil, err
		}
		row, err := store.AgentByUUID(tx.Context(), tx, uBeta)
		if err != nil {
			return nil, err
		}
		_, err = tx.Emit(row.UUID, &api.AgentStatusChanged{AgentHead: api.AgentHead{UUID: row.UUID, Agent: row}, Status: row.Status})
		return row, err
	}).(store.AgentRow)
	if got.Status != "starting" || got.QueuePosition != nil || got.StartingAt == nil {
		t.Errorf("row inside tx: got %+v", got)
	}
	// The child is now first in the queue.
	child, _ := store.AgentByUUID(context.Background(), db.Reader(), uChild)
	if *child.QueuePosition != 1 {
		t.Errorf("child queue position: got %d, want 1", *child.QueuePosition)
	}
}

func TestRunAndLoopRows(t *testing.T) {
	t.Parallel()
	db := fixture(t)
	ctx := context.Background()
	run, err := store.RunByUUID(ctx, db.Reader(), uRun1)
	if err != nil {
		t.Fatal(err)
	}
	// worker (live) and done (ended) are under the run; the row at the run's own path is not.
	if run.Path != "loop1/r00001" || run.Agents != 2 {
		t.Errorf("run row: got path %q agents %d, want loop1/r00001 and 2", run.Path, run.Agents)
	}
	want := []string{"agents", "created_at", "due_at", "ended_at", "exit_code", "kind", "loop_uuid", "path",
		"pgid", "pid", "run_id", "signal", "started_at", "status", "uuid"}
	if diff := cmp.Diff(want, keysOf(t, run)); diff != "" {
		t.Errorf("RunRow keys (-want +got):\n%s", diff)
	}
	runs, err := store.QueryRuns(ctx, db.Reader(), `WHERE r.loop_uuid = ? ORDER BY r.created_at`, uLoop1)
	if err != nil || len(runs) != 3 || runs[0].UUID != uRun2 {
		t.Errorf("QueryRuns: got %+v, %v", runs, err)
	}
	loop, err := store.LoopByUUID(ctx, db.Reader(), uLoop3)
	if err != nil {
		t.Fatal(err)
	}
	wantLoop := []string{"cadence", "cadence_kind", "created_at", "ended_reason", "last_fire_at", "max_concurrency",
		"name", "next_fire_at", "overlap", "status", "tz", "uuid"}
	if diff := cmp.Diff(wantLoop, keysOf(t, loop)); diff != "" {
		t.Errorf("LoopRow keys (-want +got):\n%s", diff)
	}
	if _, err := store.LoopByUUID(ctx, db.Reader(), "x"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("LoopByUUID(missing): got %v", err)
	}
	if _, err := store.RunByUUID(ctx, db.Reader(), "x"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("RunByUUID(missing): got %v", err)
	}
}
