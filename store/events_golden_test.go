package store_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/store"
	"github.com/orcr-go/orcr/store/storetest"
)

// The frame of every event kind, in every shape its emitters write, is pinned by
// testdata/events.golden: the event stream is a wire contract (docs/protocol.md §6), so a
// change to an event's payload type must not change a byte a client reads.
const (
	goldenAgent = "0190f0a0-0000-7000-8000-00000000a001"
	goldenLoop  = "0190f0a0-0000-7000-8000-00000000b001"
	goldenRun   = "0190f0a0-0000-7000-8000-00000000c001"
)

// goldenCase emits one event in the transaction, as the emitters do.
type goldenCase struct {
	name string
	emit func(tx *store.Tx) error
}

var opIDs = regexp.MustCompile(`"op_id":"[0-9a-f-]{36}"`)

func TestEventsGolden(t *testing.T) {
	db := storetest.Open(t)
	storetest.InsertAgent(t, db, map[string]any{"uuid": goldenAgent, "path": "default/golden", "status": "working",
		"input_seq": 3, "terminal_id": "t9", "pane_id": "w1:p2", "agent": "claude"})
	storetest.InsertLoop(t, db, map[string]any{"uuid": goldenLoop, "name": "nightly"})
	storetest.InsertRun(t, db, goldenLoop, map[string]any{"uuid": goldenRun, "run_id": "r00001", "pid": 4242, "pgid": 4242})
	var lines []string
	kinds := map[string]bool{}
	for _, c := range goldenCases() {
		res, evs, err := db.Apply([]store.Op{func(tx *store.Tx) (any, error) { return nil, c.emit(tx) }})
		if err == nil {
			err = res[0].Err
		}
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for i, e := range evs {
			kinds[e.Kind] = true
			frame := opIDs.ReplaceAll(e.Frame(), []byte(`"op_id":"OP"`))
			lines = append(lines, fmt.Sprintf("%s#%d %s %s", c.name, i, e.Kind, frame))
		}
	}
	for _, k := range wire.EventKinds {
		if k != wire.KindServerStopping && !kinds[k] {
			t.Errorf("no golden case emits %s", k)
		}
	}
	got := []byte(strings.Join(lines, "\n") + "\n")
	path := filepath.Join("testdata", "events.golden")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		for i := range max(len(gl), len(wl)) {
			g, w := at(gl, i), at(wl, i)
			if g != w {
				t.Errorf("line %d:\n got  %s\n want %s", i+1, g, w)
			}
		}
	}
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return "<none>"
}

// agentEmit is EmitAgent as the emitters call it.
func agentEmit(kind string, fields map[string]any) func(tx *store.Tx) error {
	return func(tx *store.Tx) error {
		_, err := tx.EmitAgent(kind, goldenAgent, fields)
		return err
	}
}

// loopEmit is the loop emitter: fields plus the loop row.
func loopEmit(kind string, fields map[string]any) func(tx *store.Tx) error {
	return func(tx *store.Tx) error {
		row, err := store.LoopByUUID(context.Background(), tx, goldenLoop)
		if err != nil {
			return err
		}
		fields["loop"] = row
		_, err = tx.Emit(kind, goldenLoop, fields)
		return err
	}
}

// runEmit is the run emitter: fields plus run_uuid and the run row.
func runEmit(kind string, fields map[string]any) func(tx *store.Tx) error {
	return func(tx *store.Tx) error {
		row, err := store.RunByUUID(context.Background(), tx, goldenRun)
		if err != nil {
			return err
		}
		fields["run_uuid"] = goldenRun
		fields["run"] = row
		_, err = tx.Emit(kind, goldenRun, fields)
		return err
	}
}

// agentRowEmit is a direct Emit that embeds the agent row (agent.created, the debug
// transitions).
func agentRowEmit(kind string, fields map[string]any) func(tx *store.Tx) error {
	return func(tx *store.Tx) error {
		row, err := store.AgentByUUID(context.Background(), tx, goldenAgent)
		if err != nil {
			return err
		}
		fields["agent"] = row
		_, err = tx.Emit(kind, goldenAgent, fields)
		return err
	}
}

