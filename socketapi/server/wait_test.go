package server_test

import (
	"context"
	"fmt"
	"github.com/orcr-go/orcr/tests/poll"
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/orcr-go/orcr/actors"
	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/socketapi/sockettest"
)

// waitFast bounds how long a wait may take to answer once its last target settled. The
// wait tests' servers re-check without a notification only once an hour
// (newWaitServer), so an answer within it proves the commit notification woke the wait.
const waitFast = 30 * time.Second

// newWaitServer is a test server whose waits' fallback re-check comes only after an
// hour (actors.EnvDebugWaitFallback).
func newWaitServer(t *testing.T, opts ...sockettest.Option) *sockettest.Server {
	t.Helper()
	return sockettest.NewServer(t, append([]sockettest.Option{sockettest.WithEnv(actors.EnvDebugWaitFallback, "1h")}, opts...)...)
}

type waitNext struct {
	Kind    string `json:"kind"`
	Command string `json:"command"`
}

type waitEntry struct {
	UUID       string   `json:"uuid"`
	Path       string   `json:"path"`
	Status     string   `json:"status"`
	OK         bool     `json:"ok"`
	Reason     string   `json:"reason"`
	ExitReason *string  `json:"exit_reason"`
	Next       waitNext `json:"next"`
}

type waitResp struct {
	Targets      []waitEntry `json:"targets"`
	AllOK        bool        `json:"all_ok"`
	TimedOut     bool        `json:"timed_out"`
	DecisionSeq  int64       `json:"decision_seq"`
	FirstSettled string      `json:"first_settled"`
}

type waitOutcome struct {
	res waitResp
	err error
	at  time.Time
}

// setAgent drives a row through __debug.set_agent and returns the seq of the last event
// it committed. extra adds blocked_kind / exit_reason.
func setAgent(t testing.TB, c *socketapi.Client, id, path, status string, extra ...any) int64 {
	t.Helper()
	p := map[string]any{"uuid": id, "path": path, "status": status}
	for i := 0; i+1 < len(extra); i += 2 {
		p[extra[i].(string)] = extra[i+1]
	}
	var res struct {
		Seq int64 `json:"seq"`
	}
	if err := c.Call(context.Background(), "__debug.set_agent", p, &res); err != nil {
		t.Fatalf("__debug.set_agent %s %s: %v", path, status, err)
	}
	return res.Seq
}

// startWait runs agent.wait in the background.
func startWait(ctx context.Context, c *socketapi.Client, params map[string]any) <-chan waitOutcome {
	ch := make(chan waitOutcome, 1)
	go func() {
		var r waitResp
		err := c.Call(ctx, "agent.wait", params, &r)
		ch <- waitOutcome{res: r, err: err, at: time.Now()}
	}()
	return ch
}

func callWait(t *testing.T, c *socketapi.Client, params map[string]any) waitResp {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	o := <-startWait(ctx, c, params)
	if o.err != nil {
		t.Fatalf("agent.wait %v: %v", params, o.err)
	}
	return o.res
}

// collect waits (bounded) for a background wait's answer.
func collect(t *testing.T, ch <-chan waitOutcome, within time.Duration) waitOutcome {
	t.Helper()
	select {
	case o := <-ch:
		if o.err != nil {
			t.Fatalf("agent.wait: %v", o.err)
		}
		return o
	case <-time.After(within):
		t.Fatalf("agent.wait did not answer within %v", within)
		return waitOutcome{}
	}
}

// waitsStarted polls __debug.waits until n waits have resolved their membership: a
// change made after it is outside their membership, however late the wait's request
// reached the server.
func waitsStarted(t *testing.T, c *socketapi.Client, n int64) {
	t.Helper()
	poll.Eventually(t, waitFast, fmt.Sprintf("%d waits started", n), func() bool {
		var res struct {
			Waits int64 `json:"waits"`
		}
		if err := c.Call(context.Background(), "__debug.waits", nil, &res); err != nil {
			t.Fatalf("__debug.waits: %v", err)
		}
		return res.Waits >= n
	})
}

