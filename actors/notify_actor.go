package actors

import (
	"context"
	"errors"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/google/uuid"

	"github.com/orcr-go/orcr/actors/actorkit"
	"github.com/orcr-go/orcr/actors/notify"
	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/store"
)

// notifyPinID is the notifier's retention pin: subscriptions use positive ids.
const notifyPinID = -1

// notifyScanRetry is how long a scan that failed (a store error) waits to run again.
const notifyScanRetry = time.Second

// notifyCursorEvery bounds how far the stored cursor may lag behind the scanned one: a
// batch that matches nothing writes nothing until the lag reaches it, so events no rule
// sends (most of them) cost the store writer no write. After a crash the lagging events
// are scanned again, which enqueues nothing twice ([store.Tx.EnqueueDeliveries] skips a
// (target, seq) it holds).
const notifyCursorEvery = 1000

// notifyScanEvery paces the scans: one starts at most this long after the one before,
// unless that one read a full batch (a backlog is read back to back). The first event
// after a quiet spell is scanned at once; under a burst of commits the notifier reads
// and writes once per interval instead of once per commit, so its work on the read
// pool and the store writer does not grow with the commit rate.
const notifyScanEvery = 50 * time.Millisecond

// NotifierSpec configures the notifier (docs/notify.md §5).
type NotifierSpec struct {
	Env    *AgentEnv // Store, DB, Log and Ops
	Config config.Notify
	Rules  *notify.Rules
	// Senders holds one sender per configured target, by name.
	Senders map[string]notify.Sender
	// Cursor is where the first scan starts: the stored notify cursor.
	Cursor int64
	Now    func() time.Time // nil: time.Now
}

// notifier is the `notify` actor: it turns committed events into durable deliveries and
// hands the work to one child per target. It subscribes to the store actor's commit
// notifications and holds a retention pin at its cursor, so an event is never trimmed
// before it was matched. On each notification (coalesced: one scan at a time) a scan
// goroutine reads the events after the cursor (one batch of up to 256 from the read
// pool), matches them against the rules and writes the deliveries together with the new
// cursor in one store write; the actor then advances the pin and pokes the targets that
// got work. The store writer only ever runs that one small write per batch: a slow or
// dead target never slows a commit.
type notifier struct {
	spec     NotifierSpec
	cursor   int64 // scanned up to here
	stored   int64 // the cursor as stored (at most notifyCursorEvery behind)
	head     int64
	scanning bool
	retry    actorkit.Ticker
	targets  map[string]*actor.PID

	lastScan time.Time // when the latest scan started
	backlog  bool      // the latest scan read a full batch
	paced    bool      // a pace tick is armed
	pace     actorkit.Ticker
}

type notifyScanned struct {
	cursor int64
	stored int64
	full   bool           // the batch read was full: more events may be waiting
	queued map[string]int // target → deliveries queued (or dropped)
	err    error
}

type notifyRetryTick struct{ gen int64 }

type notifyPaceTick struct{ gen int64 }

// NewNotifierProps returns the notifier's props.
func NewNotifierProps(spec NotifierSpec) *actor.Props {
	if spec.Now == nil {
		spec.Now = time.Now
	}
	return actorkit.Props(spec.Env.Log, func() actor.Actor { return &notifier{spec: spec} })
}

