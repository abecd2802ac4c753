package actors

import (
	"context"
	"errors"
	"log/slog"
	"math"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/orcr-go/orcr/actors/actorkit"
	"github.com/orcr-go/orcr/store"
)

// Store actor defaults.
const (
	// DefaultRetention is the number of newest events retention keeps (docs/protocol.md §7.4).
	DefaultRetention = 10_000
	// DefaultPinMaxLag is how far behind the tip a pin may fall before it is dropped
	// (docs/decisions.md D5).
	DefaultPinMaxLag = 100_000
	// DefaultMaxBatch caps the number of writes applied in one transaction.
	DefaultMaxBatch = 256
)

// ErrNilOp is the [WriteResult.Err] of a [Write] without an Op.
var ErrNilOp = errors.New("actors: store Write without an Op")

// StoreOptions configures the store actor. Zero values select the defaults.
type StoreOptions struct {
	Retention int   // events kept by retention; default [DefaultRetention]
	PinMaxLag int64 // a pin further behind the tip is dropped; default [DefaultPinMaxLag]
	MaxBatch  int   // writes per transaction; default [DefaultMaxBatch]
}

func (o StoreOptions) withDefaults() StoreOptions {
	if o.Retention <= 0 {
		o.Retention = DefaultRetention
	}
	if o.PinMaxLag <= 0 {
		o.PinMaxLag = DefaultPinMaxLag
	}
	if o.MaxBatch <= 0 {
		o.MaxBatch = DefaultMaxBatch
	}
	return o
}

// Write asks the store actor to run Op in a write transaction. The actor replies
// [WriteResult] to the sender (use Request or RequestFuture; a Write sent with Send runs
// but gets no reply). Writes that queue up share one transaction, each under its own
// savepoint (see [store.DB.Apply]).
type Write struct {
	Op store.Op
	// Guarded, when set instead of Op, is an op that also reads the kill barriers (the
	// store actor's own state, see [AddBarriers]).
	Guarded func(*store.Tx, BarrierView) (any, error)
}

// WriteResult is the reply to a [Write]: the op's value and error, and the events it
// committed (nil when it failed). Err is also set, for every write of the batch, when the
// transaction as a whole failed.
type WriteResult struct {
	Value  any
	Err    error
	Events []store.Event
}

// EventsCommitted is sent to every subscriber after each commit that stored events. Head
// is the highest committed seq.
type EventsCommitted struct {
	Head int64
}

// Subscribe registers PID (an actor, not a future: it is watched) for [EventsCommitted].
// The store actor drops the registration (and any pin the PID owns) when it terminates.
type Subscribe struct {
	PID *actor.PID
}

// SubscribeLog registers PID (an actor; it is watched) for [LogCommitted] of one agent's
// session log (docs/remote.md §5).
type SubscribeLog struct {
	Agent string
	PID   *actor.PID
}

// LogSubscribed answers a [SubscribeLog] sent with Request: every commit after it
// reaches the subscriber as [LogCommitted].
type LogSubscribed struct {
	Agent string
}

// UnsubscribeLog removes a [SubscribeLog] registration.
type UnsubscribeLog struct {
	Agent string
	PID   *actor.PID
}

// LogCommitted is sent to an agent's log subscribers after each commit that appended to
// its session log: the entries, in seq order.
type LogCommitted struct {
	Agent   string
	Entries []store.LogEntry
}

// Unsubscribe removes a [Subscribe] registration.
type Unsubscribe struct {
	PID *actor.PID
}

// Pin sets or advances the retention pin ID to Seq, the subscription's delivered cursor:
// retention never deletes an event with seq > Seq while the pin stands. A pin only moves
// forward. Owner (an actor, watched by the store actor; never a future's PID, because
// watching a future completes it) receives [PinDropped] and releases the pin by dying;
// when nil, an existing pin keeps its owner and a new pin has none. The sender is never
// taken as the owner. A Pin for an ID that was dropped is ignored until that ID is
// unpinned.
type Pin struct {
	ID    int64
	Seq   int64
	Owner *actor.PID
}

// Unpin releases the pin ID.
type Unpin struct {
	ID int64
}

// PinDropped tells a pin's owner that its pin fell more than the configured lag
// ([DefaultPinMaxLag]) behind the tip and was removed (docs/decisions.md D5): the subscription
// must send cursor_expired and end. OldestSeq is the oldest retained seq after the
// retention pass that followed.
type PinDropped struct {
	ID        int64
	OldestSeq int64
}

// Bounds asks for [BoundsResult]: latest and oldest retained seq, from memory.
type Bounds struct{}

