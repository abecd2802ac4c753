package server_test

// Acceptance tests of the agent core (issue 4) against the herdr stand-in and the mock
// agent: admission (FIFO, caps), kill racing promotion, a herdr failure mid-spawn, and a
// loop-run-shaped caller scope.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/orcr-go/orcr/actors"
	"github.com/orcr-go/orcr/herdr"
	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/socketapi/sockettest"
	"github.com/orcr-go/orcr/tests/poll"
)

// evRow is the agent row embedded in agent.* and queue.promoted events (docs/decisions.md D2).
type evRow struct {
	UUID       string  `json:"uuid"`
	Path       string  `json:"path"`
	Status     string  `json:"status"`
	Agent      *string `json:"agent"`
	PaneID     *string `json:"pane_id"`
	ExitReason *string `json:"exit_reason"`
	Stalled    bool    `json:"stalled"`
}

// ev is one event frame of the recorded stream.
type ev struct {
	Seq  int64
	Kind string
	UUID string
	OpID string
	OK   *bool
	// TypedAgain is agent.input_applied's typed_again: how often recovery typed the
	// prompt again (nil when it did not).
	TypedAgain *int
	Row        *evRow // nil for events without an embedded agent row (intents)
	// attach.* payloads
	LeaseID, Mode, Reason string
}

// recorder follows events.subscribe from seq 0 and keeps every event.
type recorder struct {
	mu   sync.Mutex
	evs  []ev
	raws []json.RawMessage
	err  error
	done chan struct{}
	st   *socketapi.Stream
}

func record(t *testing.T, c *socketapi.Client) *recorder {
	t.Helper()
	st, err := c.Subscribe(context.Background(), "events.subscribe", map[string]any{"since_seq": 0})
	if err != nil {
		t.Fatalf("events.subscribe: %v", err)
	}
	r := &recorder{st: st, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		for {
			f, err := st.Next()
			if err != nil {
				r.mu.Lock()
				r.err = err
				r.mu.Unlock()
				return
			}
			if f.Seq == 0 {
				continue // control frames
			}
			var raw struct {
				Kind  string          `json:"kind"`
				UUID  string          `json:"uuid"`
				OpID  string          `json:"op_id"`
				OK    *bool           `json:"ok"`
				Agent json.RawMessage `json:"agent"`
				Lease string          `json:"lease_id"`
				Mode  string          `json:"mode"`
				Why   string          `json:"reason"`
				Again *int            `json:"typed_again"`
			}
			json.Unmarshal(f.Event, &raw)
			e := ev{Seq: f.Seq, Kind: raw.Kind, UUID: raw.UUID, OpID: raw.OpID, OK: raw.OK, TypedAgain: raw.Again,
				LeaseID: raw.Lease, Mode: raw.Mode, Reason: raw.Why}
			if len(raw.Agent) > 0 && raw.Agent[0] == '{' {
				var row evRow
				if json.Unmarshal(raw.Agent, &row) == nil {
					e.Row = &row
				}
			}
			r.mu.Lock()
			r.evs = append(r.evs, e)
			r.raws = append(r.raws, f.Event)
			r.mu.Unlock()
		}
	}()
	t.Cleanup(func() { st.Close(); <-r.done })
	return r
}

// raw returns the event payloads recorded so far, as the server sent them.
func (r *recorder) raw() []json.RawMessage {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]json.RawMessage(nil), r.raws...)
}

// events returns a copy of what has been recorded so far.
func (r *recorder) events() []ev {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]ev(nil), r.evs...)
}

// waitFor polls the recorded stream until cond holds, failing after d.
func (r *recorder) waitFor(t *testing.T, d time.Duration, what string, cond func([]ev) bool) []ev {
	t.Helper()
	return r.waitForD(t, d, what, cond, nil)
}

// waitForD is waitFor whose failure message adds detail(events).
func (r *recorder) waitForD(t *testing.T, d time.Duration, what string, cond func([]ev) bool, detail func([]ev) string) []ev {
	t.Helper()
	var evs []ev
	poll.Eventually(t, d, what, func() bool {
		evs = r.events()
		return cond(evs)
	}, func() string {
		r.mu.Lock()
		err := r.err
		r.mu.Unlock()
		msg := ""
		if detail != nil {
			msg = detail(evs)
		}
		return fmt.Sprintf("%d events recorded, stream err %v %s", len(evs), err, msg)
	})
	return evs
}