func (n *notifier) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *actor.Started:
		n.cursor, n.stored, n.head = n.spec.Cursor, n.spec.Cursor, n.spec.Cursor
		n.targets = map[string]*actor.PID{}
		policy := notify.Policy{MaxAttempts: n.spec.Config.MaxAttempts, Initial: n.spec.Config.RetryInitial, Max: n.spec.Config.RetryMax}
		for _, t := range n.spec.Config.Targets {
			pid, err := c.SpawnNamed(actorkit.Props(n.spec.Env.Log, func() actor.Actor {
				return &notifyTarget{env: n.spec.Env, target: t, sender: n.spec.Senders[t.Name], policy: policy, now: n.spec.Now}
			}), t.Name)
			if err != nil {
				n.spec.Env.Log.Error("notify: cannot start a target", "target", t, "err", err)
				continue
			}
			n.targets[t.Name] = pid
		}
		c.Send(n.spec.Env.Store, Subscribe{PID: c.Self()})
		c.Send(n.spec.Env.Store, Pin{ID: notifyPinID, Seq: n.cursor, Owner: c.Self()})
		// Events committed before a crash and not matched yet are after the cursor.
		c.Request(n.spec.Env.Store, Bounds{})
	case BoundsResult:
		n.commit(c, m.Latest)
	case EventsCommitted:
		n.commit(c, m.Head)
	case notifyScanned:
		n.scanning = false
		if m.err != nil {
			n.spec.Env.Log.Error("notify: cannot enqueue deliveries; retrying", "err", m.err)
			n.retry.Arm(c, notifyScanRetry, func(gen int64) any { return notifyRetryTick{gen} })
			return
		}
		n.cursor, n.stored, n.backlog = m.cursor, m.stored, m.full
		c.Send(n.spec.Env.Store, Pin{ID: notifyPinID, Seq: n.cursor})
		for target := range m.queued {
			if pid := n.targets[target]; pid != nil {
				c.Send(pid, notifyPoke{})
			}
		}
		n.scan(c)
	case notifyRetryTick:
		if n.retry.Current(m.gen) {
			n.scan(c)
		}
	case notifyPaceTick:
		if n.pace.Current(m.gen) {
			n.paced = false
			n.scan(c)
		}
	case PinDropped:
		// Only a notifier more than 100,000 events behind loses its pin (docs/decisions.md
		// D5); it goes on from the oldest event still there and logs the gap.
		n.spec.Env.Log.Error("notify: retention pin dropped; events may be skipped", "oldest", m.OldestSeq)
	case *actor.Stopping:
		n.retry.Stop()
		n.pace.Stop()
		c.Send(n.spec.Env.Store, Unsubscribe{PID: c.Self()})
		c.Send(n.spec.Env.Store, Unpin{ID: notifyPinID})
	}
}

func (n *notifier) commit(c actor.Context, head int64) {
	n.head = max(n.head, head)
	n.scan(c)
}

// scan starts a scan goroutine when events are waiting and none is running, paced by
// notifyScanEvery.
func (n *notifier) scan(c actor.Context) {
	if n.scanning || n.paced || n.cursor >= n.head {
		return
	}
	if wait := scanDelay(time.Since(n.lastScan), n.backlog); wait > 0 {
		n.paced = true
		n.pace.Arm(c, wait, func(gen int64) any { return notifyPaceTick{gen} })
		return
	}
	n.scanning, n.lastScan = true, time.Now()
	self, root, spec, cursor, stored := c.Self(), c.ActorSystem().Root, n.spec, n.cursor, n.stored
	spec.Env.Ops.Add(1)
	go func() {
		defer spec.Env.Ops.Done()
		root.Send(self, scanEvents(root, spec, cursor, stored))
	}()
}

// scanDelay is how long a scan waits to start, given the time since the previous one
// started and whether that one read a full batch: 0 after a quiet spell or in a
// backlog, else the rest of notifyScanEvery.
func scanDelay(since time.Duration, backlog bool) time.Duration {
	if backlog || since >= notifyScanEvery {
		return 0
	}
	return notifyScanEvery - since
}

// scanEvents matches the batch of events after cursor and enqueues its deliveries with
// the new cursor in one write (none for a batch that matches nothing while the stored
// cursor lags less than notifyCursorEvery). Edge code: it reads the pool and waits for
// the store actor.
func scanEvents(root *actor.RootContext, spec NotifierSpec, cursor, stored int64) notifyScanned {
	evs, err := spec.Env.DB.EventsAfter(context.Background(), cursor, store.DefaultEventsBatch)
	if err != nil || len(evs) == 0 {
		return notifyScanned{cursor: cursor, stored: stored, err: err}
	}
	if first := evs[0].Seq; first > cursor+1 {
		spec.Env.Log.Error("notify: events were trimmed before they were matched", "from", cursor+1, "to", first-1)
	}
	var ds []store.NewDelivery
	queued := map[string]int{}
	for _, ev := range evs {
		o, ok := notify.Classify(ev)
		if !ok {
			continue
		}
		for _, target := range spec.Rules.Targets(o) {
			id, err := uuid.NewV7()
			if err != nil {
				return notifyScanned{cursor: cursor, stored: stored, err: err}
			}
			ds = append(ds, store.NewDelivery{ID: id.String(), Target: target, Seq: ev.Seq, Event: o.Event,
				Body: notify.Body(id.String(), target, o, ev)})
			queued[target]++
		}
	}
	next, limit, full := evs[len(evs)-1].Seq, spec.Config.QueueLimit, len(evs) == store.DefaultEventsBatch
	if len(ds) == 0 && next-stored < notifyCursorEvery {
		return notifyScanned{cursor: next, stored: stored, full: full}
	}
	v, err := WriteSync(root, spec.Env.Store, func(tx *store.Tx) (any, error) { return tx.EnqueueDeliveries(next, ds, limit) })
	if err != nil {
		return notifyScanned{cursor: cursor, stored: stored, err: err}
	}
	if r := v.(store.EnqueueResult); r.Dropped > 0 {
		spec.Env.Log.Warn("notify: deliveries dropped at notify.queue_limit", "dropped", r.Dropped, "limit", limit)
	}
	return notifyScanned{cursor: next, stored: next, full: full, queued: queued}
}

