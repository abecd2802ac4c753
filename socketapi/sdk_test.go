package socketapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/socketapi/sockettest"
	"github.com/orcr-go/orcr/tests/poll"
)

// fastTurns shortens the mock provider's completion timings (docs/providers.md §2.1) so
// a mock turn settles in about a second instead of two or three.
const fastTurns = `{"integrations":{"mock":{"fast_turn_grace_ms":500,"idle_stable_ms":500}}}`

// newSDK starts a server with the herdr stand-in and the mock provider, and returns a
// client of it whose every frame is checked against the schema.
func newSDK(t *testing.T) (*sockettest.Server, *socketapi.Client) {
	t.Helper()
	srv := sockettest.NewServer(t, sockettest.WithHerdr(t), sockettest.WithConfig(fastTurns))
	return srv, srv.Client(t)
}

// ctxFor returns t's context bounded by d.
func ctxFor(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), d)
	t.Cleanup(cancel)
	return ctx
}

// runMock runs a mock agent at path with prompt.
func runMock(t *testing.T, c *socketapi.Client, path, prompt string) api.RunAgent {
	t.Helper()
	res, err := c.Run(ctxFor(t, 10*time.Second), api.RunRequest{Path: path, Agent: "mock", Prompt: prompt})
	if err != nil {
		t.Fatalf("Run(%s): %v", path, err)
	}
	return res.Agent
}

// settle waits until every target settled ok.
func settle(t *testing.T, c *socketapi.Client, targets ...string) api.WaitResult {
	t.Helper()
	res, err := c.Wait(ctxFor(t, 40*time.Second), api.WaitRequest{Targets: targets, Timeout: "30s"})
	if err != nil {
		t.Fatalf("Wait(%v): %v", targets, err)
	}
	if !res.AllOK || res.TimedOut || len(res.Targets) != len(targets) {
		t.Fatalf("Wait(%v): got %+v, want %d targets settled ok", targets, res, len(targets))
	}
	return res
}

// lsPaths lists the paths of the rows req matches.
func lsPaths(t *testing.T, c *socketapi.Client, req api.LsRequest) []string {
	t.Helper()
	res, err := c.Ls(ctxFor(t, 10*time.Second), req)
	if err != nil {
		t.Fatalf("Ls(%+v): %v", req, err)
	}
	paths := []string{}
	for _, a := range res.Agents {
		paths = append(paths, a.Path)
	}
	return paths
}

// row returns the one row of uuid, ended ones included.
func row(t *testing.T, c *socketapi.Client, uuid string) api.AgentRow {
	t.Helper()
	res, err := c.Ls(ctxFor(t, 10*time.Second), api.LsRequest{Pattern: uuid, All: true})
	if err != nil || len(res.Agents) != 1 {
		t.Fatalf("Ls(%s): got %+v, %v; want one row", uuid, res.Agents, err)
	}
	return res.Agents[0]
}

// endedRow polls the row of uuid until it ended.
func endedRow(t *testing.T, c *socketapi.Client, uuid string) api.AgentRow {
	t.Helper()
	var r api.AgentRow
	poll.Eventually(t, 20*time.Second, uuid+" to end", func() bool {
		r = row(t, c, uuid)
		return r.Status == api.StatusEnded
	}, func() string { return fmt.Sprintf("%s is %s", r.Path, r.Status) })
	return r
}

// protoErr returns err as a protocol error, failing the test if it is not one.
func protoErr(t *testing.T, what string, err error) *api.Error {
	t.Helper()
	var e *api.Error
	if !errors.As(err, &e) {
		t.Fatalf("%s: got %v (%T), want a *socketapi.Error", what, err, err)
	}
	return e
}

