package ws_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/remote"
	"github.com/orcr-go/orcr/socketapi/sockettest"
	"github.com/orcr-go/orcr/store"
)

// untilRequest reads events until approval/requested and returns them; the last one is
// the request.
func untilRequest(t *testing.T, c *remote.Conn, from int64) []remote.Event {
	t.Helper()
	return events(t, c, from, 60*time.Second, isType("approval/requested"))
}

// checkTurn checks the log of one approved or denied tool turn: the call, the request
// naming it, the verdict, the call's result with ok, the final response, turn/end
// completed.
func checkTurn(t *testing.T, es []remote.Event, callID, verdict string, ok bool) {
	t.Helper()
	var call, resolved, result, answer, end bool
	for _, e := range es {
		p := payloadOf(t, e)
		switch e.Type {
		case "tool/call":
			call = call || p["call_id"] == callID
		case "approval/resolved":
			resolved = resolved || (p["call_id"] == callID && p["verdict"] == verdict)
		case "tool/result":
			result = result || (p["call_id"] == callID && p["ok"] == ok)
		case "assistant/message":
			answer = true
		case "turn/end":
			end = p["status"] == "completed"
		}
	}
	if !call || !resolved || !result || !answer || !end {
		t.Errorf("turn of %s: tool/call %v, approval/resolved %s %v, tool/result ok=%v %v, assistant/message %v, turn/end completed %v\n%s",
			callID, call, verdict, resolved, ok, result, answer, end, describe(es))
	}
}

// Approvals (docs/remote.md §7): an agent started with remote.approvals on asks before a
// tool call; the request is logged with the call from the transcript; approve runs it,
// deny returns an error to the model; a second verdict is stale_call; the policy
// approves matching tools at once.
func TestStreamApprovals(t *testing.T) {
	t.Parallel()
	r := newRig(t, `"approvals": true`)
	agent, c, from := r.idleLive("appr/a")
	ctx := ctxT(t, 120*time.Second)

	// Approve.
	c.Inject(ctx, "tool=Bash say=ran", true)
	es := untilRequest(t, c, from)
	req := payloadOf(t, es[len(es)-1])
	callID, _ := req["call_id"].(string)
	if callID == "" || req["name"] != "Bash" || req["args"] == nil {
		t.Fatalf("approval/requested %v", req)
	}
	c.Approve(ctx, callID, "looks fine")
	rest := events(t, c, es[len(es)-1].Seq+1, 60*time.Second, turnEnd)
	checkTurn(t, append(es, rest...), callID, "approved", true)
	c.Approve(ctx, callID, "")
	if ef := errorFrame(t, c, 10*time.Second); ef.Code != remote.StaleCall {
		t.Errorf("double approve: %+v", ef)
	}
	c.Deny(ctx, "never-asked", "")
	if ef := errorFrame(t, c, 10*time.Second); ef.Code != remote.StaleCall {
		t.Errorf("deny of a call that never asked: %+v", ef)
	}

	// Deny, on a fresh connection (the error frames above were read past events).
	c, from = r.liveOn(agent)
	c.Inject(ctx, "tool=Edit say=after", true)
	es = untilRequest(t, c, from)
	callID, _ = payloadOf(t, es[len(es)-1])["call_id"].(string)
	c.Deny(ctx, callID, "not that file")
	rest = events(t, c, es[len(es)-1].Seq+1, 60*time.Second, turnEnd)
	checkTurn(t, append(es, rest...), callID, "denied", false)

	// Policy: a matching tool is approved at once, reason policy.
	c, from = r.liveOn(agent)
	c.SetPolicy(ctx, []string{"Gre*"})
	c.Inject(ctx, "tool=Grep say=found", true)
	es = events(t, c, from, 60*time.Second, turnEnd)
	var auto bool
	for _, e := range es {
		if p := payloadOf(t, e); e.Type == "approval/resolved" && p["verdict"] == "approved" && p["reason"] == "policy" {
			auto = true
		}
	}
	if !auto {
		t.Errorf("no policy approval in %s", describe(es))
	}
}

