package store_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/store"
	"github.com/orcr-go/orcr/store/storetest"
)

var update = flag.Bool("update", false, "update golden files under testdata/")

func schemaVersion(t *testing.T, path string) string {
	t.Helper()
	raw, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var v string
	if err := raw.QueryRow(`SELECT value FROM meta WHERE key = 'schema_version'`).Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func tableNames(t *testing.T, q store.Querier) []string {
	t.Helper()
	rows, err := q.QueryContext(context.Background(), `SELECT name FROM sqlite_master WHERE type IN ('table','index') AND name NOT LIKE 'sqlite_%' ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		rows.Scan(&n)
		out = append(out, n)
	}
	return out
}

func TestOpenFresh(t *testing.T) {
	t.Parallel()
	dir := storetest.Dir(t)
	path := filepath.Join(dir, "orcr.db")
	db, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if got, want := schemaVersion(t, path), "19"; got != want {
		t.Errorf("schema_version: got %q, want %q", got, want)
	}
	if store.SchemaVersion != 19 {
		t.Errorf("SchemaVersion: got %d, want 19", store.SchemaVersion)
	}
	want := []string{
		"agents", "agents_active_path", "agents_agent_session", "agents_budget_paused", "agents_deadline", "agents_ended", "agents_pane", "agents_parent",
		"agents_path", "agents_provider_status", "agents_run_budget", "agents_session_term", "agents_status_queue", "agents_unmanaged", "agents_worktree",
		"attaches", "attaches_agent", "budget_scopes", "events", "events_ref", "inbox", "inbox_agent", "intents", "loop_runs",
		"loop_runs_loop_status", "loop_runs_run_id", "loop_runs_status_timeout", "loops", "loops_active_name",
		"loops_status_fire", "meta", "notify_deliveries", "notify_deliveries_due", "notify_deliveries_event",
		"notify_targets", "provider_pauses", "quota_windows", "remote_tokens", "remote_tokens_agent", "run_budgets", "session_log", "sessions", "turns", "turns_usage", "usage_days",
	}
	if diff := cmp.Diff(want, tableNames(t, db.Reader())); diff != "" {
		t.Errorf("tables and indexes (-want +got):\n%s", diff)
	}
	var mode string
	if err := db.Reader().QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode: got %q (%v), want wal", mode, err)
	}
	if _, err := db.Reader().Exec(`INSERT INTO meta (key, value) VALUES ('x', 'y')`); err == nil {
		t.Errorf("write through the read pool succeeded, want a read-only error")
	}
	latest, oldest, err := db.Bounds()
	if err != nil || latest != 0 || oldest != 1 {
		t.Errorf("Bounds on a fresh store: got (%d, %d, %v), want (0, 1, nil)", latest, oldest, err)
	}
	// Reopening a current store is a no-op.
	db.Close()
	db2, err := store.Open(path)
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	db2.Close()
}

func TestMigrateFromV1(t *testing.T) {
	t.Parallel()
	path := filepath.Join(storetest.Dir(t), "orcr.db")
	ddl, err := os.ReadFile("migrations/0001_init.sql")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(string(ddl)); err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`INSERT INTO meta VALUES ('schema_version', '1');
		INSERT INTO events (ts, kind, ref_uuid, payload_json) VALUES (5, 'agent.created', 'u1', '{"uuid":"u1"}')`); err != nil {
		t.Fatal(err)
	}
	raw.Close()

	db, err := store.Open(path)
	if err != nil {
		t.Fatalf("Open v1 store: %v", err)
	}
	defer db.Close()
	if got := schemaVersion(t, path); got != "19" {
		t.Errorf("schema_version after migration: got %q, want 19", got)
	}
	evs, err := db.EventsAfter(context.Background(), 0, 10)
	if err != nil || len(evs) != 1 || evs[0].Kind != "agent.created" || evs[0].Ref != "u1" {
		t.Errorf("v1 events after migration: got %+v, %v", evs, err)
	}
	if ins, err := db.OpenIntents(); err != nil || len(ins) != 0 {
		t.Errorf("OpenIntents on migrated store: got %v, %v; want none", ins, err)
	}
	if seq := storetest.Emit(t, db, "agent.ended", "u1", nil); seq != 2 {
		t.Errorf("first seq after migration: got %d, want 2", seq)
	}
}

func TestRefuseNewerVersion(t *testing.T) {
	t.Parallel()
	path := filepath.Join(storetest.Dir(t), "orcr.db")
	db, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	raw, _ := sql.Open("sqlite", "file:"+path)
	if _, err := raw.Exec(`UPDATE meta SET value = '99' WHERE key = 'schema_version'`); err != nil {
		t.Fatal(err)
	}
	raw.Close()

	_, err = store.Open(path)
	if !wire.Is(err, wire.EnvironmentError, wire.CauseStoreVersionMismatch) {
		t.Fatalf("Open newer store: got %v, want environment_error store_version_mismatch", err)
	}
	pe, _ := wire.As(err)
	if want := fmt.Sprintf("version %d)", store.SchemaVersion); !strings.Contains(pe.Message, "99") || !strings.Contains(pe.Message, want) {
		t.Errorf("message %q must name both versions (99 and %d)", pe.Message, store.SchemaVersion)
	}
	if got := schemaVersion(t, path); got != "99" {
		t.Errorf("refused store was modified: schema_version %q", got)
	}
}

func TestOpenFailed(t *testing.T) {
	t.Parallel()
	dir := storetest.Dir(t)
	garbage := filepath.Join(dir, "garbage.db")
	os.WriteFile(garbage, []byte(strings.Repeat("not a database ", 100)), 0o600)
	for name, path := range map[string]string{
		"missing dir": filepath.Join(dir, "nope", "orcr.db"),
		"not sqlite":  garbage,
	} {
		t.Run(name, func(t *testing.T) {
			db, err := store.Open(path)
			if err == nil {
				db.Close()
				t.Fatal("Open succeeded, want store_open_failed")
			}
			if !wire.Is(err, wire.EnvironmentError, wire.CauseStoreOpenFailed) {
				t.Errorf("Open: got %v, want environment_error store_open_failed", err)
			}
		})
	}
}

func emitOp(ref string, ev api.Event) store.Op {
	return func(tx *store.Tx) (any, error) { return tx.Emit(ref, ev) }
}

// raw is a pre-encoded payload of kind ("" for none).
func raw(kind, fields string) api.RawEvent {
	return api.RawEvent{Kind: kind, Fields: json.RawMessage(fields)}
}

func seqs(evs []store.Event) []int64 {
	out := []int64{}
	for _, e := range evs {
		out = append(out, e.Seq)
	}
	return out
}

func allEvents(t *testing.T, db *store.DB) []store.Event {
	t.Helper()
	evs, err := db.EventsAfter(context.Background(), 0, 1_000_000)
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

func TestApplyFailingOpIsolated(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	boom := errors.New("boom")
	ops := []store.Op{
		emitOp("a", raw("agent.created", `{"n":1}`)),
		func(tx *store.Tx) (any, error) {
			if _, err := tx.Emit("b", storetest.Raw(t, "agent.created", map[string]any{"n": 2})); err != nil {
				return nil, err
			}
			if _, err := tx.Exec(`INSERT INTO meta (key, value) VALUES ('failed-op', 'x')`); err != nil {
				return nil, err
			}
			return nil, boom
		},
		func(tx *store.Tx) (any, error) {
			panic("kaboom")
		},
		func(tx *store.Tx) (any, error) {
			if _, err := tx.Emit("c", storetest.Raw(t, "agent.created", map[string]any{"n": 3})); err != nil {
				return nil, err
			}
			return tx.Emit("c", storetest.Raw(t, "agent.ended", map[string]any{"n": 4}))
		},
	}
	res, evs, err := db.Apply(ops)
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	if res[0].Err != nil || res[0].Value != int64(1) {
		t.Errorf("op 0: got (%v, %v), want (1, nil)", res[0].Value, res[0].Err)
	}
	if !errors.Is(res[1].Err, boom) || len(res[1].Events) != 0 {
		t.Errorf("op 1: got err %v events %v, want boom and none", res[1].Err, res[1].Events)
	}
	var pe *store.PanicError
	if !errors.As(res[2].Err, &pe) || pe.Value != "kaboom" || len(pe.Stack) == 0 {
		t.Errorf("op 2: got err %v, want *PanicError kaboom with a stack", res[2].Err)
	}
	if res[3].Err != nil || res[3].Value != int64(3) || len(res[3].Events) != 2 {
		t.Errorf("op 3: got (%v, %v, %d events), want (3, nil, 2)", res[3].Value, res[3].Err, len(res[3].Events))
	}
	if diff := cmp.Diff([]int64{1, 2, 3}, seqs(evs)); diff != "" {
		t.Errorf("committed seqs (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int64{1, 2, 3}, seqs(allEvents(t, db))); diff != "" {
		t.Errorf("stored seqs (-want +got):\n%s", diff)
	}
	var n int
	db.Reader().QueryRow(`SELECT count(*) FROM meta WHERE key = 'failed-op'`).Scan(&n)
	if n != 0 {
		t.Errorf("failed op's row survived")
	}
	// The numbering continues without a hole.
	if seq := storetest.Emit(t, db, "agent.ended", "a", nil); seq != 4 {
		t.Errorf("next seq: got %d, want 4", seq)
	}
	// All events of one transaction share its clock.
	for _, e := range evs {
		if e.TS != evs[0].TS {
			t.Errorf("event %d ts %d differs from %d", e.Seq, e.TS, evs[0].TS)
		}
	}
}

func TestApplyOnlyFailures(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	res, evs, err := db.Apply([]store.Op{
		func(tx *store.Tx) (any, error) {
			tx.Emit("x", storetest.Raw(t, "agent.created", nil))
			return nil, errors.New("no")
		},
	})
	if err != nil || res[0].Err == nil || len(evs) != 0 {
		t.Fatalf("Apply: got (%v, %v, %v)", res, evs, err)
	}
	latest, oldest, _ := db.Bounds()
	if latest != 0 || oldest != 1 {
		t.Errorf("Bounds after a rolled-back op: got (%d, %d), want (0, 1)", latest, oldest)
	}
	if seq := storetest.Emit(t, db, "agent.created", "x", nil); seq != 1 {
		t.Errorf("first committed seq: got %d, want 1", seq)
	}
}

func TestEmitValidation(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	cases := []struct {
		name string
		ev   api.Event
		ok   bool
	}{
		{"registered", raw("agent.created", `{"uuid":"u"}`), true},
		{"intent kind", raw("agent.spawn_requested", ""), true},
		{"debug kind", raw("debug.anything", `{"x":1}`), true},
		{"typed payload", &api.LoopCreated{UUID: "l"}, true},
		{"unknown kind", raw("agent.exploded", ""), false},
		{"bare debug prefix", raw("debug.", ""), false},
		{"control kind", api.ServerStopping{}, false},
		{"cursor_expired", raw("cursor_expired", ""), false},
		{"array payload", raw("agent.created", "[1]"), false},
		{"string payload", raw("agent.created", `"x"`), false},
		{"invalid payload", raw("agent.created", `{"f":`), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, _, err := db.Apply([]store.Op{emitOp("", c.ev)})
			if err != nil {
				t.Fatal(err)
			}
			if c.ok && res[0].Err != nil {
				t.Errorf("Emit(%q): got %v, want success", c.ev.EventKind(), res[0].Err)
			}
			if !c.ok && !errors.Is(res[0].Err, store.ErrInvalidEvent) {
				t.Errorf("Emit(%q): got %v, want ErrInvalidEvent", c.ev.EventKind(), res[0].Err)
			}
		})
	}
	evs := allEvents(t, db)
	if diff := cmp.Diff([]int64{1, 2, 3, 4}, seqs(evs)); diff != "" {
		t.Errorf("stored seqs (-want +got):\n%s", diff)
	}
	if string(evs[1].Payload) != "{}" || evs[1].Ref != "" {
		t.Errorf("nil payload / empty ref: got %s %q, want {} and no ref", evs[1].Payload, evs[1].Ref)
	}
}

func TestIntents(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	var opA, opR string
	storetest.Write(t, db, func(tx *store.Tx) (any, error) {
		var err error
		opA, _, err = tx.Intent("agent-1", &api.AgentSpawnRequested{IntentHead: api.IntentHead{OpID: "ignored"}, Cwd: "/w"})
		if err != nil {
			return nil, err
		}
		opR, _, err = tx.Intent("run-1", &api.LoopRunSignalRequested{Signal: 15})
		return nil, err
	})
	open, err := db.OpenIntents()
	if err != nil {
		t.Fatal(err)
	}
	if len(open) != 2 || open[0].OpID != opA || open[0].Kind != "agent.spawn_requested" || open[0].Ref != "agent-1" ||
		open[0].RequestedSeq != 1 || open[1].OpID != opR || open[1].RequestedSeq != 2 {
		t.Fatalf("OpenIntents: got %+v", open)
	}
	var params map[string]any
	json.Unmarshal(open[1].Params, &params)
	if params["signal"] != float64(15) {
		t.Errorf("intent params: got %s", open[1].Params)
	}
	// Retention does not lose an open intent.
	for range 5 {
		storetest.Emit(t, db, "debug.filler", "", nil)
	}
	if _, err := db.Trim(1, 1<<62); err != nil {
		t.Fatal(err)
	}
	if open, _ := db.OpenIntents(); len(open) != 2 {
		t.Fatalf("OpenIntents after trim: got %d, want 2", len(open))
	}

	storetest.Write(t, db, func(tx *store.Tx) (any, error) {
		if _, err := tx.Applied(opA, true, "", &api.AgentSpawnApplied{AppliedHead: api.AppliedHead{OK: false}, PaneID: "p1"}); err != nil {
			return nil, err
		}
		return tx.Applied(opR, false, "no such process", &api.LoopRunSignalApplied{AppliedHead: api.AppliedHead{Repaired: true}})
	})
	if open, _ := db.OpenIntents(); len(open) != 0 {
		t.Errorf("OpenIntents after Applied: got %+v, want none", open)
	}
	evs, _ := db.EventsAfter(context.Background(), 7, 10)
	if len(evs) != 2 {
		t.Fatalf("applied events: got %d, want 2", len(evs))
	}
	got := []map[string]any{}
	for _, e := range evs {
		var m map[string]any
		json.Unmarshal(e.Frame(), &m)
		got = append(got, m)
	}
	want := []map[string]any{
		{"kind": "agent.spawn_applied", "ref_uuid": "agent-1", "uuid": "agent-1", "op_id": opA, "ok": true, "pane_id": "p1"},
		{"kind": "loop_run.signal_applied", "ref_uuid": "run-1", "run_uuid": "run-1", "op_id": opR, "ok": false,
			"error": "no such process", "repaired": true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("applied frames (-want +got):\n%s", diff)
	}
	res, _, _ := db.Apply([]store.Op{
		func(tx *store.Tx) (any, error) { return tx.Applied(opA, true, "", nil) },
		func(tx *store.Tx) (any, error) {
			op, _, err := tx.Intent("x", &api.AgentSpawnRequested{})
			if err != nil {
				return nil, err
			}
			return tx.Applied(op, true, "", &api.AgentMoveApplied{}) // not the spawn's pair
		},
	})
	for i, r := range res {
		if !errors.Is(r.Err, store.ErrUnknownIntent) {
			t.Errorf("bad intent op %d: got %v, want ErrUnknownIntent", i, r.Err)
		}
	}
}

func TestIntentRequestedPayload(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	var op string
	storetest.Write(t, db, func(tx *store.Tx) (any, error) {
		var err error
		op, _, err = tx.Intent("a1", &api.AgentMoveRequested{IntentHead: api.IntentHead{UUID: "spoof"}, Move: "park"})
		return nil, err
	})
	evs := allEvents(t, db)
	var m map[string]any
	json.Unmarshal(evs[0].Payload, &m)
	want := map[string]any{"uuid": "a1", "op_id": op, "move": "park", "label": "", "move_token": "", "target": "",
		"workspace": ""}
	if diff := cmp.Diff(want, m); diff != "" {
		t.Errorf("requested payload (-want +got):\n%s", diff)
	}
}

func TestTrim(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	if oldest, err := db.Trim(10, 1<<62); err != nil || oldest != 1 {
		t.Errorf("Trim on empty: got (%d, %v), want (1, nil)", oldest, err)
	}
	for range 30 {
		storetest.Emit(t, db, "debug.x", "", nil)
	}
	cases := []struct {
		keep       int
		floor      int64
		wantOldest int64
	}{
		{100, 1 << 62, 1}, // nothing beyond keep
		{25, 1 << 62, 6},  // keeps 6..30
		{10, 12, 13},      // floor 12 holds: rows > 12 stay
		{10, 3, 13},       // a floor below oldest deletes nothing more
		{10, 1 << 62, 21}, // floor released: keeps 21..30
		{1, 25, 26},
	}
	for _, c := range cases {
		oldest, err := db.Trim(c.keep, c.floor)
		if err != nil || oldest != c.wantOldest {
			t.Errorf("Trim(%d, %d): got (%d, %v), want %d", c.keep, c.floor, oldest, err, c.wantOldest)
		}
		latest, bOldest, _ := db.Bounds()
		if latest != 30 || bOldest != oldest {
			t.Errorf("Bounds after Trim(%d, %d): got (%d, %d), want (30, %d)", c.keep, c.floor, latest, bOldest, oldest)
		}
	}
	if _, err := db.Trim(0, 1<<62); err == nil {
		t.Errorf("Trim(0): want an error")
	}
	if seq := storetest.Emit(t, db, "debug.x", "", nil); seq != 31 {
		t.Errorf("seq after trimming: got %d, want 31", seq)
	}
}

func TestBoundsEmptyAfterAllocation(t *testing.T) {
	t.Parallel()
	// A store whose table is empty but whose counter has advanced (rows deleted by hand):
	// oldest = latest + 1 (docs/protocol.md §7.1).
	db := storetest.Open(t)
	for range 3 {
		storetest.Emit(t, db, "debug.x", "", nil)
	}
	storetest.Write(t, db, func(tx *store.Tx) (any, error) { return tx.Exec(`DELETE FROM events`) })
	latest, oldest, err := db.Bounds()
	if err != nil || latest != 3 || oldest != 4 {
		t.Errorf("Bounds: got (%d, %d, %v), want (3, 4, nil)", latest, oldest, err)
	}
}

func TestEventsAfterPaging(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	for i := range 10 {
		storetest.Emit(t, db, "debug.x", "", map[string]any{"i": i})
	}
	ctx := context.Background()
	var got []int64
	for after := int64(0); ; {
		evs, err := db.EventsAfter(ctx, after, 3)
		if err != nil {
			t.Fatal(err)
		}
		if len(evs) == 0 {
			break
		}
		got = append(got, seqs(evs)...)
		after = evs[len(evs)-1].Seq
	}
	if diff := cmp.Diff([]int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, got); diff != "" {
		t.Errorf("paged seqs (-want +got):\n%s", diff)
	}
	if evs, _ := db.EventsAfter(ctx, 10, 0); len(evs) != 0 {
		t.Errorf("EventsAfter(latest): got %d events", len(evs))
	}
}

func TestEventFrame(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		ev   store.Event
		want string
	}{
		{"object with ref", store.Event{Kind: "agent.status_changed", Ref: "u1", Payload: json.RawMessage(`{"uuid":"u1","status":"idle"}`)},
			`{"kind":"agent.status_changed","ref_uuid":"u1","status":"idle","uuid":"u1"}`},
		{"kind overwritten", store.Event{Kind: "loop.fired", Ref: "l1", Payload: json.RawMessage(`{"kind":"manual","ref_uuid":"zzz","run_id":"r1"}`)},
			`{"kind":"loop.fired","ref_uuid":"l1","run_id":"r1"}`},
		{"no ref", store.Event{Kind: "debug.x", Payload: json.RawMessage(`{"a":1}`)}, `{"a":1,"kind":"debug.x"}`},
		{"non-object wrapped", store.Event{Kind: "debug.x", Payload: json.RawMessage(`[1,2]`)}, `{"data":[1,2],"kind":"debug.x"}`},
		{"null wrapped", store.Event{Kind: "debug.x", Payload: json.RawMessage(`null`)}, `{"data":null,"kind":"debug.x"}`},
	}
	for _, c := range cases {
		if got := string(c.ev.Frame()); got != c.want {
			t.Errorf("%s: Frame: got %s, want %s", c.name, got, c.want)
		}
	}
}

// The store file and the WAL files SQLite creates next to it are private (0600) even
// under a permissive umask, and Open tightens a store an older version left readable.
func TestStoreFilesArePrivate(t *testing.T) {
	t.Parallel()
	old := syscall.Umask(0o022) // the usual login umask; SQLite would create 0644
	defer syscall.Umask(old)
	dir := storetest.Dir(t)
	check := func(when string) {
		t.Helper()
		for _, name := range []string{"orcr.db", "orcr.db-wal", "orcr.db-shm"} {
			fi, err := os.Stat(filepath.Join(dir, name))
			if err != nil {
				t.Errorf("%s: %v", when, err)
				continue
			}
			if perm := fi.Mode().Perm(); perm != 0o600 {
				t.Errorf("%s: %s has mode %#o, want 0600", when, name, perm)
			}
		}
	}
	db, err := store.Open(filepath.Join(dir, "orcr.db"))
	if err != nil {
		t.Fatal(err)
	}
	storetest.Emit(t, db, "agent.status_changed", "", map[string]any{})
	check("fresh store")
	db.Close()

	if err := os.Chmod(filepath.Join(dir, "orcr.db"), 0o644); err != nil {
		t.Fatal(err)
	}
	db, err = store.Open(filepath.Join(dir, "orcr.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	storetest.Emit(t, db, "agent.status_changed", "", map[string]any{})
	check("reopened 0644 store")
}
