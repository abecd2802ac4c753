package tests

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/orcr-go/orcr/actors"
	"github.com/orcr-go/orcr/actors/provider"
	"github.com/orcr-go/orcr/herdr"
	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/sockettest"
	"github.com/orcr-go/orcr/store"
	"github.com/orcr-go/orcr/tests/poll"
)

// userSession starts the stand-in herdr server of user session name (as a user would:
// `herdr --session <name> server`) in h's herdr config dir and returns a client of its
// socket. Cleanup stops it.
func userSession(t *testing.T, h *home, xdg, name string) *herdr.Remote {
	t.Helper()
	cmd := exec.Command(sockettest.BuildBinaries(t).HerdrBin, "--session", name, "server")
	cmd.Env = h.env
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go cmd.Wait()
	t.Cleanup(func() {
		stop := exec.Command(sockettest.BuildBinaries(t).HerdrBin, "session", "stop", name)
		stop.Env = h.env
		stop.Run()
		cmd.Process.Kill()
	})
	sock := filepath.Join(xdg, "herdr", "sessions", name, "herdr.sock")
	r := herdr.NewRemote(sock)
	poll.Eventually(t, 10*time.Second, "user session "+name+" answers", func() bool {
		_, err := r.Ping(context.Background())
		return err == nil
	})
	return r
}

// userAgent starts a mock agent in a new workspace of a user session, the way a person
// starts claude in a pane by hand, and returns its pane and terminal ids.
func userAgent(t *testing.T, r *herdr.Remote, label string, env map[string]string) (pane, terminal string) {
	t.Helper()
	ctx := context.Background()
	ws, err := r.WorkspaceCreate(ctx, label, "")
	if err != nil {
		t.Fatal(err)
	}
	full := map[string]string{"ORCR_AGENT_DATA_DIR": t.TempDir()}
	for k, v := range env {
		full[k] = v
	}
	_, pane, err = r.LayoutApply(ctx, ws.Workspace.WorkspaceID, label, []string{sockettest.BuildBinaries(t).MockAgent}, "", label, full)
	if err != nil {
		t.Fatal(err)
	}
	p, err := r.PaneGet(ctx, pane)
	if err != nil {
		t.Fatal(err)
	}
	return pane, p.TerminalID
}

func unmanagedRows(t *testing.T, c *socketapi.Client) map[string]api.AgentRow {
	t.Helper()
	res, err := c.Ls(context.Background(), api.LsRequest{Unmanaged: true})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]api.AgentRow{}
	for _, r := range res.Agents {
		out[r.Path] = r
	}
	return out
}

