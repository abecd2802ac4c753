package tests

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/orcr-go/orcr/actors"
	"github.com/orcr-go/orcr/herdr"
	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/api"
)

// checkInvariants finds nothing on a healthy home at rest, and finds each fault planted
// behind orcr's back: a live row on no pane that no turn can finish, an intent without
// its applied half (and missing from the intents table), an applied half that is ok and
// carries an error, two panes labelled like an agent that no row holds, an
// acknowledged run whose row is gone, and a workspace's root shell left open. The campaign's verdicts rest on these checks.
func TestCheckInvariantsSeesPlantedFaults(t *testing.T) {
	t.Parallel()
	h, sock := herdrHome(t, "")
	xdg := strings.TrimSuffix(sock, filepath.Join("/herdr", "sessions", "orcr", "herdr.sock"))
	srv := startCrashServer(t, h)
	t.Cleanup(func() { srv.stop(t, h) })
	c := &socketapi.Client{Socket: filepath.Join(h.dir, "orcr.sock")}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	run, err := c.Run(ctx, api.RunRequest{Path: "plant/ok", Agent: "mock", Prompt: "say=hi turn_ms=100"})
	if err != nil {
		t.Fatal(err)
	}
	if w, err := c.Wait(ctx, api.WaitRequest{Targets: []string{run.Agent.UUID}, Timeout: "30s"}); err != nil || !w.AllOK {
		t.Fatalf("wait for plant/ok: %+v %v", w, err)
	}
	if got := checkInvariants(t, h.dir, xdg, run.Agent.UUID); len(got) != 0 {
		t.Fatalf("a healthy home at rest: %+v, want no anomaly", got)
	}

	const stuck = "0190a000-0000-7000-8000-0000000000c1"
	const ghost = "0190a000-0000-7000-8000-0000000000c2"
	must := func(method string, params map[string]any) {
		t.Helper()
		if err := c.Call(ctx, method, params, nil); err != nil {
			t.Fatalf("%s: %v", method, err)
		}
	}
	must("__debug.set_agent", map[string]any{"uuid": stuck, "path": "plant/stuck", "status": "working"})
	must("__debug.emit_event", map[string]any{"kind": "agent.close_requested", "ref_uuid": stuck,
		"payload": map[string]any{"uuid": stuck, "op_id": "0190a000-0000-7000-8000-0000000000d1"}})
	must("__debug.emit_event", map[string]any{"kind": "agent.close_applied", "ref_uuid": run.Agent.UUID,
		"payload": map[string]any{"uuid": run.Agent.UUID, "op_id": "0190a000-0000-7000-8000-0000000000d2", "ok": true, "error": "gone"}})
	remote := herdr.NewRemote(sock)
	wss, err := remote.WorkspaceList(ctx)
	if err != nil || len(wss) == 0 {
		t.Fatalf("herdr workspace.list: %v %v", wss, err)
	}
	for range 2 {
		if _, _, err := remote.LayoutApply(ctx, wss[0].WorkspaceID, "planted", []string{"sleep", "60"}, "",
			actors.PaneLabel(h.dir, "plant/orphan"), nil); err != nil {
			t.Fatalf("herdr layout.apply: %v", err)
		}
	}
	// A root shell left open, as a spawn cut off in a workspace it created leaves it
	// (the reconciler closes it at its next pass, timings.gc_tick away).
	root, err := remote.WorkspaceCreate(ctx, "plantws", "")
	if err != nil {
		t.Fatal(err)
	}
	if err := remote.Rename(ctx, root.RootPane.PaneID, herdr.RootShellLabel); err != nil {
		t.Fatal(err)
	}

	got := map[string]int{}
	for _, a := range checkInvariants(t, h.dir, xdg, run.Agent.UUID, ghost) {
		got[a.Kind]++
	}
	want := map[string]int{anPaneMissing: 1, anWorkingNoTurn: 1, anOpenIntent: 1, anIntentTable: 1,
		anAppliedShape: 1, anOrphanPane: 2, anDuplicatePane: 1, anRunMissing: 1, anRootShell: 1}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("%s: got %d, want %d (all: %v)", k, got[k], n, got)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("unexpected %s ×%d (all: %v)", k, got[k], got)
		}
	}
}