// notifyPoke tells a target actor that deliveries may be due.
type notifyPoke struct{}

type notifyDueTick struct{ gen int64 }

// notifyDue is one read of a target's due deliveries.
type notifyDue struct {
	due  []store.Delivery
	next int64 // earliest later attempt (ms), 0 = none
	err  error
}

// notifyAttempted reports one attempt finished; outcome is nil when the server is
// stopping (the row stays pending and is sent again after the restart).
type notifyAttempted struct {
	row     int64
	outcome *store.DeliveryOutcome
}

// notifyRecorded reports that a batch of outcomes was written (or failed to be).
type notifyRecorded struct{ rows []int64 }

// Attempts in flight at once per target type: herdr's toasts one at a time, in order.
func targetParallel(typ string) int {
	switch typ {
	case config.NotifyWebhook:
		return 4
	case config.NotifyCommand:
		return 2
	}
	return 1
}

// notifyTarget is a `notify/<target>` actor: the in-memory scheduler of one target's
// pending deliveries (the durable queue is the store's notify_deliveries table). A poke,
// the timer of the earliest retry or a finished attempt makes it read the due rows (at
// most one read in flight) and start attempts on goroutines, up to targetParallel at
// once, each bounded by the target's timeout; an attempt's goroutine decides the next
// step (notify.Decide) and hands it back. The actor writes the outcomes that arrived
// meanwhile in one store write, one write in flight at a time (so attempts finishing
// together cost the store writer one write, not one each); a row stays in flight until
// its outcome is written, so it is never read and sent a second time meanwhile.
type notifyTarget struct {
	env    *AgentEnv
	target config.NotifyTarget
	sender notify.Sender
	policy notify.Policy
	now    func() time.Time

	ctx      context.Context // canceled at Stopping: attempts in flight end unrecorded
	cancel   context.CancelFunc
	inflight map[int64]bool
	reading  bool
	again    bool // a poke arrived during the read
	tick     actorkit.Ticker

	outcomes  []store.DeliveryOutcome // decided, not written yet
	recording bool                    // a write of outcomes is in flight
}

func (t *notifyTarget) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *actor.Started:
		t.ctx, t.cancel = context.WithCancel(context.Background())
		t.inflight = map[int64]bool{}
		t.read(c)
	case notifyPoke:
		t.read(c)
	case notifyDueTick:
		if t.tick.Current(m.gen) {
			t.read(c)
		}
	case notifyDue:
		t.reading = false
		t.dispatch(c, m)
	case notifyAttempted:
		if m.outcome == nil {
			delete(t.inflight, m.row)
			return
		}
		t.outcomes = append(t.outcomes, *m.outcome)
		t.record(c)
	case notifyRecorded:
		t.recording = false
		for _, row := range m.rows {
			delete(t.inflight, row)
		}
		t.record(c)
		t.read(c)
	case *actor.Stopping:
		t.tick.Stop()
		t.cancel()
	}
}

