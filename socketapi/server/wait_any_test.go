package server_test

import (
	"context"
	"reflect"
	"runtime"
	"testing"
	"time"
)

// agent.wait with any (docs/protocol.md §5.12): one server, each case under its own
// paths.
func TestWaitAny(t *testing.T) {
	t.Parallel()
	srv := newWaitServer(t)
	c := srv.Client(t)
	none := waitNext{Kind: "none"}

	// The wait blocks while nothing settles (an unrelated event wakes it and it goes on
	// waiting), then answers at the first target that does, naming it; the others are
	// pending, not wait_timeout.
	t.Run("first to settle", func(t *testing.T) {
		a, b, d := newID(), newID(), newID()
		setAgent(t, c, a, "y/a", "working")
		setAgent(t, c, b, "y/b", "starting")
		setAgent(t, c, d, "y/d", "working")
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		ch := startWait(ctx, c, map[string]any{"targets": []string{"y/*"}, "any": true})
		stillWaiting(t, ch, "with nothing settled")
		if err := c.Call(ctx, "__debug.emit_event", nil, nil); err != nil {
			t.Fatal(err)
		}
		stillWaiting(t, ch, "after an unrelated event")
		seq := setAgent(t, c, b, "y/b", "blocked", "blocked_kind", "question")
		o := collect(t, ch, waitFast)
		want := waitResp{Targets: []waitEntry{
			{UUID: a, Path: "y/a", Status: "working", Reason: "pending", Next: none},
			{UUID: b, Path: "y/b", Status: "blocked", Reason: "blocked:question", Next: waitNext{Kind: "attach", Command: "orcr agent attach y/b"}},
			{UUID: d, Path: "y/d", Status: "working", Reason: "pending", Next: none},
		}, DecisionSeq: o.res.DecisionSeq, FirstSettled: b}
		if !reflect.DeepEqual(o.res, want) || o.res.DecisionSeq < seq {
			t.Fatalf("got %+v\nwant %+v (decision_seq ≥ %d)", o.res, want, seq)
		}
	})

	// Targets already settled at the call: the one whose status changed first is named,
	// even when it is not the first by path; the other settled one keeps its reason.
	t.Run("already settled", func(t *testing.T) {
		early, late, busy := newID(), newID(), newID()
		setAgent(t, c, busy, "p/busy", "working")
		setAgent(t, c, early, "p/z_early", "blocked", "blocked_kind", "login")
		tickMillis(t)
		setAgent(t, c, late, "p/a_late", "idle")
		r := callWait(t, c, map[string]any{"targets": []string{"p/*"}, "any": true})
		m := byPath(r)
		if r.FirstSettled != early || r.AllOK || r.TimedOut {
			t.Fatalf("got %+v, want first_settled %s (p/z_early)", r, early)
		}
		if m["p/z_early"].Reason != "blocked:login" || m["p/a_late"].Reason != "turn_complete" || m["p/busy"].Reason != "pending" {
			t.Fatalf("reasons: got %+v", r.Targets)
		}
	})

	// any with one target is an ordinary wait that also names it.
	t.Run("single target", func(t *testing.T) {
		id := newID()
		setAgent(t, c, id, "s1/only", "working")
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		ch := startWait(ctx, c, map[string]any{"targets": []string{id}, "any": true})
		stillWaiting(t, ch, "while it works")
		setAgent(t, c, id, "s1/only", "idle")
		o := collect(t, ch, waitFast)
		if o.res.FirstSettled != id || !o.res.AllOK || len(o.res.Targets) != 1 || o.res.Targets[0].Reason != "turn_complete" {
			t.Fatalf("got %+v", o.res)
		}
	})

	// A timeout with nothing settled is the plain wait's timeout: timed_out, every target
	// wait_timeout, none named.
	t.Run("timeout", func(t *testing.T) {
		a, b := newID(), newID()
		setAgent(t, c, a, "to/a", "working")
		seq := setAgent(t, c, b, "to/b", "starting")
		start := time.Now()
		r := callWait(t, c, map[string]any{"targets": []string{"to/*"}, "any": true, "timeout": "150ms"})
		if took := time.Since(start); took < 150*time.Millisecond || took > waitFast {
			t.Errorf("timeout 150ms answered after %v", took)
		}
		want := waitResp{Targets: []waitEntry{
			{UUID: a, Path: "to/a", Status: "working", Reason: "wait_timeout", Next: none},
			{UUID: b, Path: "to/b", Status: "starting", Reason: "wait_timeout", Next: none},
		}, TimedOut: true, DecisionSeq: seq}
		if !reflect.DeepEqual(r, want) {
			t.Fatalf("got %+v\nwant %+v", r, want)
		}
	})
}

// tickMillis returns once the wall clock has moved on by two milliseconds, so that the
// next row change gets a later last_status_change_at (the store keeps Unix ms).
func tickMillis(t *testing.T) {
	t.Helper()
	from := time.Now().UnixMilli()
	for deadline := time.Now().Add(time.Second); time.Now().UnixMilli() < from+2; runtime.Gosched() {
		if time.Now().After(deadline) {
			t.Fatal("the clock did not move")
		}
	}
}