// noConns waits until the server holds no client connection.
func noConns(t *testing.T, srv *sockettest.Server) {
	t.Helper()
	var conns []string
	poll.Eventually(t, 5*time.Second, "the server to hold no client connection", func() bool {
		conns = nil
		for _, id := range srv.ActorIDs() {
			if strings.HasPrefix(id, "conn/") {
				conns = append(conns, id)
			}
		}
		return len(conns) == 0
	}, func() string { return fmt.Sprintf("still %v", conns) })
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// The server methods and the generic calls: Handshake, Status, Schema, Snapshot,
// Invoke, InvokeRaw and Call.
func TestSDKServerMethods(t *testing.T) {
	t.Parallel()
	srv, c := newSDK(t)
	ctx := ctxFor(t, 30*time.Second)
	paths := config.NewPaths(srv.Home)

	h, err := c.Handshake(ctx)
	if err != nil {
		t.Fatalf("Handshake: %v", err)
	}
	if want := (api.Handshake{PID: os.Getpid(), Protocol: 1, Store: paths.DB, Ready: true}); h != want {
		t.Errorf("Handshake: got %+v, want %+v", h, want)
	}

	st, err := c.Status(ctx)
	if err != nil {
		t.Fatalf("Status: %v", err)
	}
	if st.PID != os.Getpid() || st.Protocol != 1 || st.Socket != srv.Socket() || st.Store != paths.DB {
		t.Errorf("Status: got pid %d protocol %d socket %q store %q, want %d 1 %q %q",
			st.PID, st.Protocol, st.Socket, st.Store, os.Getpid(), srv.Socket(), paths.DB)
	}
	if got := deref(st.Herdr.Bin); got != srv.Env["ORCR_HERDR_BIN"] || !st.Herdr.Reachable {
		t.Errorf("Status.Herdr: got bin %q reachable %v, want the stand-in %q", got, st.Herdr.Reachable, srv.Env["ORCR_HERDR_BIN"])
	}
	if st.Counts["live"] != 0 || st.Counts["queued"] != 0 {
		t.Errorf("Status.Counts of a fresh server: got %v, want no live or queued agent", st.Counts)
	}

	schema, err := c.Schema(ctx)
	if err != nil {
		t.Fatalf("Schema: %v", err)
	}
	var got, want any
	if err := json.Unmarshal(schema, &got); err != nil {
		t.Fatalf("Schema: not JSON: %v", err)
	}
	json.Unmarshal(api.SchemaJSON(), &want)
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Schema differs from socketapi.SchemaJSON (-want +got):\n%s", d)
	}
	var doc struct {
		Methods map[string]struct {
			Implemented bool `json:"implemented"`
		} `json:"methods"`
	}
	json.Unmarshal(schema, &doc)
	for _, m := range api.Methods {
		i := m.Info()
		if d, ok := doc.Methods[i.Name]; !ok || d.Implemented != i.Implemented() {
			t.Errorf("Schema: method %s: got %+v (present %v), want implemented %v", i.Name, d, ok, i.Implemented())
		}
	}

	empty, err := c.Snapshot(ctx)
	if err != nil {
		t.Fatalf("Snapshot: %v", err)
	}
	if len(empty.Agents)+len(empty.Loops)+len(empty.Queue) != 0 {
		t.Errorf("Snapshot of a fresh server: got %+v, want no agents, loops or queue", empty)
	}
	a := runMock(t, c, "srv/one", "say=hi")
	snap, err := c.Snapshot(ctx)
	if err != nil {
		t.Fatalf("Snapshot: %v", err)
	}
	if len(snap.Agents) != 1 || snap.Agents[0].UUID != a.UUID || snap.Agents[0].Path != "srv/one" {
		t.Errorf("Snapshot after a run: got agents %+v, want srv/one %s", snap.Agents, a.UUID)
	}
	if snap.SnapshotSeq <= empty.SnapshotSeq {
		t.Errorf("Snapshot seq: got %d after the run, %d before; want it to grow", snap.SnapshotSeq, empty.SnapshotSeq)
	}

	// Invoke, InvokeRaw and Call reach the same method as the typed Ls.
	typed, err := c.Ls(ctx, api.LsRequest{Pattern: "srv/*"})
	if err != nil {
		t.Fatalf("Ls: %v", err)
	}
	inv, err := socketapi.Invoke(ctx, c, api.AgentLs, api.LsRequest{Pattern: "srv/*"})
	if err != nil {
		t.Fatalf("Invoke(agent.ls): %v", err)
	}
	res, raw, err := socketapi.InvokeRaw(ctx, c, api.AgentLs, api.LsRequest{Pattern: "srv/*"})
	if err != nil {
		t.Fatalf("InvokeRaw(agent.ls): %v", err)
	}
	var fromRaw api.LsResult
	if err := json.Unmarshal(raw, &fromRaw); err != nil {
		t.Fatalf("InvokeRaw(agent.ls): raw result is not an LsResult: %v", err)
	}
	var called api.LsResult
	if err := c.Call(ctx, "agent.ls", map[string]any{"pattern": "srv/*"}, &called); err != nil {
		t.Fatalf("Call(agent.ls): %v", err)
	}
	if len(typed.Agents) != 1 || typed.Agents[0].UUID != a.UUID {
		t.Fatalf("Ls(srv/*): got %+v, want srv/one", typed.Agents)
	}
	// The status may move between the calls; the rows are the same agent.
	for name, r := range map[string]api.LsResult{"Invoke": inv, "InvokeRaw": res, "InvokeRaw raw": fromRaw, "Call": called} {
		if len(r.Agents) != 1 || r.Agents[0].UUID != a.UUID || r.Agents[0].Path != "srv/one" {
			t.Errorf("%s(agent.ls srv/*): got %+v, want the row of srv/one", name, r.Agents)
		}
	}
}