// intentPair opens an intent and closes it in the same transaction.
func intentPair(kind, ref string, params map[string]any, ok bool, errText string, result map[string]any) func(tx *store.Tx) error {
	return func(tx *store.Tx) error {
		op, _, err := tx.Intent(kind, ref, params)
		if err != nil {
			return err
		}
		_, err = tx.Applied(op, ok, errText, result)
		return err
	}
}

func goldenCases() []goldenCase {
	seq := int64(3)
	return []goldenCase{
		{"created-managed", agentRowEmit("agent.created", map[string]any{"uuid": goldenAgent, "path": "default/golden", "status": store.StatusQueued})},
		{"created-unmanaged", agentRowEmit("agent.created", map[string]any{"uuid": goldenAgent, "path": "default/golden",
			"status": store.StatusIdle, "managed": false})},
		{"created-debug", agentRowEmit("agent.created", map[string]any{"uuid": goldenAgent, "path": "default/golden", "status": store.StatusWorking})},
		{"status-plain", agentEmit("agent.status_changed", map[string]any{"status": store.StatusIdle})},
		{"status-ended", agentEmit("agent.status_changed", map[string]any{"status": store.StatusEnded, "exit_reason": store.ExitKilled})},
		{"status-ended-null", agentEmit("agent.status_changed", map[string]any{"status": store.StatusEnded, "exit_reason": nil})},
		{"status-turn", agentEmit("agent.status_changed", map[string]any{"status": store.StatusWorking, "input_seq": seq})},
		{"status-turn-zero", agentEmit("agent.status_changed", map[string]any{"status": store.StatusIdle, "input_seq": seq - 3})},
		{"status-adopted", agentEmit("agent.status_changed", map[string]any{"status": store.StatusQueued, "adopted_from": "default/old"})},
		{"status-blocked", agentEmit("agent.status_changed", map[string]any{"status": store.StatusBlocked, "blocked_kind": "permission"})},
		{"status-debug", agentRowEmit("agent.status_changed", map[string]any{"uuid": goldenAgent, "path": "default/golden", "status": store.StatusWorking})},
		{"turn-completed", agentEmit("agent.turn_completed", map[string]any{"input_seq": seq})},
		{"response-captured", agentEmit("agent.response_captured", map[string]any{"transcript_locator": "/tmp/t.jsonl#12"})},
		{"location", agentEmit("agent.location_changed", map[string]any{"pane_id": "w1:p3", "terminal_id": "t10"})},
		{"ended", agentEmit("agent.ended", map[string]any{"exit_reason": store.ExitCompleted})},
		{"ended-null", agentEmit("agent.ended", map[string]any{"exit_reason": nil})},
		{"ended-debug", agentRowEmit("agent.ended", map[string]any{"uuid": goldenAgent, "exit_reason": "killed"})},
		{"promoted", agentEmit("queue.promoted", nil)},
		{"rerouted", agentEmit("agent.rerouted", map[string]any{"from": "claude", "to": "codex", "model": "gpt-5", "effort": ""})},
		{"stalled", agentEmit("agent.stalled", map[string]any{"input_seq": seq, "stalled": true, "progress_at": int64(1700)})},
		{"stall-cleared", agentEmit("agent.stall_cleared", map[string]any{"stalled": false, "reason": store.StallClearedStatus})},
		{"attach-started", func(tx *store.Tx) error {
			_, err := tx.Emit("attach.started", goldenAgent, map[string]any{"uuid": goldenAgent, "lease_id": "L1", "mode": store.LeaseTakeover})
			return err
		}},
		{"attach-ended", func(tx *store.Tx) error {
			_, err := tx.Emit("attach.ended", goldenAgent, map[string]any{"uuid": goldenAgent, "lease_id": "L1"})
			return err
		}},
		{"attach-expired", func(tx *store.Tx) error {
			_, err := tx.Emit("attach.ended", goldenAgent, map[string]any{"uuid": goldenAgent, "lease_id": "L1", "reason": "expired"})
			return err
		}},
		{"loop-created", loopEmit("loop.created", map[string]any{"uuid": goldenLoop, "name": "nightly", "cadence": "*/5 * * * *"})},
		{"loop-fired", loopEmit("loop.fired", map[string]any{"loop_uuid": goldenLoop, "run_id": "r00001", "kind": "scheduled",
			"due_at": int64(5000), "pending": false})},
		{"loop-coalesced", loopEmit("loop.coalesced", map[string]any{"loop_uuid": goldenLoop, "run_id": "r00001", "due_at": int64(5000)})},
		{"loop-skipped-overlap", loopEmit("loop.skipped", map[string]any{"loop_uuid": goldenLoop, "due_at": int64(5000)})},
		{"loop-skipped-reason", loopEmit("loop.skipped", map[string]any{"loop_uuid": goldenLoop, "name": "nightly", "reason": "missed",
			"due_at": int64(5000)})},
		{"loop-paused", loopEmit("loop.paused", map[string]any{"uuid": goldenLoop, "status": "paused", "ended_reason": nil})},
		{"loop-resumed", loopEmit("loop.resumed", map[string]any{"uuid": goldenLoop, "status": "active", "ended_reason": nil})},
		{"loop-removed", loopEmit("loop.removed", map[string]any{"uuid": goldenLoop, "status": store.LoopEnded, "ended_reason": "removed"})},
		{"loop-ended-fired", loopEmit("loop.ended", map[string]any{"uuid": goldenLoop, "status": store.LoopEnded, "ended_reason": "fired"})},
		{"run-started", runEmit("loop_run.started", map[string]any{"run_id": "r00001", "pid": int64(4242), "pgid": int64(4242)})},
		{"run-ended", runEmit("loop_run.ended", map[string]any{"run_id": "r00001", "status": "failed", "exit_code": int64(2), "signal": nil})},
		{"run-ended-signal", runEmit("loop_run.ended", map[string]any{"run_id": "r00001", "status": "canceled", "exit_code": nil, "signal": int64(15)})},
		{"run-stopping", runEmit("loop_run.stopping", map[string]any{})},
		{"provider-paused", func(tx *store.Tx) error {
			return tx.PauseProvider(store.ProviderPause{Provider: "claude", Since: 1000, Until: 2000, AgentUUID: goldenAgent,
				Source: "reset", Message: "limit reached"})
		}},
		{"provider-paused-bare", func(tx *store.Tx) error {
			return tx.PauseProvider(store.ProviderPause{Provider: "codex", Since: 1000, Until: 2000, Source: "backoff"})
		}},
		{"provider-resumed", func(tx *store.Tx) error { return tx.ResumeProvider("claude", "expired") }},
		{"spawn", intentPair("agent.spawn_requested", goldenAgent, map[string]any{"workspace": "orcr", "label": "default/golden",
			"argv": []string{"claude", "--x"}, "cwd": "/tmp"}, true, "",
			map[string]any{"pane_id": "w1:p2", "terminal_id": "t9", "workspace_id": "w1", "tab_id": "w1:t1"})},
		{"spawn-failed", intentPair("agent.spawn_requested", goldenAgent, map[string]any{"workspace": "orcr", "label": "default/golden",
			"argv": []string{"claude"}, "cwd": ""}, false, "herdr: no such workspace", nil)},
		{"spawn-repaired", intentPair("agent.spawn_requested", goldenAgent, map[string]any{"workspace": "orcr", "label": "default/golden",
			"argv": []string{"claude"}, "cwd": "/tmp"}, true, "", map[string]any{"terminal_id": "t9", "pane_id": "w1:p2", "repaired": true})},
		{"move", intentPair("agent.move_requested", goldenAgent, map[string]any{"move": "park", "target": "t9", "workspace": "orcr-parked",
			"label": "default/golden", "move_token": "tok"}, true, "",
			map[string]any{"pane_id": "w2:p1", "terminal_id": "t9", "workspace_id": "w2", "tab_id": "w2:t1", "repaired": true})},
		{"move-rolled-back", intentPair("agent.move_requested", goldenAgent, map[string]any{"move": "unpark", "target": "t9",
			"workspace": "orcr", "label": "default/golden", "move_token": "tok"}, false, "gone",
			map[string]any{"repaired": true, "rolled_back": true})},
		{"move-failed", intentPair("agent.move_requested", goldenAgent, map[string]any{"move": "park", "target": "t9",
			"workspace": "orcr-parked", "label": "default/golden", "move_token": "tok"}, false, "herdr: timeout", nil)},
		{"close", intentPair("agent.close_requested", goldenAgent, map[string]any{"target": "t9", "reason": "killed"}, true, "",
			map[string]any{"target": "t9"})},
		{"close-adopt", intentPair("agent.close_requested", goldenAgent, map[string]any{"target": "t9", "reason": "adopted",
			"path": "default/new"}, false, "adoption not finished: x", map[string]any{"target": "t9", "repaired": true})},
		{"input", intentPair("agent.input_requested", goldenAgent, map[string]any{"input_seq": seq, "target": "t9", "bytes": 12,
			"probe": "hello", "from": store.StatusIdle}, true, "", map[string]any{"input_seq": seq})},
		{"input-unmanaged", intentPair("agent.input_requested", goldenAgent, map[string]any{"input_seq": seq, "target": "t9",
			"bytes": 12, "session": "main"}, false, "herdr: gone", map[string]any{"input_seq": seq})},
		{"input-typed-again", intentPair("agent.input_requested", goldenAgent, map[string]any{"input_seq": seq, "target": "t9",
			"bytes": 12, "probe": "hello", "from": store.StatusStarting}, true, "",
			map[string]any{"input_seq": seq, "repaired": true, "typed_again": 0})},
		{"input-undone", intentPair("agent.input_requested", goldenAgent, map[string]any{"input_seq": seq, "target": "t9",
			"bytes": 12, "probe": "hello", "from": store.StatusIdle}, false, "the prompt was never submitted; the turn was undone",
			map[string]any{"input_seq": seq, "repaired": true, "rolled_back": true})},
		{"input-interrupted", intentPair("agent.input_requested", goldenAgent, map[string]any{"input_seq": seq, "target": "t9",
			"bytes": 12, "probe": "hello", "from": store.StatusIdle}, false, "interrupted by a server restart",
			map[string]any{"input_seq": seq, "repaired": true})},
		{"worktree-add", intentPair("agent.worktree_add_requested", goldenAgent, map[string]any{"worktree": "/r/.wt/golden",
			"branch": "orcr/golden", "repo": "/r", "create": true, "new_branch": true, "base": "main"}, true, "",
			map[string]any{"worktree": "/r/.wt/golden", "branch": "orcr/golden", "reused": false})},
		{"worktree-add-repaired", intentPair("agent.worktree_add_requested", goldenAgent, map[string]any{"worktree": "/r/.wt/golden",
			"branch": "orcr/golden", "repo": "/r", "create": false, "new_branch": false, "base": ""}, false,
			"no worktree was made before the server stopped", map[string]any{"worktree": "/r/.wt/golden", "branch": "orcr/golden", "repaired": true})},
		{"worktree-remove", intentPair("agent.worktree_remove_requested", goldenAgent, map[string]any{"worktree": "/r/.wt/golden",
			"branch": "orcr/golden", "repo": "/r"}, false, "dirty", map[string]any{"worktree": "/r/.wt/golden", "state": "dirty", "repaired": true})},
		{"run-spawn", intentPair("loop_run.spawn_requested", goldenRun, map[string]any{"run_uuid": goldenRun, "argv": []string{"make", "nightly"}},
			true, "", map[string]any{"run_uuid": goldenRun, "pid": 4242, "pgid": 4242})},
		{"run-spawn-failed", intentPair("loop_run.spawn_requested", goldenRun, map[string]any{"run_uuid": goldenRun, "argv": []string{"make"}},
			false, "exec: not found", map[string]any{"run_uuid": goldenRun})},
		{"run-spawn-repaired", intentPair("loop_run.spawn_requested", goldenRun, map[string]any{"run_uuid": goldenRun, "argv": []string{"make"}},
			true, "", map[string]any{"run_uuid": goldenRun, "repaired": true})},
		{"run-signal", intentPair("loop_run.signal_requested", goldenRun, map[string]any{"run_uuid": goldenRun, "signal": 15, "pgid": int64(4242)},
			true, "", map[string]any{"run_uuid": goldenRun, "sent": true})},
		{"run-signal-repaired", intentPair("loop_run.signal_requested", goldenRun, map[string]any{"run_uuid": goldenRun, "signal": 9, "pgid": int64(4242)},
			false, "interrupted by a server restart", map[string]any{"run_uuid": goldenRun, "repaired": true})},
	}
}
