package socketapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/sockettest"
	"github.com/orcr-go/orcr/tests/poll"
)

// watchRecorder ranges over a Watch and keeps the model's snapshot at each of the last
// steps, so a test can compare the model at exactly the seq of an api.snapshot.
type watchRecorder struct {
	mu    sync.Mutex
	seq   int64
	steps map[int64]api.Snapshot
	err   error
	done  chan struct{}
}

const recorderKeep = 512

// recordWatch returns once the watch is open (its snapshot is the first step), so every
// api.snapshot taken after it is at a seq the recorder reaches.

// noEventFields are the row fields whose changes emit no event (docs/protocol.md §6: the
// idle clock), so a model folded from events cannot follow them: an idle streak that
// starts after a turn settled changes idle_since at the same seq.
var noEventFields = cmpopts.IgnoreFields(api.AgentRow{}, "IdleSince")

func recordWatch(ctx context.Context, c *socketapi.Client) *watchRecorder {
	r := &watchRecorder{steps: map[int64]api.Snapshot{}, done: make(chan struct{})}
	open := make(chan struct{})
	var once sync.Once
	go func() {
		defer close(r.done)
		defer once.Do(func() { close(open) })
		for m, err := range c.Watch(ctx) {
			r.mu.Lock()
			if err != nil {
				r.err = err
				r.mu.Unlock()
				return
			}
			r.seq = m.Seq
			r.steps[m.Seq] = m.Snapshot()
			delete(r.steps, m.Seq-recorderKeep)
			r.mu.Unlock()
			once.Do(func() { close(open) })
		}
	}()
	<-open
	return r
}

// at waits until the watch has applied seq and returns the model's snapshot there.
func (r *watchRecorder) at(t *testing.T, seq int64) api.Snapshot {
	t.Helper()
	var (
		s   api.Snapshot
		cur int64
	)
	poll.Eventually(t, 30*time.Second, fmt.Sprintf("the watch to apply seq %d", seq), func() bool {
		r.mu.Lock()
		step, ok := r.steps[seq]
		c, err := r.seq, r.err
		r.mu.Unlock()
		cur = c
		switch {
		case ok:
		case err != nil:
			t.Fatalf("watch ended at seq %d: %v", c, err)
		case c > seq:
			t.Fatalf("watch is at seq %d, past %d, whose step it no longer holds", c, seq)
		}
		s = step
		return ok
	}, func() string { return fmt.Sprintf("stuck at seq %d", cur) })
	return s
}

// Acceptance 2 of the typed API: Watch under churn — 100 agents queueing under a cap,
// spawning, working, taking a second prompt, being killed and ending — keeps a model
// that equals api.snapshot at the same seq, from watch.open's snapshot and the events
// alone (queue positions included).
func TestWatchModelEqualsSnapshotUnderChurn(t *testing.T) {
	t.Parallel()
	srv := sockettest.NewServer(t, sockettest.WithHerdr(t), sockettest.WithConfig(
		`{"concurrency": {"max": 36}, "timings": {"idle_after": "1h", "kill_after": "2h"}}`))
	c := srv.Client(t)
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()

	// A few agents exist before the watch opens: they come from its snapshot.
	for i := range 5 {
		if _, err := c.Run(ctx, api.RunRequest{Path: fmt.Sprintf("pre/a%d", i), Agent: "mock", GC: "never", Prompt: "turn_ms=20"}); err != nil {
			t.Fatal(err)
		}
	}
	rec := recordWatch(ctx, c)
	if s := rec.at(t, mustSnapshot(t, c).SnapshotSeq); len(s.Agents) != 5 {
		t.Fatalf("watch snapshot holds %d agents, want 5", len(s.Agents))
	}

	const n = 100
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- churn(ctx, c, i)
		}()
	}
	// Mid-churn, with agents queued behind the cap: queue positions must match too.
	var mid api.Snapshot
	poll.Eventually(t, 60*time.Second, "a snapshot with a queue during the churn", func() bool {
		mid = mustSnapshot(t, c)
		return len(mid.Queue) > 0
	})
	if diff := cmp.Diff(mid, rec.at(t, mid.SnapshotSeq), noEventFields); diff != "" {
		t.Errorf("mid-churn model at seq %d differs from api.snapshot (-snapshot +model):\n%s", mid.SnapshotSeq, diff)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if _, err := c.Wait(ctx, api.WaitRequest{Targets: []string{"churn/**", "pre/**"}, Timeout: "60s"}); err != nil {
		t.Fatal(err)
	}

	// Compare at the seq of a fresh snapshot (later events do not matter: the model is
	// taken at exactly that seq).
	want := mustSnapshot(t, c)
	got := rec.at(t, want.SnapshotSeq)
	if diff := cmp.Diff(want, got, noEventFields); diff != "" {
		t.Errorf("model at seq %d differs from api.snapshot (-snapshot +model):\n%s", want.SnapshotSeq, diff)
	}
	live := 0
	for _, a := range want.Agents {
		if a.Status != api.StatusEnded {
			live++
		}
	}
	if live < 25 {
		t.Errorf("only %d agents left at the end; the churn should leave the idle quarter", live)
	}
	cancel()
	<-rec.done
}

