package actors_test

import (
	"context"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/orcr-go/orcr/actors"
	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/socketapi/sockettest"
	"github.com/orcr-go/orcr/store"
)

// newSystem starts the facade without any socket: a fresh home, its store, the herdr
// stand-in and the mock provider. It stops at cleanup.
func newSystem(t *testing.T) (*actors.System, *store.DB) {
	t.Helper()
	env := sockettest.HerdrEnv(t)
	// The system hands env to its herdr processes; ownedPane finds the same session
	// through the test's own environment (these tests do not run in parallel).
	t.Setenv("XDG_CONFIG_HOME", env["XDG_CONFIG_HOME"])
	getenv := func(k string) string { return env[k] }
	home := sockettest.TempHome(t)
	if err := config.EnsureHome(home); err != nil {
		t.Fatal(err)
	}
	cfg, _, err := config.Load(home, getenv)
	if err != nil {
		t.Fatal(err)
	}
	paths := config.NewPaths(home)
	db, err := store.Open(paths.DB)
	if err != nil {
		t.Fatal(err)
	}
	sys, err := actors.Start(actors.SystemConfig{Home: home, Paths: paths, Config: cfg, Getenv: getenv,
		EnvKeys: slices.Collect(maps.Keys(env)), DB: db, Version: "test", Started: time.Now(),
		DeadLetterThrottle: 10 * time.Millisecond})
	if err != nil {
		db.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		sys.Stop()
		db.Close()
	})
	return sys, db
}

func waitOK(t *testing.T, sys *actors.System, target string) api.WaitTarget {
	t.Helper()
	return waitOKWithin(t, sys, target, "30s")
}

// waitOKWithin is waitOK with its own timeout, for turns whose work grows with the
// machine's load (megabytes through a PTY under -race).
func waitOKWithin(t *testing.T, sys *actors.System, target, timeout string) api.WaitTarget {
	t.Helper()
	res, err := sys.Wait(t.Context(), api.WaitRequest{Targets: []string{target}, Timeout: timeout})
	if err != nil {
		t.Fatalf("Wait(%s): %v", target, err)
	}
	if len(res.Targets) != 1 || !res.AllOK || res.TimedOut {
		t.Fatalf("Wait(%s): got %+v, want one settled ok target", target, res)
	}
	return res.Targets[0]
}

// The facade drives a whole agent lifecycle with no socket in between: run, wait,
// last response, send, ls, kill.
func TestFacadeAgentLifecycle(t *testing.T) {
	sys, _ := newSystem(t)
	ctx := t.Context()
	run, err := sys.Run(ctx, api.RunRequest{Path: "facade/one", Agent: "mock", Prompt: "say=first turn_ms=100"})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if run.Agent.Path != "facade/one" || run.Permissions != "bypass" || !run.Agent.Managed {
		t.Errorf("Run: got %+v", run)
	}
	if w := waitOK(t, sys, "facade/one"); w.Reason != "turn_complete" {
		t.Errorf("Wait after run: reason %q, want turn_complete", w.Reason)
	}
	logs, err := sys.Logs(ctx, api.LogsRequest{Target: "facade/one", LastResponse: true})
	if err != nil || logs.Response == nil || logs.Response.Text != "first\nDONE" {
		t.Fatalf("Logs(last response): got %+v, %v; want first\\nDONE", logs, err)
	}
	sent, err := sys.Send(ctx, api.SendRequest{Target: "facade/one", Prompt: "say=second turn_ms=100"})
	if err != nil || sent.InputSeq != 2 || sent.DeliveredWhile != store.StatusIdle {
		t.Fatalf("Send: got %+v, %v; want input_seq 2 delivered while idle", sent, err)
	}
	waitOK(t, sys, "facade/one")
	logs, err = sys.Logs(ctx, api.LogsRequest{Target: "facade/one"})
	if err != nil || len(logs.Entries) != 4 {
		t.Fatalf("Logs: got %d entries (%v), want 4", len(logs.Entries), err)
	}
	ls, err := sys.Ls(ctx, api.LsRequest{})
	if err != nil || len(ls.Agents) != 1 || ls.Agents[0].Status != store.StatusIdle {
		t.Fatalf("Ls: got %+v, %v; want one idle agent", ls, err)
	}
	kill, err := sys.Kill(ctx, api.KillRequest{Targets: []string{"facade/*"}})
	if err != nil || len(kill.Killed) != 1 || !kill.AllKilled {
		t.Fatalf("Kill: got %+v, %v; want facade/one killed", kill, err)
	}
	ls, err = sys.Ls(ctx, api.LsRequest{All: true})
	if err != nil || len(ls.Agents) != 1 || ls.Agents[0].Status != store.StatusEnded ||
		ls.Agents[0].ExitReason == nil || *ls.Agents[0].ExitReason != "killed" {
		t.Fatalf("Ls after kill: got %+v, %v", ls, err)
	}
	// The kill's barriers are down: the path can be used again at once.
	stats, err := sys.StoreStats(ctx)
	if err != nil || stats.Barriers != 0 {
		t.Fatalf("after the kill: %d barriers standing (%v), want 0", stats.Barriers, err)
	}
	if _, err := sys.Run(ctx, api.RunRequest{Path: "facade/one", Agent: "mock"}); err != nil {
		t.Fatalf("Run on the killed path: %v", err)
	}
}

