package actors

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/orcr-go/orcr/actors/actorkit"
	"github.com/orcr-go/orcr/herdr"
)

// The monitor passes herdr's completion_seq on for panes it matched by terminal id, and
// a change of the count alone is a change worth a report; a pane matched by pane id only
// (herdr lists another terminal there) carries none.
func TestMonitorDiffCompletionSeq(t *testing.T) {
	m := newMonitorState()
	m.track(TrackPane{UUID: "a", Terminal: "term_a", Pane: "w1:p1"})
	m.track(TrackPane{UUID: "b", Terminal: "term_b", Pane: "w1:p2"})
	n := func(v uint64) *uint64 { return &v }
	row := func(term, pane string, st herdr.Status, seq *uint64) herdr.AgentInfo {
		return herdr.AgentInfo{TerminalID: term, PaneID: pane, AgentStatus: st, CompletionSeq: seq}
	}
	type want struct {
		uuid string
		seq  *uint64
	}
	check := func(what string, list []herdr.AgentInfo, wants ...want) {
		t.Helper()
		got := m.diff(list, time.Now())
		if len(got) != len(wants) {
			t.Fatalf("%s: %d reports %+v, want %d", what, len(got), got, len(wants))
		}
		for i, w := range wants {
			g := got[i]
			if g.UUID != w.uuid || (g.CompletionSeq == nil) != (w.seq == nil) || (w.seq != nil && *g.CompletionSeq != *w.seq) {
				t.Errorf("%s: report %d: got %s seq %v, want %s seq %v", what, i, g.UUID, g.CompletionSeq, w.uuid, w.seq)
			}
		}
	}
	check("first poll", []herdr.AgentInfo{row("term_a", "w1:p1", herdr.StatusIdle, n(2)), row("term_other", "w1:p2", herdr.StatusIdle, n(7))},
		want{"a", n(2)}, want{"b", nil})
	check("nothing changed", []herdr.AgentInfo{row("term_a", "w1:p1", herdr.StatusIdle, n(2)), row("term_other", "w1:p2", herdr.StatusIdle, n(8))})
	check("only the count moved", []herdr.AgentInfo{row("term_a", "w1:p1", herdr.StatusIdle, n(3))}, want{"a", n(3)})
	check("herdr stopped reporting it", []herdr.AgentInfo{row("term_a", "w1:p1", herdr.StatusIdle, nil)}, want{"a", nil})
}

// A watched agent whose launcher recorded its provider's exit (docs/lifecycle.md §8.2)
// is handed on once, and herdr's view of the held pane — idle, as herdr reads a pane
// whose own program is in front again — is no longer reported as the agent's; its status
// file is no longer looked for, and an agent without a launcher has none to look for.
func TestMonitorExitedProvider(t *testing.T) {
	m := newMonitorState()
	m.track(TrackPane{UUID: "a", Terminal: "term_a", ExitFile: "/d/a/pane_exit.json"})
	m.track(TrackPane{UUID: "b", Terminal: "term_b"})
	if got := m.exitFiles(); len(got) != 1 || got["a"] != "/d/a/pane_exit.json" {
		t.Fatalf("exitFiles = %v, want a's alone", got)
	}
	working := []herdr.AgentInfo{{TerminalID: "term_a", AgentStatus: herdr.StatusWorking}}
	if got := m.diff(working, time.Now()); len(got) != 1 {
		t.Fatalf("first poll: %+v, want a's report", got)
	}
	if !m.markExited([]string{"a", "gone"}) || m.markExited([]string{"a"}) {
		t.Error("markExited: want news once")
	}
	if got := m.diff([]herdr.AgentInfo{{TerminalID: "term_a", AgentStatus: herdr.StatusIdle}}, time.Now()); len(got) != 0 {
		t.Errorf("the held pane's idle was reported: %+v", got)
	}
	if got := m.exitFiles(); len(got) != 0 {
		t.Errorf("exitFiles after the exit = %v, want none", got)
	}
	m.track(TrackPane{UUID: "a", Terminal: "term_a2", ExitFile: "/d/a/pane_exit.json"})
	if got := m.exitFiles(); len(got) != 1 {
		t.Errorf("a new pane of a: exitFiles = %v, want its file looked for again", got)
	}
}