// Acceptance 6 of issue 10 (docs/lifecycle.md §13.5, §5.2, docs/decisions.md D11): mock
// agents started by hand in two user sessions are discovered under
// unmanaged/<session>/<pane>, kept current as herdr's status changes, take a send as
// an external turn that completes, need --force to be killed, and end (no exit
// reason) when their terminal goes — one closed behind orcr's back, a whole session
// stopped.
func TestUnmanagedDiscovery(t *testing.T) {
	t.Parallel() // mostly waits (turn windows, TUIs booting): see main_test.go
	h, sock := herdrHome(t, `{"timings": {"gc_tick": "200ms"}}`)
	xdg := strings.TrimSuffix(sock, filepath.Join("/herdr", "sessions", "orcr", "herdr.sock"))
	if r := h.run("server", "start"); r.exit != 0 {
		t.Fatalf("server start: %d %s %s", r.exit, r.stdout, r.stderr)
	}
	c := &socketapi.Client{Socket: filepath.Join(h.dir, "orcr.sock"), Timeout: 30 * time.Second}
	work := userSession(t, h, xdg, "work")
	play := userSession(t, h, xdg, "Play.2")
	workPane, _ := userAgent(t, work, "api", nil)
	slowPane, _ := userAgent(t, work, "slow", map[string]string{"ORCR_MOCK_SESSION_ID": "slow_session"})
	playPane, _ := userAgent(t, play, "web", nil)
	// A plain shell is not an agent: never discovered.
	if _, err := work.WorkspaceCreate(context.Background(), "shell", ""); err != nil {
		t.Fatal(err)
	}
	slug := func(s string) string { return strings.ReplaceAll(s, ":", "_") }
	apiPath := "unmanaged/work/" + slug(workPane)
	slowPath := "unmanaged/work/" + slug(slowPane)
	webPath := "unmanaged/play_2/" + slug(playPane)

	var rows map[string]api.AgentRow
	poll.Eventually(t, 20*time.Second, "three unmanaged agents discovered", func() bool {
		rows = unmanagedRows(t, c)
		return len(rows) == 3 && rows[apiPath].Status == api.StatusIdle && rows[webPath].Status == api.StatusIdle &&
			rows[slowPath].Status == api.StatusIdle
	})
	for p, r := range rows {
		if r.Managed || deref(r.Agent) != "mock" || deref(r.HerdrSession) == "orcr" {
			t.Errorf("%s: %+v", p, r)
		}
	}
	// ls shows both kinds unless told (docs/cli.md §5.8).
	if res, err := c.Ls(context.Background(), api.LsRequest{}); err != nil || len(res.Agents) != 3 {
		t.Errorf("default ls: %d rows, %v", len(res.Agents), err)
	}
	if res, err := c.Ls(context.Background(), api.LsRequest{Managed: true}); err != nil || len(res.Agents) != 0 {
		t.Errorf("ls --managed: %d rows, %v", len(res.Agents), err)
	}

	// attach uses the agent's own session (docs/lifecycle.md §11.6).
	at, err := c.AttachPrepare(context.Background(), api.AttachPrepareRequest{Target: webPath})
	if err != nil {
		t.Fatalf("attach prepare: %v", err)
	}
	if cmd := strings.Join(at.Command, " "); !strings.Contains(cmd, "--session Play.2") || !strings.Contains(cmd, playPane) {
		t.Errorf("attach command %q, want session Play.2 and pane %s", cmd, playPane)
	}
	if _, err := c.AttachRelease(context.Background(), at.LeaseID); err != nil {
		t.Fatal(err)
	}

	// Kept current: input typed straight into the pane (not through orcr) makes herdr
	// report working, then idle.
	if err := work.Deliver(context.Background(), slowPane, "turn_ms=3000 say=typed", 200*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	poll.Eventually(t, 15*time.Second, "the slow agent shows working", func() bool {
		return unmanagedRows(t, c)[slowPath].Status == api.StatusWorking
	})
	poll.Eventually(t, 20*time.Second, "the slow agent idle again", func() bool {
		return unmanagedRows(t, c)[slowPath].Status == api.StatusIdle
	})

	// A send through orcr is an external turn: working at once, and wait settles when
	// herdr's idle ends it.
	sres, err := c.Send(context.Background(), api.SendRequest{Target: apiPath, Prompt: "turn_ms=1500 say=hello"})
	if err != nil {
		t.Fatalf("send to an unmanaged agent: %v", err)
	}
	if sres.InputSeq != 1 || sres.DeliveredWhile != api.StatusIdle {
		t.Errorf("send result %+v", sres)
	}
	wres, err := c.Wait(context.Background(), api.WaitRequest{Targets: []string{apiPath}, Timeout: "40s"})
	if err != nil || wres.TimedOut || len(wres.Targets) != 1 || wres.Targets[0].Reason != "turn_complete" {
		t.Fatalf("wait after the send: %+v %v", wres, err)
	}
	rd, err := work.Read(context.Background(), workPane, "recent", 40)
	if err != nil || !strings.Contains(rd.Text, "hello") {
		t.Errorf("the pane does not show the answer: %q %v", rd.Text, err)
	}

	// kill needs --force for an unmanaged agent.
	kres, err := c.Kill(context.Background(), api.KillRequest{Targets: []string{apiPath}})
	if err != nil || len(kres.Killed) != 0 || len(kres.Skipped) != 1 || kres.Skipped[0].Reason != "force_required" {
		t.Fatalf("kill without force: %+v %v", kres, err)
	}
	kres, err = c.Kill(context.Background(), api.KillRequest{Targets: []string{apiPath}, Force: true})
	if err != nil || len(kres.Killed) != 1 {
		t.Fatalf("kill --force: %+v %v", kres, err)
	}
	if _, err := work.PaneGet(context.Background(), workPane); err == nil {
		t.Error("the killed agent's pane is still there")
	}

	// A pane closed behind orcr's back ends its row, with no exit reason.
	if err := work.Close(context.Background(), slowPane); err != nil {
		t.Fatal(err)
	}
	poll.Eventually(t, 15*time.Second, "the closed pane's row ended", func() bool {
		_, ok := unmanagedRows(t, c)[slowPath]
		return !ok
	})
	ended := lsAll(t, c, slowPath)
	if ended.Status != api.StatusEnded || ended.ExitReason != nil {
		t.Errorf("closed pane's row: %+v", ended)
	}
	if k := lsAll(t, c, apiPath); k.Status != api.StatusEnded || deref(k.ExitReason) != "killed" {
		t.Errorf("killed row: %+v", k)
	}

	// A whole user session stopped: its agents end.
	stop := exec.Command(sockettest.BuildBinaries(t).HerdrBin, "session", "stop", "Play.2")
	stop.Env = h.env
	if out, err := stop.CombinedOutput(); err != nil {
		t.Fatalf("session stop: %v %s", err, out)
	}
	poll.Eventually(t, 15*time.Second, "the stopped session's agent ended", func() bool {
		return len(unmanagedRows(t, c)) == 0
	})
	if s := lsAll(t, c, webPath); s.Status != api.StatusEnded || s.ExitReason != nil {
		t.Errorf("stopped session's row: %+v", s)
	}
	logHas(t, h, "reconcile: unmanaged agent discovered")
}

// lsAll finds path among every row, ended ones included (the newest row of the path).
func lsAll(t *testing.T, c *socketapi.Client, path string) api.AgentRow {
	t.Helper()
	res, err := c.Ls(context.Background(), api.LsRequest{All: true, Pattern: "/" + path})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Agents) == 0 {
		t.Fatalf("no row at %s", path)
	}
	return res.Agents[len(res.Agents)-1]
}