// kinds returns the uuids of events of kind, in stream order.
func kinds(evs []ev, kind string) []string {
	var out []string
	for _, e := range evs {
		if e.Kind == kind {
			out = append(out, e.UUID)
		}
	}
	return out
}

// openIntents returns the op ids of *_requested events without their *_applied.
func openIntents(evs []ev) map[string]string {
	open := map[string]string{}
	for _, e := range evs {
		switch {
		case strings.HasSuffix(e.Kind, "_requested") && e.OpID != "":
			open[e.OpID] = e.Kind + " " + e.UUID
		case strings.HasSuffix(e.Kind, "_applied"):
			delete(open, e.OpID)
		}
	}
	return open
}

// holdsSlot reports whether a managed status counts against the caps (docs/lifecycle.md §7.2).
func holdsSlot(status string) bool {
	return status != "queued" && status != "ended" && status != "lost"
}

// checkCaps replays the stream and fails if, after any event seq, more than max rows
// (or more than caps[p] rows of provider p) hold a slot.
func checkCaps(t *testing.T, evs []ev, max int, caps map[string]int) {
	t.Helper()
	status := map[string]string{}
	provider := map[string]string{}
	for _, e := range evs {
		if e.Row == nil {
			continue
		}
		status[e.Row.UUID] = e.Row.Status
		if e.Row.Agent != nil {
			provider[e.Row.UUID] = *e.Row.Agent
		}
		global, per := 0, map[string]int{}
		for u, s := range status {
			if holdsSlot(s) {
				global++
				per[provider[u]]++
			}
		}
		if global > max {
			t.Fatalf("at seq %d (%s) %d agents hold a slot, cap %d", e.Seq, e.Kind, global, max)
		}
		for p, n := range per {
			if c, ok := caps[p]; ok && n > c {
				t.Fatalf("at seq %d (%s) %d %s agents hold a slot, cap %d", e.Seq, e.Kind, n, p, c)
			}
		}
	}
}

// panesUnder lists the panes of the owned session at sock (sockettest's HerdrSocket)
// whose label names prefix or a path under prefix/ (orcr's pane label, actors.PanePath).
func panesUnder(t *testing.T, sock, prefix string) []herdr.PaneInfo {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	panes, err := herdr.NewRemote(sock).PaneList(ctx, "")
	if err != nil {
		t.Fatalf("herdr pane.list: %v", err)
	}
	var out []herdr.PaneInfo
	for _, p := range panes {
		if path, _ := actors.PanePath(p.Label); path == prefix || strings.HasPrefix(path, prefix+"/") {
			out = append(out, p)
		}
	}
	return out
}

func kill(t *testing.T, c *socketapi.Client, targets ...string) (killed, skipped []string, err error) {
	var res struct {
		Killed  []struct{ UUID string } `json:"killed"`
		Skipped []struct{ UUID string } `json:"skipped"`
	}
	err = c.Call(context.Background(), "agent.kill", map[string]any{"targets": targets}, &res)
	for _, k := range res.Killed {
		killed = append(killed, k.UUID)
	}
	for _, k := range res.Skipped {
		skipped = append(skipped, k.UUID)
	}
	return killed, skipped, err
}

