package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/socketapi/sockettest"
)

// Acceptance 5: 8 writers commit events concurrently through the store actor while 4
// subscribers read from since_seq: every subscriber sees exactly 1..N, no gap, no
// duplicate.
func TestConcurrentWritersAndSubscribersSeeGaplessStream(t *testing.T) {
	t.Parallel()
	srv := sockettest.NewServer(t)
	c := srv.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	const writers, perWriter, subscribers = 8, 150, 4
	const total = writers * perWriter
	streams := make([]*socketapi.Stream, subscribers)
	for i := range streams {
		// Half start before the writes, half join late from 0 (replay then live).
		if i%2 == 1 {
			continue
		}
		st, err := c.Subscribe(ctx, "events.subscribe", map[string]any{"since_seq": 0})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		streams[i] = st
	}
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perWriter {
				if err := c.Call(ctx, "__debug.emit_event", map[string]any{"payload": map[string]any{"w": w, "i": i}}, nil); err != nil {
					t.Errorf("writer %d: %v", w, err)
					return
				}
				if w == 0 && i == perWriter/2 {
					for j := range streams {
						if streams[j] == nil {
							st, err := c.Subscribe(ctx, "events.subscribe", map[string]any{"since_seq": 0})
							if err != nil {
								t.Error(err)
								return
							}
							streams[j] = st
						}
					}
				}
			}
		}()
	}
	wg.Wait()
	for i, st := range streams {
		if st == nil {
			t.Fatalf("subscriber %d never opened", i)
		}
		defer st.Close()
		context.AfterFunc(ctx, func() { st.Close() })
		for want := int64(1); want <= total; want++ {
			f, err := st.Next()
			if err != nil {
				t.Fatalf("subscriber %d: stream ended at %d: %v", i, want, err)
			}
			if f.Seq != want {
				t.Fatalf("subscriber %d: got seq %d, want %d", i, f.Seq, want)
			}
		}
	}
}