// churn drives agent i through one of three lives: ask-like (gc immediate, ends after
// its turn; half of them), two turns then idle (gc never; a quarter: with the five
// earlier agents they stay under the cap of 36, which idle agents hold), or killed
// wherever it is (queued, starting or working).
func churn(ctx context.Context, c *socketapi.Client, i int) error {
	path := fmt.Sprintf("churn/a%03d", i)
	switch i % 4 {
	case 0, 3:
		_, err := c.Run(ctx, api.RunRequest{Path: path, Agent: "mock", GC: "immediate", Prompt: "turn_ms=30"})
		return err
	case 1:
		r, err := c.Run(ctx, api.RunRequest{Path: path, Agent: "mock", GC: "never", Prompt: "turn_ms=30"})
		if err != nil {
			return err
		}
		w, err := c.Wait(ctx, api.WaitRequest{Targets: []string{r.Agent.UUID}, Timeout: "240s"}) // a deadline, not an assertion: 100 agents on 2 cores
		if err != nil || !w.AllOK {
			return fmt.Errorf("%s: first turn: %+v %v", path, w, err)
		}
		_, err = c.Send(ctx, api.SendRequest{Target: r.Agent.UUID, Prompt: "turn_ms=20"})
		return err
	default:
		r, err := c.Run(ctx, api.RunRequest{Path: path, Agent: "mock", GC: "never", Prompt: "turn_ms=5000"})
		if err != nil {
			return err
		}
		_, err = c.Kill(ctx, api.KillRequest{Targets: []string{r.Agent.UUID}})
		return err
	}
}

func mustSnapshot(t *testing.T, c *socketapi.Client) api.Snapshot {
	t.Helper()
	s, err := c.Snapshot(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The model's Snapshot is api.snapshot's shape: it encodes with the same keys.
func TestModelSnapshotEncodesLikeAPISnapshot(t *testing.T) {
	t.Parallel()
	srv := sockettest.NewServer(t)
	c := srv.Client(t)
	var raw map[string]json.RawMessage
	if err := c.Call(t.Context(), "api.snapshot", nil, &raw); err != nil {
		t.Fatal(err)
	}
	for m, err := range c.Watch(t.Context()) {
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(m.Snapshot())
		var got map[string]json.RawMessage
		json.Unmarshal(b, &got)
		for k := range raw {
			if _, ok := got[k]; !ok {
				t.Errorf("model snapshot lacks %q", k)
			}
		}
		if string(got["agents"]) != "[]" || string(got["queue"]) != "[]" || string(got["loops"]) != "[]" {
			t.Errorf("empty model: %s", b)
		}
		break
	}
}

// Loops in the watch model (docs/loops.md §11): a loop created, a run started and
// stopped, a pause and a removal — after each, the model built from events alone equals
// api.snapshot at the same seq.
func TestWatchModelFollowsLoops(t *testing.T) {
	t.Parallel()
	srv := sockettest.NewServer(t, sockettest.WithHerdr(t), sockettest.WithConfig(`{"timings": {"run_term_grace": "2s"}}`))
	c := srv.Client(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	rec := recordWatch(ctx, c)
	check := func(what string) {
		t.Helper()
		want := mustSnapshot(t, c)
		if diff := cmp.Diff(want, rec.at(t, want.SnapshotSeq), noEventFields); diff != "" {
			t.Errorf("%s: model differs from api.snapshot (-snapshot +model):\n%s", what, diff)
		}
	}
	if _, err := c.LoopCreate(ctx, api.LoopCreateRequest{Name: "w", Cron: "0 0 1 1 *", Cwd: "/",
		Command: []string{"sleep", "30"}}); err != nil {
		t.Fatal(err)
	}
	check("after create")
	run, err := c.LoopRunStart(ctx, "w")
	if err != nil {
		t.Fatal(err)
	}
	var s api.Snapshot
	poll.Eventually(t, 10*time.Second, "the run to show as started", func() bool {
		s = mustSnapshot(t, c)
		return len(s.Loops) == 1 && len(s.Loops[0].Runs) == 1 && s.Loops[0].Runs[0].StartedAt != nil
	}, func() string { return fmt.Sprintf("loops %+v", s.Loops) })
	check("with a running run")
	if _, err := c.LoopPause(ctx, "w"); err != nil {
		t.Fatal(err)
	}
	check("paused")
	if _, err := c.LoopRunStop(ctx, api.LoopRunStopRequest{Name: "w", Run: run.Run.RunID}); err != nil {
		t.Fatal(err)
	}
	check("after the stop")
	if _, err := c.LoopRm(ctx, api.LoopRmRequest{Names: []string{"w"}}); err != nil {
		t.Fatal(err)
	}
	check("after rm")
	if s := mustSnapshot(t, c); len(s.Loops) != 0 {
		t.Errorf("a removed loop is still in the snapshot: %+v", s.Loops)
	}
}