// stillWaiting fails if the background wait already answered. The wait is given a short
// moment to (wrongly) answer; passing it does not depend on timing.
func stillWaiting(t *testing.T, ch <-chan waitOutcome, what string) {
	t.Helper()
	select {
	case o := <-ch:
		t.Fatalf("agent.wait answered %s: %+v (err %v)", what, o.res, o.err)
	case <-time.After(100 * time.Millisecond):
	}
}

func byPath(r waitResp) map[string]waitEntry {
	m := map[string]waitEntry{}
	for _, e := range r.Targets {
		m[e.Path] = e
	}
	return m
}

func newID() string { return uuid.NewString() }

func TestWaitSingleTargetSettlesOnIdle(t *testing.T) {
	t.Parallel()
	srv := newWaitServer(t)
	c := srv.Client(t)
	id := newID()
	seq := setAgent(t, c, id, "w/one", "idle")
	r := callWait(t, c, map[string]any{"targets": []string{"w/one"}})
	want := waitResp{
		Targets: []waitEntry{{UUID: id, Path: "w/one", Status: "idle", OK: true, Reason: "turn_complete",
			Next: waitNext{Kind: "logs_last_response", Command: "orcr agent logs w/one --last-response"}}},
		AllOK: true, DecisionSeq: seq,
	}
	if !reflect.DeepEqual(r, want) {
		t.Fatalf("got %+v\nwant %+v", r, want)
	}
	// Idempotent: the same listing again, at once; by uuid prefix too.
	if again := callWait(t, c, map[string]any{"targets": []string{id[:8]}}); !reflect.DeepEqual(again, want) {
		t.Fatalf("second wait: got %+v", again)
	}
}