// A subscriber that stops reading must not stall writers or other subscribers:
// frames queue for it (bounded by its credit) while the rest of the server goes on.
func TestStalledSubscriberDoesNotBlockWriters(t *testing.T) {
	t.Parallel()
	srv := sockettest.NewServer(t)
	c := srv.Client(t)
	// A blocked writer never returns; a slow one is not what is checked: 800 emits took
	// over 60 s under -race beside a full run (s25a-1, at emit 755), a few seconds alone.
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	stalled, err := c.Subscribe(ctx, "events.subscribe", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer stalled.Close()
	for i := range 800 {
		if err := c.Call(ctx, "__debug.emit_event", map[string]any{"payload": map[string]any{"i": i, "pad": strings.Repeat("p", 2048)}}, nil); err != nil {
			t.Fatalf("emit %d with a stalled subscriber: %v", i, err)
		}
	}
	// The stalled stream still delivers everything, in order, once read.
	for want := int64(1); want <= 800; want++ {
		f, err := stalled.Next()
		if err != nil || f.Seq != want {
			t.Fatalf("stalled stream: got %v %v, want seq %d", f, err, want)
		}
	}
}

type agentState struct {
	UUID   string `json:"uuid"`
	Path   string `json:"path"`
	Status string `json:"status"`
}

// Acceptance 6: watch.open under churn with a small retention: the snapshot plus the
// stream reconstruct the final state exactly, even for a watcher slower than retention;
// an unpinned events.subscribe from an old cursor gets cursor_expired.
func TestWatchOpenReconstructsStateUnderChurn(t *testing.T) {
	t.Parallel()
	srv := sockettest.NewServer(t, sockettest.WithEnv("ORCR_EVENT_RETENTION", "100"))
	c := srv.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()

	const agents, rounds = 20, 40
	uuids := make([]string, agents)
	for i := range uuids {
		uuids[i] = fmt.Sprintf("0190a000-0000-7000-8000-%012d", i)
	}
	set := func(i int, status string) {
		t.Helper()
		if err := c.Call(ctx, "__debug.set_agent", map[string]any{"uuid": uuids[i], "path": fmt.Sprintf("w/a%d", i), "status": status}, nil); err != nil {
			t.Fatalf("set_agent: %v", err)
		}
	}
	for i := range agents {
		set(i, "working")
	}

	w, err := c.Subscribe(ctx, "watch.open", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	context.AfterFunc(ctx, func() { w.Close() })
	var open struct {
		SnapshotSeq int64 `json:"snapshot_seq"`
		Snapshot    struct {
			SnapshotSeq int64        `json:"snapshot_seq"`
			Agents      []agentState `json:"agents"`
		} `json:"snapshot"`
	}
	if err := json.Unmarshal(w.Result, &open); err != nil {
		t.Fatal(err)
	}
	if open.SnapshotSeq != open.Snapshot.SnapshotSeq || open.SnapshotSeq == 0 {
		t.Fatalf("snapshot_seq %d vs inner %d", open.SnapshotSeq, open.Snapshot.SnapshotSeq)
	}
	state := map[string]agentState{}
	for _, a := range open.Snapshot.Agents {
		state[a.UUID] = a
	}

	// Churn far past the retention of 100 while the watcher reads nothing.
	rng := rand.New(rand.NewPCG(1, 2))
	statuses := []string{"working", "idle", "blocked", "parked", "ended"}
	ended := map[int]bool{}
	for range rounds {
		for i := range agents {
			if ended[i] {
				continue
			}
			st := statuses[rng.IntN(len(statuses))]
			set(i, st)
			ended[i] = st == "ended"
		}
	}
	var head struct{ Seq int64 }
	if err := c.Call(ctx, "__debug.emit_event", nil, &head); err != nil {
		t.Fatal(err)
	}

	// An unpinned subscriber from the watcher's old cursor is expired…
	_, err = c.Subscribe(ctx, "events.subscribe", map[string]any{"since_seq": open.SnapshotSeq})
	if !wire.Is(err, wire.ServerError, "cursor_expired") {
		t.Fatalf("unpinned subscribe at %d after churn: got %v, want cursor_expired", open.SnapshotSeq, err)
	}
	if pe, _ := wire.As(err); pe != nil {
		if oldest, _ := pe.Details["oldest_seq"].(float64); int64(oldest) <= open.SnapshotSeq+1 {
			t.Errorf("cursor_expired oldest_seq %v not past the cursor %d", pe.Details["oldest_seq"], open.SnapshotSeq)
		}
	}

	// …but the pinned watcher replays every event since its snapshot.
	next := open.SnapshotSeq + 1
	for next <= head.Seq {
		f, err := w.Next()
		if err != nil {
			t.Fatalf("watch stream ended at %d: %v", next, err)
		}
		if f.Seq != next {
			t.Fatalf("watch stream: got seq %d (%s), want %d", f.Seq, f.Event, next)
		}
		next++
		var ev struct {
			Kind  string      `json:"kind"`
			Agent *agentState `json:"agent"`
		}
		json.Unmarshal(f.Event, &ev)
		if ev.Agent == nil {
			continue
		}
		if ev.Agent.Status == "ended" {
			delete(state, ev.Agent.UUID)
		} else {
			state[ev.Agent.UUID] = *ev.Agent
		}
	}

	var final struct {
		Agents []agentState `json:"agents"`
	}
	if err := c.Call(ctx, "api.snapshot", nil, &final); err != nil {
		t.Fatal(err)
	}
	want := map[string]agentState{}
	for _, a := range final.Agents {
		want[a.UUID] = a
	}
	if len(want) != len(state) {
		t.Fatalf("reconstructed %d agents, snapshot has %d", len(state), len(want))
	}
	for id, a := range want {
		if state[id] != a {
			t.Errorf("agent %s: reconstructed %+v, snapshot %+v", id, state[id], a)
		}
	}
}

// Stopping the server ends every subscription with a final server_stopping frame.
func TestServerStopEndsSubscriptions(t *testing.T) {
	t.Parallel()
	srv := sockettest.NewServer(t)
	c := srv.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, err := c.Subscribe(ctx, "events.subscribe", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	w, err := c.Subscribe(ctx, "watch.open", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var res struct{ Status string }
	if err := c.Call(ctx, "server.stop", nil, &res); err != nil || res.Status != "stopping" {
		t.Fatalf("server.stop: %v %v", res, err)
	}
	for _, s := range []*socketapi.Stream{st, w} {
		f, err := s.Next()
		if err != nil {
			t.Fatalf("stream %d: %v before server_stopping", s.ID, err)
		}
		if f.Seq != 0 || string(f.Event) != `{"kind":"server_stopping"}` || f.Subscription != s.ID {
			t.Errorf("final frame: got %+v %s", f, f.Event)
		}
		if _, err := s.Next(); err == nil {
			t.Errorf("stream %d continued after server_stopping", s.ID)
		}
	}
	if err := srv.Wait(); err != nil {
		t.Fatal(err)
	}
	// The socket is gone and a new handshake fails.
	if _, err := c.Handshake(ctx); !wire.Is(err, wire.EnvironmentError, "server_unreachable") {
		t.Errorf("handshake after stop: got %v, want server_unreachable", err)
	}
}
