// Package storetest has helpers for tests that need a real store: a fresh store in a short
// temporary directory and fixture rows. The fixtures write through [store.DB.Apply]
// directly, so use them before a store actor starts on the same DB (or with none).
package storetest

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/store"
)

// Dir returns a short temporary directory removed at cleanup (short, so Unix socket paths
// placed next to the store stay under the platform limit).
func Dir(tb testing.TB) string {
	tb.Helper()
	dir, err := os.MkdirTemp("", "s")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// Open opens a fresh store named orcr.db in a new [Dir] and closes it at cleanup.
func Open(tb testing.TB) *store.DB {
	tb.Helper()
	db, err := store.Open(filepath.Join(Dir(tb), "orcr.db"))
	if err != nil {
		tb.Fatalf("store.Open: %v", err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

// NewUUID returns a fresh UUIDv7 string.
func NewUUID(tb testing.TB) string {
	tb.Helper()
	u, err := uuid.NewV7()
	if err != nil {
		tb.Fatal(err)
	}
	return u.String()
}

// Write runs op in its own transaction and fails the test on any error.
func Write(tb testing.TB, db *store.DB, op store.Op) any {
	tb.Helper()
	res, _, err := db.Apply([]store.Op{op})
	if err != nil {
		tb.Fatalf("store write: %v", err)
	}
	if res[0].Err != nil {
		tb.Fatalf("store write: %v", res[0].Err)
	}
	return res[0].Value
}

// Insert inserts one row into table with the given columns.
func Insert(tb testing.TB, db *store.DB, table string, cols map[string]any) {
	tb.Helper()
	keys := slices.Sorted(maps.Keys(cols))
	args := make([]any, len(keys))
	for i, k := range keys {
		args[i] = cols[k]
	}
	q := "INSERT INTO " + table + " (" + strings.Join(keys, ", ") + ") VALUES (" +
		strings.TrimSuffix(strings.Repeat("?, ", len(keys)), ", ") + ")"
	Write(tb, db, func(tx *store.Tx) (any, error) { return tx.Exec(q, args...) })
}

// with returns defaults overridden by cols.
func with(defaults, cols map[string]any) map[string]any {
	m := maps.Clone(defaults)
	maps.Copy(m, cols)
	return m
}

// InsertAgent inserts an agents row and returns its uuid. Defaults: a new UUIDv7, path
// "default/a-<8 chars>", managed 1, origin "run", status "queued", move_state "none",
// created_at/updated_at 1000, and for a queued row a queue_seq of MAX(queue_seq)+1. cols
// overrides any column (use nil for NULL).
func InsertAgent(tb testing.TB, db *store.DB, cols map[string]any) string {
	tb.Helper()
	id := NewUUID(tb)
	m := with(map[string]any{
		"uuid": id, "path": "default/a-" + id[len(id)-8:], "managed": 1, "origin": "run",
		"status": "queued", "move_state": "none", "created_at": 1000, "updated_at": 1000,
	}, cols)
	if _, ok := m["queue_seq"]; !ok && m["status"] == "queued" {
		var next int64
		Write(tb, db, func(tx *store.Tx) (any, error) {
			return nil, tx.QueryRow(`SELECT COALESCE(MAX(queue_seq), 0) + 1 FROM agents`).Scan(&next)
		})
		m["queue_seq"] = next
	}
	Insert(tb, db, "agents", m)
	return m["uuid"].(string)
}

// InsertLoop inserts a loops row and returns its uuid. Defaults: name "l-<8 chars>", cron
// "*/5 * * * *", tz "UTC", cwd "/tmp", max_concurrency 1, overlap "queue", status
// "active", created_at/updated_at 1000.
func InsertLoop(tb testing.TB, db *store.DB, cols map[string]any) string {
	tb.Helper()
	id := NewUUID(tb)
	m := with(map[string]any{
		"uuid": id, "name": "l-" + id[len(id)-8:], "cadence_kind": "cron", "cadence_value": "*/5 * * * *",
		"tz": "UTC", "cwd": "/tmp", "max_concurrency": 1, "overlap": "queue", "status": "active",
		"created_at": 1000, "updated_at": 1000,
	}, cols)
	Insert(tb, db, "loops", m)
	return m["uuid"].(string)
}

// InsertRun inserts a loop_runs row for loopUUID and returns its uuid. Defaults: run_id
// "r" + 5 chars, kind "manual", status "running", created_at/updated_at 1000.
func InsertRun(tb testing.TB, db *store.DB, loopUUID string, cols map[string]any) string {
	tb.Helper()
	id := NewUUID(tb)
	m := with(map[string]any{
		"uuid": id, "loop_uuid": loopUUID, "run_id": "r" + id[len(id)-5:], "kind": "manual",
		"status": "running", "created_at": 1000, "updated_at": 1000,
	}, cols)
	Insert(tb, db, "loop_runs", m)
	return m["uuid"].(string)
}

// InsertTurn inserts a turns row for agentUUID with the given input_seq. Default source
// "orcr".
func InsertTurn(tb testing.TB, db *store.DB, agentUUID string, inputSeq int64, cols map[string]any) {
	tb.Helper()
	Insert(tb, db, "turns", with(map[string]any{
		"agent_uuid": agentUUID, "input_seq": inputSeq, "source": "orcr",
	}, cols))
}

// Emit commits one event and returns its seq.
func Emit(tb testing.TB, db *store.DB, kind, ref string, payload any) int64 {
	tb.Helper()
	return Write(tb, db, func(tx *store.Tx) (any, error) { return tx.Emit(ref, Raw(tb, kind, payload)) }).(int64)
}

// Raw is payload (nil, a json.RawMessage or any value to marshal) as a pre-encoded event
// of kind, for tests that write payloads the events table does not type.
func Raw(tb testing.TB, kind string, payload any) api.RawEvent {
	tb.Helper()
	if raw, ok := payload.(json.RawMessage); ok {
		return api.RawEvent{Kind: kind, Fields: raw}
	}
	if payload == nil {
		return api.RawEvent{Kind: kind}
	}
	b, err := json.Marshal(payload)
	if err != nil {
		tb.Fatal(err)
	}
	return api.RawEvent{Kind: kind, Fields: b}
}

// TurnAgent enqueues a managed agent at path for provider (and model), settles it idle
// and opens a turn on it; it returns the agent's uuid and the turn's input_seq.
func TurnAgent(tb testing.TB, db *store.DB, path, provider, model string) (string, int64) {
	tb.Helper()
	id := NewUUID(tb)
	seq := Write(tb, db, func(tx *store.Tx) (any, error) {
		if _, err := tx.Enqueue(store.NewAgent{UUID: id, Path: path, Provider: provider, Model: model,
			GCMode: store.GCAuto, Cwd: "/tmp", Session: "orcr"}); err != nil {
			return nil, err
		}
		if _, err := tx.Exec(`UPDATE agents SET status = 'starting' WHERE uuid = ?`, id); err != nil {
			return nil, err
		}
		if err := tx.SettleIdle(id); err != nil {
			return nil, err
		}
		seq, _, err := tx.OpenTurn(id, store.InputStatuses)
		if err != nil {
			return nil, err
		}
		return seq, tx.LogInput(id, seq, store.SourceOrcr, "go")
	}).(int64)
	return id, seq
}