// An agent herdr listed and then stops listing is reported missing once (a hint for a
// reconcile pass), not at every poll after, and not before herdr ever listed it (a
// spawn whose agent has not reported yet).
func TestMonitorUnlisted(t *testing.T) {
	m := newMonitorState()
	m.track(TrackPane{UUID: "a", Terminal: "term_a", Pane: "w1:p1"})
	m.track(TrackPane{UUID: "b", Terminal: "term_b", Pane: "w1:p2"})
	a := herdr.AgentInfo{TerminalID: "term_a", PaneID: "w1:p1", AgentStatus: herdr.StatusIdle}
	b := herdr.AgentInfo{TerminalID: "term_b", PaneID: "w1:p2", AgentStatus: herdr.StatusIdle}
	steps := []struct {
		what string
		list []herdr.AgentInfo
		gone bool
	}{
		{"b not listed yet", []herdr.AgentInfo{a}, false},
		{"both listed", []herdr.AgentInfo{a, b}, false},
		{"a gone", []herdr.AgentInfo{b}, true},
		{"a still gone", []herdr.AgentInfo{b}, false},
		{"a back", []herdr.AgentInfo{a, b}, false},
		{"both gone", nil, true},
	}
	for _, s := range steps {
		m.diff(s.list, time.Now())
		if got := m.unlisted(); got != s.gone {
			t.Errorf("%s: unlisted %v, want %v", s.what, got, s.gone)
		}
	}
}

// fakeHerdrListener listens on a socket in a fresh short temporary directory.
func fakeHerdrListener(t *testing.T) (string, net.Listener) {
	dir, err := os.MkdirTemp("", "m")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock := filepath.Join(dir, "h.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	return sock, ln
}

// serveFakeHerdr serves ln as a herdr that answers ping as 0.8.0 and gives every other
// request on a connection to answer, which writes the answer (or holds the call); the
// test's cleanup closes ln and waits for the connections.
func serveFakeHerdr(t *testing.T, ln net.Listener, answer func(conn net.Conn, id, method string)) {
	var conns sync.WaitGroup
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			go func() {
				defer conns.Done()
				defer conn.Close()
				r := bufio.NewReader(conn)
				for {
					line, err := r.ReadBytes('\n')
					if err != nil {
						return
					}
					var req struct{ ID, Method string }
					json.Unmarshal(line, &req)
					if req.Method == "ping" {
						fmt.Fprintf(conn, `{"id":%q,"result":{"type":"pong","version":"0.8.0","protocol":20}}`+"\n", req.ID)
						continue
					}
					answer(conn, req.ID, req.Method)
				}
			}()
		}
	}()
	t.Cleanup(func() { ln.Close(); conns.Wait() })
}