// The agent verbs end to end on the mock provider: Run, Wait, Logs, Send, Ask, Ls and
// Kill with and without Preview.
func TestSDKAgentVerbs(t *testing.T) {
	t.Parallel()
	srv, c := newSDK(t)
	ctx := ctxFor(t, 60*time.Second)

	type askOut struct {
		res api.AskResult
		err error
	}
	asked := make(chan askOut, 1)
	go func() {
		res, err := c.Ask(ctx, api.AskRequest{Path: "v/asker", Agent: "mock", Prompt: "say=answer"})
		asked <- askOut{res, err}
	}()

	run, err := c.Run(ctx, api.RunRequest{Path: "v/one", Agent: "mock", Prompt: "say=first"})
	if err != nil {
		t.Fatalf("Run(v/one): %v", err)
	}
	one := run.Agent
	if one.Path != "v/one" || one.Agent != "mock" || !one.Managed || run.Permissions != "bypass" ||
		one.DataDir != filepath.Join(srv.Home, "data", "v", "one", one.UUID) || !one.Status.In(api.StatusQueued, api.StatusStarting) {
		t.Errorf("Run(v/one): got %+v (permissions %q)", one, run.Permissions)
	}
	two := runMock(t, c, "v/two", "say=second")

	w := settle(t, c, "v/one", "v/two")
	for i, want := range []api.RunAgent{one, two} {
		got := w.Targets[i]
		next := api.WaitNext{Kind: "logs_last_response", Command: "orcr agent logs " + want.Path + " --last-response"}
		if got.UUID != want.UUID || got.Path != want.Path || got.Status != api.StatusIdle || !got.OK ||
			got.Reason != "turn_complete" || got.Next != next {
			t.Errorf("Wait target %d: got %+v, want %s idle turn_complete, next %+v", i, got, want.Path, next)
		}
	}
	if w.DecisionSeq <= 0 {
		t.Errorf("Wait: decision_seq %d, want > 0", w.DecisionSeq)
	}

	last, err := c.Logs(ctx, api.LogsRequest{Target: "v/one", LastResponse: true})
	if err != nil {
		t.Fatalf("Logs(v/one, last response): %v", err)
	}
	if last.UUID != one.UUID || last.Resolved != "active" || last.Response == nil ||
		*last.Response != (api.Response{Text: "first\nDONE", Final: true}) || last.Entries != nil {
		t.Errorf("Logs(v/one, last response): got %+v", last)
	}

	sent, err := c.Send(ctx, api.SendRequest{Target: "v/one", Prompt: "say=again"})
	if err != nil {
		t.Fatalf("Send(v/one): %v", err)
	}
	if want := (api.SendResult{UUID: one.UUID, Path: "v/one", DeliveredWhile: api.StatusIdle, InputSeq: 2}); sent != want {
		t.Errorf("Send(v/one): got %+v, want %+v", sent, want)
	}
	settle(t, c, one.UUID)
	logs, err := c.Logs(ctx, api.LogsRequest{Target: "v/one"})
	if err != nil {
		t.Fatalf("Logs(v/one): %v", err)
	}
	var entries []string
	for _, e := range logs.Entries {
		entries = append(entries, e.Role+"/"+e.Kind+": "+e.Text)
	}
	wantEntries := []string{"user/text: say=first", "assistant/text: first\nDONE", "user/text: say=again", "assistant/text: again\nDONE"}
	if d := cmp.Diff(wantEntries, entries); d != "" {
		t.Errorf("Logs(v/one) entries (-want +got):\n%s", d)
	}
	tail := 1
	tailed, err := c.Logs(ctx, api.LogsRequest{Target: "v/one", Tail: &tail})
	if err != nil || len(tailed.Entries) != 1 || tailed.Entries[0].Text != "again\nDONE" {
		t.Errorf("Logs(v/one, tail 1): got %+v, %v; want the last answer", tailed.Entries, err)
	}

	var ask askOut
	select {
	case ask = <-asked:
	case <-ctx.Done():
		t.Fatal("Ask(v/asker) did not answer")
	}
	if ask.err != nil {
		t.Fatalf("Ask(v/asker): %v", ask.err)
	}
	if ask.res.Path != "v/asker" || ask.res.Response != (api.Response{Text: "answer\nDONE", Final: true}) {
		t.Errorf("Ask(v/asker): got %+v, want answer\\nDONE", ask.res)
	}
	// An ask ends its agent (gc immediate) once the answer is in.
	if r := endedRow(t, c, ask.res.UUID); deref(r.ExitReason) != "completed" {
		t.Errorf("after Ask: v/asker ended %q, want completed", deref(r.ExitReason))
	}

	if got, want := lsPaths(t, c, api.LsRequest{Pattern: "v/*"}), []string{"v/one", "v/two"}; !slices.Equal(got, want) {
		t.Errorf("Ls(v/*): got %q, want %q", got, want)
	}
	if got, want := lsPaths(t, c, api.LsRequest{Pattern: "v/*", All: true}), []string{"v/asker", "v/one", "v/two"}; !slices.Equal(got, want) {
		t.Errorf("Ls(v/*, all): got %q, want %q", got, want)
	}
	if got := lsPaths(t, c, api.LsRequest{Pattern: "v/*", Status: "ended", All: true}); !slices.Equal(got, []string{"v/asker"}) {
		t.Errorf("Ls(v/*, status ended): got %q, want [v/asker]", got)
	}

	preview, err := c.Kill(ctx, api.KillRequest{Targets: []string{"v/*"}, Preview: true})
	if err != nil {
		t.Fatalf("Kill(v/*, preview): %v", err)
	}
	wantPreview := []api.PreviewTarget{
		{UUID: one.UUID, Path: "v/one", Status: api.StatusIdle, Managed: true},
		{UUID: two.UUID, Path: "v/two", Status: api.StatusIdle, Managed: true},
	}
	if d := cmp.Diff(wantPreview, preview.Targets); !preview.Preview || d != "" || len(preview.Killed) != 0 {
		t.Errorf("Kill(v/*, preview): got %+v; targets (-want +got):\n%s", preview, d)
	}
	if got := lsPaths(t, c, api.LsRequest{Pattern: "v/*"}); len(got) != 2 {
		t.Errorf("after a preview: got %q live, want both agents still live", got)
	}

	killed, err := c.Kill(ctx, api.KillRequest{Targets: []string{"v/two"}})
	if err != nil {
		t.Fatalf("Kill(v/two): %v", err)
	}
	if want := []api.KillRef{{UUID: two.UUID, Path: "v/two"}}; !cmp.Equal(killed.Killed, want) || len(killed.Skipped) != 0 || !killed.AllKilled || killed.Preview {
		t.Errorf("Kill(v/two): got %+v, want %+v killed", killed, want)
	}
	if r := row(t, c, two.UUID); r.Status != api.StatusEnded || deref(r.ExitReason) != "killed" {
		t.Errorf("after Kill(v/two): got %s exit %q, want ended killed", r.Status, deref(r.ExitReason))
	}
	if r := row(t, c, one.UUID); r.Status != api.StatusIdle {
		t.Errorf("after Kill(v/two): v/one is %s, want idle", r.Status)
	}
}

