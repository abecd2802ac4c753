package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/socketapi/sockettest"
	"github.com/orcr-go/orcr/tests/poll"
)

type agentRow struct {
	UUID          string  `json:"uuid"`
	Path          string  `json:"path"`
	Status        string  `json:"status"`
	PaneID        *string `json:"pane_id"`
	ExitReason    string  `json:"exit_reason"`
	ParentID      string  `json:"parent_id"`
	QueuePosition int     `json:"queue_position"`
}

func run(t *testing.T, c *socketapi.Client, params map[string]any) (agentRow, error) {
	t.Helper()
	if _, ok := params["agent"]; !ok {
		params["agent"] = "mock"
	}
	var res struct {
		Agent       agentRow `json:"agent"`
		Permissions string   `json:"permissions"`
	}
	err := c.Call(context.Background(), "agent.run", params, &res)
	if err == nil && res.Permissions != "bypass" {
		t.Errorf("permissions: got %q", res.Permissions)
	}
	return res.Agent, err
}

func ls(t *testing.T, c *socketapi.Client, params map[string]any) []agentRow {
	t.Helper()
	var res struct{ Agents []agentRow }
	if err := c.Call(context.Background(), "agent.ls", params, &res); err != nil {
		t.Fatalf("agent.ls: %v", err)
	}
	return res.Agents
}

func waitStatus(t *testing.T, c *socketapi.Client, uuid string, want ...string) agentRow {
	t.Helper()
	var rows []agentRow
	poll.Eventually(t, 30*time.Second, fmt.Sprintf("agent %s in status %v", uuid, want), func() bool {
		rows = ls(t, c, map[string]any{"pattern": uuid})
		return len(rows) == 1 && slices.Contains(want, rows[0].Status)
	}, func() string { return fmt.Sprintf("got %+v", rows) })
	return rows[0]
}

// The env contract reaches the pane: the mock agent dumps what it was given.
func TestRunSpawnsMockAgentWithEnvContract(t *testing.T) {
	t.Parallel()
	srv := sockettest.NewServer(t, sockettest.WithHerdr(t))
	c := srv.Client(t)
	a, err := run(t, c, map[string]any{"path": "demo/worker", "prompt": "say=hello"})
	if err != nil {
		t.Fatalf("agent.run: %v", err)
	}
	if a.Status != "queued" && a.Status != "starting" {
		t.Errorf("run result status %q", a.Status)
	}
	got := waitStatus(t, c, a.UUID, "working", "idle")
	if got.PaneID == nil {
		t.Fatalf("no pane recorded: %+v", got)
	}
	dataDir := filepath.Join(srv.Home, "data", "demo", "worker", a.UUID)
	var env map[string]string
	poll.Eventually(t, 20*time.Second, "mock_env.json in "+dataDir, func() bool {
		b, err := os.ReadFile(filepath.Join(dataDir, "mock_env.json"))
		return err == nil && json.Unmarshal(b, &env) == nil
	})
	want := map[string]string{"ORCR_ID": a.UUID, "ORCR_PATH": "demo/worker", "ORCR_AGENT_DATA_DIR": dataDir, "ORCR_HOME": srv.Home}
	for k, v := range want {
		if env[k] != v {
			t.Errorf("pane env %s: got %q, want %q", k, env[k], v)
		}
	}
	if env["ORCR_LAUNCH_TOKEN"] == "" || env["HERDR_PANE_ID"] == "" {
		t.Errorf("pane env lacks ORCR_LAUNCH_TOKEN or HERDR_PANE_ID: %v", env)
	}

	// A child run with that env lands as a sibling with parent_id set.
	child, err := run(t, c, map[string]any{"name": "child", "caller_id": env["ORCR_ID"], "caller_path": env["ORCR_PATH"]})
	if err != nil {
		t.Fatalf("child run: %v", err)
	}
	if child.Path != "demo/child" || child.ParentID != a.UUID {
		t.Errorf("child: got path %q parent %q, want demo/child with parent %s", child.Path, child.ParentID, a.UUID)
	}

	// Kill by pattern: both end, and no pane remains.
	var kill struct {
		Killed    []map[string]any `json:"killed"`
		AllKilled bool             `json:"all_killed"`
	}
	if err := c.Call(context.Background(), "agent.kill", map[string]any{"targets": []string{"demo/*"}}, &kill); err != nil {
		t.Fatalf("kill: %v", err)
	}
	if len(kill.Killed) != 2 || !kill.AllKilled {
		t.Errorf("kill: got %+v", kill)
	}
	for _, r := range ls(t, c, map[string]any{"all": true}) {
		if r.Status != "ended" {
			t.Errorf("after kill: %s is %s", r.Path, r.Status)
		}
	}
}