// read starts a read of the due deliveries unless one is running (then it is repeated
// once it ends) or every attempt slot is taken (a finished attempt reads again).
func (t *notifyTarget) read(c actor.Context) {
	if t.reading {
		t.again = true
		return
	}
	slots := targetParallel(t.target.Type)
	if len(t.inflight) >= slots {
		return
	}
	t.reading, t.again = true, false
	self, root, env, name, now := c.Self(), c.ActorSystem().Root, t.env, t.target.Name, t.now().UnixMilli()
	limit := slots + len(t.inflight) // rows in flight are still pending and come back
	env.Ops.Add(1)
	go func() {
		defer env.Ops.Done()
		due, next, err := env.DB.DueDeliveries(context.Background(), name, now, limit)
		root.Send(self, notifyDue{due: due, next: next, err: err})
	}()
}

// dispatch starts attempts for the due rows not in flight and arms the timer of the
// earliest later attempt.
func (t *notifyTarget) dispatch(c actor.Context, m notifyDue) {
	if m.err != nil {
		t.env.Log.Error("notify: cannot read deliveries", "target", t.target.Name, "err", m.err)
		t.tick.Arm(c, notifyScanRetry, func(gen int64) any { return notifyDueTick{gen} })
		return
	}
	slots := targetParallel(t.target.Type)
	for _, d := range m.due {
		if len(t.inflight) >= slots {
			break
		}
		if t.inflight[d.RowID] {
			continue
		}
		t.inflight[d.RowID] = true
		t.attempt(c, d)
	}
	if t.again {
		t.read(c)
		return
	}
	if m.next > 0 {
		wait := time.Duration(m.next-t.now().UnixMilli()) * time.Millisecond
		t.tick.Arm(c, max(wait, time.Millisecond), func(gen int64) any { return notifyDueTick{gen} })
	}
}

// attempt sends d once on a goroutine and reports the decided outcome.
func (t *notifyTarget) attempt(c actor.Context, d store.Delivery) {
	self, root, env, ctx, sender, policy, now, target := c.Self(), c.ActorSystem().Root, t.env, t.ctx, t.sender, t.policy, t.now, t.target
	env.Ops.Add(1)
	go func() {
		defer env.Ops.Done()
		res := sender.Send(ctx, d)
		if ctx.Err() != nil {
			root.Send(self, notifyAttempted{row: d.RowID})
			return
		}
		attempts := d.Attempts + 1
		step := notify.Decide(policy, attempts, res, now())
		o := store.DeliveryOutcome{RowID: d.RowID, Target: target.Name, Attempts: attempts, Err: step.Err}
		if !step.Retry.IsZero() {
			// Rounded up to the millisecond: never before the step's time (a Retry-After).
			o.Retry = step.Retry.Add(time.Millisecond - 1).UnixMilli()
		}
		switch {
		case step.Delivered:
		case step.Failed():
			env.Log.Warn("notify: delivery failed", "target", target, "delivery", d.ID, "attempts", attempts, "err", step.Err)
		default:
			env.Log.Info("notify: attempt failed; will retry", "target", target, "delivery", d.ID, "attempts", attempts,
				"err", step.Err, "retry_at", step.Retry)
		}
		root.Send(self, notifyAttempted{row: d.RowID, outcome: &o})
	}()
}

// record writes the outcomes waiting, in one store write, unless a write is in flight
// (the ones arriving meanwhile go in the next). A row whose outcome cannot be written
// stays pending in the store and is sent again: deliveries are at least once.
func (t *notifyTarget) record(c actor.Context) {
	if t.recording || len(t.outcomes) == 0 {
		return
	}
	t.recording = true
	batch := t.outcomes
	t.outcomes = nil
	self, root, env, name := c.Self(), c.ActorSystem().Root, t.env, t.target.Name
	env.Ops.Add(1)
	go func() {
		defer env.Ops.Done()
		rows := make([]int64, len(batch))
		for i, o := range batch {
			rows[i] = o.RowID
		}
		_, err := WriteSync(root, env.Store, func(tx *store.Tx) (any, error) {
			for _, o := range batch {
				if err := tx.RecordDelivery(o); err != nil && !errors.Is(err, store.ErrStale) {
					return nil, err
				}
			}
			return nil, nil
		})
		if err != nil {
			env.Log.Error("notify: cannot record deliveries' outcomes", "target", name, "deliveries", len(batch), "err", err)
		}
		root.Send(self, notifyRecorded{rows: rows})
	}()
}
