package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/orcr-go/orcr/cmd/orcr/cli"
	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/sockettest"
	"github.com/orcr-go/orcr/store"
	"github.com/orcr-go/orcr/tests/poll"
)

// Acceptance tests of the completion issue (turns, wait, blocked) against the herdr
// stand-in and the mock agent. Mock tuning: fast_turn_grace 1500 ms, idle_stable 1200 ms,
// transcript_settle 0. Each runs twice, unchanged ([sockettest.EachHerdr]): against the
// stand-in playing protocol 20, and playing herdr 0.9.x — protocol 22 with
// completion_seq, the optional completion signal of docs/lifecycle.md §10.2.

const (
	mockGrace      = 1500 * time.Millisecond
	mockIdleStable = 1200 * time.Millisecond
)

// turnEvent is one agent event seen on the event stream, with the time it arrived.
type turnEvent struct {
	Seq      int64
	Kind     string `json:"kind"`
	UUID     string `json:"uuid"`
	Status   string `json:"status"`
	InputSeq int64  `json:"input_seq"`
	At       time.Time
}

// turnEvents records the whole event stream of a server from seq 0.
type turnEvents struct {
	mu  sync.Mutex
	evs []turnEvent
	err error
}

func watchTurnEvents(t *testing.T, c *socketapi.Client) *turnEvents {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	st, err := c.Subscribe(ctx, "events.subscribe", map[string]any{"since_seq": 0})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	l := &turnEvents{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			f, err := st.Next()
			if err != nil {
				l.mu.Lock()
				l.err = err
				l.mu.Unlock()
				return
			}
			var e turnEvent
			json.Unmarshal(f.Event, &e)
			e.Seq, e.At = f.Seq, time.Now()
			l.mu.Lock()
			l.evs = append(l.evs, e)
			l.mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		cancel()
		st.Close()
		<-done
	})
	return l
}

// all returns the recorded events of uuid that match kind ("" = any).
func (l *turnEvents) all(uuid, kind string) []turnEvent {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []turnEvent
	for _, e := range l.evs {
		if e.UUID == uuid && (kind == "" || e.Kind == kind) {
			out = append(out, e)
		}
	}
	return out
}

// await polls until an event of uuid satisfies match, or fails after within.
func (l *turnEvents) await(t *testing.T, uuid, what string, within time.Duration, match func(turnEvent) bool) turnEvent {
	t.Helper()
	var found turnEvent
	poll.Eventually(t, within, "a "+what+" event", func() bool {
		for _, e := range l.all(uuid, "") {
			if match(e) {
				found = e
				return true
			}
		}
		return false
	}, func() string {
		l.mu.Lock()
		err := l.err
		l.mu.Unlock()
		return fmt.Sprintf("stream error %v; events: %+v", err, l.all(uuid, ""))
	})
	return found
}

// turnDuration is the time from delivery to completion of uuid's latest turn
// (agent.ls), and whether the turn recorded a delivery at all.
func turnDuration(t *testing.T, c *socketapi.Client, uuid string) (time.Duration, bool) {
	t.Helper()
	var res struct {
		Agents []struct {
			DeliveredAt int64 `json:"turn_delivered_at"`
			CompletedAt int64 `json:"turn_completed_at"`
		} `json:"agents"`
	}
	if err := c.Call(context.Background(), "agent.ls", map[string]any{"pattern": uuid}, &res); err != nil || len(res.Agents) != 1 {
		t.Fatalf("agent.ls: %v %+v", err, res)
	}
	row := res.Agents[0]
	return time.Duration(row.CompletedAt-row.DeliveredAt) * time.Millisecond, row.DeliveredAt != 0
}

func turnCompleted(seq int64) func(turnEvent) bool {
	return func(e turnEvent) bool { return e.Kind == "agent.turn_completed" && e.InputSeq == seq }
}

// lastResponse is agent.logs --last-response; it fails the test on an error.
func lastResponse(t *testing.T, c *socketapi.Client, target string) string {
	t.Helper()
	var r logsResult
	if err := c.Call(context.Background(), "agent.logs", map[string]any{"target": target, "last_response": true}, &r); err != nil {
		t.Fatalf("agent.logs %s --last-response: %v", target, err)
	}
	if r.Response == nil {
		t.Fatalf("agent.logs %s --last-response: no response in %+v", target, r)
	}
	return r.Response.Text
}