func logHas(t *testing.T, h *home, line string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(h.dir, "logs", "server.log"))
	if err != nil || !strings.Contains(string(b), line) {
		t.Errorf("server log lacks %q (%v)", line, err)
	}
}

// handStarted is a server on the stand-in with one mock agent a user started by hand in
// their session "work", with a conversation herdr knows (one turn typed into it by hand,
// say=<word>), discovered idle.
type handStarted struct {
	h              *home
	c              *socketapi.Client
	work           *herdr.Remote
	pane, terminal string
	row            api.AgentRow // the unmanaged row
}

func startHandStarted(t *testing.T, config, word string) handStarted {
	t.Helper()
	h, sock := herdrHome(t, config)
	xdg := strings.TrimSuffix(sock, filepath.Join("/herdr", "sessions", "orcr", "herdr.sock"))
	if r := h.run("server", "start"); r.exit != 0 {
		t.Fatalf("server start: %d %s %s", r.exit, r.stdout, r.stderr)
	}
	f := handStarted{h: h, c: &socketapi.Client{Socket: filepath.Join(h.dir, "orcr.sock"), Timeout: 60 * time.Second}}
	f.work = userSession(t, h, xdg, "work")
	f.pane, f.terminal = userAgent(t, f.work, "api", map[string]string{"ORCR_MOCK_SESSION_SOURCE": "herdr:mock"})
	from := "unmanaged/work/" + strings.ReplaceAll(f.pane, ":", "_")
	if err := f.work.Deliver(context.Background(), f.pane, "say="+word, 200*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	poll.Eventually(t, 20*time.Second, "the agent discovered idle", func() bool {
		f.row = unmanagedRows(t, f.c)[from]
		return f.row.Status == api.StatusIdle
	})
	return f
}

// history is the texts of an agent's transcript entries, joined by "|".
func history(t *testing.T, c *socketapi.Client, target string) string {
	t.Helper()
	logs, err := c.Logs(context.Background(), api.LogsRequest{Target: target})
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, e := range logs.Entries {
		texts = append(texts, e.Text)
	}
	return strings.Join(texts, "|")
}

// Acceptance 6 of issue 10, second half (docs/lifecycle.md §11.9, docs/decisions.md
// D12): an agent started by hand in a user session, with a conversation herdr knows,
// becomes a managed agent: refused while it is not idle, for a managed agent or a taken
// path; then its pane leaves the user's session, a managed pane in orcr's session
// resumes its conversation (the history is in its logs), it completes turns and the GC
// parks it.
func TestAdoptUnmanagedAgent(t *testing.T) {
	t.Parallel() // mostly waits (turn windows, TUIs booting): see main_test.go
	// A turn typed by hand before orcr knows the agent: the conversation to carry over.
	f := startHandStarted(t, `{"timings": {"gc_tick": "200ms", "idle_after": "4s"}}`, "first")
	ctx, c, h, work, pane, from := context.Background(), f.c, f.h, f.work, f.pane, f.row.Path

	wantErr := func(what string, err error, code api.Code, reason string) {
		t.Helper()
		var we *api.Error
		if !errors.As(err, &we) || we.Code != code || (reason != "" && fmt.Sprint(we.Details["reason"]) != reason) {
			t.Errorf("%s: got %v, want %s %s", what, err, code, reason)
		}
	}
	_, err := c.Adopt(ctx, api.AdoptRequest{Target: from})
	wantErr("no path", err, api.CodeInvalidRequest, "path_required")
	if _, err := c.Run(ctx, api.RunRequest{Path: "team/other", Agent: "mock"}); err != nil {
		t.Fatal(err)
	}
	_, err = c.Adopt(ctx, api.AdoptRequest{Target: "team/other", Path: "team/x"})
	wantErr("a managed agent", err, api.CodeInvalidRequest, "not_unmanaged")
	_, err = c.Adopt(ctx, api.AdoptRequest{Target: from, Path: "team/other"})
	wantErr("a taken path", err, api.CodeStateConflict, "path_in_use")
	_, err = c.Adopt(ctx, api.AdoptRequest{Target: from, Path: "unmanaged/x"})
	wantErr("a reserved path", err, api.CodeInvalidRequest, "reserved_name")
	if _, err := c.Send(ctx, api.SendRequest{Target: from, Prompt: "turn_ms=4000 say=busy"}); err != nil {
		t.Fatal(err)
	}
	_, err = c.Adopt(ctx, api.AdoptRequest{Target: from, Path: "team/api"})
	wantErr("a working agent", err, api.CodeStateConflict, "")
	if w, err := c.Wait(ctx, api.WaitRequest{Targets: []string{from}, Timeout: "40s"}); err != nil || !w.AllOK {
		t.Fatalf("wait for the busy turn: %+v %v", w, err)
	}

	res, err := c.Adopt(ctx, api.AdoptRequest{Target: from, Path: "team/api"})
	if err != nil {
		t.Fatalf("adopt: %v", err)
	}
	if !res.Agent.Managed || res.Agent.Path != "team/api" || res.FromPath != from || res.Resume == "" {
		t.Errorf("adopt result %+v", res)
	}
	if _, err := work.PaneGet(ctx, pane); err == nil {
		t.Error("the user's pane is still open after the adoption")
	}
	w, err := c.Wait(ctx, api.WaitRequest{Targets: []string{"team/api"}, Timeout: "40s"})
	if err != nil || !w.AllOK {
		logTail(t, filepath.Join(h.dir, "logs", "server.log"), 80)
		st := h.run("server", "status", "--json")
		t.Logf("status: %s", st.stdout)
		ls := h.run("agent", "ls", "--all", "--json")
		t.Logf("ls: %s", ls.stdout)
		sl := exec.Command(sockettest.BuildBinaries(t).HerdrBin, "session", "list", "--json")
		sl.Env = h.env
		out, _ := sl.CombinedOutput()
		t.Logf("sessions: %s", out)
		t.Fatalf("wait for the adopted agent: %+v %v", w, err)
	}
	row := lsAll(t, c, "team/api")
	if row.UUID != res.Agent.UUID || !row.Managed || deref(row.HerdrSession) != "orcr" {
		t.Errorf("adopted row %+v", row)
	}
	// The resumed TUI writes its transcript as it starts, which may be just after the
	// spawn settled idle.
	poll.Eventually(t, 10*time.Second, "the adopted agent's history has the earlier turns", func() bool {
		logs, err := c.Logs(ctx, api.LogsRequest{Target: "team/api"})
		if err != nil {
			return false
		}
		all := ""
		for _, e := range logs.Entries {
			all += e.Text + "|"
		}
		return strings.Contains(all, "first") && strings.Contains(all, "busy")
	})
	if _, err := c.Send(ctx, api.SendRequest{Target: "team/api", Prompt: "say=second"}); err != nil {
		t.Fatal(err)
	}
	if w, err := c.Wait(ctx, api.WaitRequest{Targets: []string{"team/api"}, Timeout: "40s"}); err != nil || !w.AllOK {
		t.Fatalf("wait for a managed turn: %+v %v", w, err)
	}
	last, err := c.Logs(ctx, api.LogsRequest{Target: "team/api", LastResponse: true})
	if err != nil || last.Response == nil || !strings.Contains(last.Response.Text, "second") {
		t.Errorf("last response %+v %v", last.Response, err)
	}
	if n := len(unmanagedRows(t, c)); n != 0 {
		t.Errorf("%d unmanaged rows after the adoption, want 0", n)
	}
	poll.Eventually(t, 30*time.Second, "the GC parks the adopted agent", func() bool {
		return lsAll(t, c, "team/api").Status == api.StatusParked
	})
}

// An adoption cut off by a crash after its close intent (docs/lifecycle.md §11.8) is
// finished at restart: the user's pane is closed and the row becomes the managed agent
// its launch.json describes, which then resumes and completes turns. The crash is forged
// on a stopped server: the intent and the launch.json written, the pane still open.
func TestAdoptionCutOffByACrashIsFinished(t *testing.T) {
	t.Parallel()
	f := startHandStarted(t, `{"timings": {"gc_tick": "200ms"}}`, "before")
	ctx, c, h, work, pane, terminal, row := context.Background(), f.c, f.h, f.work, f.pane, f.terminal, f.row
	if r := h.run("server", "stop"); r.exit != 0 {
		t.Fatalf("server stop: %d %s", r.exit, r.stderr)
	}
	agents, err := work.AgentList(ctx)
	if err != nil || len(agents) != 1 || agents[0].AgentSession == nil {
		t.Fatalf("agent list %+v %v", agents, err)
	}
	transcript := agents[0].AgentSession.Value
	path := "team/api"
	l := &actors.Launch{Version: 1, UUID: row.UUID, Path: path, Provider: "mock",
		Argv: []string{sockettest.BuildBinaries(t).MockAgent, provider.MockSkipPermissionsFlag, provider.MockResumeFlag, transcript}, GCMode: "auto",
		LaunchToken: "tok", EffectivePath: path, Env: map[string]string{
			"ORCR_AGENT_DATA_DIR": actors.AgentDataDir(h.dir, path, row.UUID), "ORCR_ID": row.UUID, "ORCR_PATH": path}}
	if err := actors.WriteLaunch(actors.AgentDataDir(h.dir, path, row.UUID), l); err != nil {
		t.Fatal(err)
	}
	forgeOnStoppedServer(t, h, func(tx *store.Tx) (any, error) {
		_, _, err := tx.Intent(row.UUID, &api.AgentCloseRequested{Target: terminal, Reason: "adopted", Path: path})
		return nil, err
	})
	poll.Eventually(t, 20*time.Second, "recovery finishes the adoption", func() bool {
		res, err := c.Ls(ctx, api.LsRequest{Pattern: "/" + path})
		return err == nil && len(res.Agents) == 1
	})
	w, err := c.Wait(ctx, api.WaitRequest{Targets: []string{path}, Timeout: "40s"})
	if err != nil || !w.AllOK || w.Targets[0].UUID != row.UUID {
		t.Fatalf("wait for the recovered adoption: %+v %v", w, err)
	}
	if _, err := work.PaneGet(ctx, pane); err == nil {
		t.Error("the user's pane is still open after recovery")
	}
	if _, err := c.Send(ctx, api.SendRequest{Target: path, Prompt: "say=after"}); err != nil {
		t.Fatal(err)
	}
	if w, err := c.Wait(ctx, api.WaitRequest{Targets: []string{path}, Timeout: "40s"}); err != nil || !w.AllOK {
		t.Fatalf("wait for a turn: %+v %v", w, err)
	}
	if all := history(t, c, path); !strings.Contains(all, "before") || !strings.Contains(all, "after") {
		t.Errorf("history %q", all)
	}
	for _, a := range unmanagedRows(t, c) {
		t.Errorf("an unmanaged row is left: %+v", a)
	}
	logHas(t, h, "reconcile: an adoption cut off by a crash finished")
}

// Issue 33 #3 (docs/lifecycle.md §13.5): two orcr homes on one herdr, each with its own
// session. The second home's discovery leaves the first home's managed agent alone — not
// listed, so it can be neither typed into nor killed nor adopted — while a pane started
// by hand in the first home's session is an unmanaged agent to it like any other. The
// hand-started pane is read in the same agent.list (one transaction per session) as the
// managed one, so seeing it proves the managed one was passed over.
func TestTwoHomesLeaveEachOthersAgentsAlone(t *testing.T) {
	t.Parallel() // mostly waits (TUIs booting): see main_test.go
	a, sock := herdrHome(t, `{"timings": {"gc_tick": "200ms"}}`)
	xdg := strings.TrimSuffix(sock, filepath.Join("/herdr", "sessions", "orcr", "herdr.sock"))
	b := newHome(t, "ORCR_HERDR_BIN="+sockettest.BuildBinaries(t).HerdrBin, "ORCR_ALLOW_MOCK_PROVIDER=1",
		"ORCR_MOCK_AGENT_BIN="+sockettest.BuildBinaries(t).MockAgent, "XDG_CONFIG_HOME="+xdg,
		"ORCR_ID=", "ORCR_PATH=", "ORCR_HERDR_SESSION=second")
	t.Cleanup(func() {
		stop := exec.Command(sockettest.BuildBinaries(t).HerdrBin, "session", "stop", "second")
		stop.Env = b.env
		stop.Run()
	})
	for _, h := range []*home{a, b} {
		if r := h.run("server", "start"); r.exit != 0 {
			t.Fatalf("server start: %d %s %s", r.exit, r.stdout, r.stderr)
		}
	}
	if r := a.run("agent", "run", "-a", "mock", "--path", "team/a"); r.exit != 0 {
		t.Fatalf("agent run: %d %s %s", r.exit, r.stdout, r.stderr)
	}
	ca := &socketapi.Client{Socket: filepath.Join(a.dir, "orcr.sock"), Timeout: 30 * time.Second}
	if w, err := ca.Wait(context.Background(), api.WaitRequest{Targets: []string{"team/a"}, Timeout: "40s"}); err != nil || !w.AllOK {
		t.Fatalf("wait for the first home's agent: %+v %v", w, err)
	}
	// A pane started by hand in the first home's session.
	owned := herdr.NewRemote(sock)
	handPane, _ := userAgent(t, owned, "hand", nil)
	handPath := "unmanaged/orcr/" + strings.ReplaceAll(handPane, ":", "_")

	cb := &socketapi.Client{Socket: filepath.Join(b.dir, "orcr.sock"), Timeout: 30 * time.Second}
	poll.Eventually(t, 20*time.Second, "the second home discovers the hand-started pane", func() bool {
		_, ok := unmanagedRows(t, cb)[handPath]
		return ok
	})
	rows := unmanagedRows(t, cb)
	if len(rows) != 1 {
		t.Errorf("the second home lists %d unmanaged agents, want only %s: %v", len(rows), handPath, rows)
	}
	// Through the CLI: the second home's ls, send and kill never reach the first home's agent.
	ls := b.run("agent", "ls", "--json")
	if ls.exit != 0 || !strings.Contains(ls.stdout, handPath) || strings.Contains(ls.stdout, "team/a") ||
		strings.Count(ls.stdout, `"path"`) != 1 {
		t.Errorf("second home's agent ls: %d %s %s", ls.exit, ls.stdout, ls.stderr)
	}
	// The path the first home's agent would have as the second home's unmanaged agent.
	mine := lsAll(t, ca, "team/a")
	as := "unmanaged/orcr/" + strings.ReplaceAll(deref(mine.PaneID), ":", "_")
	for _, verb := range [][]string{{"agent", "send", as, "say=intruder"}, {"agent", "kill", "--force", as},
		{"agent", "adopt", as, "--path", "stolen/a"}} {
		if r := b.run(verb...); r.exit == 0 || !strings.Contains(r.stderr, "not_found") {
			t.Errorf("orcr %v in the second home: %d %s %s", verb, r.exit, r.stdout, r.stderr)
		}
	}
	st := a.run("agent", "ls", "--json")
	if st.exit != 0 || !strings.Contains(st.stdout, `"team/a"`) || !strings.Contains(st.stdout, `"idle"`) {
		t.Errorf("first home's agent after the second home's passes: %s %s", st.stdout, st.stderr)
	}
	if r := a.run("agent", "send", "team/a", "say=still_mine"); r.exit != 0 {
		t.Fatalf("send to the first home's agent: %d %s %s", r.exit, r.stdout, r.stderr)
	}
	if r := a.run("agent", "wait", "team/a", "--timeout", "40s"); r.exit != 0 {
		t.Errorf("wait for the first home's agent: %d %s %s", r.exit, r.stdout, r.stderr)
	}
}
