package actors_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/orcr-go/orcr/actors"
	"github.com/orcr-go/orcr/actors/actorkit"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/store"
	"github.com/orcr-go/orcr/store/storetest"
	"github.com/orcr-go/orcr/tests/poll"
)

const stTimeout = 10 * time.Second

// stSystem returns a quiet actor system shut down at cleanup.
func stSystem(t testing.TB) *actor.ActorSystem {
	t.Helper()
	sys := actorkit.NewSystem(nil, 10*time.Millisecond)
	t.Cleanup(sys.Shutdown)
	return sys
}

// stSpawnStore starts a store actor on db and stops it (poison, wait) at cleanup, before
// the db closes (cleanups run last-registered first).
func stSpawnStore(t testing.TB, sys *actor.ActorSystem, db *store.DB, opts actors.StoreOptions) *actor.PID {
	t.Helper()
	pid, err := sys.Root.SpawnNamed(actors.NewStoreProps(db, nil, opts), "store")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sys.Root.PoisonFuture(pid).Wait() })
	return pid
}

// stProbe is an actor that forwards every user message to a channel.
type stProbe struct {
	pid *actor.PID
	ch  chan any
}

func stNewProbe(t testing.TB, sys *actor.ActorSystem) *stProbe {
	t.Helper()
	p := &stProbe{ch: make(chan any, 1024)}
	p.pid = sys.Root.Spawn(actorkit.PropsFunc(nil, func(c actor.Context) {
		switch c.Message().(type) {
		case actor.SystemMessage, actor.AutoReceiveMessage:
			return
		}
		p.ch <- c.Message()
	}))
	return p
}

// stExpect waits for the next message of type T on p, skipping others.
func stExpect[T any](t testing.TB, p *stProbe) T {
	t.Helper()
	deadline := time.After(stTimeout)
	for {
		select {
		case m := <-p.ch:
			if v, ok := m.(T); ok {
				return v
			}
		case <-deadline:
			var zero T
			t.Fatalf("no %T within %v", zero, stTimeout)
			return zero
		}
	}
}

func stRequest[T any](t testing.TB, sys *actor.ActorSystem, pid *actor.PID, msg any) T {
	t.Helper()
	res, err := sys.Root.RequestFuture(pid, msg, stTimeout).Result()
	if err != nil {
		t.Fatalf("request %T: %v", msg, err)
	}
	v, ok := res.(T)
	if !ok {
		t.Fatalf("request %T: got reply %T, want %T", msg, res, v)
	}
	return v
}

func stEmit(kind, ref string, payload any) store.Op {
	return func(tx *store.Tx) (any, error) {
		b, err := json.Marshal(payload)
		if err != nil {
			return nil, err
		}
		return tx.Emit(ref, api.RawEvent{Kind: kind, Fields: b})
	}
}

func stWrite(t testing.TB, sys *actor.ActorSystem, pid *actor.PID, op store.Op) actors.WriteResult {
	t.Helper()
	return stRequest[actors.WriteResult](t, sys, pid, actors.Write{Op: op})
}