// The loop verbs through the SDK (docs/loops.md §2): create, ls, a manual run, pause and
// resume, rm; an unknown loop is not_found.
func TestSDKLoops(t *testing.T) {
	t.Parallel()
	_, c := newSDK(t)
	ctx := ctxFor(t, 30*time.Second)
	if _, err := c.LoopLogs(ctx, api.LoopLogsRequest{Name: "nosuch"}); !api.IsCode(err, api.CodeNotFound) {
		t.Errorf("logs of an unknown loop: %v", err)
	}
	created, err := c.LoopCreate(ctx, api.LoopCreateRequest{Name: "sdk", Cron: "0 0 1 1 *", Cwd: "/",
		Command: []string{"true"}})
	if err != nil || created.Loop.Name != "sdk" || created.Loop.NextFireAt == nil {
		t.Fatalf("create: %+v %v", created, err)
	}
	if _, err := c.LoopCreate(ctx, api.LoopCreateRequest{Name: "sdk", Cron: "* * * * *", Command: []string{"x"}}); !api.IsCode(err, api.CodeStateConflict) {
		t.Errorf("a second loop of the same name: %v", err)
	}
	past := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)
	if _, err := c.LoopCreate(ctx, api.LoopCreateRequest{Name: "late", OnceAt: past, Command: []string{"true"}}); !api.IsCode(err, api.CodeInvalidRequest) {
		t.Errorf("a once-at in the past: %v, want invalid_request", err)
	}
	runMock(t, c, "busy/a", "say=hi")
	if _, err := c.LoopCreate(ctx, api.LoopCreateRequest{Name: "busy", Cron: "* * * * *", Command: []string{"true"}}); !api.IsCode(err, api.CodeStateConflict) {
		t.Errorf("a loop named like the first segment of live agents: %v, want state_conflict path_in_use", err)
	}
	if up, err := c.LoopPause(ctx, "sdk", "nosuch"); err != nil || len(up.Updated) != 1 || up.Updated[0].Status != "paused" ||
		len(up.Skipped) != 1 || up.Skipped[0].Reason != "not_found" {
		t.Errorf("pause: %+v %v", up, err)
	}
	if up, err := c.LoopResume(ctx, "sdk"); err != nil || up.Updated[0].Status != "active" {
		t.Errorf("resume: %+v %v", up, err)
	}
	ls, err := c.LoopLs(ctx, api.LoopLsRequest{})
	if err != nil || len(ls.Loops) != 1 || ls.Loops[0].Status != "active" {
		t.Errorf("ls: %+v %v", ls, err)
	}
	rm, err := c.LoopRm(ctx, api.LoopRmRequest{Names: []string{"sdk"}})
	if err != nil || len(rm.Removed) != 1 || rm.Removed[0].Reason != "removed" {
		t.Errorf("rm: %+v %v", rm, err)
	}
}