// A verdict answered at once, while the dialog does not read keys yet (the mock's
// deaf_ms drops them), is sent again while the pane still waits on the call, and the
// turn goes on (docs/remote.md §7).
func TestStreamVerdictTheDialogDroppedIsSentAgain(t *testing.T) {
	t.Parallel()
	r := newRig(t, `"approvals": true`)
	_, c, from := r.idleLive("appr/deaf")
	ctx := ctxT(t, 120*time.Second)
	c.Inject(ctx, "tool=Bash deaf_ms=2000 say=ran", true)
	es := untilRequest(t, c, from)
	callID, _ := payloadOf(t, es[len(es)-1])["call_id"].(string)
	c.Approve(ctx, callID, "at once")
	rest := events(t, c, es[len(es)-1].Seq+1, 60*time.Second, turnEnd)
	checkTurn(t, append(es, rest...), callID, "approved", true)
}

// A verdict recorded before the server went down is applied after the restart, and the
// call is never asked about twice.
func TestStreamVerdictAcrossRestart(t *testing.T) {
	t.Parallel()
	r := newRig(t, `"approvals": true`)
	agent := r.run("appr/restart", "")
	waitIdle(t, r, agent)
	tok := r.token(agent)
	c := r.dial(agent, tok)
	from := live(t, c)
	ctx := ctxT(t, 120*time.Second)
	c.SetPolicy(ctx, []string{"Gr?p"}) // rebuilt from the log after the restart
	c.Inject(ctx, "tool=Write say=written", true)
	es := untilRequest(t, c, from)
	callID, _ := payloadOf(t, es[len(es)-1])["call_id"].(string)
	c.Close()

	// The server stops; the verdict is written as the server would have written it just
	// before dying, without reaching the pane.
	home, env := r.srv.Home, r.srv.Env
	r.srv.Stop()
	if err := r.srv.Wait(); err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(home + "/orcr.db")
	if err != nil {
		t.Fatal(err)
	}
	res, _, err := db.Apply([]store.Op{func(tx *store.Tx) (any, error) {
		return tx.ResolveApproval(agent, callID, store.VerdictApproved, "before the crash")
	}})
	if err != nil || res[0].Err != nil {
		t.Fatalf("record the verdict: %v %v", err, res[0].Err)
	}
	db.Close()

	var opts []sockettest.Option
	for k, v := range env {
		opts = append(opts, sockettest.WithEnv(k, v))
	}
	srv := sockettest.NewServer(t, append(opts, sockettest.WithHome(home))...)
	r2 := &rig{t: t, srv: srv, c: srv.Client(t), base: "http://" + srv.RemoteAddr(), d: &remote.Dialer{}}
	c = r2.dial(agent, tok)
	c.Subscribe(ctx, es[len(es)-1].Seq+1)
	rest := events(t, c, es[len(es)-1].Seq+1, 60*time.Second, turnEnd)
	checkTurn(t, append(es, rest...), callID, "approved", true)
	for _, e := range rest {
		if e.Type == "approval/requested" {
			t.Errorf("the call was asked about again after the restart: %s", describe(rest))
		}
	}
	// The policy set before the restart still approves.
	waitIdle(t, r2, agent)
	c.Inject(ctx, "tool=Grep say=found", true)
	es = events(t, c, rest[len(rest)-1].Seq+1, 60*time.Second, turnEnd)
	auto := false
	for _, e := range es {
		if p := payloadOf(t, e); e.Type == "approval/resolved" && p["reason"] == "policy" {
			auto = true
		}
	}
	if !auto {
		t.Errorf("the policy was not rebuilt after the restart: %s", describe(es))
	}
	_ = context.Background
}