func TestStoreActorConcurrentWritersAndReaders(t *testing.T) {
	const writers, perWriter, readers = 8, 250, 4
	const total = writers * perWriter
	sys := stSystem(t)
	db := storetest.Open(t)
	pid := stSpawnStore(t, sys, db, actors.StoreOptions{})

	var wg sync.WaitGroup
	errs := make(chan error, writers+readers)
	for w := range writers {
		wg.Go(func() {
			for i := range perWriter {
				res, err := sys.Root.RequestFuture(pid, actors.Write{Op: stEmit("debug.w", "", map[string]any{"w": w, "i": i})}, stTimeout).Result()
				if err != nil {
					errs <- err
					return
				}
				wr := res.(actors.WriteResult)
				if wr.Err != nil || len(wr.Events) != 1 || wr.Value != wr.Events[0].Seq {
					errs <- fmt.Errorf("writer %d: bad result %+v", w, wr)
					return
				}
			}
		})
	}
	for r := range readers {
		wg.Go(func() {
			var cursor int64
			deadline := time.Now().Add(stTimeout)
			for cursor < total {
				if time.Now().After(deadline) {
					errs <- fmt.Errorf("reader %d stuck at %d", r, cursor)
					return
				}
				evs, err := db.EventsAfter(t.Context(), cursor, 100)
				if err != nil {
					errs <- err
					return
				}
				for _, e := range evs {
					if e.Seq != cursor+1 {
						errs <- fmt.Errorf("reader %d: got seq %d after %d", r, e.Seq, cursor)
						return
					}
					cursor = e.Seq
				}
				if len(evs) > 0 {
					// Stuck means no progress for stTimeout, not a slow machine: the
					// 2,000 writes alone took over 10 s under -race on a loaded 2-core box.
					deadline = time.Now().Add(stTimeout)
				} else {
					time.Sleep(time.Millisecond) // a reader that found nothing new backs off before it reads again
				}
			}
			if evs, _ := db.EventsAfter(t.Context(), cursor, 10); len(evs) != 0 {
				errs <- fmt.Errorf("reader %d: events beyond %d", r, total)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	st := stRequest[actors.StoreStatsResult](t, sys, pid, actors.StoreStats{})
	if st.Writes != total || st.Events != total {
		t.Errorf("stats: got %d writes %d events, want %d", st.Writes, st.Events, total)
	}
	t.Logf("%d writes in %d transactions", st.Writes, st.Transactions)
	b := stRequest[actors.BoundsResult](t, sys, pid, actors.Bounds{})
	if b.Latest != total || b.Oldest != 1 {
		t.Errorf("bounds: got %+v, want {%d 1}", b, total)
	}
}

func TestStoreActorBatches(t *testing.T) {
	sys := stSystem(t)
	db := storetest.Open(t)
	pid := stSpawnStore(t, sys, db, actors.StoreOptions{MaxBatch: 20})

	// Hold the actor inside a transaction while 50 writes queue up behind it.
	entered, release := make(chan struct{}), make(chan struct{})
	first := sys.Root.RequestFuture(pid, actors.Write{Op: func(tx *store.Tx) (any, error) {
		close(entered)
		<-release
		return tx.Emit("", api.RawEvent{Kind: "debug.first"})
	}}, stTimeout)
	<-entered
	var futs []*actor.Future
	for i := range 50 {
		futs = append(futs, sys.Root.RequestFuture(pid, actors.Write{Op: stEmit("debug.q", "", map[string]any{"i": i})}, stTimeout))
	}
	// All 50 are in the mailbox now (sent before the release).
	close(release)
	if _, err := first.Result(); err != nil {
		t.Fatal(err)
	}
	for i, f := range futs {
		res, err := f.Result()
		if err != nil {
			t.Fatal(err)
		}
		if wr := res.(actors.WriteResult); wr.Err != nil || wr.Events[0].Seq != int64(i+2) {
			t.Fatalf("write %d: got %+v, want seq %d", i, wr, i+2)
		}
	}
	st := stRequest[actors.StoreStatsResult](t, sys, pid, actors.StoreStats{})
	// 1 (held) + ceil(50/20) = 4 transactions when every queued write was in the mailbox
	// before the release; never more than 51.
	if st.Writes != 51 || st.Transactions >= st.Writes || st.Transactions < 4 {
		t.Errorf("stats: got %d writes in %d transactions, want 51 in fewer (>= 4)", st.Writes, st.Transactions)
	}
	t.Logf("%d writes in %d transactions", st.Writes, st.Transactions)
}

func TestStoreActorFailingWriteIsolated(t *testing.T) {
	sys := stSystem(t)
	db := storetest.Open(t)
	pid := stSpawnStore(t, sys, db, actors.StoreOptions{})
	boom := errors.New("boom")
	f1 := sys.Root.RequestFuture(pid, actors.Write{Op: stEmit("debug.a", "", nil)}, stTimeout)
	f2 := sys.Root.RequestFuture(pid, actors.Write{Op: func(tx *store.Tx) (any, error) {
		tx.Emit("", api.RawEvent{Kind: "debug.b"})
		return nil, boom
	}}, stTimeout)
	f3 := sys.Root.RequestFuture(pid, actors.Write{Op: func(tx *store.Tx) (any, error) { panic("x") }}, stTimeout)
	f4 := sys.Root.RequestFuture(pid, actors.Write{Op: stEmit("debug.c", "", nil)}, stTimeout)
	f5 := sys.Root.RequestFuture(pid, actors.Write{}, stTimeout)
	get := func(f *actor.Future) actors.WriteResult {
		r, err := f.Result()
		if err != nil {
			t.Fatal(err)
		}
		return r.(actors.WriteResult)
	}
	if r := get(f1); r.Err != nil || r.Events[0].Seq != 1 {
		t.Errorf("write 1: %+v", r)
	}
	if r := get(f2); !errors.Is(r.Err, boom) || r.Events != nil {
		t.Errorf("write 2: %+v", r)
	}
	var pe *store.PanicError
	if r := get(f3); !errors.As(r.Err, &pe) {
		t.Errorf("write 3: %+v", r)
	}
	if r := get(f4); r.Err != nil || r.Events[0].Seq != 2 {
		t.Errorf("write 4: got %+v, want seq 2", r)
	}
	if r := get(f5); !errors.Is(r.Err, actors.ErrNilOp) {
		t.Errorf("write 5: got %+v, want ErrNilOp", r)
	}
}

func TestStoreActorNotifiesSubscribers(t *testing.T) {
	sys := stSystem(t)
	db := storetest.Open(t)
	pid := stSpawnStore(t, sys, db, actors.StoreOptions{})
	p := stNewProbe(t, sys)
	sys.Root.Send(pid, actors.Subscribe{PID: p.pid})
	stWrite(t, sys, pid, stEmit("debug.x", "", nil))
	if got := stExpect[actors.EventsCommitted](t, p); got.Head != 1 {
		t.Errorf("EventsCommitted: got %+v, want head 1", got)
	}
	// A write that commits no event notifies nobody.
	stWrite(t, sys, pid, func(tx *store.Tx) (any, error) { return nil, nil })
	stWrite(t, sys, pid, stEmit("debug.x", "", nil))
	if got := stExpect[actors.EventsCommitted](t, p); got.Head != 2 {
		t.Errorf("EventsCommitted: got %+v, want head 2", got)
	}
	if st := stRequest[actors.StoreStatsResult](t, sys, pid, actors.StoreStats{}); st.Subscribers != 1 {
		t.Errorf("subscribers: got %d, want 1", st.Subscribers)
	}
	// A terminated subscriber is dropped.
	sys.Root.StopFuture(p.pid).Wait()
	poll.Eventually(t, stTimeout, "dead subscriber dropped", func() bool {
		return stRequest[actors.StoreStatsResult](t, sys, pid, actors.StoreStats{}).Subscribers == 0
	})
	// Unsubscribe works too.
	p2 := stNewProbe(t, sys)
	sys.Root.Send(pid, actors.Subscribe{PID: p2.pid})
	sys.Root.Send(pid, actors.Unsubscribe{PID: p2.pid})
	stWrite(t, sys, pid, stEmit("debug.x", "", nil))
	if st := stRequest[actors.StoreStatsResult](t, sys, pid, actors.StoreStats{}); st.Subscribers != 0 {
		t.Errorf("subscribers after Unsubscribe: got %d, want 0", st.Subscribers)
	}
	select {
	case m := <-p2.ch:
		t.Errorf("unsubscribed probe got %#v", m)
	default:
	}
}

func stWriteN(t testing.TB, sys *actor.ActorSystem, pid *actor.PID, n int) {
	t.Helper()
	futs := make([]*actor.Future, n)
	for i := range futs {
		futs[i] = sys.Root.RequestFuture(pid, actors.Write{Op: stEmit("debug.n", "", nil)}, stTimeout)
	}
	for _, f := range futs {
		r, err := f.Result()
		if err != nil || r.(actors.WriteResult).Err != nil {
			t.Fatalf("write: %v %v", err, r)
		}
	}
}

func TestStoreActorRetentionAndPins(t *testing.T) {
	sys := stSystem(t)
	db := storetest.Open(t)
	pid := stSpawnStore(t, sys, db, actors.StoreOptions{Retention: 10})
	bounds := func() actors.BoundsResult { return stRequest[actors.BoundsResult](t, sys, pid, actors.Bounds{}) }

	stWriteN(t, sys, pid, 25)
	if b := bounds(); b.Latest != 25 || b.Oldest != 16 {
		t.Errorf("unpinned: got %+v, want {25 16}", b)
	}
	owner := stNewProbe(t, sys)
	sys.Root.Send(pid, actors.Pin{ID: 1, Seq: 18, Owner: owner.pid})
	stWriteN(t, sys, pid, 20)
	if b := bounds(); b.Latest != 45 || b.Oldest != 19 {
		t.Errorf("pinned at 18: got %+v, want {45 19}", b)
	}
	// The retained events really are 19..45.
	evs, _ := db.EventsAfter(t.Context(), 0, 100)
	if len(evs) != 27 || evs[0].Seq != 19 {
		t.Errorf("stored: got %d events from %d, want 27 from 19", len(evs), evs[0].Seq)
	}
	// A pin only moves forward.
	sys.Root.Send(pid, actors.Pin{ID: 1, Seq: 3})
	sys.Root.Send(pid, actors.Pin{ID: 1, Seq: 30})
	stWriteN(t, sys, pid, 1)
	if b := bounds(); b.Oldest != 31 {
		t.Errorf("pin advanced to 30: got %+v, want oldest 31", b)
	}
	// Two pins: the lowest holds.
	sys.Root.Send(pid, actors.Pin{ID: 2, Seq: 32, Owner: owner.pid})
	sys.Root.Send(pid, actors.Pin{ID: 1, Seq: 46})
	stWriteN(t, sys, pid, 4)
	if b := bounds(); b.Latest != 50 || b.Oldest != 33 {
		t.Errorf("pins 46 and 32: got %+v, want {50 33}", b)
	}
	sys.Root.Send(pid, actors.Unpin{ID: 2})
	sys.Root.Send(pid, actors.Unpin{ID: 1})
	stWriteN(t, sys, pid, 1)
	if b := bounds(); b.Latest != 51 || b.Oldest != 42 {
		t.Errorf("unpinned again: got %+v, want {51 42}", b)
	}
	if st := stRequest[actors.StoreStatsResult](t, sys, pid, actors.StoreStats{}); st.Pins != 0 {
		t.Errorf("pins: got %d, want 0", st.Pins)
	}
	// A pin whose owner dies is released.
	sys.Root.Send(pid, actors.Pin{ID: 3, Seq: 51, Owner: owner.pid})
	sys.Root.StopFuture(owner.pid).Wait()
	poll.Eventually(t, stTimeout, "dead owner's pin released", func() bool {
		return stRequest[actors.StoreStatsResult](t, sys, pid, actors.StoreStats{}).Pins == 0
	})
}

func TestStoreActorPinDropped(t *testing.T) {
	sys := stSystem(t)
	db := storetest.Open(t)
	pid := stSpawnStore(t, sys, db, actors.StoreOptions{Retention: 10, PinMaxLag: 30})
	owner := stNewProbe(t, sys)

	stWriteN(t, sys, pid, 5)
	res := stRequest[actors.WatchOpenResult](t, sys, pid, actors.WatchOpen{ID: 9, Owner: owner.pid})
	if res.Err != nil || res.Snapshot.SnapshotSeq != 5 {
		t.Fatalf("WatchOpen: got %+v", res)
	}
	// Within the lag bound the pin holds retention above N.
	stWriteN(t, sys, pid, 30)
	if b := stRequest[actors.BoundsResult](t, sys, pid, actors.Bounds{}); b.Oldest != 6 {
		t.Errorf("pin within bound: got %+v, want oldest 6", b)
	}
	select {
	case m := <-owner.ch:
		t.Fatalf("owner got %#v before the bound was passed", m)
	default:
	}
	// One more event puts the pin 31 > 30 behind: dropped, and retention catches up.
	stWriteN(t, sys, pid, 1)
	got := stExpect[actors.PinDropped](t, owner)
	if got.ID != 9 || got.OldestSeq != 27 {
		t.Errorf("PinDropped: got %+v, want {9 27}", got)
	}
	// A late Pin from the expired subscription does not resurrect it.
	sys.Root.Send(pid, actors.Pin{ID: 9, Seq: 10})
	if st := stRequest[actors.StoreStatsResult](t, sys, pid, actors.StoreStats{}); st.Pins != 0 {
		t.Errorf("pins after drop: got %d, want 0", st.Pins)
	}
	sys.Root.Send(pid, actors.Unpin{ID: 9})
	sys.Root.Send(pid, actors.Pin{ID: 9, Seq: 36})
	if st := stRequest[actors.StoreStatsResult](t, sys, pid, actors.StoreStats{}); st.Pins != 1 {
		t.Errorf("pins after Unpin and a new Pin: got %d, want 1", st.Pins)
	}
}

func TestStoreActorWatchOpenSnapshot(t *testing.T) {
	sys := stSystem(t)
	db := storetest.Open(t)
	id := storetest.InsertAgent(t, db, map[string]any{"path": "ws/a"})
	storetest.Emit(t, db, "agent.created", id, map[string]any{"uuid": id})
	pid := stSpawnStore(t, sys, db, actors.StoreOptions{Retention: 1})
	owner := stNewProbe(t, sys)
	// Without an Owner the pin has none (the sender, a future here, is never watched).
	res, err := sys.Root.RequestFuture(pid, actors.WatchOpen{ID: 1}, stTimeout).Result()
	if err != nil {
		t.Fatal(err)
	}
	snap := res.(actors.WatchOpenResult).Snapshot
	if snap.SnapshotSeq != 1 || len(snap.Agents) != 1 || len(snap.Queue) != 1 {
		t.Fatalf("snapshot: got %+v", snap)
	}
	res2 := stRequest[actors.WatchOpenResult](t, sys, pid, actors.WatchOpen{ID: 2, Owner: owner.pid})
	if res2.Snapshot.SnapshotSeq != 1 {
		t.Fatalf("second snapshot: got %+v", res2.Snapshot)
	}
	stWriteN(t, sys, pid, 5)
	if b := stRequest[actors.BoundsResult](t, sys, pid, actors.Bounds{}); b.Oldest != 2 {
		t.Errorf("watch pins at snapshot_seq 1: got %+v, want oldest 2", b)
	}
}

func TestStoreActorStopFlushesPending(t *testing.T) {
	sys := stSystem(t)
	db := storetest.Open(t)
	pid, err := sys.Root.SpawnNamed(actors.NewStoreProps(db, nil, actors.StoreOptions{}), "store")
	if err != nil {
		t.Fatal(err)
	}
	// Hold the actor so the writes and the poison queue up together; the flush message
	// the first queued write schedules lands behind the poison.
	entered, release := make(chan struct{}), make(chan struct{})
	sys.Root.Send(pid, actors.Write{Op: func(tx *store.Tx) (any, error) {
		close(entered)
		<-release
		return nil, nil
	}})
	<-entered
	var futs []*actor.Future
	for range 20 {
		futs = append(futs, sys.Root.RequestFuture(pid, actors.Write{Op: stEmit("debug.x", "", nil)}, stTimeout))
	}
	stopped := sys.Root.PoisonFuture(pid)
	close(release)
	if err := stopped.Wait(); err != nil {
		t.Fatal(err)
	}
	for i, f := range futs {
		r, err := f.Result()
		if err != nil || r.(actors.WriteResult).Err != nil {
			t.Fatalf("write %d: %v %v", i, err, r)
		}
	}
	latest, _, _ := db.Bounds()
	if latest != 20 {
		t.Errorf("latest after stop: got %d, want 20", latest)
	}
}