// BoundsResult is the reply to [Bounds] (docs/protocol.md §7.1).
type BoundsResult struct {
	Latest int64
	Oldest int64
}

// WatchOpen builds a snapshot and installs the pin ID at its snapshot_seq in one step: no
// write can commit in between (docs/protocol.md §7.5). Owner is as in [Pin] (normally the
// subscription actor itself; it may differ from the sender, which may be a future). The
// reply is [WatchOpenResult].
type WatchOpen struct {
	ID    int64
	Owner *actor.PID
}

// WatchOpenResult is the reply to [WatchOpen]. On error no pin is installed.
type WatchOpenResult struct {
	Snapshot *store.Snapshot
	Err      error
}

// StoreStats asks for [StoreStatsResult].
type StoreStats struct{}

// StoreStatsResult counts the store actor's work since it was created: writes applied,
// write transactions (fewer than writes when batching works), events committed and
// retention passes that deleted rows; plus the current number of subscribers and pins.
type StoreStatsResult struct {
	Writes       int64
	Transactions int64
	Events       int64
	Trims        int64
	Subscribers  int
	Pins         int
	Barriers     int // kill barriers standing
}

// flush is the store actor's private "apply the pending batch" message.
type flush struct{}

type pendingWrite struct {
	op    store.Op
	reply *actor.PID
}

type pin struct {
	seq   int64
	owner *actor.PID
}

// storeState is what survives a restart of the store actor (the producer hands the same
// state to every incarnation): the pending batch, subscribers, pins and counters. The
// bounds are re-read from the database on every start.
type storeState struct {
	db   *store.DB
	log  *slog.Logger
	opts StoreOptions

	pending        []pendingWrite
	flushScheduled bool

	latest, oldest int64

	subs    map[string]*actor.PID
	logSubs map[string]map[string]*actor.PID // agent → subscriber key → PID
	pins    map[int64]*pin
	dropped map[int64]string // pins dropped for lag (id → owner key), ignored until Unpin
	watched map[string]*actor.PID

	barriers *barrierSet

	stats StoreStatsResult
}

// storeActor is the only writer of the store. See [NewStoreProps].
type storeActor struct {
	*storeState
}

// NewStoreProps returns the props of the store actor, the sole writer of db. It batches
// queued [Write]s into one transaction, notifies subscribers with [EventsCommitted] after
// every commit, and runs retention (never past the lowest [Pin]; a pin too far behind is
// dropped with [PinDropped]). It also answers [Bounds], [WatchOpen] and [StoreStats].
//
// Stopping: on *actor.Stopping the actor applies every Write still pending (a flush
// message queued behind a Poison would otherwise be lost) and closes nothing; the owner
// closes db after the actor has stopped. A restart (after a panic in Receive) keeps the
// pending batch, subscribers and pins, and re-reads the bounds; the batch being applied
// when it panicked is lost and its writers get no reply.
func NewStoreProps(db *store.DB, log *slog.Logger, opts StoreOptions) *actor.Props {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	st := &storeState{
		db:       db,
		log:      log,
		opts:     opts.withDefaults(),
		subs:     map[string]*actor.PID{},
		logSubs:  map[string]map[string]*actor.PID{},
		pins:     map[int64]*pin{},
		dropped:  map[int64]string{},
		watched:  map[string]*actor.PID{},
		barriers: newBarrierSet(),
	}
	return actorkit.Props(log, func() actor.Actor { return &storeActor{st} })
}

