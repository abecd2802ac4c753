package herdr

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/orcr-go/orcr/herdr/herdrschema"
	"github.com/orcr-go/orcr/herdr/herdrtest"
	"github.com/orcr-go/orcr/tests/poll"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// wireLog records every request and response line a herdrtest session sees.
type wireLog struct {
	mu        sync.Mutex
	requests  [][]byte
	responses map[string][][]byte // method → response lines
}

func (l *wireLog) options() herdrtest.Options {
	l.responses = map[string][][]byte{}
	return herdrtest.Options{
		Shell: "/bin/sh",
		OnRequest: func(raw []byte) {
			l.mu.Lock()
			defer l.mu.Unlock()
			l.requests = append(l.requests, bytes.Clone(raw))
		},
		OnResponse: func(method string, raw []byte) {
			l.mu.Lock()
			defer l.mu.Unlock()
			l.responses[method] = append(l.responses[method], bytes.Clone(raw))
		},
	}
}

// schemas compiles the request, success and error schemas of herdrschema's fixture
// for protocol p.
func schemas(t *testing.T, p int) (req, success, failure *jsonschema.Schema) {
	t.Helper()
	const url = "https://herdr.invalid/schema.json"
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(herdrschema.For(p)))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	compile := func(name string) *jsonschema.Schema {
		s, err := c.Compile(url + "#/schemas/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	return compile("request"), compile("success_response"), compile("error_response")
}

func validate(t *testing.T, s *jsonschema.Schema, raw []byte) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return err
	}
	return s.Validate(inst)
}

func fixtureDriver(t *testing.T, f *herdrtest.Fixture, owned string) *Driver {
	t.Helper()
	return newTestDriver(t, Config{Owned: owned, Sessions: func(context.Context) ([]SessionInfo, error) {
		return DirSessions(f.ConfigDir)
	}})
}

func shellAgent(name string) []string {
	return []string{"/bin/sh", "-c", "echo ready-" + name + "; exec cat"}
}

var (
	mockOnce sync.Once
	mockBin  string
	mockErr  error
)

// mockAgent returns the argv and env of the mock provider TUI (cmd/orcr-mock-agent,
// built once per test process), showing banner ready-<name>.
func mockAgent(t *testing.T, name string) ([]string, map[string]string) {
	t.Helper()
	mockOnce.Do(func() {
		dir, err := os.MkdirTemp("", "mk")
		if err != nil {
			mockErr = err
			return
		}
		out, err := exec.Command("go", "build", "-o", dir+"/", "../cmd/orcr-mock-agent").CombinedOutput()
		if err != nil {
			mockErr = fmt.Errorf("go build: %v\n%s", err, out)
			return
		}
		mockBin = filepath.Join(dir, "orcr-mock-agent")
	})
	if mockErr != nil {
		t.Fatal(mockErr)
	}
	return []string{mockBin}, map[string]string{"ORCR_MOCK_BANNER": "ready-" + name, "ORCR_AGENT_DATA_DIR": shortDir(t)}
}

func waitScreen(t *testing.T, s *Session, target, want string) PaneRead {
	t.Helper()
	var last PaneRead
	poll.Eventually(t, 10*time.Second, fmt.Sprintf("%q on %s's screen", want, target), func() bool {
		r, err := s.Read(context.Background(), target, 0)
		last = r
		return err == nil && strings.Contains(r.Text, want)
	})
	return last
}

// TestConformance runs every contract operation against the stand-in and validates
// every request orcr sent and every response it got against the schema of the protocol
// the stand-in plays: 20, and 22 with completion_seq (herdr 0.9.x, whose fixture is our
// construction).
func TestConformance(t *testing.T) {
	for _, p := range []int{20, 22} {
		t.Run(fmt.Sprintf("protocol%d", p), func(t *testing.T) { conformance(t, p) })
	}
}