func send(t *testing.T, c *socketapi.Client, target, prompt string) int64 {
	t.Helper()
	var res struct {
		InputSeq int64 `json:"input_seq"`
	}
	if err := c.Call(context.Background(), "agent.send", map[string]any{"target": target, "prompt": prompt}, &res); err != nil {
		t.Fatalf("agent.send %s: %v", target, err)
	}
	return res.InputSeq
}

func waitOne(t *testing.T, c *socketapi.Client, target string, within time.Duration) waitEntry {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	o := collect(t, startWait(ctx, c, map[string]any{"targets": []string{target}}), within)
	if len(o.res.Targets) != 1 {
		t.Fatalf("agent.wait %s: %+v", target, o.res)
	}
	return o.res.Targets[0]
}

// cliWait runs `orcr agent wait <target>` in process against srv and returns its exit
// code and stdout.
func cliWait(t *testing.T, srv *sockettest.Server, target string) (int, string) {
	t.Helper()
	var out, errb bytes.Buffer
	vars := map[string]string{"ORCR_HOME": srv.Home}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	code := cli.Run(ctx, []string{"agent", "wait", target}, cli.Env{
		Stdout: &out, Stderr: &errb,
		Getenv:  func(k string) string { return vars[k] },
		Environ: func() []string { return nil },
		Getwd:   func() (string, error) { return "/", nil },
		IsTTY:   func() bool { return false },
		Spawn: func(string) error {
			t.Errorf("orcr agent wait tried to start a server")
			return nil
		},
	})
	if errb.Len() > 0 {
		t.Logf("orcr agent wait %s stderr: %s", target, errb.String())
	}
	return code, out.String()
}

// Acceptance 1: after a first turn completed, send then wait at once. The old idle does
// not satisfy the wait; it returns only once the second answer is in the transcript, at a
// decision_seq that includes the second turn's completion.
func TestTurnNoStaleIdle(t *testing.T) {
	t.Parallel()
	sockettest.EachHerdr(t, testTurnNoStaleIdle)
}