// Receive handles the store actor's messages. It never blocks on a future; it blocks
// only on SQLite.
func (s *storeActor) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *actor.Started:
		latest, oldest, err := s.db.Bounds()
		if err != nil {
			s.log.Error("store actor: cannot read event bounds", "err", err)
			panic(err)
		}
		s.latest, s.oldest = latest, oldest
		if len(s.pending) > 0 {
			s.scheduleFlush(c)
		}
	case Write:
		if m.Op == nil && m.Guarded != nil {
			g, view := m.Guarded, s.barriers
			m.Op = func(tx *store.Tx) (any, error) { return g(tx, view) }
		}
		if m.Op == nil {
			if c.Sender() != nil {
				c.Send(c.Sender(), WriteResult{Err: ErrNilOp})
			}
			return
		}
		s.pending = append(s.pending, pendingWrite{op: m.Op, reply: c.Sender()})
		if len(s.pending) >= s.opts.MaxBatch {
			s.flush(c)
		} else if !s.flushScheduled {
			s.scheduleFlush(c)
		}
	case flush:
		s.flushScheduled = false
		s.flush(c)
	case AddBarriers:
		s.barriers.add(m.Key, m.Barriers)
		c.Respond(BarriersAdded{})
	case LiftBarriers:
		s.barriers.lift(m.Key)
	case Bounds:
		c.Respond(BoundsResult{Latest: s.latest, Oldest: s.oldest})
	case WatchOpen:
		snap, err := s.db.Snapshot(context.Background())
		if err != nil {
			c.Respond(WatchOpenResult{Err: err})
			return
		}
		delete(s.dropped, m.ID)
		s.setPin(c, m.ID, snap.SnapshotSeq, m.Owner)
		c.Respond(WatchOpenResult{Snapshot: snap})
	case Pin:
		if _, ok := s.dropped[m.ID]; ok {
			return
		}
		s.setPin(c, m.ID, m.Seq, m.Owner)
	case Unpin:
		if key, ok := s.dropped[m.ID]; ok {
			delete(s.dropped, m.ID)
			if pid := s.watched[key]; pid != nil {
				s.release(c, pid)
			}
		}
		if p, ok := s.pins[m.ID]; ok {
			delete(s.pins, m.ID)
			s.release(c, p.owner)
		}
	case Subscribe:
		if m.PID == nil {
			return
		}
		s.subs[m.PID.String()] = m.PID
		s.watch(c, m.PID)
	case Unsubscribe:
		if m.PID == nil {
			return
		}
		delete(s.subs, m.PID.String())
		s.release(c, m.PID)
	case SubscribeLog:
		if m.PID == nil {
			return
		}
		if s.logSubs[m.Agent] == nil {
			s.logSubs[m.Agent] = map[string]*actor.PID{}
		}
		s.logSubs[m.Agent][m.PID.String()] = m.PID
		s.watch(c, m.PID)
		if c.Sender() != nil {
			c.Respond(LogSubscribed{Agent: m.Agent})
		}
	case UnsubscribeLog:
		if m.PID == nil {
			return
		}
		s.dropLogSub(m.Agent, m.PID.String())
		s.release(c, m.PID)
	case *actor.Terminated:
		key := m.Who.String()
		delete(s.watched, key)
		delete(s.subs, key)
		for agent := range s.logSubs {
			s.dropLogSub(agent, key)
		}
		for id, p := range s.pins {
			if p.owner != nil && p.owner.String() == key {
				delete(s.pins, id)
			}
		}
		for id, owner := range s.dropped {
			if owner == key {
				delete(s.dropped, id)
			}
		}
	case StoreStats:
		r := s.stats
		r.Subscribers, r.Pins, r.Barriers = len(s.subs), len(s.pins), s.barriers.count()
		c.Respond(r)
	case *actor.Stopping:
		for len(s.pending) > 0 {
			s.flush(c)
		}
	}
}

func (s *storeActor) scheduleFlush(c actor.Context) {
	s.flushScheduled = true
	c.Send(c.Self(), flush{})
}

// flush applies up to MaxBatch pending writes in one transaction, followed by the
// retention pass in the same transaction, then replies to each writer and notifies
// subscribers.
func (s *storeActor) flush(c actor.Context) {
	if len(s.pending) == 0 {
		return
	}
	n := min(len(s.pending), s.opts.MaxBatch)
	batch := s.pending[:n:n]
	// Take the batch out first: if anything below panics, the restarted actor must not
	// apply it a second time.
	s.pending = append([]pendingWrite(nil), s.pending[n:]...)
	ops := make([]store.Op, n+1)
	for i, w := range batch {
		ops[i] = w.op
	}
	ops[n] = s.retention
	results, events, err := s.db.Apply(ops)
	s.stats.Transactions++
	if err != nil {
		s.log.Error("store actor: write transaction failed", "writes", n, "err", err)
	} else {
		s.stats.Writes += int64(n)
		s.stats.Events += int64(len(events))
	}
	for i, w := range batch {
		if w.reply != nil {
			r := results[i]
			c.Send(w.reply, WriteResult{Value: r.Value, Err: r.Err, Events: r.Events})
		}
	}
	if len(s.pending) > 0 && !s.flushScheduled {
		s.scheduleFlush(c)
	}
	if err != nil {
		return
	}
	if len(events) > 0 {
		s.latest = events[len(events)-1].Seq
		head := EventsCommitted{Head: s.latest}
		for _, pid := range s.subs {
			c.Send(pid, head)
		}
	}
	s.publishLogs(c, results[:n])
	if r := results[n]; r.Err != nil {
		s.log.Error("store actor: retention failed", "err", r.Err)
	} else {
		s.retained(c, r.Value.(retentionResult))
	}
}

// retentionResult is what the retention op decided.
type retentionResult struct {
	oldest  int64
	trimmed bool
	dropped []int64
}