func conformance(t *testing.T, protocol int) {
	var log wireLog
	opts := log.options()
	opts.Protocol, opts.CompletionSeq = protocol, protocol >= 22
	f := herdrtest.Start(t, opts, "orcr")
	d := fixtureDriver(t, f, "orcr")
	s := d.Owned()
	ctx := context.Background()

	if p, err := s.Ping(ctx); err != nil || p.Protocol != protocol || CheckProtocol(p) != nil {
		t.Fatalf("Ping: %+v %v, want protocol %d accepted", p, err, protocol)
	}
	pl, err := s.Spawn(ctx, SpawnSpec{Workspace: "conf", Label: "conf/a", Argv: shellAgent("a"), Cwd: "/tmp",
		Env: map[string]string{"ORCR_ID": "x1"}})
	if err != nil {
		t.Fatalf("Spawn: %v", err)
	}
	waitScreen(t, s, pl.TerminalID, "ready-a")
	if err := s.Deliver(ctx, pl.TerminalID, "hi"); err != nil {
		t.Fatalf("Deliver: %v", err)
	}
	if err := s.SendKeys(ctx, pl.TerminalID, "Escape"); err != nil {
		t.Fatalf("SendKeys: %v", err)
	}
	r := &Remote{Client: Client{Socket: f.Sessions["orcr"].SocketPath()}}
	if err := r.ReportAgent(ctx, pl.PaneID, "orcr:mock", "mock", "working", "busy"); err != nil {
		t.Fatalf("ReportAgent: %v", err)
	}
	if agents, err := s.AgentList(ctx); err != nil || len(agents) != 1 {
		t.Fatalf("AgentList: %+v %v", agents, err)
	} else if got := agents[0].CompletionSeq; (got != nil) != opts.CompletionSeq || (got != nil && *got != 0) {
		t.Errorf("AgentList completion_seq: got %v, want set (0) only with completion_seq on", got)
	}
	contractTail(t, s, pl)

	reqSchema, okSchema, errSchema := schemas(t, protocol)
	log.mu.Lock()
	defer log.mu.Unlock()
	for _, raw := range log.requests {
		if err := validate(t, reqSchema, raw); err != nil {
			t.Errorf("request %s does not validate: %v", raw, err)
		}
	}
	for _, op := range Contract {
		if len(log.responses[op.Method]) == 0 {
			t.Errorf("contract method %s was never exercised", op.Method)
		}
	}
	for method, lines := range log.responses {
		for _, raw := range lines {
			sch := okSchema
			if bytes.Contains(raw, []byte(`"error":`)) {
				sch = errSchema
			}
			if err := validate(t, sch, raw); err != nil {
				t.Errorf("%s response %s does not validate: %v", method, raw, err)
			}
		}
	}
}

// contractTail runs the last contract operations of a pass on pl (labelled conf/a):
// list, get, notify, park it in workspace "idle", close it, and get a missing pane.
func contractTail(t *testing.T, s *Session, pl Placement) {
	t.Helper()
	ctx := context.Background()
	if _, err := s.PaneList(ctx, pl.WorkspaceID); err != nil {
		t.Fatalf("PaneList: %v", err)
	}
	if _, err := s.PaneGet(ctx, pl.PaneID); err != nil {
		t.Fatalf("PaneGet: %v", err)
	}
	if _, err := s.Notify(ctx, "title", "body"); err != nil {
		t.Fatalf("Notify: %v", err)
	}
	if _, err := s.Move(ctx, pl.TerminalID, "idle", "conf/a"); err != nil {
		t.Fatalf("Move: %v", err)
	}
	if err := s.Close(ctx, pl.TerminalID); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if _, err := s.PaneGet(ctx, "w9:p9"); !IsCode(err, "pane_not_found") {
		t.Errorf("PaneGet(missing): got %v, want pane_not_found", err)
	}
}