// FollowLogs yields entries as the agent writes them and ends once it ended; Tail starts
// with the last n; breaking the loop or ending ctx stops it.
func TestSDKFollowLogs(t *testing.T) {
	t.Parallel()
	_, c := newSDK(t)
	c.FollowInterval = 50 * time.Millisecond
	ctx := ctxFor(t, 60*time.Second)

	live := runMock(t, c, "f/live", "say=one")
	idle := runMock(t, c, "f/idle", "say=hi")
	var got []string
	for e, err := range c.FollowLogs(ctx, api.LogsRequest{Target: "f/live"}) {
		if err != nil {
			t.Fatalf("FollowLogs(f/live): %v", err)
		}
		got = append(got, e.Role+": "+e.Text)
		switch len(got) {
		case 2: // the first turn is in: the next one arrives while we follow
			settle(t, c, live.UUID)
			if _, err := c.Send(ctx, api.SendRequest{Target: "f/live", Prompt: "say=two"}); err != nil {
				t.Fatalf("Send(f/live): %v", err)
			}
		case 4: // once the agent ended, the iteration ends
			if _, err := c.Kill(ctx, api.KillRequest{Targets: []string{live.UUID}}); err != nil {
				t.Fatalf("Kill(f/live): %v", err)
			}
		}
	}
	if ctx.Err() != nil {
		t.Fatalf("FollowLogs(f/live) ended by the deadline, not by the agent's end (got %q)", got)
	}
	want := []string{"user: say=one", "assistant: one\nDONE", "user: say=two", "assistant: two\nDONE"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("FollowLogs(f/live) (-want +got):\n%s", d)
	}
	if r := row(t, c, live.UUID); r.Status != api.StatusEnded {
		t.Errorf("after FollowLogs ended: f/live is %s, want ended", r.Status)
	}

	// On an ended agent Tail gives the last n at once, then the iteration ends.
	for _, n := range []int{1, 0} {
		var tailed []string
		for e, err := range c.FollowLogs(ctx, api.LogsRequest{Target: "f/live", Tail: &n}) {
			if err != nil {
				t.Fatalf("FollowLogs(f/live, tail %d): %v", n, err)
			}
			tailed = append(tailed, e.Role+": "+e.Text)
		}
		if want := want[len(want)-n:]; !slices.Equal(tailed, want) {
			t.Errorf("FollowLogs(f/live, tail %d): got %q, want %q", n, tailed, want)
		}
	}

	settle(t, c, idle.UUID)

	// Breaking the loop stops the iteration (the agent stays alive: nothing else would).
	n := 0
	for _, err := range c.FollowLogs(ctx, api.LogsRequest{Target: "f/idle"}) {
		if err != nil {
			t.Fatalf("FollowLogs(f/idle): %v", err)
		}
		n++
		break
	}
	if n != 1 {
		t.Errorf("FollowLogs(f/idle) then break: got %d entries, want 1", n)
	}

	// Ending ctx ends the iteration without an error.
	done := make(chan []error, 1)
	go func() {
		fctx, cancel := context.WithCancel(ctx)
		defer cancel()
		var errs []error
		for _, err := range c.FollowLogs(fctx, api.LogsRequest{Target: "f/idle"}) {
			if err != nil {
				errs = append(errs, err)
			}
			cancel()
		}
		done <- errs
	}()
	select {
	case errs := <-done:
		if len(errs) != 0 {
			t.Errorf("FollowLogs(f/idle) after cancel: got errors %v, want none", errs)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("FollowLogs(f/idle) went on after its ctx was canceled")
	}
	if r := row(t, c, idle.UUID); r.Status != api.StatusIdle {
		t.Errorf("f/idle is %s, want idle (the iteration must have ended by the cancel)", r.Status)
	}
}

// A scoped client composes names, paths, targets and patterns under its scope.
func TestSDKScope(t *testing.T) {
	t.Parallel()
	_, c := newSDK(t)
	ctx := ctxFor(t, 60*time.Second)

	team, err := c.Scope("team")
	if err != nil {
		t.Fatalf("Scope(team): %v", err)
	}
	if got := team.CurrentScope(); got != "team" {
		t.Errorf("Scope(team).CurrentScope: got %q", got)
	}
	created := map[string]api.RunAgent{}
	for _, req := range []api.RunRequest{{Name: "w1"}, {Path: "sub/w2"}, {Path: "/abs/w3"}} {
		req.Agent, req.Prompt = "mock", "say=hi"
		res, err := team.Run(ctx, req)
		if err != nil {
			t.Fatalf("team.Run(%+v): %v", req, err)
		}
		created[res.Agent.Path] = res.Agent
	}
	other := runMock(t, c, "other/x", "say=hi")
	for _, p := range []string{"team/w1", "team/sub/w2", "abs/w3"} {
		if _, ok := created[p]; !ok {
			t.Errorf("team.Run: created %v, want %s among them", slices.Collect(maps.Keys(created)), p)
		}
	}

	abs, err := team.Scope("/abs")
	if err != nil || abs.CurrentScope() != "abs" {
		t.Errorf("team.Scope(/abs): got %v, %v; want scope abs", scopeOf(abs), err)
	}
	if res, err := abs.Run(ctx, api.RunRequest{Name: "w4", Agent: "mock"}); err != nil || res.Agent.Path != "abs/w4" {
		t.Errorf("abs.Run(w4): got %q, %v; want abs/w4", res.Agent.Path, err)
	}
	if sub, err := team.Scope("sub"); err != nil || sub.CurrentScope() != "team/sub" {
		t.Errorf("team.Scope(sub): got %v, %v; want team/sub", scopeOf(sub), err)
	}
	if r, err := c.Scope("r_{rand}"); err != nil || !regexp.MustCompile(`^r_[a-z0-9]{5}$`).MatchString(r.CurrentScope()) {
		t.Errorf("Scope(r_{rand}): got %v, %v; want r_ and five random characters", scopeOf(r), err)
	}

	if got, want := lsPaths(t, team, api.LsRequest{}), []string{"team/sub/w2", "team/w1"}; !slices.Equal(got, want) {
		t.Errorf("team.Ls(empty pattern): got %q, want %q", got, want)
	}
	if got, want := lsPaths(t, team, api.LsRequest{Pattern: "*"}), []string{"team/w1"}; !slices.Equal(got, want) {
		t.Errorf("team.Ls(*): got %q, want %q", got, want)
	}
	if got, want := lsPaths(t, team, api.LsRequest{Pattern: other.UUID}), []string{"other/x"}; !slices.Equal(got, want) {
		t.Errorf("team.Ls(uuid of other/x): got %q, want %q (a uuid goes as it is)", got, want)
	}
	if got, want := lsPaths(t, team, api.LsRequest{Pattern: "/other/*"}), []string{"other/x"}; !slices.Equal(got, want) {
		t.Errorf("team.Ls(/other/*): got %q, want %q", got, want)
	}

	w := settle(t, team, "w1")
	if w.Targets[0].Path != "team/w1" {
		t.Errorf("team.Wait(w1): got %q, want team/w1", w.Targets[0].Path)
	}
	logs, err := team.Logs(ctx, api.LogsRequest{Target: "w1", LastResponse: true})
	if err != nil || logs.Path != "team/w1" {
		t.Errorf("team.Logs(w1): got %q, %v; want team/w1", logs.Path, err)
	}
	kill, err := team.Kill(ctx, api.KillRequest{Targets: []string{"w1"}})
	if err != nil || len(kill.Killed) != 1 || kill.Killed[0].Path != "team/w1" {
		t.Errorf("team.Kill(w1): got %+v, %v; want team/w1 killed", kill, err)
	}
	if r := row(t, c, other.UUID); r.Status.Gone() {
		t.Errorf("team.Kill(w1) reached other/x: %s", r.Status)
	}

	// A scoped create is checked like an unscoped one.
	for _, cl := range []*socketapi.Client{c, team} {
		_, err := cl.Run(ctx, api.RunRequest{Name: "a", Path: "b", Agent: "mock"})
		if e := protoErr(t, "Run(name and path)", err); e.Code != api.CodeInvalidRequest || e.Reason() != "name_and_path" {
			t.Errorf("Run(name and path) in scope %q: got %v, want invalid_request name_and_path", cl.CurrentScope(), err)
		}
		_, err = cl.Run(ctx, api.RunRequest{Agent: "mock"})
		if e := protoErr(t, "Run(no name)", err); e.Code != api.CodeInvalidRequest || e.Reason() != "name_required" {
			t.Errorf("Run(no name) in scope %q: got %v, want invalid_request name_required", cl.CurrentScope(), err)
		}
		_, err = cl.Run(ctx, api.RunRequest{Name: "a/b", Agent: "mock"})
		if e := protoErr(t, "Run(name a/b)", err); e.Code != api.CodeInvalidRequest || e.Reason() != "invalid_name" {
			t.Errorf("Run(name a/b) in scope %q: got %v, want invalid_request invalid_name", cl.CurrentScope(), err)
		}
	}

	bad := []struct{ scope, reason string }{
		{"Team", "invalid_segment"},
		{"a//b", "invalid_segment"},
		{"a-b", "invalid_segment"},
		{strings.Repeat("x", 65), "invalid_segment"},
		{"", "empty_path"},
		{"/", "empty_path"},
		{strings.Repeat("s/", 8) + "s", "path_too_deep"},
		{strings.Repeat(strings.Repeat("l", 60)+"/", 5) + "l", "path_too_long"},
	}
	for _, tc := range bad {
		got, err := team.Scope(tc.scope)
		if got != nil || !api.IsCode(err, api.CodeInvalidRequest) {
			t.Errorf("Scope(%q): got %v, %v; want invalid_request", tc.scope, scopeOf(got), err)
			continue
		}
		if e := protoErr(t, "Scope", err); e.Reason() != tc.reason {
			t.Errorf("Scope(%q): got reason %q, want %q", tc.scope, e.Reason(), tc.reason)
		}
	}
}

func scopeOf(c *socketapi.Client) any {
	if c == nil {
		return nil
	}
	return c.CurrentScope()
}

// FromGetenv reads the lineage of an agent pane or a loop run; an agent's client
// creates children of the caller in the caller's scope.
func TestSDKFromGetenv(t *testing.T) {
	t.Parallel()
	srv, c := newSDK(t)
	ctx := ctxFor(t, 30*time.Second)
	parent := runMock(t, c, "fam/parent", "say=hi")

	lineages := []struct {
		name string
		env  map[string]string
		want socketapi.Lineage
	}{
		{"agent", map[string]string{"ORCR_ID": parent.UUID, "ORCR_PATH": "fam/parent", "ORCR_AGENT_DATA_DIR": parent.DataDir},
			socketapi.Lineage{Kind: "agent", ID: parent.UUID, Path: "fam/parent", Scope: "fam", DataDir: parent.DataDir}},
		{"top-level agent", map[string]string{"ORCR_ID": "u1", "ORCR_PATH": "solo", "ORCR_AGENT_DATA_DIR": "/d"},
			socketapi.Lineage{Kind: "agent", ID: "u1", Path: "solo", Scope: "", DataDir: "/d"}},
		{"loop run", map[string]string{"ORCR_ID": "r1", "ORCR_PATH": "nightly/run_7", "ORCR_LOOP_DATA_DIR": "/l"},
			socketapi.Lineage{Kind: "loop_run", ID: "r1", Path: "nightly/run_7", Scope: "nightly/run_7", DataDir: "/l"}},
		{"root", map[string]string{}, socketapi.Lineage{Kind: "root"}},
		{"empty values", map[string]string{"ORCR_ID": "", "ORCR_PATH": ""}, socketapi.Lineage{Kind: "root"}},
	}
	for _, tc := range lineages {
		tc.env["ORCR_HOME"] = srv.Home
		fc := socketapi.FromGetenv(func(k string) string { return tc.env[k] })
		if got := fc.Lineage(); got != tc.want {
			t.Errorf("FromGetenv(%s).Lineage: got %+v, want %+v", tc.name, got, tc.want)
		}
		if got := fc.CurrentScope(); got != tc.want.Scope {
			t.Errorf("FromGetenv(%s).CurrentScope: got %q, want %q", tc.name, got, tc.want.Scope)
		}
		if fc.Socket != srv.Socket() {
			t.Errorf("FromGetenv(%s).Socket: got %q, want %q", tc.name, fc.Socket, srv.Socket())
		}
	}

	env := lineages[0].env
	ac := socketapi.FromGetenv(func(k string) string { return env[k] })
	ac.Dial = sockettest.ValidatingDial(t)
	crew, err := ac.Scope("crew")
	if err != nil || crew.CurrentScope() != "fam/crew" {
		t.Fatalf("agent client Scope(crew): got %v, %v; want fam/crew", scopeOf(crew), err)
	}
	for _, tc := range []struct {
		cl   *socketapi.Client
		name string
		want string
	}{{ac, "kid", "fam/kid"}, {crew, "kid", "fam/crew/kid"}} {
		res, err := tc.cl.Run(ctx, api.RunRequest{Name: tc.name, Agent: "mock"})
		if err != nil {
			t.Fatalf("Run(%s) as fam/parent: %v", tc.want, err)
		}
		a := res.Agent
		if a.Path != tc.want || a.ParentID != parent.UUID || a.ParentPath != "fam/parent" {
			t.Errorf("Run(%s) as fam/parent: got path %q parent %q %q, want %s under %s fam/parent",
				tc.name, a.Path, a.ParentID, a.ParentPath, tc.want, parent.UUID)
		}
		if r := row(t, c, a.UUID); deref(r.ParentID) != parent.UUID || deref(r.ParentPath) != "fam/parent" {
			t.Errorf("Ls(%s): parent %q %q, want %s fam/parent", tc.want, deref(r.ParentID), deref(r.ParentPath), parent.UUID)
		}
	}
	// A caller identity given in the request wins over the client's.
	res, err := ac.Run(ctx, api.RunRequest{Path: "/solo_kid", Agent: "mock", Caller: api.Caller{CallerPath: "elsewhere"}})
	if err != nil || res.Agent.ParentID != "" {
		t.Errorf("Run with an explicit caller: got parent %q, %v; want no parent", res.Agent.ParentID, err)
	}
}

// Refused requests come back as *api.Error with one of the nine codes.
func TestSDKErrors(t *testing.T) {
	t.Parallel()
	_, c := newSDK(t)
	ctx := ctxFor(t, 30*time.Second)

	cases := []struct {
		name   string
		call   func() error
		code   api.Code
		reason string
	}{
		{"Logs(unknown)", func() error { _, err := c.Logs(ctx, api.LogsRequest{Target: "no/such"}); return err }, api.CodeNotFound, ""},
		{"Send(unknown)", func() error {
			_, err := c.Send(ctx, api.SendRequest{Target: "no/such", Prompt: "hi"})
			return err
		}, api.CodeNotFound, ""},
		{"Wait(unknown uuid)", func() error {
			_, err := c.Wait(ctx, api.WaitRequest{Targets: []string{"01a00000-0000-7000-8000-000000000000"}, Timeout: "1s"})
			return err
		}, api.CodeNotFound, ""},
		{"Run(bad gc)", func() error {
			_, err := c.Run(ctx, api.RunRequest{Name: "a", Agent: "mock", GC: "sometimes"})
			return err
		}, api.CodeInvalidRequest, "invalid_gc"},
		{"Run(unknown provider)", func() error {
			_, err := c.Run(ctx, api.RunRequest{Name: "a", Agent: "aider"})
			return err
		}, api.CodeIntegrationMissing, ""},
		{"Kill(no target)", func() error { _, err := c.Kill(ctx, api.KillRequest{}); return err }, api.CodeInvalidRequest, "target_required"},
	}
	for _, tc := range cases {
		err := tc.call()
		e := protoErr(t, tc.name, err)
		if e.Code != tc.code || !api.IsCode(err, tc.code) || (tc.reason != "" && e.Reason() != tc.reason) {
			t.Errorf("%s: got %v (reason %q), want %s %s", tc.name, err, e.Reason(), tc.code, tc.reason)
		}
		if api.IsCode(err, api.CodeServerError) {
			t.Errorf("%s: IsCode(server_error) holds for %v", tc.name, err)
		}
		if wrapped := fmt.Errorf("ctx: %w", err); !api.IsCode(wrapped, tc.code) {
			t.Errorf("%s: IsCode does not see through wrapping", tc.name)
		}
	}
	if api.IsCode(nil, api.CodeNotFound) || api.IsCode(errors.New("not_found"), api.CodeNotFound) {
		t.Error("IsCode holds for nil or a plain error")
	}

	codes := []struct {
		c    api.Code
		want string
	}{
		{api.CodeNotFound, "not_found"}, {api.CodeInvalidRequest, "invalid_request"},
		{api.CodeStateConflict, "state_conflict"}, {api.CodeBlocked, "blocked"},
		{api.CodeTimeout, "timeout"}, {api.CodeIntegrationMissing, "integration_missing"},
		{api.CodeTranscriptUnavailable, "transcript_unavailable"},
		{api.CodeEnvironmentError, "environment_error"}, {api.CodeServerError, "server_error"},
	}
	if len(codes) != len(wire.Codes) {
		t.Errorf("the SDK names %d codes, the error table has %d", len(codes), len(wire.Codes))
	}
	for i, tc := range codes {
		if string(tc.c) != tc.want || i >= len(wire.Codes) || wire.Codes[i].Code != tc.c {
			t.Errorf("code %d: got %q, want %q in the error table's order", i, tc.c, tc.want)
		}
	}
}

// Ending the ctx of a blocking Wait closes its connection and returns at once; the
// server goes on answering. The client's own call timeout never bounds a wait.
func TestSDKWaitContext(t *testing.T) {
	t.Parallel()
	srv, c := newSDK(t)
	busy := runMock(t, c, "w/busy", "say=late turn_ms=60000")
	// The start stays starting until the mock is ready; the waits below are of a
	// working agent.
	poll.Eventually(t, 30*time.Second, "w/busy working", func() bool { return row(t, c, busy.UUID).Status == api.StatusWorking })

	for _, tc := range []struct {
		name string
		ctx  func() (context.Context, context.CancelFunc)
		want error
	}{
		{"deadline", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(t.Context(), 300*time.Millisecond)
		}, context.DeadlineExceeded},
		{"cancel", func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(t.Context())
			time.AfterFunc(300*time.Millisecond, cancel)
			return ctx, cancel
		}, context.Canceled},
	} {
		ctx, cancel := tc.ctx()
		start := time.Now()
		res, err := c.Wait(ctx, api.WaitRequest{Targets: []string{"w/busy"}, Timeout: "1m"})
		took := time.Since(start)
		cancel()
		if took > 3*time.Second {
			t.Errorf("Wait(%s): returned after %v, want promptly after 300ms", tc.name, took)
		}
		e := protoErr(t, "Wait("+tc.name+")", err)
		if e.Code != api.CodeEnvironmentError || e.Cause() != "client_timeout" || !errors.Is(err, tc.want) {
			t.Errorf("Wait(%s): got %v (%+v), want environment_error client_timeout wrapping %v", tc.name, err, res, tc.want)
		}
		noConns(t, srv)
		if _, err := c.Handshake(ctxFor(t, 5*time.Second)); err != nil {
			t.Fatalf("Handshake after the canceled wait: %v", err)
		}
	}
	if r := row(t, c, busy.UUID); r.Status != api.StatusWorking {
		t.Errorf("w/busy is %s, want still working", r.Status)
	}

	// Timeout bounds ordinary calls, never a wait: the server's timeout decides.
	short := &socketapi.Client{Socket: srv.Socket(), Dial: sockettest.ValidatingDial(t), Timeout: 100 * time.Millisecond}
	res, err := short.Wait(t.Context(), api.WaitRequest{Targets: []string{"w/busy"}, Timeout: "1s"})
	if err != nil || !res.TimedOut || res.AllOK || len(res.Targets) != 1 || res.Targets[0].Status != api.StatusWorking {
		t.Errorf("Wait(timeout 1s) with a 100ms client timeout: got %+v, %v; want a timed-out result", res, err)
	}
}

