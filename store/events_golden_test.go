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

	"github.com/orcr-go/orcr/socketapi/api"
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
	t.Parallel()
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
	for _, e := range api.Events {
		if !e.Control && !kinds[e.Kind] {
			t.Errorf("no golden case emits %s", e.Kind)
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
func agentEmit(ev api.AgentEvent) func(tx *store.Tx) error {
	return func(tx *store.Tx) error {
		_, err := tx.EmitAgent(goldenAgent, ev)
		return err
	}
}

// loopEmit is the loop emitter: ev with the loop row.
func loopEmit(ev api.LoopEvent) func(tx *store.Tx) error {
	return func(tx *store.Tx) error {
		row, err := store.LoopByUUID(context.Background(), tx, goldenLoop)
		if err != nil {
			return err
		}
		ev.LoopRef().Loop = row
		_, err = tx.Emit(goldenLoop, ev)
		return err
	}
}

// runEmit is the run emitter: ev with run_uuid and the run row.
func runEmit(ev api.RunEvent) func(tx *store.Tx) error {
	return func(tx *store.Tx) error {
		row, err := store.RunByUUID(context.Background(), tx, goldenRun)
		if err != nil {
			return err
		}
		*ev.RunRef() = api.RunHead{RunUUID: goldenRun, Run: row}
		_, err = tx.Emit(goldenRun, ev)
		return err
	}
}

// agentRowEmit is a direct Emit of an event that embeds the agent row (agent.created,
// the debug transitions): set fills it in.
func agentRowEmit(ev api.AgentEvent) func(tx *store.Tx) error {
	return func(tx *store.Tx) error {
		row, err := store.AgentByUUID(context.Background(), tx, goldenAgent)
		if err != nil {
			return err
		}
		*ev.AgentRef() = api.AgentHead{UUID: goldenAgent, Agent: row}
		_, err = tx.Emit(goldenAgent, ev)
		return err
	}
}

// emit is a direct Emit.
func emit(ref string, ev api.Event) func(tx *store.Tx) error {
	return func(tx *store.Tx) error {
		_, err := tx.Emit(ref, ev)
		return err
	}
}

// intentPair opens an intent and closes it in the same transaction.
func intentPair(ref string, in api.IntentEvent, ok bool, errText string, out api.AppliedEvent) func(tx *store.Tx) error {
	return func(tx *store.Tx) error {
		op, _, err := tx.Intent(ref, in)
		if err != nil {
			return err
		}
		_, err = tx.Applied(op, ok, errText, out)
		return err
	}
}

func goldenCases() []goldenCase {
	seq := int64(3)
	repaired := api.AppliedHead{Repaired: true}
	killed, completed := string(store.ExitKilled), string(store.ExitCompleted)
	return []goldenCase{
		{"created-managed", agentRowEmit(&api.AgentCreated{Path: "default/golden", Status: store.StatusQueued})},
		{"created-unmanaged", agentRowEmit(&api.AgentCreated{Path: "default/golden", Status: store.StatusIdle, Managed: new(false)})},
		{"created-debug", agentRowEmit(&api.AgentCreated{Path: "default/golden", Status: store.StatusWorking})},
		{"status-plain", agentEmit(&api.AgentStatusChanged{Status: store.StatusIdle})},
		{"status-ended", agentEmit(&api.AgentStatusChanged{Status: store.StatusEnded, ExitReason: api.Present(&killed)})},
		{"status-ended-null", agentEmit(&api.AgentStatusChanged{Status: store.StatusEnded, ExitReason: api.Present(nil)})},
		{"status-turn", agentEmit(&api.AgentStatusChanged{Status: store.StatusWorking, InputSeq: &seq})},
		{"status-turn-zero", agentEmit(&api.AgentStatusChanged{Status: store.StatusIdle, InputSeq: new(seq - 3)})},
		{"status-adopted", agentEmit(&api.AgentStatusChanged{Status: store.StatusQueued, AdoptedFrom: "default/old"})},
		{"status-blocked", agentEmit(&api.AgentStatusChanged{Status: store.StatusBlocked, BlockedKind: "permission"})},
		{"status-debug", agentRowEmit(&api.AgentStatusChanged{Path: "default/golden", Status: store.StatusWorking})},
		{"turn-completed", agentEmit(&api.AgentTurnCompleted{InputSeq: seq})},
		{"response-captured", agentEmit(&api.AgentResponseCaptured{TranscriptLocator: "/tmp/t.jsonl#12"})},
		{"location", agentEmit(&api.AgentLocationChanged{PaneID: "w1:p3", TerminalID: "t10"})},
		{"ended", agentEmit(&api.AgentEnded{ExitReason: &completed})},
		{"ended-null", agentEmit(&api.AgentEnded{})},
		{"ended-debug", agentRowEmit(&api.AgentEnded{ExitReason: &killed})},
		{"promoted", agentEmit(&api.QueuePromoted{})},
		{"rerouted", agentEmit(&api.AgentRerouted{From: "claude", To: "codex", Model: "gpt-5", Effort: ""})},
		{"stalled", agentEmit(&api.AgentStalled{InputSeq: seq, Stalled: true, ProgressAt: 1700})},
		{"stall-cleared", agentEmit(&api.AgentStallCleared{Reason: store.StallClearedStatus})},
		{"attach-started", emit(goldenAgent, &api.AttachStarted{UUID: goldenAgent, LeaseID: "L1", Mode: store.LeaseTakeover})},
		{"attach-ended", emit(goldenAgent, &api.AttachEnded{UUID: goldenAgent, LeaseID: "L1"})},
		{"attach-expired", emit(goldenAgent, &api.AttachEnded{UUID: goldenAgent, LeaseID: "L1", Reason: "expired"})},
		{"loop-created", loopEmit(&api.LoopCreated{UUID: goldenLoop, Name: "nightly", Cadence: "*/5 * * * *"})},
		{"loop-fired", loopEmit(&api.LoopFired{LoopUUID: goldenLoop, RunID: "r00001", Kind: "scheduled", DueAt: 5000, Pending: false})},
		{"loop-coalesced", loopEmit(&api.LoopCoalesced{LoopUUID: goldenLoop, RunID: "r00001", DueAt: 5000})},
		{"loop-skipped-overlap", loopEmit(&api.LoopSkipped{LoopUUID: goldenLoop, DueAt: 5000})},
		{"loop-skipped-reason", loopEmit(&api.LoopSkipped{LoopUUID: goldenLoop, Name: "nightly", Reason: "missed", DueAt: 5000})},
		{"loop-paused", loopEmit(&api.LoopPaused{LoopChange: api.LoopChange{UUID: goldenLoop, Status: "paused"}})},
		{"loop-resumed", loopEmit(&api.LoopResumed{LoopChange: api.LoopChange{UUID: goldenLoop, Status: "active"}})},
		{"loop-removed", loopEmit(&api.LoopRemoved{LoopChange: api.LoopChange{UUID: goldenLoop, Status: store.LoopEnded, EndedReason: new("removed")}})},
		{"loop-ended-fired", loopEmit(&api.LoopEnded{LoopChange: api.LoopChange{UUID: goldenLoop, Status: store.LoopEnded, EndedReason: new("fired")}})},
		{"run-started", runEmit(&api.LoopRunStarted{RunID: "r00001", Pid: 4242, Pgid: 4242})},
		{"run-ended", runEmit(&api.LoopRunEnded{RunID: "r00001", Status: "failed", ExitCode: new(int64(2))})},
		{"run-ended-signal", runEmit(&api.LoopRunEnded{RunID: "r00001", Status: "canceled", Signal: new(int64(15))})},
		{"run-stopping", runEmit(&api.LoopRunStopping{})},
		{"provider-paused", func(tx *store.Tx) error {
			return tx.PauseProvider(store.ProviderPause{Provider: "claude", Since: 1000, Until: 2000, AgentUUID: goldenAgent,
				Source: "reset", Message: "limit reached"})
		}},
		{"provider-paused-bare", func(tx *store.Tx) error {
			return tx.PauseProvider(store.ProviderPause{Provider: "codex", Since: 1000, Until: 2000, Source: "backoff"})
		}},
		{"provider-resumed", func(tx *store.Tx) error { return tx.ResumeProvider("claude", "", "expired") }},
		{"quota-warned", func(tx *store.Tx) error {
			return tx.WarnQuota(api.QuotaWarned{Provider: "claude", Window: "five_hour", UsedPercent: 82, ResetsAt: 2000,
				WarnAt: 0.8, AgentUUID: goldenAgent})
		}},
		{"budget-warned", agentEmit(&api.BudgetWarned{BudgetEvent: api.BudgetEvent{Budget: "fleet", Scope: "2026-12-05",
			Unit: "usd", Spent: 1.6, Limit: 2}})},
		{"budget-exceeded", agentEmit(&api.BudgetExceeded{BudgetEvent: api.BudgetEvent{Budget: "run:default/golden",
			Unit: "tokens", Spent: 520, Limit: 500}})},
		{"budget-extended", func(tx *store.Tx) error {
			_, err := tx.Emit("", &api.BudgetExtended{BudgetEvent: api.BudgetEvent{Budget: "fleet", Unit: "usd", Spent: 2.1,
				Limit: 3}, State: "ok"})
			return err
		}},
		{"budget-resumed", agentEmit(&api.BudgetResumed{Budget: "fleet", Scope: "2026-12-05"})},
		{"spawn", intentPair(goldenAgent, &api.AgentSpawnRequested{Workspace: "orcr", Label: "default/golden",
			Argv: []string{"claude", "--x"}, Cwd: "/tmp"}, true, "",
			&api.AgentSpawnApplied{PaneID: "w1:p2", TerminalID: "t9", WorkspaceID: "w1", TabID: "w1:t1"})},
		{"spawn-failed", intentPair(goldenAgent, &api.AgentSpawnRequested{Workspace: "orcr", Label: "default/golden",
			Argv: []string{"claude"}}, false, "herdr: no such workspace", nil)},
		{"spawn-repaired", intentPair(goldenAgent, &api.AgentSpawnRequested{Workspace: "orcr", Label: "default/golden",
			Argv: []string{"claude"}, Cwd: "/tmp"}, true, "", &api.AgentSpawnApplied{AppliedHead: repaired, TerminalID: "t9", PaneID: "w1:p2"})},
		{"move", intentPair(goldenAgent, &api.AgentMoveRequested{Move: "park", Target: "t9", Workspace: "orcr-parked",
			Label: "default/golden", MoveToken: "tok"}, true, "",
			&api.AgentMoveApplied{AppliedHead: repaired, PaneID: "w2:p1", TerminalID: "t9", WorkspaceID: "w2", TabID: "w2:t1"})},
		{"move-rolled-back", intentPair(goldenAgent, &api.AgentMoveRequested{Move: "unpark", Target: "t9",
			Workspace: "orcr", Label: "default/golden", MoveToken: "tok"}, false, "gone",
			&api.AgentMoveApplied{AppliedHead: repaired, RolledBack: true})},
		{"move-failed", intentPair(goldenAgent, &api.AgentMoveRequested{Move: "park", Target: "t9",
			Workspace: "orcr-parked", Label: "default/golden", MoveToken: "tok"}, false, "herdr: timeout", nil)},
		{"close", intentPair(goldenAgent, &api.AgentCloseRequested{Target: "t9", Reason: "killed"}, true, "",
			&api.AgentCloseApplied{Target: "t9"})},
		{"close-adopt", intentPair(goldenAgent, &api.AgentCloseRequested{Target: "t9", Reason: "adopted",
			Path: "default/new"}, false, "adoption not finished: x", &api.AgentCloseApplied{AppliedHead: repaired, Target: "t9"})},
		{"input", intentPair(goldenAgent, &api.AgentInputRequested{InputSeq: seq, Target: "t9", Bytes: 12,
			Probe: "hello", From: store.StatusIdle}, true, "", &api.AgentInputApplied{InputSeq: seq})},
		{"input-unmanaged", intentPair(goldenAgent, &api.AgentInputRequested{InputSeq: seq, Target: "t9",
			Bytes: 12, Session: "main"}, false, "herdr: gone", &api.AgentInputApplied{InputSeq: seq})},
		{"input-typed-again", intentPair(goldenAgent, &api.AgentInputRequested{InputSeq: seq, Target: "t9",
			Bytes: 12, Probe: "hello", From: store.StatusStarting}, true, "",
			&api.AgentInputApplied{AppliedHead: repaired, InputSeq: seq, TypedAgain: new(0)})},
		{"input-undone", intentPair(goldenAgent, &api.AgentInputRequested{InputSeq: seq, Target: "t9",
			Bytes: 12, Probe: "hello", From: store.StatusIdle}, false, "the prompt was never submitted; the turn was undone",
			&api.AgentInputApplied{AppliedHead: repaired, InputSeq: seq, RolledBack: true})},
		{"input-interrupted", intentPair(goldenAgent, &api.AgentInputRequested{InputSeq: seq, Target: "t9",
			Bytes: 12, Probe: "hello", From: store.StatusIdle}, false, "interrupted by a server restart",
			&api.AgentInputApplied{AppliedHead: repaired, InputSeq: seq})},
		{"worktree-add", intentPair(goldenAgent, &api.AgentWorktreeAddRequested{Worktree: "/r/.wt/golden",
			Branch: "orcr/golden", Repo: "/r", Create: true, NewBranch: true, Base: "main"}, true, "",
			&api.AgentWorktreeAddApplied{Worktree: "/r/.wt/golden", Branch: "orcr/golden", Reused: new(false)})},
		{"worktree-add-repaired", intentPair(goldenAgent, &api.AgentWorktreeAddRequested{Worktree: "/r/.wt/golden",
			Branch: "orcr/golden", Repo: "/r"}, false, "no worktree was made before the server stopped",
			&api.AgentWorktreeAddApplied{AppliedHead: repaired, Worktree: "/r/.wt/golden", Branch: "orcr/golden"})},
		{"worktree-remove", intentPair(goldenAgent, &api.AgentWorktreeRemoveRequested{Worktree: "/r/.wt/golden",
			Branch: "orcr/golden", Repo: "/r"}, false, "dirty",
			&api.AgentWorktreeRemoveApplied{AppliedHead: repaired, Worktree: "/r/.wt/golden", State: "dirty"})},
		{"run-spawn", intentPair(goldenRun, &api.LoopRunSpawnRequested{Argv: []string{"make", "nightly"}},
			true, "", &api.LoopRunSpawnApplied{Pid: 4242, Pgid: 4242})},
		{"run-spawn-failed", intentPair(goldenRun, &api.LoopRunSpawnRequested{Argv: []string{"make"}},
			false, "exec: not found", &api.LoopRunSpawnApplied{})},
		{"run-spawn-repaired", intentPair(goldenRun, &api.LoopRunSpawnRequested{Argv: []string{"make"}},
			true, "", &api.LoopRunSpawnApplied{AppliedHead: repaired})},
		{"run-signal", intentPair(goldenRun, &api.LoopRunSignalRequested{Signal: 15, Pgid: 4242},
			true, "", &api.LoopRunSignalApplied{Sent: new(true)})},
		{"run-signal-repaired", intentPair(goldenRun, &api.LoopRunSignalRequested{Signal: 9, Pgid: 4242},
			false, "interrupted by a server restart", &api.LoopRunSignalApplied{AppliedHead: repaired})},
	}
}