func testTurnNoStaleIdle(t *testing.T) {
	srv := sockettest.NewServer(t, sockettest.WithHerdr(t))
	c := srv.Client(t)
	evs := watchTurnEvents(t, c)
	a, err := run(t, c, map[string]any{"path": "stale/one", "prompt": "say=first turn_ms=200"})
	if err != nil {
		t.Fatal(err)
	}
	if w := waitOne(t, c, "stale/one", 30*time.Second); w.Reason != "turn_complete" {
		t.Fatalf("first wait: %+v", w)
	}
	if got := lastResponse(t, c, "stale/one"); got != "first\nDONE" {
		t.Fatalf("first answer: %q", got)
	}

	if seq := send(t, c, "stale/one", "say=second turn_ms=1500"); seq != 2 {
		t.Fatalf("send: input_seq %d, want 2", seq)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	o := collect(t, startWait(ctx, c, map[string]any{"targets": []string{"stale/one"}}), 30*time.Second)
	// Right when the wait returns, the second answer is readable.
	if got := lastResponse(t, c, "stale/one"); got != "second\nDONE" {
		t.Errorf("last response right after the wait: %q, want the second answer", got)
	}
	if len(o.res.Targets) != 1 || o.res.Targets[0].Reason != "turn_complete" || !o.res.AllOK {
		t.Fatalf("second wait: %+v", o.res)
	}
	done := evs.await(t, a.UUID, "agent.turn_completed input_seq 2", 10*time.Second, turnCompleted(2))
	if o.res.DecisionSeq < done.Seq {
		t.Errorf("decision_seq %d precedes the second turn_completed (seq %d): satisfied by a stale idle", o.res.DecisionSeq, done.Seq)
	}
	if n := len(evs.all(a.UUID, "agent.turn_completed")); n != 2 {
		t.Errorf("%d turn_completed events, want 2", n)
	}
}

// Acceptance 2: a turn with idle gaps shorter than idle_stable between its tool calls
// completes exactly once, at its end: the agent never shows idle in between, and when the
// completion lands the whole answer is in the transcript.
func TestTurnToolGapsCompleteOnce(t *testing.T) {
	t.Parallel()
	sockettest.EachHerdr(t, testTurnToolGapsCompleteOnce)
}

func testTurnToolGapsCompleteOnce(t *testing.T) {
	srv := sockettest.NewServer(t, sockettest.WithHerdr(t))
	c := srv.Client(t)
	evs := watchTurnEvents(t, c)
	a, err := run(t, c, map[string]any{"path": "gaps/one"})
	if err != nil {
		t.Fatal(err)
	}
	waitStatus(t, c, a.UUID, "idle")
	sent := time.Now()
	send(t, c, "gaps/one", "say=gapped turn_ms=500 tool_gaps=3 gap_ms=400")
	done := evs.await(t, a.UUID, "agent.turn_completed input_seq 1", 30*time.Second, turnCompleted(1))
	// The answer is complete at the moment the completion is observed.
	if got := lastResponse(t, c, "gaps/one"); got != "gapped\nDONE" {
		t.Errorf("last response at completion: %q", got)
	}
	// The mock works 3×(500+400)+500 ms after Enter; a completion at a gap is earlier.
	if min := 3*(500+400)*time.Millisecond + 500*time.Millisecond; done.At.Sub(sent) < min {
		t.Errorf("turn completed %v after the send, before the turn's last working stretch ended (%v)", done.At.Sub(sent), min)
	}
	// A second turn is a barrier: after it completed, the first turn still completed once.
	send(t, c, "gaps/one", "say=next turn_ms=200")
	evs.await(t, a.UUID, "agent.turn_completed input_seq 2", 30*time.Second, turnCompleted(2))
	n := 0
	for _, e := range evs.all(a.UUID, "agent.turn_completed") {
		if e.InputSeq == 1 {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d turn_completed events for input_seq 1, want 1", n)
	}
	// No public idle between the send (status working, input_seq 1) and the completion.
	opened := evs.await(t, a.UUID, "agent.status_changed working input_seq 1", 10*time.Second, func(e turnEvent) bool {
		return e.Kind == "agent.status_changed" && e.Status == "working" && e.InputSeq == 1
	})
	for _, e := range evs.all(a.UUID, "agent.status_changed") {
		if e.Seq > opened.Seq && e.Seq < done.Seq {
			t.Errorf("agent shown %s mid-turn at seq %d (turn opened at %d, completed at %d)", e.Status, e.Seq, opened.Seq, done.Seq)
		}
	}
}

// Acceptance 3: a turn that finishes before working is ever observed completes after the
// full grace window; a provider that starts working late (within the grace window) is not
// completed by the idle that preceded it.
func TestTurnFastAndLateWorking(t *testing.T) {
	t.Parallel()
	sockettest.EachHerdr(t, testTurnFastAndLateWorking)
}

func testTurnFastAndLateWorking(t *testing.T) {
	t.Run("fast", func(t *testing.T) {
		// no_working: herdr never shows this turn working. A turn_ms=0 turn alone is not
		// enough: its working lasts well under a millisecond, but a monitor poll that
		// lands in it (more likely on a loaded machine) legitimately completes the turn
		// once idle is stable (idle_stable + a tick ≈ 1.4 s after delivery), before the
		// grace window, and this test would fail for a correct server.
		srv := sockettest.NewServer(t, sockettest.WithHerdr(t))
		c := srv.Client(t)
		evs := watchTurnEvents(t, c)
		a, err := run(t, c, map[string]any{"path": "fast/one"})
		if err != nil {
			t.Fatal(err)
		}
		waitStatus(t, c, a.UUID, "idle")
		send(t, c, "fast/one", "say=quick turn_ms=0 no_working")
		evs.await(t, a.UUID, "agent.turn_completed input_seq 1", 30*time.Second, turnCompleted(1))
		// The grace window runs from the turn's delivery (docs/lifecycle.md §10.2 fast_ok).
		if d, delivered := turnDuration(t, c, a.UUID); !delivered || d < mockGrace {
			t.Errorf("fast turn completed %v after delivery (delivered %v), before the %v grace window passed", d, delivered, mockGrace)
		}
		if got := lastResponse(t, c, "fast/one"); got != "quick\nDONE" {
			t.Errorf("fast turn answer: %q", got)
		}
		waitStatus(t, c, a.UUID, "idle")
	})
	t.Run("late working", func(t *testing.T) {
		// The mock stays idle 700 ms after Enter (less than the grace window) before it
		// reports working, then works 1 s.
		srv := sockettest.NewServer(t, sockettest.WithHerdr(t), sockettest.WithEnv("ORCR_MOCK_DELAY_WORKING_MS", "700"))
		c := srv.Client(t)
		evs := watchTurnEvents(t, c)
		a, err := run(t, c, map[string]any{"path": "late/one"})
		if err != nil {
			t.Fatal(err)
		}
		waitStatus(t, c, a.UUID, "idle")
		send(t, c, "late/one", "say=late turn_ms=1000")
		w := waitOne(t, c, "late/one", 30*time.Second)
		if w.Reason != "turn_complete" {
			t.Fatalf("wait: %+v", w)
		}
		// Right when the wait returns, the answer is there: a completion by the stale
		// idle before working would find no answer at all (this agent had no turn before).
		if got := lastResponse(t, c, "late/one"); got != "late\nDONE" {
			t.Errorf("answer when the wait returned: %q", got)
		}
		evs.await(t, a.UUID, "agent.turn_completed input_seq 1", 10*time.Second, turnCompleted(1))
		// A mis-completed turn would have its real work show up afterwards as an
		// external turn (input_seq 2) and complete again.
		barrier := send(t, c, "late/one", "say=after turn_ms=100")
		evs.await(t, a.UUID, "agent.turn_completed of the barrier turn", 30*time.Second, turnCompleted(barrier))
		var seqs []int64
		for _, e := range evs.all(a.UUID, "agent.turn_completed") {
			seqs = append(seqs, e.InputSeq)
		}
		if barrier != 2 || len(seqs) != 2 || seqs[0] != 1 || seqs[1] != 2 {
			t.Errorf("turn_completed input_seqs %v, want [1 2] (no external turn from a mis-completion)", seqs)
		}
	})
}

// Acceptance 4: `block` makes the wait return blocked:<kind> (CLI exit 4); a send
// un-settles it, and a later wait returns turn_complete (exit 0).
func TestTurnBlockedThenSend(t *testing.T) {
	t.Parallel()
	sockettest.EachHerdr(t, testTurnBlockedThenSend)
}

func testTurnBlockedThenSend(t *testing.T) {
	srv := sockettest.NewServer(t, sockettest.WithHerdr(t))
	c := srv.Client(t)
	a, err := run(t, c, map[string]any{"path": "blk/one", "prompt": "say=asking block turn_ms=200"})
	if err != nil {
		t.Fatal(err)
	}
	w := waitOne(t, c, "blk/one", 30*time.Second)
	if w.Status != "blocked" || !strings.HasPrefix(w.Reason, "blocked:") || w.OK || w.Next.Kind != "attach" {
		t.Fatalf("wait on a blocked agent: %+v", w)
	}
	kind := strings.TrimPrefix(w.Reason, "blocked:")
	switch kind {
	case "question", "limit", "login", "unknown":
	default:
		t.Errorf("blocked kind %q", kind)
	}
	code, out := cliWait(t, srv, "blk/one")
	if code != 4 || out != "blk/one  "+w.Reason+"\n" {
		t.Errorf("orcr agent wait on blocked: exit %d stdout %q, want 4 and %q", code, out, "blk/one  "+w.Reason)
	}

	send(t, c, "blk/one", "say=unblocked turn_ms=300")
	if rows := ls(t, c, map[string]any{"pattern": a.UUID}); rows[0].Status != "working" {
		t.Errorf("right after the send: %s, want working", rows[0].Status)
	}
	code, out = cliWait(t, srv, "blk/one")
	if code != 0 || out != "blk/one  turn_complete\n" {
		t.Errorf("orcr agent wait after the send: exit %d stdout %q, want 0 and turn_complete", code, out)
	}
	if got := lastResponse(t, c, "blk/one"); got != "unblocked\nDONE" {
		t.Errorf("answer after unblocking: %q", got)
	}
}

// With completion_seq (herdr 0.9.x): a turn whose working phase is too short for the
// monitor's poll to see completes once idle has been stable after herdr's idle edge,
// without waiting out the fast-turn window. The window is stretched to 5 s here, which
// is when it would complete without completion_seq; at least one of two such turns must
// show no working_seen_at (the rare poll that lands in the sub-millisecond working phase
// completes the turn early too, but by the working-seen rule).
func TestTurnCompletionSeqFastTurn(t *testing.T) {
	t.Parallel()
	const grace = 5 * time.Second
	sockettest.UseHerdr(t, sockettest.Herdr22)
	srv := sockettest.NewServer(t, sockettest.WithHerdr(t),
		sockettest.WithConfig(`{"integrations": {"mock": {"fast_turn_grace_ms": 5000}}}`),
		// The mock waits 1.5 s after Enter before its instant turn: well after the
		// baseline read that follows the Enter, even on a loaded machine (at 300 ms the
		// read came after the edge 1 in 10 full runs), and well inside the 5 s window.
		sockettest.WithEnv("ORCR_MOCK_DELAY_WORKING_MS", "1500"))
	c := srv.Client(t)
	evs := watchTurnEvents(t, c)
	a, err := run(t, c, map[string]any{"path": "seq/one"})
	if err != nil {
		t.Fatal(err)
	}
	waitStatus(t, c, a.UUID, "idle")
	for _, word := range []string{"first", "second"} {
		seq := send(t, c, "seq/one", "say="+word+" turn_ms=0")
		evs.await(t, a.UUID, "agent.turn_completed input_seq "+word, 30*time.Second, turnCompleted(seq))
		if got := lastResponse(t, c, "seq/one"); got != word+"\nDONE" {
			t.Errorf("answer at completion of turn %d: %q", seq, got)
		}
		if d, _ := turnDuration(t, c, a.UUID); d >= grace || d < mockIdleStable {
			t.Errorf("turn %d completed %v after delivery, want between idle_stable (%v) and the %v window", seq, d, mockIdleStable, grace)
		}
		waitStatus(t, c, a.UUID, "idle")
	}

	var status struct {
		Store string `json:"store"`
	}
	if err := c.Call(context.Background(), "server.status", map[string]any{}, &status); err != nil {
		t.Fatal(err)
	}
	srv.Stop()
	if err := srv.Wait(); err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(status.Store)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var unseen int
	if err := db.Reader().QueryRow(`SELECT count(*) FROM turns WHERE agent_uuid = ? AND working_seen_at IS NULL`, a.UUID).Scan(&unseen); err != nil {
		t.Fatal(err)
	}
	if unseen == 0 {
		t.Errorf("both turns saw working: completion_seq was not what completed them")
	}
}

// A first turn the provider answers before orcr has recorded its delivery, and whose
// fast-turn window closed before herdr's first report of the pane, completes by the
// transcript written since its Enter (docs/lifecycle.md §9.1, §10.2). The mock answers
// at once and shows no working (no_working); its confirmation loop (submit_confirm_ms)
// returns only once the transcript was written; fast_turn_grace_ms 1 closes the window
// before the first report, which comes only after the start is over (the monitor
// watches a pane from then on). delivered_at was stamped when the delivery was
// recorded, after all that, so no write of the turn counted as its work and the turn
// stayed working for good: first turns stuck in working on a loaded machine.
func TestFirstTurnAnsweredBeforeItsDeliveryWasRecorded(t *testing.T) {
	t.Parallel()
	srv := sockettest.NewServer(t, sockettest.WithHerdr(t),
		sockettest.WithConfig(`{"integrations":{"mock":{"fast_turn_grace_ms":1,"submit_confirm_ms":20000}}}`))
	c := srv.Client(t)
	evs := watchTurnEvents(t, c)
	a, err := run(t, c, map[string]any{"path": "quick/first", "prompt": "say=first no_working"})
	if err != nil {
		t.Fatal(err)
	}
	// The transcript is probed every 5 s (actors.TranscriptProbeEvery).
	evs.await(t, a.UUID, "agent.turn_completed input_seq 1", 30*time.Second, turnCompleted(1))
	if got := lastResponse(t, c, "quick/first"); got != "first\nDONE" {
		t.Errorf("first turn's answer: %q", got)
	}
	waitStatus(t, c, a.UUID, "idle")
}