// The zero Client talks to the server of ORCR_HOME.
func TestSDKZeroClient(t *testing.T) {
	srv, _ := newSDK(t)
	t.Setenv("ORCR_HOME", srv.Home)
	ctx := ctxFor(t, 10*time.Second)
	var c socketapi.Client
	if h, err := c.Handshake(ctx); err != nil || h.Store != config.NewPaths(srv.Home).DB {
		t.Fatalf("zero Client.Handshake: got %+v, %v; want the server of %s", h, err, srv.Home)
	}
	st, err := c.Status(ctx)
	if err != nil || st.Socket != srv.Socket() {
		t.Errorf("zero Client.Status: got socket %q, %v; want %q", st.Socket, err, srv.Socket())
	}
	if _, err := c.Run(ctx, api.RunRequest{Path: "z/one", Agent: "mock"}); err != nil {
		t.Fatalf("zero Client.Run: %v", err)
	}
	if got := lsPaths(t, &c, api.LsRequest{}); !slices.Equal(got, []string{"z/one"}) {
		t.Errorf("zero Client.Ls: got %q, want [z/one]", got)
	}
}

// Watch keeps a Model equal to what api.snapshot answers at the same seq.
func TestSDKWatch(t *testing.T) {
	t.Parallel()
	srv, c := newSDK(t)
	ctx := ctxFor(t, 60*time.Second)
	var (
		steps int
		uuid  string
		snap  *api.Snapshot
		kinds []string
	)
	for m, err := range c.Watch(ctx) {
		if err != nil {
			t.Fatalf("Watch: %v", err)
		}
		steps++
		if steps == 1 {
			if m.Event.Kind != "" || m.Len() != 0 {
				t.Fatalf("Watch's first step: got event %q and %d agents, want the empty snapshot", m.Event.Kind, m.Len())
			}
			uuid = runMock(t, c, "watch/one", "say=hi").UUID
			continue
		}
		if m.Event.RefUUID == uuid {
			kinds = append(kinds, m.Event.Kind)
		}
		a, ok := m.Agent(uuid)
		if snap == nil && ok && a.Status == api.StatusIdle {
			s, err := c.Snapshot(ctx)
			if err != nil {
				t.Fatalf("Snapshot: %v", err)
			}
			snap = &s
		}
		if snap != nil && m.Seq == snap.SnapshotSeq {
			if d := cmp.Diff(*snap, m.Snapshot()); d != "" {
				t.Errorf("Model at seq %d differs from api.snapshot (-snapshot +model):\n%s", m.Seq, d)
			}
			if _, err := c.Kill(ctx, api.KillRequest{Targets: []string{uuid}}); err != nil {
				t.Fatalf("Kill: %v", err)
			}
		}
		if snap != nil && m.Seq > snap.SnapshotSeq && m.Len() == 0 {
			break // the ended agent left the model
		}
	}
	if ctx.Err() != nil || snap == nil {
		t.Fatalf("Watch ended by the deadline (snapshot taken: %v, events of the agent: %q)", snap != nil, kinds)
	}
	for _, k := range []string{"agent.created", "agent.turn_completed", "agent.close_applied"} {
		if !slices.Contains(kinds, k) {
			t.Errorf("Watch: events of the agent %q lack %s", kinds, k)
		}
	}
	noConns(t, srv) // breaking the loop closed the stream
}