// retention is the op appended to every batch (docs/protocol.md §7.4, §7.5; docs/decisions.md D5): it drops
// pins more than PinMaxLag behind the tip, then trims the event table to the newest
// Retention rows, never past the lowest remaining pin. It runs inside Apply on the actor's
// goroutine, so reading the pins is safe; the decisions are applied to the actor's state
// by [storeActor.retained] only once the transaction has committed.
func (s *storeActor) retention(tx *store.Tx) (any, error) {
	// The bounds are known without a query: latest from this transaction's events (or
	// memory), oldest from memory; seqs between them are gapless.
	latest := max(tx.LastSeq(), s.latest)
	r := retentionResult{oldest: s.oldest}
	floor := int64(math.MaxInt64)
	for id, p := range s.pins {
		if latest-p.seq > s.opts.PinMaxLag {
			r.dropped = append(r.dropped, id)
			continue
		}
		floor = min(floor, p.seq)
	}
	keep := int64(s.opts.Retention)
	if cutoff := min(latest-keep, floor); latest-s.oldest+1 > keep && cutoff >= s.oldest {
		if err := tx.TrimThrough(cutoff); err != nil {
			return nil, err
		}
		r.oldest, r.trimmed = cutoff+1, true
	}
	return r, nil
}

// retained applies a committed retention pass: the new oldest seq and the dropped pins,
// whose owners are told with [PinDropped].
func (s *storeActor) retained(c actor.Context, r retentionResult) {
	s.oldest = r.oldest
	if r.trimmed {
		s.stats.Trims++
	}
	for _, id := range r.dropped {
		p, ok := s.pins[id]
		if !ok {
			continue
		}
		delete(s.pins, id)
		s.dropped[id] = ""
		s.log.Warn("store actor: pin dropped, subscriber too far behind", "pin", id, "max_lag", s.opts.PinMaxLag)
		if p.owner != nil {
			// Still watched, so the tombstone is cleared if the owner dies without Unpin.
			s.dropped[id] = p.owner.String()
			c.Send(p.owner, PinDropped{ID: id, OldestSeq: s.oldest})
		}
	}
}

// setPin installs pin id at seq or advances it; a pin never moves back.
func (s *storeActor) setPin(c actor.Context, id, seq int64, owner *actor.PID) {
	if p, ok := s.pins[id]; ok {
		p.seq = max(p.seq, seq)
		if owner != nil && p.owner == nil {
			p.owner = owner
			s.watch(c, owner)
		}
		return
	}
	s.pins[id] = &pin{seq: seq, owner: owner}
	if owner != nil {
		s.watch(c, owner)
	}
}

func (s *storeActor) watch(c actor.Context, pid *actor.PID) {
	key := pid.String()
	if _, ok := s.watched[key]; ok {
		return
	}
	s.watched[key] = pid
	c.Watch(pid)
}

// publishLogs sends each agent's newly committed session-log entries to its log
// subscribers, in commit order.
func (s *storeActor) publishLogs(c actor.Context, results []store.OpResult) {
	if len(s.logSubs) == 0 {
		return
	}
	var byAgent map[string][]store.LogEntry
	var order []string
	for _, r := range results {
		for _, e := range r.Logs {
			if _, ok := s.logSubs[e.Agent]; !ok {
				continue
			}
			if byAgent == nil {
				byAgent = map[string][]store.LogEntry{}
			}
			if _, ok := byAgent[e.Agent]; !ok {
				order = append(order, e.Agent)
			}
			byAgent[e.Agent] = append(byAgent[e.Agent], e)
		}
	}
	for _, agent := range order {
		m := LogCommitted{Agent: agent, Entries: byAgent[agent]}
		for _, pid := range s.logSubs[agent] {
			c.Send(pid, m)
		}
	}
}

func (s *storeActor) dropLogSub(agent, key string) {
	if m := s.logSubs[agent]; m != nil {
		delete(m, key)
		if len(m) == 0 {
			delete(s.logSubs, agent)
		}
	}
}

// release unwatches pid when no subscription or pin refers to it any more.
func (s *storeActor) release(c actor.Context, pid *actor.PID) {
	if pid == nil {
		return
	}
	key := pid.String()
	if _, ok := s.subs[key]; ok {
		return
	}
	for _, m := range s.logSubs {
		if _, ok := m[key]; ok {
			return
		}
	}
	for _, p := range s.pins {
		if p.owner != nil && p.owner.String() == key {
			return
		}
	}
	if _, ok := s.watched[key]; ok {
		delete(s.watched, key)
		c.Unwatch(pid)
	}
}