// Acceptance 1: 50 agents under concurrency.max = 5. Promotion is strict FIFO, the cap
// holds at every event seq, and every agent reaches a pane (each is killed once it has
// one, which frees its slot).
func TestFiftyAgentsUnderCapFIFO(t *testing.T) {
	t.Parallel()
	srv := sockettest.NewServer(t, sockettest.WithHerdr(t), sockettest.WithConfig(`{"concurrency": {"max": 5}}`))
	c := srv.Client(t)
	rec := record(t, c)

	const n = 50
	var created []string
	for i := range n {
		a, err := run(t, c, map[string]any{"path": fmt.Sprintf("fifo/a%02d", i)})
		if err != nil {
			t.Fatalf("agent.run %d: %v", i, err)
		}
		created = append(created, a.UUID)
	}

	var wg sync.WaitGroup
	defer wg.Wait()
	killing := map[string]bool{}
	evs := rec.waitFor(t, 60*time.Second, "all 50 agents to reach a pane and end", func(evs []ev) bool {
		for _, u := range kinds(evs, "agent.location_changed") {
			if !killing[u] {
				killing[u] = true
				wg.Add(1)
				go func() {
					defer wg.Done()
					if _, _, err := kill(t, c, u); err != nil {
						t.Errorf("kill %s: %v", u, err)
					}
				}()
			}
		}
		return len(kinds(evs, "agent.ended")) == n
	})

	promoted := kinds(evs, "queue.promoted")
	if fmt.Sprint(promoted) != fmt.Sprint(created) {
		t.Errorf("promotion order differs from creation order:\npromoted %v\ncreated  %v", promoted, created)
	}
	panes := map[string]bool{}
	for _, u := range kinds(evs, "agent.location_changed") {
		panes[u] = true
	}
	for i, u := range created {
		if !panes[u] {
			t.Errorf("agent %d (%s) never reached a pane", i, u)
		}
	}
	checkCaps(t, evs, 5, nil)
	for _, r := range ls(t, c, map[string]any{"all": true}) {
		if r.Status != "ended" || (r.ExitReason != "killed" && r.ExitReason != "canceled") {
			t.Errorf("%s: %s (%s), want ended killed/canceled", r.Path, r.Status, r.ExitReason)
		}
	}
	wg.Wait()
	rec.waitForD(t, 20*time.Second, "every intent applied",
		func(evs []ev) bool { return len(openIntents(evs)) == 0 }, describeOpen)
	if p := panesUnder(t, srv.HerdrSocket(), "fifo"); len(p) != 0 {
		t.Errorf("panes left after every agent was killed: %+v", p)
	}
}