// Bad input gets a typed error and changes nothing.
func TestFacadeErrors(t *testing.T) {
	sys, _ := newSystem(t)
	ctx := context.Background()
	cases := []struct {
		name string
		call func() error
		code wire.Code
		why  string
	}{
		{"run without a name", func() error { _, err := sys.Run(ctx, api.RunRequest{Agent: "mock"}); return err },
			wire.InvalidRequest, "name_required"},
		{"run with name and path", func() error {
			_, err := sys.Run(ctx, api.RunRequest{Name: "a", Path: "b/a", Agent: "mock"})
			return err
		}, wire.InvalidRequest, "name_and_path"},
		{"run with a bad gc", func() error {
			_, err := sys.Run(ctx, api.RunRequest{Name: "a", Agent: "mock", GC: "sometimes"})
			return err
		}, wire.InvalidRequest, "invalid_gc"},
		{"run with a bad timeout", func() error {
			_, err := sys.Run(ctx, api.RunRequest{Name: "a", Agent: "mock", Timeout: "soon"})
			return err
		}, wire.InvalidRequest, "bad_duration"},
		{"send to nobody", func() error {
			_, err := sys.Send(ctx, api.SendRequest{Target: "no/such", Prompt: "x"})
			return err
		}, wire.NotFound, ""},
		{"send without a target", func() error { _, err := sys.Send(ctx, api.SendRequest{Prompt: "x"}); return err },
			wire.InvalidRequest, "target_required"},
		{"wait without targets", func() error { _, err := sys.Wait(ctx, api.WaitRequest{}); return err },
			wire.InvalidRequest, "target_required"},
		{"kill without targets", func() error { _, err := sys.Kill(ctx, api.KillRequest{}); return err },
			wire.InvalidRequest, "target_required"},
	}
	for _, c := range cases {
		err := c.call()
		pe, ok := wire.As(err)
		if !ok || pe.Code != c.code || (c.why != "" && pe.Details["reason"] != c.why) {
			t.Errorf("%s: got %v, want %s %s", c.name, err, c.code, c.why)
		}
	}
	ls, err := sys.Ls(ctx, api.LsRequest{All: true})
	if err != nil || len(ls.Agents) != 0 {
		t.Errorf("after bad input: %d agents (%v), want none", len(ls.Agents), err)
	}
}

// A kill that saw a row starting, when the spawn finished before the kill's cancel:
// the cancel finds nothing to cancel, the agent actor's shutdown ends the row, and the
// kill reports it killed (it used to report it as not killed by this call, and
// agent.kill's killed list missed it).
func TestFacadeKillOfASpawnThatJustFinished(t *testing.T) {
	sys, db := newSystem(t)
	ctx := t.Context()
	run, err := sys.Run(ctx, api.RunRequest{Path: "race/one", Agent: "mock"})
	if err != nil {
		t.Fatal(err)
	}
	waitOK(t, sys, "race/one")
	row, err := store.AgentByUUID(ctx, db.Reader(), run.Agent.UUID)
	if err != nil || row.Status != store.StatusIdle {
		t.Fatalf("row: %+v %v, want idle", row, err)
	}
	row.Status = store.StatusStarting // what a kill resolving a moment earlier saw
	killed, err := actors.KillOne(sys, row)
	if err != nil || !killed {
		t.Fatalf("kill of the row seen starting: killed %v, err %v; want killed", killed, err)
	}
	row, err = store.AgentByUUID(ctx, db.Reader(), run.Agent.UUID)
	if err != nil || row.Status != store.StatusEnded || row.ExitReason == nil || *row.ExitReason != "killed" {
		t.Fatalf("after the kill: %+v %v, want ended killed", row, err)
	}
}