// While a turn is parked on an approval, a wake is never typed into the blocked pane: it
// waits in the inbox and rides the turn once the verdict lets it go on. A cancel of a
// parked turn denies the standing request, answers the call and closes the turn.
func TestStreamParkedTurn(t *testing.T) {
	t.Parallel()
	r := newRig(t, `"approvals": true`)
	_, c, from := r.idleLive("park/a")
	ctx := ctxT(t, 120*time.Second)
	c.Inject(ctx, "tool=Bash say=one turn_ms=3000", true)
	es := untilRequest(t, c, from)
	callID, _ := payloadOf(t, es[len(es)-1])["call_id"].(string)
	c.Inject(ctx, "say=steer", true)
	c.Approve(ctx, callID, "")
	rest := events(t, c, es[len(es)-1].Seq+1, 60*time.Second, turnEnd)
	var resolvedAt, injectedAt int64 = -1, -1
	for _, e := range rest {
		switch {
		case e.Type == "approval/resolved":
			resolvedAt = e.Seq
		case e.Type == "context/injected" && payloadOf(t, e)["text"] == "say=steer":
			injectedAt = e.Seq
		}
	}
	if resolvedAt < 0 || injectedAt < resolvedAt {
		t.Errorf("the steer must ride after the verdict (resolved at %d, injected at %d): %s", resolvedAt, injectedAt, describe(rest))
	}

	c2, from2 := r.liveOn(rest[0].SessionID)
	c2.Inject(ctx, "tool=Write say=two", true)
	es = untilRequest(t, c2, from2)
	callID, _ = payloadOf(t, es[len(es)-1])["call_id"].(string)
	c2.Cancel(ctx, "stop it")
	rest = events(t, c2, es[len(es)-1].Seq+1, 30*time.Second, turnEnd)
	var types []string
	for _, e := range rest {
		types = append(types, e.Type)
	}
	if got := fmt.Sprint(types); got != "[approval/resolved tool/result turn/end]" {
		t.Fatalf("cancel of a parked turn logged %s", got)
	}
	if p := payloadOf(t, rest[0]); p["call_id"] != callID || p["verdict"] != "denied" || p["reason"] != "stop it" {
		t.Errorf("denial %v", p)
	}
	if p := payloadOf(t, rest[1]); p["call_id"] != callID || p["ok"] != false || p["text"] != "cancelled before execution" {
		t.Errorf("answer %v", p)
	}
	if p := payloadOf(t, rest[2]); p["status"] != "cancelled" || p["reason"] != "stop it" {
		t.Errorf("turn/end %v", p)
	}
}

// A CLI that draws its permission dialog before its transcript has the call (claude
// on a loaded machine) is still asked about: within callWait the block is recorded as
// permission with the request; later than that, the request comes on one of the agent
// actor's later looks while the agent stays blocked (docs/remote.md §7) — also when the
// late write, after the looks began (8 s: past the 2 s wait, the first look a second
// later and herdr's report of the block), leaves the file's mtime in the millisecond it
// had (an append right after the write before it), which a look that compared mtimes in
// ms took for no change.
func TestStreamApprovalOfACallWrittenLate(t *testing.T) {
	t.Parallel()
	r := newRig(t, `"approvals": true`)
	for _, tc := range []struct {
		lateMS int
		sameMS bool   // the late write keeps the mtime
		kind   string // the block's kind as recorded
	}{{800, false, "permission"}, {4000, false, ""}, {8000, true, ""}} {
		name := fmt.Sprint(tc.lateMS)
		if tc.sameMS {
			name += "_same_ms"
		}
		t.Run(name, func(t *testing.T) {
			agent, c, from := r.idleLive("late/" + name)
			ctx := ctxT(t, 120*time.Second)
			directive := fmt.Sprintf("tool=Bash call_late_ms=%d say=ran", tc.lateMS)
			if tc.sameMS {
				directive += " call_same_ms"
			}
			c.Inject(ctx, directive, true)
			es := untilRequest(t, c, from)
			callID, _ := payloadOf(t, es[len(es)-1])["call_id"].(string)
			res, err := r.c.Ls(ctx, api.LsRequest{Pattern: agent})
			if err != nil || len(res.Agents) != 1 || res.Agents[0].Status != "blocked" {
				t.Fatalf("at the request: %+v %v, want blocked", res, err)
			}
			if got := res.Agents[0].BlockedKind; tc.kind != "" && (got == nil || *got != tc.kind) {
				t.Errorf("blocked kind %v, want %s", got, tc.kind)
			}
			c.Approve(ctx, callID, "late but fine")
			rest := events(t, c, es[len(es)-1].Seq+1, 60*time.Second, turnEnd)
			checkTurn(t, append(es, rest...), callID, "approved", true)
		})
	}
}