func TestRunErrors(t *testing.T) {
	t.Parallel()
	srv := sockettest.NewServer(t, sockettest.WithHerdr(t))
	c := srv.Client(t)
	// The 8 MiB frame of "prompt too large", encoded, checked against the schema and
	// decoded under -race, took longer than the client's default 30 s on a loaded
	// machine (a red full run): what is checked here is the answer, not its speed.
	c.Timeout = 3 * time.Minute
	tests := []struct {
		name   string
		params map[string]any
		code   wire.Code
		detail string
	}{
		{"no name", map[string]any{}, wire.InvalidRequest, "name_required"},
		{"both", map[string]any{"name": "a", "path": "b"}, wire.InvalidRequest, "name_and_path"},
		{"bad gc", map[string]any{"name": "a", "gc": "sometimes"}, wire.InvalidRequest, "invalid_gc"},
		{"bad timeout", map[string]any{"name": "a", "timeout": "5"}, wire.InvalidRequest, "bad_duration"},
		{"reserved", map[string]any{"path": "idle/x"}, wire.InvalidRequest, "reserved_name"},
		{"bad segment", map[string]any{"path": "Bad/x"}, wire.InvalidRequest, "invalid_segment"},
		{"unknown provider", map[string]any{"name": "a", "agent": "aider"}, wire.IntegrationMissing, ""},
		{"control characters", map[string]any{"name": "a", "prompt": "say=x\x03\x04"}, wire.InvalidRequest, "control_characters"},
		{"prompt too large", map[string]any{"name": "a", "prompt": strings.Repeat("x", 8<<20+1)}, wire.InvalidRequest, "prompt_too_large"},
	}
	for _, tc := range tests {
		_, err := run(t, c, tc.params)
		if !wire.Is(err, tc.code, tc.detail) {
			t.Errorf("%s: got %v, want %s %s", tc.name, err, tc.code, tc.detail)
		}
	}
	// The details name the first control character, as JSON numbers.
	_, err := run(t, c, map[string]any{"name": "a", "prompt": "é\r\n\x1b[201~"})
	if pe, ok := wire.As(err); !ok || pe.Details["offset"] != float64(4) || pe.Details["code"] != float64(0x1b) {
		t.Errorf("control character details: got %v, want offset 4 code 27", err)
	}
	if rows := ls(t, c, map[string]any{"all": true}); len(rows) != 0 {
		t.Errorf("rejected runs left rows: %+v", rows)
	}
	ents, _ := os.ReadDir(filepath.Join(srv.Home, "data"))
	if len(ents) != 0 {
		t.Errorf("rejected runs left data dirs: %v", ents)
	}
}

// Acceptance 3 of the agent core: 20 concurrent runs onto one path — exactly one
// succeeds, the rest get path_in_use with the occupant, no stray data dir remains.
func TestConcurrentRunsOnOnePath(t *testing.T) {
	t.Parallel()
	srv := sockettest.NewServer(t, sockettest.WithHerdr(t))
	c := srv.Client(t)
	type out struct {
		a   agentRow
		err error
	}
	res := make(chan out, 20)
	for range 20 {
		go func() {
			a, err := run(t, c, map[string]any{"path": "same/slot", "prompt": "say=x"})
			res <- out{a, err}
		}()
	}
	var winner agentRow
	wins := 0
	var losers []error
	for range 20 {
		o := <-res
		if o.err == nil {
			wins++
			winner = o.a
		} else {
			losers = append(losers, o.err)
		}
	}
	if wins != 1 {
		t.Fatalf("got %d successful runs, want 1", wins)
	}
	for _, err := range losers {
		pe, ok := wire.As(err)
		if !ok || pe.Code != wire.StateConflict || pe.Reason() != "path_in_use" {
			t.Errorf("loser: got %v, want path_in_use", err)
			continue
		}
		if occ, _ := pe.Details["occupant"].(map[string]any); occ == nil || occ["uuid"] != winner.UUID {
			if pe.Details["path"] != "same/slot" {
				t.Errorf("loser details %v do not name the occupant %s", pe.Details, winner.UUID)
			}
		}
	}
	ents, _ := os.ReadDir(filepath.Join(srv.Home, "data", "same", "slot"))
	if len(ents) != 1 || ents[0].Name() != winner.UUID {
		t.Errorf("data dirs under same/slot: %v, want only %s", ents, winner.UUID)
	}
	waitStatus(t, c, winner.UUID, "working", "idle")
	if err := c.Call(context.Background(), "agent.kill", map[string]any{"targets": []string{winner.UUID}}, nil); err != nil {
		t.Fatal(err)
	}
	_ = fmt.Sprint
}

// A turn completes at a stable idle after working was seen; a send opens the next
// turn, which completes in turn (docs/lifecycle.md §10).
func TestTurnsComplete(t *testing.T) {
	t.Parallel()
	srv := sockettest.NewServer(t, sockettest.WithHerdr(t))
	c := srv.Client(t)
	a, err := run(t, c, map[string]any{"path": "t/one", "prompt": "say=first turn_ms=300"})
	if err != nil {
		t.Fatal(err)
	}
	waitStatus(t, c, a.UUID, "idle")
	var sent struct {
		InputSeq       int64  `json:"input_seq"`
		DeliveredWhile string `json:"delivered_while"`
	}
	if err := c.Call(context.Background(), "agent.send", map[string]any{"target": "t/one", "prompt": "say=second turn_ms=300"}, &sent); err != nil {
		t.Fatal(err)
	}
	if sent.InputSeq != 2 || sent.DeliveredWhile != "idle" {
		t.Errorf("send: got %+v, want input_seq 2 delivered while idle", sent)
	}
	// The send flipped the row to working before typing, so an immediate ls never
	// shows the old idle.
	if rows := ls(t, c, map[string]any{"pattern": a.UUID}); rows[0].Status != "working" {
		t.Errorf("right after send: status %s, want working", rows[0].Status)
	}
	waitStatus(t, c, a.UUID, "idle")
}

// --timeout: a live agent past its deadline is shut down and ends timeout; a queued one
// past its deadline ends timeout without ever getting a pane.
func TestAgentTimeout(t *testing.T) {
	t.Parallel()
	srv := sockettest.NewServer(t, sockettest.WithHerdr(t))
	c := srv.Client(t)
	a, err := run(t, c, map[string]any{"path": "slow/one", "prompt": "say=x turn_ms=60000", "timeout": "2s"})
	if err != nil {
		t.Fatal(err)
	}
	got := waitStatus(t, c, a.UUID, "ended")
	if got.ExitReason != "timeout" {
		t.Errorf("exit_reason: got %q, want timeout", got.ExitReason)
	}
}