// fakeClaude makes the claude provider work against the stand-in: herdr's claude hook
// file (so `herdr integration status` reports it installed) and a `claude` first on PATH
// that runs the mock agent. It returns that PATH's first directory and the server
// environment that says so (CLAUDE_CONFIG_DIR, PATH), which goes after WithHerdr.
func fakeClaude(t *testing.T) (bin string, env []sockettest.Option) {
	t.Helper()
	b := sockettest.BuildBinaries(t)
	dir, err := os.MkdirTemp("", "fc")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	hook := filepath.Join(dir, "claude-config", "hooks", "herdr-agent-state.sh")
	if err := os.MkdirAll(filepath.Dir(hook), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(hook, []byte("#!/bin/sh\n# HERDR_INTEGRATION_VERSION=11\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	bin = filepath.Join(dir, "bin")
	os.MkdirAll(bin, 0o700)
	script := "#!/bin/sh\nexec " + b.MockAgent + "\n"
	if err := os.WriteFile(filepath.Join(bin, "claude"), []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	return bin, []sockettest.Option{
		sockettest.WithEnv("CLAUDE_CONFIG_DIR", filepath.Dir(filepath.Dir(hook))),
		sockettest.WithEnv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH")),
	}
}

// Acceptance 2: per-provider caps. With mock saturated (cap 2, more queued behind it),
// claude rows still promote up to their own cap, and a freed claude slot goes to the
// next claude row while mock rows still wait.
func TestSaturatedProviderDoesNotBlockOther(t *testing.T) {
	t.Parallel()
	_, claude := fakeClaude(t)
	srv := sockettest.NewServer(t, append([]sockettest.Option{sockettest.WithHerdr(t),
		sockettest.WithConfig(`{"concurrency": {"max": 10, "mock": 2, "claude": 3}}`)}, claude...)...)
	c := srv.Client(t)
	rec := record(t, c)

	var mocks, claudes []string
	for i := range 8 {
		a, err := run(t, c, map[string]any{"path": fmt.Sprintf("sat/m%d", i)})
		if err != nil {
			t.Fatalf("mock run: %v", err)
		}
		mocks = append(mocks, a.UUID)
	}
	rec.waitFor(t, 20*time.Second, "two mock agents promoted", func(evs []ev) bool {
		return len(kinds(evs, "queue.promoted")) >= 2
	})
	for i := range 5 {
		a, err := run(t, c, map[string]any{"path": fmt.Sprintf("other/c%d", i), "agent": "claude"})
		if err != nil {
			t.Fatalf("claude run: %v", err)
		}
		claudes = append(claudes, a.UUID)
	}
	paned := func(evs []ev, uuids []string) int {
		set := map[string]bool{}
		for _, u := range kinds(evs, "agent.location_changed") {
			set[u] = true
		}
		n := 0
		for _, u := range uuids {
			if set[u] {
				n++
			}
		}
		return n
	}
	rec.waitFor(t, 30*time.Second, "three claude agents in panes", func(evs []ev) bool { return paned(evs, claudes) == 3 })

	// The claude pane really runs our `claude` (the mock agent behind the fake binary).
	dataDir := filepath.Join(srv.Home, "data", "other", "c0", claudes[0])
	poll.Eventually(t, 20*time.Second, "mock_env.json of the claude pane", func() bool {
		_, err := os.Stat(filepath.Join(dataDir, "mock_env.json"))
		return err == nil
	})

	queued := 0
	for _, r := range ls(t, c, map[string]any{"pattern": "sat/*"}) {
		if r.Status == "queued" {
			queued++
		}
	}
	if queued != 6 {
		t.Errorf("mock rows queued while claude flowed: %d, want 6", queued)
	}
	// A freed claude slot goes to the next claude row (FIFO per provider), not to mock.
	if _, _, err := kill(t, c, claudes[0]); err != nil {
		t.Fatal(err)
	}
	evs := rec.waitFor(t, 30*time.Second, "a fourth claude agent in a pane", func(evs []ev) bool { return paned(evs, claudes) == 4 })
	promoted := map[string]bool{}
	for _, u := range kinds(evs, "queue.promoted") {
		promoted[u] = true
	}
	if !promoted[claudes[3]] || promoted[claudes[4]] {
		t.Errorf("claude promotion not FIFO: c3 promoted %v, c4 promoted %v", promoted[claudes[3]], promoted[claudes[4]])
	}
	n := 0
	for _, u := range mocks {
		if promoted[u] {
			n++
		}
	}
	if n != 2 {
		t.Errorf("%d mock agents promoted, want 2 (cap)", n)
	}
	checkCaps(t, evs, 10, map[string]int{"mock": 2, "claude": 3})
	if _, _, err := kill(t, c, "sat/*", "other/*"); err != nil {
		t.Fatal(err)
	}
}

// Acceptance 4: a bulk kill racing promotion and spawns. Several concurrent pattern kills
// over 30 agents under a small cap: afterwards no pane remains for any of them, every row
// ended canceled or killed exactly once, and agent.run under the pattern failed
// kill_in_progress while the kill ran.
func TestKillRacingPromotion(t *testing.T) {
	t.Parallel()
	srv := sockettest.NewServer(t, sockettest.WithHerdr(t), sockettest.WithConfig(`{"concurrency": {"max": 6}}`))
	c := srv.Client(t)
	rec := record(t, c)

	for i := range 30 {
		if _, err := run(t, c, map[string]any{"path": fmt.Sprintf("race/w%02d", i)}); err != nil {
			t.Fatalf("agent.run %d: %v", i, err)
		}
	}
	// Strike while the first panes are being made and the rest are queued or starting.
	rec.waitFor(t, 30*time.Second, "a first pane", func(evs []ev) bool {
		return len(kinds(evs, "agent.location_changed")) >= 1
	})

	type killOut struct {
		killed []string
		err    error
	}
	outs := make(chan killOut, 3)
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			k, _, err := kill(t, c, "race/*")
			outs <- killOut{k, err}
		}()
	}
	allDone := make(chan struct{})
	go func() { wg.Wait(); close(allDone) }()

	// While the kill runs, new spawns under the pattern are refused.
	sawBarrier := false
	late := 0
	lateOK := map[string]bool{} // accepted probes: before the barriers rose, or after they fell
probe:
	for {
		select {
		case <-allDone:
			break probe
		default:
		}
		a, err := run(t, c, map[string]any{"path": fmt.Sprintf("race/late%d", late)})
		late++
		if err == nil {
			lateOK[a.UUID] = true
		} else {
			pe, ok := wire.As(err)
			if !ok || pe.Code != wire.StateConflict || pe.Reason() != "kill_in_progress" {
				t.Errorf("agent.run during the kill: got %v, want state_conflict kill_in_progress", err)
			} else {
				sawBarrier = true
				if pe.Details["target"] == nil {
					t.Errorf("kill_in_progress without a target: %v", pe.Details)
				}
			}
		}
		time.Sleep(10 * time.Millisecond) // the probes' pace while the kill runs, not a wait
	}
	close(outs)
	killedBy := map[string]int{}
	for o := range outs {
		if o.err != nil {
			t.Errorf("kill: %v", o.err)
		}
		for _, u := range o.killed {
			killedBy[u]++
		}
	}
	if !sawBarrier {
		t.Errorf("no agent.run was refused kill_in_progress while %d kills ran (%d probes)", 3, late)
	}

	// A probe accepted after the last kill returned is legitimately alive: end it the
	// same way, so what follows covers every row.
	var after []string
	for _, r := range ls(t, c, nil) {
		if lateOK[r.UUID] {
			after = append(after, r.UUID)
		}
	}
	if len(after) > 1 {
		t.Errorf("%d probes outlived the kills, at most the one racing the kills' end may", len(after))
	}
	if len(after) > 0 {
		if _, _, err := kill(t, c, after...); err != nil {
			t.Fatal(err)
		}
	}

	rows := ls(t, c, map[string]any{"all": true})
	for _, r := range rows {
		if r.Status != "ended" || (r.ExitReason != "canceled" && r.ExitReason != "killed") {
			t.Errorf("%s: %s (%s), want ended canceled/killed", r.Path, r.Status, r.ExitReason)
		}
		if killedBy[r.UUID] > 1 {
			t.Errorf("%s reported killed by %d kill calls", r.Path, killedBy[r.UUID])
		}
	}
	// Pipelines that were inside a herdr call when the cancel landed finish it and close
	// what they made: wait until every intent has its applied fact, then look at herdr.
	evs := rec.waitForD(t, 30*time.Second, "every intent applied",
		func(evs []ev) bool { return len(openIntents(evs)) == 0 }, describeOpen)
	ended := map[string]int{}
	for _, u := range kinds(evs, "agent.ended") {
		ended[u]++
	}
	for _, r := range rows {
		if ended[r.UUID] != 1 {
			t.Errorf("%s: %d agent.ended events, want 1", r.Path, ended[r.UUID])
		}
	}
	if p := panesUnder(t, srv.HerdrSocket(), "race"); len(p) != 0 {
		t.Errorf("live panes for killed rows: %+v", p)
	}
	t.Logf("%d rows, %d killed by the pattern kills, %d agent.run probes", len(rows), len(killedBy), late)
}

// Acceptance 7 (first half): herdr failing in the middle of a spawn (layout.apply cannot
// start the pane's argv: here the pane launcher, which every agent's pane runs, is
// missing) leaves the row failed, the spawn intent closed not-ok, and no pane. (A
// missing provider behind a working launcher is a start that fails with exit status
// 127: actors/paneexec.)
func TestHerdrFailureMidSpawnFailsRow(t *testing.T) {
	t.Parallel()
	srv := sockettest.NewServer(t, sockettest.WithHerdr(t),
		sockettest.WithEnv("ORCR_RUN_SHIM", "/nonexistent/orcr"))
	c := srv.Client(t)
	rec := record(t, c)
	a, err := run(t, c, map[string]any{"path": "broken/one", "prompt": "say=x"})
	if err != nil {
		t.Fatalf("agent.run: %v", err)
	}
	got := waitStatus(t, c, a.UUID, "ended")
	if got.ExitReason != "failed" || got.PaneID != nil {
		t.Errorf("row after a failed spawn: %+v, want ended failed without a pane", got)
	}
	evs := rec.waitFor(t, 10*time.Second, "agent.ended", func(evs []ev) bool { return len(kinds(evs, "agent.ended")) == 1 })
	var requested, applied int
	for _, e := range evs {
		switch e.Kind {
		case "agent.spawn_requested":
			requested++
		case "agent.spawn_applied":
			applied++
			if e.OK == nil || *e.OK {
				t.Errorf("spawn_applied after a failed layout.apply is not ok:false")
			}
		case "agent.location_changed":
			t.Errorf("location recorded for a failed spawn")
		}
	}
	if requested != 1 || applied != 1 {
		t.Errorf("spawn intents: %d requested, %d applied, want 1/1", requested, applied)
	}
	if open := openIntents(evs); len(open) != 0 {
		t.Errorf("open intents: %v", open)
	}
	if p := panesUnder(t, srv.HerdrSocket(), "broken"); len(p) != 0 {
		t.Errorf("panes after a failed spawn: %+v", p)
	}
	// Nor the root shell of the workspace the spawn created (docs/lifecycle.md §8.1 step 4).
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if all, err := herdr.NewRemote(srv.HerdrSocket()).PaneList(ctx, ""); err != nil || len(all) != 0 {
		t.Errorf("owned session panes after a failed spawn: %+v %v, want none", all, err)
	}
}

// Acceptance 5 (loop half): an agent.run whose caller is a loop run lands inside the
// run's directory, with the run as parent and the loop data dir in its env; a root caller
// cannot create agents in the active loop's namespace. The run, inserted with no
// process, is not taken for one a previous server left: like a loop verb, the insert
// waits for the loops' restart recovery.
func TestLoopRunScopeLandsChildrenInside(t *testing.T) {
	t.Parallel()
	srv := sockettest.NewServer(t, sockettest.WithHerdr(t))
	c := srv.Client(t)
	var ins struct {
		RunUUID string `json:"run_uuid"`
	}
	if err := c.Call(context.Background(), "__debug.insert_loop_run",
		map[string]any{"loop": "nightly", "run_id": "r1"}, &ins); err != nil {
		t.Fatalf("__debug.insert_loop_run: %v", err)
	}
	a, err := run(t, c, map[string]any{"path": "a/b", "caller_id": ins.RunUUID, "caller_path": "nightly/r1"})
	if err != nil {
		t.Fatalf("agent.run from the run: %v", err)
	}
	if a.Path != "nightly/r1/a/b" || a.ParentID != ins.RunUUID {
		t.Errorf("child of the run: path %q parent %q, want nightly/r1/a/b under %s", a.Path, a.ParentID, ins.RunUUID)
	}
	waitStatus(t, c, a.UUID, "idle", "working")
	var env map[string]string
	envFile := filepath.Join(srv.Home, "data", "nightly", "r1", "a", "b", a.UUID, "mock_env.json")
	poll.Eventually(t, 20*time.Second, "mock_env.json", func() bool {
		b, err := os.ReadFile(envFile)
		return err == nil && json.Unmarshal(b, &env) == nil
	})
	if env["ORCR_PATH"] != "nightly/r1/a/b" || env["ORCR_LOOP_DATA_DIR"] != filepath.Join(srv.Home, "data", "nightly") {
		t.Errorf("pane env: ORCR_PATH %q ORCR_LOOP_DATA_DIR %q", env["ORCR_PATH"], env["ORCR_LOOP_DATA_DIR"])
	}
	if env["ORCR_PARENT_ID"] != ins.RunUUID || env["ORCR_PARENT_PATH"] != "nightly/r1" {
		t.Errorf("pane env parent: %q %q", env["ORCR_PARENT_ID"], env["ORCR_PARENT_PATH"])
	}
	// Relative names from the run's agent land next to it, inside the run.
	sib, err := run(t, c, map[string]any{"name": "c", "caller_id": a.UUID, "caller_path": a.Path})
	if err != nil || sib.Path != "nightly/r1/a/c" {
		t.Errorf("sibling of the run's agent: %+v %v, want nightly/r1/a/c", sib, err)
	}
	// Outside callers may not create agents in the loop's namespace.
	if _, err := run(t, c, map[string]any{"path": "nightly/r1/x"}); !wire.Is(err, wire.InvalidRequest, "reserved_name") {
		t.Errorf("root caller into the loop namespace: got %v, want reserved_name", err)
	}
	if _, _, err := kill(t, c, "nightly/**"); err != nil {
		t.Fatal(err)
	}
}

// describeOpen lists the open intents and every event of their agents.
func describeOpen(evs []ev) string {
	var b strings.Builder
	for op, what := range openIntents(evs) {
		fmt.Fprintf(&b, "\nopen %s %s; its agent's events:", op, what)
		_, uuid, _ := strings.Cut(what, " ")
		for _, e := range evs {
			if e.UUID == uuid {
				st := ""
				if e.Row != nil {
					st = e.Row.Status
				}
				fmt.Fprintf(&b, " %d:%s(%s)", e.Seq, e.Kind, st)
			}
		}
	}
	return b.String()
}