// monitorEnvOn is an actor system and an agent env whose herdr driver owns the session
// at sock.
func monitorEnvOn(t *testing.T, sock string) (*actor.ActorSystem, *AgentEnv) {
	sys := actorkit.NewSystem(nil, 10*time.Millisecond)
	t.Cleanup(sys.Shutdown)
	drv, err := herdr.NewDriver(sys, herdr.Config{Sessions: func(context.Context) ([]herdr.SessionInfo, error) {
		return []herdr.SessionInfo{{Name: "orcr", Running: true, SocketPath: sock}}, nil
	}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(drv.Close)
	return sys, &AgentEnv{Herdr: drv, Log: slog.New(slog.DiscardHandler)}
}

// A stop of the monitor cancels its poll in flight: the system waits for the poll's
// goroutine (AgentEnv.Ops) before it closes the herdr driver, and a herdr slow to
// answer (here: it reads the agent.list and never answers) held the stop for the
// poll's whole 5 s bound (issue 32, defect 12).
func TestMonitorStopCancelsItsPoll(t *testing.T) {
	sock, ln := fakeHerdrListener(t)
	listed := make(chan struct{}, 1)
	serveFakeHerdr(t, ln, func(conn net.Conn, _, _ string) {
		select {
		case listed <- struct{}{}:
		default:
		}
		io.Copy(io.Discard, conn) // holds the call until orcr closes it
	})

	sys, env := monitorEnvOn(t, sock)
	mon, err := sys.Root.SpawnNamed(NewMonitorProps(MonitorSpec{Env: env, Tick: 10 * time.Millisecond}), "monitor")
	if err != nil {
		t.Fatal(err)
	}
	sys.Root.Send(mon, SetAgents{PID: mon})
	sys.Root.Send(mon, TrackPane{UUID: "a", Terminal: "term_a", Pane: "w1:p1"})
	select {
	case <-listed:
	case <-time.After(10 * time.Second):
		t.Fatal("the monitor never polled agent.list")
	}
	start := time.Now()
	sys.Root.PoisonFuture(mon).Wait()
	env.Ops.Wait()
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("the monitor's stop waited %v for its poll, want it canceled at once", took)
	}
}

// An agent of a screen-status provider (docs/providers.md §11.4) is reported from its
// screen: herdr's row for its pane gives only the session pointer, a change of the
// screen's status is reported once, its reads are paced, and a pane a read finds gone is
// hinted to reconciliation once.
func TestMonitorScreenStatus(t *testing.T) {
	m := newMonitorState()
	m.track(TrackPane{UUID: "s", Terminal: "term_s", Pane: "w1:p1", Screen: "tui"})
	m.track(TrackPane{UUID: "h", Terminal: "term_h", Pane: "w1:p2"})
	t0 := time.Now()
	targets := m.screenTargets(t0, ScreenPollEvery)
	if len(targets) != 1 || targets["s"] != (watchedScreen{terminal: "term_s", provider: "tui"}) {
		t.Fatalf("screen targets %+v", targets)
	}
	if again := m.screenTargets(t0.Add(ScreenPollEvery/2), ScreenPollEvery); again != nil {
		t.Fatalf("screens read again within %v: %+v", ScreenPollEvery, again)
	}
	if got := m.screenTargets(t0.Add(ScreenPollEvery), ScreenPollEvery); len(got) != 1 {
		t.Fatalf("screens not read after %v: %+v", ScreenPollEvery, got)
	}
	sess := &herdr.AgentSession{Kind: "id", Value: "abc"}
	got := m.diff([]herdr.AgentInfo{{TerminalID: "term_s", PaneID: "w1:p1", AgentStatus: herdr.StatusWorking, AgentSession: sess},
		{TerminalID: "term_h", PaneID: "w1:p2", AgentStatus: herdr.StatusIdle}}, t0)
	if len(got) != 1 || got[0].UUID != "h" {
		t.Fatalf("herdr's rows reported %+v; only the herdr-status agent's is", got)
	}
	check := func(what string, reads []screenRead, want []herdr.Status, wantGone bool) {
		t.Helper()
		got, gone := m.diffScreens(reads, t0)
		if len(got) != len(want) || gone != wantGone {
			t.Fatalf("%s: reports %+v gone %v, want %v gone %v", what, got, gone, want, wantGone)
		}
		for i, r := range got {
			if r.UUID != "s" || r.Status != want[i] || r.AgentSession != sess {
				t.Errorf("%s: report %+v, want %s with herdr's pointer", what, r, want[i])
			}
		}
	}
	check("working", []screenRead{{uuid: "s", status: herdr.StatusWorking, ok: true}}, []herdr.Status{herdr.StatusWorking}, false)
	check("still working", []screenRead{{uuid: "s", status: herdr.StatusWorking, ok: true}}, nil, false)
	check("a read failed", []screenRead{{uuid: "s"}}, nil, false)
	check("ready", []screenRead{{uuid: "s", status: herdr.StatusIdle, ok: true}}, []herdr.Status{herdr.StatusIdle}, false)
	check("gone", []screenRead{{uuid: "s", gone: true}}, nil, true)
	check("gone again", []screenRead{{uuid: "s", gone: true}}, nil, false)
	if got := m.screenTargets(t0.Add(time.Hour), ScreenPollEvery); got != nil {
		t.Errorf("a gone pane is read again: %+v", got)
	}
}

// At rest herdr answers the monitor's agent.list with the same rows poll after poll; the
// monitor then reports nothing and diffs nothing, but a pane tracked meanwhile is still
// reported from the unchanged rows, and a changed answer is reported as before.
func TestMonitorUnchangedListStillReportsNewPanes(t *testing.T) {
	sock, ln := fakeHerdrListener(t)
	var lists atomic.Int32
	var answer atomic.Pointer[string]
	rows := func(aStatus string) *string {
		s := `{"type":"agent_list","agents":[` +
			`{"terminal_id":"term_a","pane_id":"w1:p1","workspace_id":"w1","tab_id":"w1:t1","agent_status":"` + aStatus + `","agent":"mock"},` +
			`{"terminal_id":"term_b","pane_id":"w1:p2","workspace_id":"w1","tab_id":"w1:t2","agent_status":"idle","agent":"mock"}]}`
		return &s
	}
	answer.Store(rows("idle"))
	serveFakeHerdr(t, ln, func(conn net.Conn, id, _ string) {
		lists.Add(1)
		fmt.Fprintf(conn, `{"id":%q,"result":%s}`+"\n", id, *answer.Load())
	})

	sys, env := monitorEnvOn(t, sock)
	reports := make(chan StatusReport, 16)
	sink, err := sys.Root.SpawnNamed(actor.PropsFromFunc(func(c actor.Context) {
		if r, ok := c.Message().(StatusReport); ok {
			reports <- r
		}
	}), "reports")
	if err != nil {
		t.Fatal(err)
	}
	mon, err := sys.Root.SpawnNamed(NewMonitorProps(MonitorSpec{Env: env, Tick: 10 * time.Millisecond, IdleTick: 10 * time.Millisecond}), "monitor")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sys.Root.PoisonFuture(mon).Wait(); env.Ops.Wait() })
	sys.Root.Send(mon, SetAgents{PID: sink})
	next := func(what string) StatusReport {
		t.Helper()
		select {
		case r := <-reports:
			return r
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: no report", what)
		}
		return StatusReport{}
	}
	quiet := func(what string) {
		t.Helper()
		// Three more polls of the same answer report nothing.
		for from := lists.Load(); lists.Load() < from+3; {
			select {
			case r := <-reports:
				t.Fatalf("%s: reported %+v from an unchanged list", what, r)
			case <-time.After(5 * time.Millisecond):
			}
		}
	}

	sys.Root.Send(mon, TrackPane{UUID: "a", Terminal: "term_a", Pane: "w1:p1"})
	if r := next("a tracked"); r.UUID != "a" || r.Status != herdr.StatusIdle {
		t.Fatalf("a tracked: %+v, want a idle", r)
	}
	quiet("a reported")
	sys.Root.Send(mon, TrackPane{UUID: "b", Terminal: "term_b", Pane: "w1:p2"})
	if r := next("b tracked, herdr's answer unchanged"); r.UUID != "b" || r.Status != herdr.StatusIdle {
		t.Fatalf("b tracked: %+v, want b idle", r)
	}
	quiet("b reported")
	answer.Store(rows("working"))
	if r := next("a working"); r.UUID != "a" || r.Status != herdr.StatusWorking {
		t.Fatalf("a's row changed: %+v, want a working", r)
	}
	quiet("a's change reported")
}