// Acceptance 1 at the wait level: a wait started on a working agent is not satisfied by
// an idle older than the call; it answers only after the next idle, at or after its seq.
func TestWaitNotSatisfiedByOldState(t *testing.T) {
	t.Parallel()
	srv := newWaitServer(t)
	c := srv.Client(t)
	id := newID()
	setAgent(t, c, id, "w/a", "idle")
	setAgent(t, c, id, "w/a", "working")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ch := startWait(ctx, c, map[string]any{"targets": []string{"w/a"}})
	stillWaiting(t, ch, "while the target works")
	// Churn that does not settle it: the wait wakes, re-reads and keeps waiting.
	for range 5 {
		if err := c.Call(ctx, "__debug.emit_event", nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	setAgent(t, c, id, "w/a", "starting")
	stillWaiting(t, ch, "after unrelated events")
	idleAt := time.Now()
	seq := setAgent(t, c, id, "w/a", "idle")
	o := collect(t, ch, waitFast)
	if o.res.DecisionSeq < seq {
		t.Fatalf("decision_seq %d < seq %d of the settling event", o.res.DecisionSeq, seq)
	}
	if e := byPath(o.res)["w/a"]; e.Status != "idle" || e.Reason != "turn_complete" || !o.res.AllOK || o.res.TimedOut {
		t.Fatalf("got %+v", o.res)
	}
	t.Logf("answered %v after the settling event", o.at.Sub(idleAt))
}

// Acceptance 5: one target un-settles during the wait; the result is the state at
// decision_seq (both idle at the last event), not the first time A was seen settled.
func TestWaitMultiTargetUnsettleDuringWait(t *testing.T) {
	t.Parallel()
	srv := newWaitServer(t)
	c := srv.Client(t)
	a, b := newID(), newID()
	setAgent(t, c, a, "m/a", "idle")
	setAgent(t, c, b, "m/b", "working")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ch := startWait(ctx, c, map[string]any{"targets": []string{"m/a", "m/b"}})
	stillWaiting(t, ch, "with B working")
	setAgent(t, c, a, "m/a", "working")
	setAgent(t, c, b, "m/b", "idle")
	stillWaiting(t, ch, "with A working again")
	last := setAgent(t, c, a, "m/a", "idle")
	o := collect(t, ch, waitFast)
	m := byPath(o.res)
	if len(o.res.Targets) != 2 || m["m/a"].Status != "idle" || m["m/b"].Status != "idle" {
		t.Fatalf("got %+v", o.res)
	}
	if o.res.DecisionSeq < last {
		t.Fatalf("decision_seq %d < %d, the event that settled the last target", o.res.DecisionSeq, last)
	}
	if o.res.Targets[0].Path != "m/a" || o.res.Targets[1].Path != "m/b" || !o.res.AllOK {
		t.Fatalf("targets not sorted by path or not all ok: %+v", o.res)
	}
}

// A target seen settled at one read and un-settled at a later read is waited on again,
// even when another target settles in between.
func TestWaitSettledTargetUnsettlesAgain(t *testing.T) {
	t.Parallel()
	srv := newWaitServer(t)
	c := srv.Client(t)
	a, b := newID(), newID()
	setAgent(t, c, a, "u/a", "working")
	setAgent(t, c, b, "u/b", "working")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ch := startWait(ctx, c, map[string]any{"targets": []string{"u/*"}})
	stillWaiting(t, ch, "with both working")
	setAgent(t, c, a, "u/a", "idle")
	stillWaiting(t, ch, "with B working")
	setAgent(t, c, a, "u/a", "working")
	setAgent(t, c, b, "u/b", "blocked", "blocked_kind", "question")
	stillWaiting(t, ch, "with A working again")
	last := setAgent(t, c, a, "u/a", "parked")
	o := collect(t, ch, waitFast)
	m := byPath(o.res)
	if m["u/a"].Reason != "turn_complete" || m["u/b"].Reason != "blocked:question" || o.res.AllOK {
		t.Fatalf("got %+v", o.res)
	}
	if o.res.DecisionSeq < last {
		t.Fatalf("decision_seq %d < %d", o.res.DecisionSeq, last)
	}
}

func TestWaitBlocked(t *testing.T) {
	t.Parallel()
	srv := newWaitServer(t)
	c := srv.Client(t)
	q, u := newID(), newID()
	setAgent(t, c, q, "b/q", "blocked", "blocked_kind", "limit")
	setAgent(t, c, u, "b/u", "blocked")
	r := callWait(t, c, map[string]any{"targets": []string{"b/*"}})
	want := []waitEntry{
		{UUID: q, Path: "b/q", Status: "blocked", Reason: "blocked:limit", Next: waitNext{Kind: "attach", Command: "orcr agent attach b/q"}},
		{UUID: u, Path: "b/u", Status: "blocked", Reason: "blocked:unknown", Next: waitNext{Kind: "attach", Command: "orcr agent attach b/u"}},
	}
	if !reflect.DeepEqual(r.Targets, want) || r.AllOK || r.TimedOut {
		t.Fatalf("got %+v", r)
	}
}

// Every ended exit_reason, lost, idle and parked, as the wait's membership (all active at
// call time) ends one by one during the wait.
func TestWaitEndedExitReasons(t *testing.T) {
	t.Parallel()
	srv := newWaitServer(t)
	c := srv.Client(t)
	type tc struct {
		exit   any // nil: no exit_reason param; "" stores none
		status string
		reason string
		ok     bool
		next   string
	}
	cases := map[string]tc{
		"completed": {exit: "completed", status: "ended", reason: "completed", ok: true, next: "logs_last_response"},
		"reaped":    {exit: "reaped", status: "ended", reason: "reaped", ok: true, next: "logs_history"},
		"timeout":   {exit: "timeout", status: "ended", reason: "timeout", next: "none"},
		"lostend":   {exit: "lost", status: "ended", reason: "lost", next: "none"},
		"killed":    {exit: "killed", status: "ended", reason: "killed", next: "none"},
		"canceled":  {exit: "canceled", status: "ended", reason: "canceled", next: "none"},
		"failed":    {exit: "failed", status: "ended", reason: "failed", next: "none"},
		"noexit":    {exit: "", status: "ended", reason: "failed", next: "none"},
		"lost":      {status: "lost", reason: "lost", next: "none"},
		"idle":      {status: "idle", reason: "turn_complete", ok: true, next: "logs_last_response"},
		"parked":    {status: "parked", reason: "turn_complete", ok: true, next: "logs_last_response"},
	}
	ids := map[string]string{}
	for name := range cases {
		ids[name] = newID()
		setAgent(t, c, ids[name], "e/"+name, "working")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ch := startWait(ctx, c, map[string]any{"targets": []string{"e/**"}})
	// The pattern's membership is its active rows when the wait resolves it: a target
	// ended before that is not a member (s26e-1 lost e/canceled that way under load).
	waitsStarted(t, c, 1)
	stillWaiting(t, ch, "with every target working")
	var last int64
	for name, cs := range cases {
		var extra []any
		if cs.exit != nil {
			extra = []any{"exit_reason", cs.exit}
		}
		last = max(last, setAgent(t, c, ids[name], "e/"+name, cs.status, extra...))
	}
	o := collect(t, ch, waitFast)
	if o.res.AllOK || o.res.TimedOut || o.res.DecisionSeq < last || len(o.res.Targets) != len(cases) {
		t.Fatalf("got %+v (last seq %d)", o.res, last)
	}
	for i, e := range o.res.Targets {
		if i > 0 && o.res.Targets[i-1].Path >= e.Path {
			t.Errorf("targets not sorted by path: %s before %s", o.res.Targets[i-1].Path, e.Path)
		}
		name := e.Path[len("e/"):]
		cs := cases[name]
		if e.UUID != ids[name] || e.Status != cs.status || e.Reason != cs.reason || e.OK != cs.ok || e.Next.Kind != cs.next {
			t.Errorf("%s: got %+v, want %+v", name, e, cs)
		}
		switch {
		case cs.exit == nil || cs.exit == "":
			if e.ExitReason != nil {
				t.Errorf("%s: exit_reason %q present on a row without one", name, *e.ExitReason)
			}
		case e.ExitReason == nil || *e.ExitReason != cs.exit:
			t.Errorf("%s: exit_reason %v, want %v", name, e.ExitReason, cs.exit)
		}
		wantCmd := map[string]string{
			"logs_last_response": "orcr agent logs " + e.Path + " --last-response",
			"logs_history":       "orcr agent logs " + e.UUID,
			"none":               "",
		}[cs.next]
		if e.Next.Command != wantCmd {
			t.Errorf("%s: next.command %q, want %q", name, e.Next.Command, wantCmd)
		}
	}
}

// A wait timeout is not an error: ok response, timed_out, wait_timeout on the unsettled
// targets, the settled ones as they are.
func TestWaitTimeout(t *testing.T) {
	t.Parallel()
	srv := newWaitServer(t)
	c := srv.Client(t)
	a, b := newID(), newID()
	setAgent(t, c, a, "t/a", "idle")
	seq := setAgent(t, c, b, "t/b", "working")
	start := time.Now()
	r := callWait(t, c, map[string]any{"targets": []string{"t/*"}, "timeout": "300ms"})
	if took := time.Since(start); took < 300*time.Millisecond || took > waitFast {
		t.Errorf("timeout 300ms answered after %v", took)
	}
	want := waitResp{Targets: []waitEntry{
		{UUID: a, Path: "t/a", Status: "idle", OK: true, Reason: "turn_complete",
			Next: waitNext{Kind: "logs_last_response", Command: "orcr agent logs t/a --last-response"}},
		{UUID: b, Path: "t/b", Status: "working", Reason: "wait_timeout", Next: waitNext{Kind: "none"}},
	}, TimedOut: true, DecisionSeq: seq}
	if !reflect.DeepEqual(r, want) {
		t.Fatalf("got %+v\nwant %+v", r, want)
	}
}

func TestWaitErrors(t *testing.T) {
	t.Parallel()
	srv := newWaitServer(t)
	c := srv.Client(t)
	setAgent(t, c, newID(), "x/live", "working")
	ended := newID()
	setAgent(t, c, ended, "x/gone", "working")
	setAgent(t, c, ended, "x/gone", "ended")
	ctx := context.Background()
	before := eventHead(t, c)
	for _, tc := range []struct {
		name    string
		params  map[string]any
		code    wire.Code
		details map[string]any
	}{
		{"no targets", map[string]any{}, wire.InvalidRequest, map[string]any{"reason": "target_required"}},
		{"empty targets", map[string]any{"targets": []string{""}}, wire.InvalidRequest, map[string]any{"reason": "target_required"}},
		{"bad duration", map[string]any{"targets": []string{"x/live"}, "timeout": "5x"}, wire.InvalidRequest,
			map[string]any{"reason": "bad_duration", "value": "5x"}},
		{"zero duration", map[string]any{"targets": []string{"x/live"}, "timeout": "0s"}, wire.InvalidRequest,
			map[string]any{"reason": "bad_duration", "value": "0s"}},
		{"unknown", map[string]any{"targets": []string{"x/nope", "nope/**"}}, wire.NotFound,
			map[string]any{"target": []any{"x/nope", "nope/**"}}},
		{"any not a boolean", map[string]any{"targets": []string{"x/live"}, "any": "yes"}, wire.InvalidRequest,
			map[string]any{"reason": "wrong_type", "field": "any", "expected": "a boolean"}},
		{"any without targets", map[string]any{"any": true}, wire.InvalidRequest, map[string]any{"reason": "target_required"}},
		{"any with a bad duration", map[string]any{"targets": []string{"x/live"}, "any": true, "timeout": "-1s"}, wire.InvalidRequest,
			map[string]any{"reason": "bad_duration", "value": "-1s"}},
		{"any, unknown", map[string]any{"targets": []string{"x/nope"}, "any": true}, wire.NotFound,
			map[string]any{"target": []any{"x/nope"}}},
	} {
		err := c.Call(ctx, "agent.wait", tc.params, nil)
		pe, ok := wire.As(err)
		if !ok || pe.Code != tc.code {
			t.Errorf("%s: got %v, want %s", tc.name, err, tc.code)
			continue
		}
		for k, v := range tc.details {
			if !reflect.DeepEqual(pe.Details[k], v) {
				t.Errorf("%s: details.%s = %#v, want %#v", tc.name, k, pe.Details[k], v)
			}
		}
	}
	if after := eventHead(t, c); after != before {
		t.Errorf("refused waits changed the store: event head %d, was %d", after, before)
	}
}

// A wait on an ended agent that an exact target names, by path or by uuid, answers its
// end at once (docs/lifecycle.md §11.2): what became of it, never not_found.
func TestWaitEndedAnswersItsEnd(t *testing.T) {
	t.Parallel()
	srv := newWaitServer(t)
	c := srv.Client(t)
	id := newID()
	setAgent(t, c, id, "x/gone", "working")
	setAgent(t, c, id, "x/gone", "ended", "exit_reason", "killed")
	for _, target := range []string{"x/gone", id} {
		r := callWait(t, c, map[string]any{"targets": []string{target}})
		if len(r.Targets) != 1 || r.Targets[0].UUID != id || r.Targets[0].Reason != "killed" || r.Targets[0].OK || r.AllOK ||
			r.TimedOut {
			t.Errorf("wait %s: %+v, want x/gone settled killed", target, r)
		}
	}
}

// eventHead is the store's event cursor (api.snapshot's snapshot_seq).
func eventHead(t *testing.T, c *socketapi.Client) int64 {
	t.Helper()
	var snap struct {
		SnapshotSeq int64 `json:"snapshot_seq"`
	}
	if err := c.Call(context.Background(), "api.snapshot", nil, &snap); err != nil {
		t.Fatal(err)
	}
	return snap.SnapshotSeq
}

// Membership is snapshotted at the call: a row that appears later under the pattern is
// not waited for.
func TestWaitMembershipSnapshot(t *testing.T) {
	t.Parallel()
	srv := newWaitServer(t)
	c := srv.Client(t)
	a := newID()
	setAgent(t, c, a, "s/a", "working")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ch := startWait(ctx, c, map[string]any{"targets": []string{"s/*"}})
	waitsStarted(t, c, 1)
	stillWaiting(t, ch, "with s/a working")
	setAgent(t, c, newID(), "s/late", "working")
	setAgent(t, c, a, "s/a", "idle")
	o := collect(t, ch, waitFast)
	if len(o.res.Targets) != 1 || o.res.Targets[0].UUID != a || !o.res.AllOK {
		t.Fatalf("got %+v", o.res)
	}
}

// A server stop during a wait ends it promptly (with the current listing when the
// response still makes it out before the connection closes), and the stop itself is not
// held up.
func TestWaitServerStopReturnsPromptly(t *testing.T) {
	t.Parallel()
	srv := newWaitServer(t)
	c := srv.Client(t)
	for i := range 3 {
		setAgent(t, c, newID(), fmt.Sprintf("z/%d", i), "working")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ch := startWait(ctx, c, map[string]any{"targets": []string{"z/*"}})
	stillWaiting(t, ch, "before the stop")
	start := time.Now()
	srv.Stop()
	select {
	case o := <-ch:
		if o.err == nil && (len(o.res.Targets) != 3 || o.res.TimedOut || o.res.AllOK || o.res.Targets[0].Reason != "wait_timeout") {
			t.Errorf("listing at stop: %+v", o.res)
		}
		t.Logf("wait answered %v after the stop (err %v)", time.Since(start), o.err)
	case <-time.After(waitFast):
		t.Fatalf("wait still blocked %v after the stop", waitFast)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(waitFast):
		t.Fatal("server stop held up by a wait")
	}
}

// A client that gives up ends its wait on the server (the connection's context), and a
// later wait still works: no notification plumbing is left behind.
func TestWaitClientGoneEndsWait(t *testing.T) {
	t.Parallel()
	srv := newWaitServer(t)
	c := srv.Client(t)
	id := newID()
	setAgent(t, c, id, "g/a", "working")
	for range 20 {
		ctx, cancel := context.WithCancel(context.Background())
		ch := startWait(ctx, c, map[string]any{"targets": []string{"g/a"}})
		cancel()
		if o := <-ch; o.err == nil {
			t.Fatalf("canceled wait answered %+v", o.res)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ch := startWait(ctx, c, map[string]any{"targets": []string{"g/a"}})
	stillWaiting(t, ch, "with g/a working")
	seq := setAgent(t, c, id, "g/a", "idle")
	if o := collect(t, ch, waitFast); o.res.DecisionSeq < seq || !o.res.AllOK {
		t.Fatalf("got %+v", o.res)
	}
}

// Many concurrent waits on churning targets: each answers with a listing that was true
// at its decision_seq (all settled), never before the settling event.
func TestWaitConcurrentChurn(t *testing.T) {
	t.Parallel()
	srv := newWaitServer(t)
	c := srv.Client(t)
	const n = 20
	ids := make([]string, n)
	for i := range ids {
		ids[i] = newID()
		setAgent(t, c, ids[i], fmt.Sprintf("c/%02d", i), "working")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	chans := make([]<-chan waitOutcome, n)
	for i := range chans {
		chans[i] = startWait(ctx, c, map[string]any{"targets": []string{"c/*"}})
	}
	// Flap every target a few times, then settle them all.
	for round := range 3 {
		for i, id := range ids {
			st := "idle"
			if (i+round)%2 == 0 {
				st = "working"
			}
			setAgent(t, c, id, fmt.Sprintf("c/%02d", i), st)
		}
	}
	// Round 2 left the even ones working: all are settled once the last of them idles.
	var last int64
	for i, id := range ids {
		if i%2 == 0 {
			last = setAgent(t, c, id, fmt.Sprintf("c/%02d", i), "idle")
		}
	}
	settledAt := time.Now()
	for _, ch := range chans {
		o := collect(t, ch, 10*time.Second)
		t.Logf("answered %v after the last settle", o.at.Sub(settledAt))
		if !o.res.AllOK || len(o.res.Targets) != n {
			t.Fatalf("got %+v", o.res)
		}
		if o.res.DecisionSeq < last {
			t.Fatalf("decision_seq %d before the last settling event %d", o.res.DecisionSeq, last)
		}
	}
}
