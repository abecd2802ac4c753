package socketapi

import (
	"encoding/json"
	"github.com/orcr-go/orcr/socketapi/api"
	"testing"
)

// FuzzModelApply: any event object folded into a watch model leaves it consistent (its
// snapshot encodes, holds no ended agent and lists each agent once); a bad payload is
// an error, never a panic.
func FuzzModelApply(f *testing.F) {
	f.Add([]byte(`{"kind":"agent.created","agent":{"uuid":"u1","path":"a","status":"queued","queue_position":1}}`))
	f.Add([]byte(`{"kind":"agent.status_changed","agent":{"uuid":"u1","path":"a","status":"ended"}}`))
	f.Add([]byte(`{"kind":"loop.created","loop":{"uuid":"l1","name":"n","status":"active"}}`))
	f.Add([]byte(`{"kind":"loop_run.started","run":{"uuid":"r1","loop_uuid":"l1","status":"running","started_at":5}}`))
	f.Add([]byte(`{"agent":{"uuid":"u2","status":"queued","queue_position":-3}}`))
	f.Add([]byte(`{"agent":null,"loop":7}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		m := NewModel(api.Snapshot{SnapshotSeq: 1, Agents: []api.AgentRow{{UUID: "u0", Path: "z", Status: api.StatusQueued, QueuePosition: new(int64(1))}},
			Loops: []api.SnapshotLoop{{LoopRow: api.LoopRow{UUID: "l1", Status: "active"}, Runs: []api.SnapshotRun{}}}})
		for range 2 { // the same event twice: replacing a row must be idempotent
			_ = m.Apply(Event{Seq: m.Seq + 1, Raw: raw})
		}
		s := m.Snapshot()
		seen := map[string]bool{}
		for _, a := range s.Agents {
			if a.Status == api.StatusEnded || seen[a.UUID] {
				t.Fatalf("snapshot after %s: agent %+v", raw, a)
			}
			seen[a.UUID] = true
		}
		if _, err := json.Marshal(s); err != nil {
			t.Fatal(err)
		}
	})
}
