package socketapi

import (
	"encoding/json"
	"testing"

	"github.com/orcr-go/orcr/socketapi/wire"
)

// FuzzDecodeParams: for every method of the table, params from the wire either decode
// (and re-encode to an object) or are refused as invalid_request wrong_type naming a
// field; nothing panics.
func FuzzDecodeParams(f *testing.F) {
	for _, seed := range []string{`{}`, `null`, `[1]`, `"x"`, `{"tail":"3"}`, `{"targets":["a",7]}`,
		`{"all":"yes"}`, `{"since_seq":1e400}`, `{"tail":-1}`, `{"client_pid":1.5}`, `{"caller_id":{"a":1}}`,
		`{"name":"a","path":"b","prompt":"\u00ff\ud800"}`, `{"max_concurrency":99999999999999999999}`,
		`{"TARGET":"x"}`, `{"command":[null,"a"]}`} {
		for i := range Methods {
			f.Add(uint8(i), []byte(seed))
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, raw []byte) {
		if !json.Valid(raw) {
			return // the frame decoder refuses it before any method sees params
		}
		m := Methods[int(which)%len(Methods)]
		v, err := m.Decode(raw)
		if err != nil {
			pe, ok := wire.As(err)
			if !ok || pe.Code != wire.InvalidRequest || pe.Reason() != "wrong_type" || pe.Details["field"] == "" {
				t.Fatalf("%s %s: got %v, want invalid_request wrong_type with a field", m.Info().Name, raw, err)
			}
			return
		}
		b, err := json.Marshal(v)
		if err != nil || len(b) == 0 || b[0] != '{' {
			t.Fatalf("%s %s: decoded params re-encode as %s (%v)", m.Info().Name, raw, b, err)
		}
	})
}

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
		m := NewModel(Snapshot{SnapshotSeq: 1, Agents: []AgentRow{{UUID: "u0", Path: "z", Status: StatusQueued, QueuePosition: new(int64(1))}},
			Loops: []SnapshotLoop{{LoopRow: LoopRow{UUID: "l1", Status: "active"}, Runs: []SnapshotRun{}}}})
		for range 2 { // the same event twice: replacing a row must be idempotent
			_ = m.Apply(Event{Seq: m.Seq + 1, Raw: raw})
		}
		s := m.Snapshot()
		seen := map[string]bool{}
		for _, a := range s.Agents {
			if a.Status == StatusEnded || seen[a.UUID] {
				t.Fatalf("snapshot after %s: agent %+v", raw, a)
			}
			seen[a.UUID] = true
		}
		if _, err := json.Marshal(s); err != nil {
			t.Fatal(err)
		}
	})
}