// Stop answers, then the server stops: a watch ends with server_stopping and calls find
// no server.
func TestSDKStop(t *testing.T) {
	t.Parallel()
	srv, c := newSDK(t)
	ctx := ctxFor(t, 30*time.Second)
	watching := make(chan error, 1)
	opened := make(chan struct{})
	go func() {
		var last error
		for m, err := range c.Watch(ctx) {
			if m != nil && m.Event.Kind == "" {
				close(opened)
			}
			last = err
		}
		watching <- last
	}()
	<-opened
	res, err := c.Stop(ctx)
	if err != nil || res.Status != "stopping" {
		t.Fatalf("Stop: got %+v, %v; want stopping", res, err)
	}
	stopped := make(chan error, 1)
	go func() { stopped <- srv.Wait() }()
	select {
	case err := <-stopped:
		if err != nil {
			t.Errorf("server stop: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("the server did not stop after Stop")
	}
	if e := protoErr(t, "Watch across Stop", <-watching); e.Code != api.CodeEnvironmentError || e.Cause() != "server_stopping" {
		t.Errorf("Watch across Stop: got %v, want environment_error server_stopping", e)
	}
	_, err = c.Handshake(ctx)
	if e := protoErr(t, "Handshake after Stop", err); e.Code != api.CodeEnvironmentError || e.Cause() != "server_unreachable" {
		t.Errorf("Handshake after Stop: got %v, want environment_error server_unreachable", err)
	}
}