// TestSpawnMoveRoundTrip spawns three agents in two workspaces, reads, delivers, parks
// one in "idle" and brings it back.
func TestSpawnMoveRoundTrip(t *testing.T) {
	var log wireLog
	f := herdrtest.Start(t, log.options(), "orcr")
	d := fixtureDriver(t, f, "orcr")
	s := d.Owned()
	ctx := context.Background()

	var specs []SpawnSpec
	for _, l := range []string{"alpha/one", "alpha/two", "beta/three"} {
		argv, env := mockAgent(t, strings.Split(l, "/")[1])
		specs = append(specs, SpawnSpec{Workspace: strings.Split(l, "/")[0], Label: l, Argv: argv, Env: env})
	}
	placed := map[string]Placement{}
	for _, sp := range specs {
		pl, err := s.Spawn(ctx, sp)
		if err != nil {
			t.Fatalf("Spawn(%s): %v", sp.Label, err)
		}
		placed[sp.Label] = pl
	}
	checkIDs := func(when string) {
		t.Helper()
		panes, err := s.PaneList(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		if len(panes) != len(placed) {
			t.Errorf("%s: pane.list has %d panes, want %d (root shells must be closed): %+v", when, len(panes), len(placed), panes)
		}
		for label, pl := range placed {
			i := slices.IndexFunc(panes, func(p PaneInfo) bool { return p.TerminalID == pl.TerminalID })
			if i < 0 {
				t.Errorf("%s: %s (%s) not in pane.list", when, label, pl.TerminalID)
				continue
			}
			p := panes[i]
			if p.PaneID != pl.PaneID || p.TabID != pl.TabID || p.WorkspaceID != pl.WorkspaceID || p.Label != label {
				t.Errorf("%s: %s: driver says %+v, pane.list says %+v", when, label, pl, p)
			}
		}
	}
	checkIDs("after spawn")
	for label := range placed {
		waitScreen(t, s, placed[label].TerminalID, "ready-"+strings.Split(label, "/")[1])
	}
	// Two-call delivery to a real TUI: the mock answers the prompt on its screen.
	if err := s.Deliver(ctx, placed["alpha/two"].TerminalID, "say=pong_two"); err != nil {
		t.Fatalf("Deliver: %v", err)
	}
	waitScreen(t, s, placed["alpha/two"].TerminalID, "DONE")
	waitScreen(t, s, placed["alpha/two"].TerminalID, "pong_two")

	three := placed["beta/three"]
	wsLabels := func() []string {
		wss, err := s.WorkspaceList(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, w := range wss {
			out = append(out, w.Label)
		}
		return out
	}
	parked, err := s.Move(ctx, three.TerminalID, "idle", "beta/three")
	if err != nil {
		t.Fatalf("Move(park): %v", err)
	}
	if parked.TerminalID != three.TerminalID || parked.PaneID == three.PaneID || parked.PreviousPaneID != three.PaneID {
		t.Errorf("park: got %+v from %+v", parked, three)
	}
	placed["beta/three"] = parked.Placement
	checkIDs("after park")
	if got := wsLabels(); slices.Contains(got, "beta") || !slices.Contains(got, "idle") {
		t.Errorf("after park: workspaces %v, want idle and no beta", got)
	}
	back, err := s.Move(ctx, three.TerminalID, "beta", "beta/three")
	if err != nil {
		t.Fatalf("Move(unpark): %v", err)
	}
	if back.TerminalID != three.TerminalID {
		t.Errorf("unpark: terminal changed %s → %s", three.TerminalID, back.TerminalID)
	}
	placed["beta/three"] = back.Placement
	checkIDs("after unpark")
	if got := wsLabels(); slices.Contains(got, "idle") || !slices.Contains(got, "beta") {
		t.Errorf("after unpark: workspaces %v, want beta and no idle", got)
	}
	if err := s.Deliver(ctx, three.TerminalID, "say=after_move"); err != nil {
		t.Fatalf("Deliver after move: %v", err)
	}
	waitScreen(t, s, three.TerminalID, "after_move")
}

// TestDropSocketReconnect drops the stand-in's socket mid-operation and restores it.
func TestDropSocketReconnect(t *testing.T) {
	f := herdrtest.Start(t, herdrtest.Options{Shell: "/bin/sh"}, "orcr")
	d := fixtureDriver(t, f, "orcr")
	s := d.Owned()
	ctx := context.Background()
	pl, err := s.Spawn(ctx, SpawnSpec{Workspace: "w", Label: "w/a", Argv: shellAgent("a")})
	if err != nil {
		t.Fatalf("Spawn: %v", err)
	}
	hs := f.Sessions["orcr"]

	// Mid-operation: a Deliver is in its text→Enter pause when the socket goes.
	slow := newTestDriver(t, Config{Owned: "orcr", DeliverPause: 300 * time.Millisecond,
		Sessions: func(context.Context) ([]SessionInfo, error) { return DirSessions(f.ConfigDir) }})
	if _, err := slow.Owned().Ping(ctx); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- slow.Owned().Deliver(ctx, pl.TerminalID, "lost") }()
	time.Sleep(100 * time.Millisecond) // let the first call land; not an assertion
	if err := hs.DropSocket(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; !IsUnreachable(err) {
		t.Errorf("Deliver across DropSocket: got %v, want herdr_unreachable", err)
	}

	before := d.Restarts("orcr")
	for i := 0; i < 3; i++ {
		start := time.Now()
		_, err := s.AgentList(ctx)
		if !IsUnreachable(err) {
			t.Fatalf("AgentList while dropped: got %v, want herdr_unreachable", err)
		}
		if el := time.Since(start); el > 3*time.Second {
			t.Errorf("AgentList while dropped took %s", el)
		}
	}
	poll.Eventually(t, 5*time.Second, "restarts while down", func() bool { return d.Restarts("orcr") >= before+2 })

	if err := hs.Restore(); err != nil {
		t.Fatal(err)
	}
	poll.Eventually(t, 10*time.Second, "reconnect after Restore", func() bool {
		p, err := s.PaneGet(ctx, pl.TerminalID)
		return err == nil && p.TerminalID == pl.TerminalID
	})
	h, _ := d.Health()
	if h[0].State != "up" || h[0].Restarts < 2 {
		t.Errorf("Health after reconnect: %+v", h)
	}
	t.Logf("restarts: %d", h[0].Restarts)
}

// TestFrozenServerTimesOut checks that a server that stops answering yields
// herdr_unreachable after the socket deadline, not a hang.
func TestFrozenServerTimesOut(t *testing.T) {
	f := herdrtest.Start(t, herdrtest.Options{Shell: "/bin/sh"}, "orcr")
	d := newTestDriver(t, Config{Owned: "orcr", Timeout: 300 * time.Millisecond,
		Sessions: func(context.Context) ([]SessionInfo, error) { return DirSessions(f.ConfigDir) }})
	ctx := context.Background()
	if _, err := d.Owned().Ping(ctx); err != nil {
		t.Fatal(err)
	}
	f.Sessions["orcr"].Freeze()
	_, err := d.Owned().AgentList(ctx)
	f.Sessions["orcr"].Unfreeze()
	if !IsUnreachable(err) {
		t.Fatalf("AgentList on a frozen server: got %v, want herdr_unreachable", err)
	}
	poll.Eventually(t, 10*time.Second, "recovery after Unfreeze", func() bool {
		_, err := d.Owned().AgentList(ctx)
		return err == nil
	})
}

// TestTwoSessions enumerates two sessions and lists agents per session.
func TestTwoSessions(t *testing.T) {
	f := herdrtest.Start(t, herdrtest.Options{Shell: "/bin/sh"}, "orcr", "work")
	d := fixtureDriver(t, f, "orcr")
	ctx := context.Background()
	rows, err := d.Sessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var running []string
	for _, r := range rows {
		if r.Running {
			running = append(running, r.Name)
		}
	}
	if !slices.Equal(running, []string{"orcr", "work"}) {
		t.Fatalf("running sessions: got %v, want [orcr work]", running)
	}
	want := map[string]string{}
	for _, name := range running {
		s := d.Session(name)
		pl, err := s.Spawn(ctx, SpawnSpec{Workspace: "w", Label: "w/" + name, Argv: shellAgent(name)})
		if err != nil {
			t.Fatalf("Spawn in %s: %v", name, err)
		}
		if err := f.Sessions[name].SetAgentStatus(pl.TerminalID, "claude", "done"); err != nil {
			t.Fatal(err)
		}
		want[name] = pl.TerminalID
	}
	for _, name := range running {
		agents, err := d.Session(name).AgentList(ctx)
		if err != nil {
			t.Fatalf("AgentList(%s): %v", name, err)
		}
		if len(agents) != 1 || agents[0].TerminalID != want[name] || agents[0].AgentStatus != StatusIdle || agents[0].Agent != "claude" {
			t.Errorf("AgentList(%s): got %+v, want one idle claude on %s", name, agents, want[name])
		}
	}
	hs, _ := d.Health()
	if len(hs) != 2 {
		t.Errorf("Health: got %+v, want two sessions", hs)
	}
}

// A workspace vanishes under a spawn or a move: its last pane's process exits (an agent
// that quit, a kill's shutdown line) after the driver found the workspace in
// workspace.list and before its layout.apply or pane.move reached herdr, which
// removed the empty workspace and answers workspace_not_found. The driver creates the
// workspace again and places the pane there (docs/herdr.md §8.1).
func TestPlacementIntoAWorkspaceThatVanishes(t *testing.T) {
	var (
		sess   atomic.Pointer[herdrtest.Session]
		armed  atomic.Pointer[string] // the method whose next request ends the quitter
		quitFn = filepath.Join(shortDir(t), "quit")
	)
	f := herdrtest.Start(t, herdrtest.Options{Shell: "/bin/sh", OnRequest: func(raw []byte) {
		m := armed.Load()
		if m == nil || !bytes.Contains(raw, []byte(`"method":"`+*m+`"`)) || !armed.CompareAndSwap(m, nil) {
			return
		}
		// Runs before herdr handles the request: the quitter exits and herdr removes its
		// pane, its tab and the emptied workspace.
		if err := os.WriteFile(quitFn, nil, 0o600); err != nil {
			t.Error(err)
			return
		}
		deadline := time.Now().Add(10 * time.Second)
		for slices.ContainsFunc(sess.Load().Panes(), func(p herdrtest.PaneInfo) bool { return p.Label == "gone/quitter" }) {
			if time.Now().After(deadline) {
				t.Error("the quitter's pane is still listed 10 s after it was told to quit")
				return
			}
			time.Sleep(10 * time.Millisecond) // inside herdr's handler hook, not the test goroutine: no poll.Eventually (it calls Fatalf)
		}
	}}, "orcr")
	sess.Store(f.Sessions["orcr"])
	s := fixtureDriver(t, f, "orcr").Owned()
	ctx := context.Background()
	quitter := SpawnSpec{Workspace: "gone", Label: "gone/quitter",
		Argv: []string{"/bin/sh", "-c", "while [ ! -e " + quitFn + " ]; do sleep 0.02; done"}}
	wsCount := func(label string) int {
		wss, err := s.WorkspaceList(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return len(slices.DeleteFunc(wss, func(w WorkspaceInfo) bool { return w.Label != label }))
	}

	// Spawn: layout.apply into the vanished workspace.
	if _, err := s.Spawn(ctx, quitter); err != nil {
		t.Fatal(err)
	}
	m := "layout.apply"
	armed.Store(&m)
	pl, err := s.Spawn(ctx, SpawnSpec{Workspace: "gone", Label: "gone/next", Argv: shellAgent("next")})
	if err != nil {
		t.Fatalf("spawn into a workspace that vanished under it: %v", err)
	}
	if armed.Load() != nil {
		t.Fatal("the spawn sent no layout.apply")
	}
	waitScreen(t, s, pl.TerminalID, "ready-next")
	if n := wsCount("gone"); n != 1 {
		t.Errorf("after the spawn: %d workspaces labelled gone, want 1", n)
	}

	// Move: pane.move into the vanished workspace (a park into "idle").
	os.Remove(quitFn)
	if _, err := s.Spawn(ctx, SpawnSpec{Workspace: "idle", Label: "gone/quitter", Argv: quitter.Argv}); err != nil {
		t.Fatal(err)
	}
	m = "pane.move"
	armed.Store(&m)
	mv, err := s.Move(ctx, pl.TerminalID, "idle", "gone/next")
	if err != nil {
		t.Fatalf("move into a workspace that vanished under it: %v", err)
	}
	if armed.Load() != nil {
		t.Fatal("the move sent no pane.move")
	}
	if mv.TerminalID != pl.TerminalID || wsCount("idle") != 1 {
		t.Errorf("after the move: %+v, %d workspaces labelled idle; want the same terminal in one idle workspace", mv, wsCount("idle"))
	}
	if err := s.Deliver(ctx, pl.TerminalID, "after-move"); err != nil {
		t.Fatal(err)
	}
	waitScreen(t, s, pl.TerminalID, "after-move")
}

// A server that dies during a spawn that created its workspace (issue 32, defect 5):
// herdr has the layout.apply when the server goes, so the workspace's root shell is
// never closed and keeps the workspace alive for good. It carries RootShellLabel, and
// the next server's CloseRootShells closes it; the agent pane (its spawn intent's
// business) is left alone.
func TestCloseRootShellsAfterACrashedSpawn(t *testing.T) {
	release := make(chan struct{})
	var armed atomic.Bool
	armed.Store(true)
	f := herdrtest.Start(t, herdrtest.Options{Shell: "/bin/sh", OnRequest: func(raw []byte) {
		if bytes.Contains(raw, []byte(`"method":"layout.apply"`)) && armed.CompareAndSwap(true, false) {
			<-release // the crash point: herdr holds the request while the server dies
		}
	}}, "orcr")
	crashed := fixtureDriver(t, f, "orcr")
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	_, err := crashed.Owned().Spawn(ctx, SpawnSpec{Workspace: "fresh", Label: "fresh/agent", Argv: shellAgent("agent")})
	cancel()
	if err == nil {
		t.Fatal("the spawn held at layout.apply returned no error")
	}
	crashed.Close()
	close(release)

	byLabel := func(s *Session) map[string][]PaneInfo {
		panes, err := s.PaneList(context.Background(), "")
		if err != nil {
			t.Fatal(err)
		}
		out := map[string][]PaneInfo{}
		for _, p := range panes {
			out[p.Label] = append(out[p.Label], p)
		}
		return out
	}
	next := fixtureDriver(t, f, "orcr").Owned()
	var before map[string][]PaneInfo
	poll.Eventually(t, 10*time.Second, "the agent pane of the cut-off spawn", func() bool {
		before = byLabel(next)
		return len(before["fresh/agent"]) == 1
	})
	roots := before[RootShellLabel]
	if len(roots) != 1 || len(before) != 2 {
		t.Fatalf("after the crash: panes %+v, want the agent's and one root shell labelled %q", before, RootShellLabel)
	}
	closed, err := next.CloseRootShells(context.Background())
	if err != nil || !slices.Equal(closed, []string{roots[0].PaneID}) {
		t.Fatalf("CloseRootShells: closed %v, %v; want [%s]", closed, err, roots[0].PaneID)
	}
	after := byLabel(next)
	if len(after) != 1 || len(after["fresh/agent"]) != 1 {
		t.Errorf("after CloseRootShells: panes %+v, want only the agent's", after)
	}
	if closed, err := next.CloseRootShells(context.Background()); err != nil || len(closed) != 0 {
		t.Errorf("a second CloseRootShells closed %v, %v; want nothing", closed, err)
	}
}

// A spawn whose call timed out says whether its pane's request was sent: one that
// timed out finding its workspace made no pane and is marked not sent (asking again
// makes no second one); one whose layout.apply herdr took is not (docs/herdr.md §2.2).
func TestSpawnMarksWhetherItsPaneWasAskedFor(t *testing.T) {
	for _, tc := range []struct {
		late    string
		notSent bool
	}{{"workspace.list", true}, {"layout.apply", false}} {
		t.Run(tc.late, func(t *testing.T) {
			f := herdrtest.Start(t, herdrtest.Options{Shell: "/bin/sh", Late: map[string]time.Duration{tc.late: 700 * time.Millisecond}}, "orcr")
			d := newTestDriver(t, Config{Owned: "orcr", Timeout: 250 * time.Millisecond,
				Sessions: func(context.Context) ([]SessionInfo, error) { return DirSessions(f.ConfigDir) }})
			_, err := d.Owned().Spawn(context.Background(), SpawnSpec{Workspace: "w", Label: "w/a", PaneLabel: "orcr:x:w/a", Argv: []string{"/bin/sh"}})
			if !IsUnreachable(err) || errors.Is(err, ErrNotSent) != tc.notSent {
				t.Errorf("spawn with %s answered late: got %v (not sent: %v), want herdr_unreachable, not sent %v",
					tc.late, err, errors.Is(err, ErrNotSent), tc.notSent)
			}
		})
	}
}

// A burst of spawns into one workspace is placed side by side: only finding the
// workspace takes a structural turn (docs/herdr.md §11). Before, every spawn was a
// structural op, one at a time per session, and herdr never saw two layout.apply at once.
func TestSpawnsIntoAKnownWorkspaceOverlap(t *testing.T) {
	const spawns, together = 12, 4
	var inApply, most, lists atomic.Int32
	release := make(chan struct{})
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	opts := herdrtest.Options{Shell: "/bin/sh", OnRequest: func(raw []byte) {
		switch {
		case bytes.Contains(raw, []byte(`"method":"workspace.list"`)):
			lists.Add(1)
		case bytes.Contains(raw, []byte(`"method":"layout.apply"`)) && bytes.Contains(raw, []byte(`w/burst`)):
			n := inApply.Add(1)
			for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
			}
			<-release // held until the test has seen `together` of them in herdr at once
			inApply.Add(-1)
		}
	}}
	f := herdrtest.Start(t, opts, "orcr")
	// The workspace stays known for the whole test: past placeFresh a spawn would take a
	// structural turn, and the test holds that turn's layout.apply.
	d := newTestDriver(t, Config{Owned: "orcr", Sessions: func(context.Context) ([]SessionInfo, error) { return DirSessions(f.ConfigDir) },
		placeFresh: time.Minute})
	t.Cleanup(free) // before the stand-in's cleanup, which waits for the requests it holds
	ctx := context.Background()
	// The first spawn finds (makes) the workspace; the burst comes after it.
	first, err := d.Owned().Spawn(ctx, SpawnSpec{Workspace: "w", Label: "w/first", PaneLabel: "orcr:x:w/first", Argv: []string{"/bin/sh"}})
	if err != nil {
		t.Fatalf("first spawn: %v", err)
	}
	listsBefore := lists.Load()
	errs := make(chan error, spawns)
	placed := make(chan Placement, spawns)
	for i := range spawns {
		go func() {
			label := fmt.Sprintf("w/burst%02d", i)
			p, err := d.Owned().Spawn(ctx, SpawnSpec{Workspace: "w", Label: label, PaneLabel: "orcr:x:" + label, Argv: []string{"/bin/sh"}})
			errs <- err
			placed <- p
		}()
	}
	poll.Eventually(t, 10*time.Second, fmt.Sprintf("%d layout.apply in herdr at once", together),
		func() bool { return inApply.Load() >= together },
		func() string { return fmt.Sprintf("%d in herdr at once", inApply.Load()) })
	free()
	for range spawns {
		if err := <-errs; err != nil {
			t.Errorf("spawn: %v", err)
		}
		if p := <-placed; p.WorkspaceID != first.WorkspaceID || p.TerminalID == "" {
			t.Errorf("a burst spawn was placed in %q (terminal %q), want the first's workspace %q", p.WorkspaceID, p.TerminalID, first.WorkspaceID)
		}
	}
	if n := lists.Load() - listsBefore; n > 1 {
		t.Errorf("the burst listed workspaces %d times, want at most once (the workspace was known)", n)
	}
}

// A known workspace that herdr no longer has (its last pane closed) sends the spawn back
// to a structural turn, which makes the workspace again: the spawn is placed, not failed.
func TestSpawnIntoAVanishedKnownWorkspace(t *testing.T) {
	f := herdrtest.Start(t, herdrtest.Options{Shell: "/bin/sh"}, "orcr")
	d := newTestDriver(t, Config{Owned: "orcr", Sessions: func(context.Context) ([]SessionInfo, error) { return DirSessions(f.ConfigDir) }})
	ctx := context.Background()
	spec := func(name string) SpawnSpec {
		return SpawnSpec{Workspace: "w", Label: "w/" + name, PaneLabel: "orcr:x:w/" + name, Argv: []string{"/bin/sh"}}
	}
	a, err := d.Owned().Spawn(ctx, spec("a"))
	if err != nil {
		t.Fatalf("spawn a: %v", err)
	}
	if err := d.Owned().Close(ctx, a.TerminalID); err != nil { // the workspace's last pane: herdr removes it
		t.Fatalf("close a: %v", err)
	}
	b, err := d.Owned().Spawn(ctx, spec("b"))
	if err != nil {
		t.Fatalf("spawn b after its known workspace vanished: %v", err)
	}
	if b.WorkspaceID == a.WorkspaceID {
		t.Errorf("b was placed in the vanished workspace %q", a.WorkspaceID)
	}
	wss, err := d.Owned().WorkspaceList(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, ws := range wss {
		if ws.WorkspaceID == b.WorkspaceID && ws.Label != "w" {
			t.Errorf("b's workspace is labelled %q, want w", ws.Label)
		}
	}
}
