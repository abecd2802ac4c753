package actors

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/orcr-go/orcr/actors/actorkit"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/store"
	"github.com/orcr-go/orcr/store/agentpath"
)

// waitFallback is how often a blocked wait re-reads its rows when no commit notification
// arrived: a safety net only (every state change commits an event, and every commit with
// events wakes the wait), so it is long enough to cost nothing measurable.
const waitFallback = 5 * time.Second

// EnvDebugWaitFallback, with ORCR_DEBUG_METHODS=1, sets the fallback re-check's period
// (a Go duration): tests set it long, so a wait that answers at all proves that a
// commit notification woke it, however loaded the machine.
const EnvDebugWaitFallback = "ORCR_DEBUG_WAIT_FALLBACK"

// fallbackPeriod is waitFallback, or EnvDebugWaitFallback's duration where it applies.
func (s *System) fallbackPeriod() time.Duration {
	if s.getenv("ORCR_DEBUG_METHODS") == "1" {
		if d, err := time.ParseDuration(s.getenv(EnvDebugWaitFallback)); err == nil && d > 0 {
			return d
		}
	}
	return waitFallback
}

// waitReadyTimeout bounds the wait for the store actor to confirm a waiter's
// registration; past it the wait goes on and relies on the fallback re-check.
const waitReadyTimeout = 10 * time.Second

// waitReadSlots bounds the wait reads running at once to a few read connections: a
// burst of commits wakes every wait, and unbounded concurrent read transactions would
// each hold a connection of the read pool. Shared by every system of the process; it
// only shapes throughput.
var waitReadSlots = make(chan struct{}, 4)

// Wait is agent.wait (docs/protocol.md §5.12, docs/lifecycle.md §11.2). Membership is
// resolved once; then the wait is snapshot-then-subscribe: a waiter actor is registered
// with the store actor for commit notifications and confirmed registered *before* the
// first read, so every commit that the first read does not see is notified afterwards.
// Each read takes all member rows and the event head in one read transaction on the read
// pool (no store lock, no writer involvement); the wait settles when every member is
// settled at one read, whose head is decision_seq. A member that settled at an earlier
// read but not at this one keeps the wait going. With r.Any the wait settles at the first
// read where one member is settled ([decideWait]). While it blocks, a wait costs one idle
// actor and a parked goroutine. When ctx ends (the client left, the server stops) the
// wait answers with the current state.
func (s *System) Wait(ctx context.Context, r api.WaitRequest) (api.WaitResult, error) {
	start := time.Now()
	targets, err := bulkTargets(r.Targets)
	if err != nil {
		return api.WaitResult{}, err
	}
	var deadline time.Time
	if r.Timeout != "" {
		d, err := parseTimeout(r.Timeout)
		if err != nil {
			return api.WaitResult{}, err
		}
		deadline = start.Add(d)
	}
	caller, err := s.caller(ctx, r.Caller)
	if err != nil {
		return api.WaitResult{}, err
	}
	rows, err := agentpath.ResolveBulk(ctx, s.cfg.DB.Reader(), caller, targets)
	if err != nil && !wire.Is(err, wire.NotFound, "") {
		return api.WaitResult{}, err
	}
	if rows, err = s.addEnded(ctx, caller, targets, rows, err); err != nil {
		return api.WaitResult{}, err
	}
	uuids := make([]string, len(rows))
	for i, r := range rows {
		uuids[i] = r.UUID
	}

	w := s.startWaiter(ctx)
	defer w.stop()
	s.waits.Add(1)
	defer s.waits.Add(-1)
	return s.waitLoop(ctx, w, uuids, deadline, r.Any)
}

// DebugWaits is how many agent.wait calls have resolved their membership and
// registered for commit notifications and not answered yet (the hidden __debug.waits):
// a test that changes the fleet once a wait started knows by it that the change is
// not in the wait's membership.
func (s *System) DebugWaits() int64 { return s.waits.Load() }

// addEnded adds to a wait's active members the ended agents that an exact target names
// (docs/lifecycle.md §11.2): a uuid, or a path whose most recent row has ended while no
// active row holds it. They settle at once by their exit_reason (reaped, failed,
// killed, …), so a wait that comes after the end answers what became of the agent
// rather than not_found. notFound is ResolveBulk's error when it found nothing; it is
// returned when no ended row is added either.
func (s *System) addEnded(ctx context.Context, caller agentpath.Caller, targets []string, rows []store.AgentRow,
	notFound error) ([]store.AgentRow, error) {
	if notFound == nil && len(targets) == 1 {
		return rows, nil // the one target named active rows
	}
	ended, err := agentpath.ResolveEnded(ctx, s.cfg.DB.Reader(), caller, targets)
	if err != nil && !wire.Is(err, wire.NotFound, "") {
		return nil, err
	}
	held := map[string]bool{}
	for _, r := range rows {
		held[r.Path] = true
	}
	for _, r := range ended {
		if !held[r.Path] {
			held[r.Path] = true
			rows = append(rows, r)
		}
	}
	if len(rows) == 0 {
		return nil, notFound
	}
	return rows, nil
}

// waitLoop reads, decides, and blocks until the next commit, the deadline, the fallback
// re-check or the end of ctx (server shutdown or the client leaving), which returns the
// current state.
func (s *System) waitLoop(ctx context.Context, w *waiter, uuids []string, deadline time.Time, onAny bool) (api.WaitResult, error) {
	// Reads outlive ctx: on shutdown the current state is still read and returned (the
	// store is closed only after every request goroutine ended).
	rctx := context.WithoutCancel(ctx)
	var deadlineC <-chan time.Time
	if !deadline.IsZero() {
		t := time.NewTimer(time.Until(deadline))
		defer t.Stop()
		deadlineC = t.C
	}
	period := s.fallbackPeriod()
	fallback := time.NewTimer(period)
	defer fallback.Stop()
	var checkedAt time.Time // the last pane check that found a pane gone
	for {
		head, rows, err := s.waitRead(rctx, uuids)
		if err != nil {
			return api.WaitResult{}, err
		}
		v := decideWait(rows, onAny, !deadline.IsZero() && !time.Now().Before(deadline))
		if v.done && !v.timedOut && ctx.Err() == nil && s.paneVanished(ctx, rows, &checkedAt) {
			// The row still reads settled but its pane is gone: a reconcile pass marks
			// it lost now, and that commit wakes this wait.
			s.sys.Root.Send(s.recon, ReconcileNow{Hint: true})
			v.done = false
		}
		if v.done || ctx.Err() != nil {
			return buildWaitResult(rows, head, v), nil
		}
		fallback.Reset(period)
	block:
		for {
			select {
			case <-w.wake:
				// A notification for a commit the last read already saw needs no re-read.
				if w.head.Load() > head {
					break block
				}
			case <-fallback.C:
				break block
			case <-deadlineC:
				break block
			case <-ctx.Done():
				// Shutdown: answer at once, before the connection closes, with the last
				// read when no commit came since (it is then the current state).
				if w.head.Load() <= head {
					return buildWaitResult(rows, head, waitVerdict{first: -1}), nil
				}
				break block
			}
		}
	}
}

// Bounds of a wait's pane check: one pane.list, and how soon after a check that
// found a pane gone the next read takes that as still true without asking herdr.
const (
	waitPaneCheck   = 2 * time.Second
	waitPaneRecheck = 250 * time.Millisecond
)

// paneVanished reports whether a managed row of rows that would settle with its pane
// (idle, blocked, parked) has a terminal herdr's owned session no longer lists
// (docs/lifecycle.md §11.2): a wait never reports an agent whose pane is gone as
// settled. It costs one pane.list; when herdr does not answer, the rows stand. A
// check that found a pane gone stands for waitPaneRecheck (set in *goneAt), so a
// burst of commits costs no burst of herdr calls.
func (s *System) paneVanished(ctx context.Context, rows []store.WaitRow, goneAt *time.Time) bool {
	var terminals []string
	for _, r := range rows {
		if r.Managed && r.TerminalID != "" && store.SettledStatuses.Has(r.Status) {
			terminals = append(terminals, r.TerminalID)
		}
	}
	if len(terminals) == 0 || s.env.Herdr == nil {
		return false
	}
	if time.Since(*goneAt) < waitPaneRecheck {
		return true
	}
	hctx, cancel := context.WithTimeout(ctx, waitPaneCheck)
	panes, err := s.env.Herdr.Owned().PaneList(hctx, "")
	cancel()
	if err != nil {
		return false
	}
	listed := make(map[string]bool, len(panes))
	for _, p := range panes {
		listed[p.TerminalID] = true
	}
	for _, t := range terminals {
		if !listed[t] {
			*goneAt = time.Now()
			return true
		}
	}
	return false
}

// waitRead reads the member rows and the event head in one read transaction.
func (s *System) waitRead(ctx context.Context, uuids []string) (int64, []store.WaitRow, error) {
	waitReadSlots <- struct{}{}
	defer func() { <-waitReadSlots }()
	head, rows, err := s.cfg.DB.WaitRows(ctx, uuids)
	if err != nil {
		return 0, nil, wire.From(err, wire.CauseSQLite)
	}
	return head, rows, nil
}

// waitVerdict is what one read of a wait's members decides.
type waitVerdict struct {
	done     bool // answer with this read
	timedOut bool // the deadline passed before the wait was satisfied
	first    int  // with any: the index of the row that ended the wait; else -1
}

// decideWait decides one read (docs/protocol.md §5.12). rows are the members still
// present, by path; expired says the deadline has passed. Without onAny the wait is
// done when every row is settled. With onAny it is done when one is, and first is the
// settled row whose status changed earliest (ties: the first by path), so of members
// already settled at the call, or settled in one burst of commits, the one that got
// there first is named; an any wait whose members have all disappeared is done with
// none named. A wait that is not done by the deadline is done and timed out.
func decideWait(rows []store.WaitRow, onAny, expired bool) waitVerdict {
	v := waitVerdict{first: -1}
	settled := 0
	for i, r := range rows {
		if _, ok := settlement(r); ok {
			settled++
			if v.first < 0 || r.StatusChangedAt < rows[v.first].StatusChangedAt {
				v.first = i
			}
		}
	}
	if onAny {
		v.done = v.first >= 0 || len(rows) == 0
	} else {
		v.done, v.first = settled == len(rows), -1
	}
	if !v.done && expired {
		v.done, v.timedOut = true, true
	}
	return v
}

// settlement maps a row to its wait target (docs/protocol.md §5.12's table); settled is false
// for queued, starting, working and unknown rows, which carry reason wait_timeout.
func settlement(r store.WaitRow) (t api.WaitTarget, settled bool) {
	t = api.WaitTarget{UUID: r.UUID, Path: r.Path, Status: r.Status, ExitReason: r.ExitReason, ExitDetail: r.ExitDetail}
	none := api.WaitNext{Kind: "none"}
	lastResponse := api.WaitNext{Kind: "logs_last_response", Command: "orcr agent logs " + r.Path + " --last-response"}
	switch r.Status {
	case store.StatusIdle, store.StatusParked:
		t.OK, t.Reason, t.Next = true, "turn_complete", lastResponse
	case store.StatusBlocked:
		kind := "unknown"
		if r.BlockedKind != "" {
			kind = r.BlockedKind
		}
		t.Reason, t.Next = "blocked:"+kind, api.WaitNext{Kind: "attach", Command: "orcr agent attach " + r.Path}
	case store.StatusLost:
		t.Reason, t.Next = "lost", none
	case store.StatusEnded:
		switch t.ExitReason {
		case "completed":
			t.OK, t.Reason, t.Next = true, "completed", lastResponse
		case "reaped":
			t.OK, t.Reason, t.Next = true, "reaped", api.WaitNext{Kind: "logs_history", Command: "orcr agent logs " + r.UUID}
		case "timeout", "lost", "killed", "canceled", "failed":
			t.Reason, t.Next = t.ExitReason, none
		default:
			t.Reason, t.Next = "failed", none
		}
		if r.Screen && !t.OK {
			// The pane's last screen was kept: the provider's own words on why.
			t.Next = api.WaitNext{Kind: "logs_screen", Command: "orcr agent logs " + r.UUID + " --screen"}
		}
	default: // queued, starting, working, unknown
		t.Reason, t.Next = "wait_timeout", none
		return t, false
	}
	return t, true
}

// buildWaitResult is the answer of a wait decided by v at the read (rows, head). After an
// any wait named its first settled row, the members not settled are reason pending, not
// wait_timeout: the wait did not run out on them, it did not wait for them.
func buildWaitResult(rows []store.WaitRow, head int64, v waitVerdict) api.WaitResult {
	res := api.WaitResult{Targets: make([]api.WaitTarget, 0, len(rows)), AllOK: true, TimedOut: v.timedOut, DecisionSeq: head}
	if v.first >= 0 {
		res.FirstSettled = rows[v.first].UUID
	}
	for _, r := range rows {
		t, settled := settlement(r)
		if !settled && v.first >= 0 {
			t.Reason = "pending"
		}
		res.Targets = append(res.Targets, t)
		res.AllOK = res.AllOK && t.OK
	}
	return res
}

// waiter is one wait's link to the store actor's commit notifications: a tiny actor
// registered as a subscriber that forwards each EventsCommitted into wake (capacity 1,
// non-blocking, so bursts coalesce into one wake-up) and records the highest head.
type waiter struct {
	s     *System
	pid   *actor.PID
	wake  chan struct{}
	ready chan struct{} // closed once the store actor has processed the Subscribe
	head  atomic.Int64
	once  sync.Once
}

// startWaiter spawns the waiter actor and returns once the store actor has registered it
// (or ctx ended, or waitReadyTimeout passed). The registration is confirmed by a Bounds
// request sent right after Subscribe by the same actor: the store actor's mailbox is
// FIFO per sender, so the reply proves the Subscribe was processed, and every commit
// after that point is notified.
func (s *System) startWaiter(ctx context.Context) *waiter {
	w := &waiter{s: s, wake: make(chan struct{}, 1), ready: make(chan struct{})}
	w.pid = s.sys.Root.SpawnPrefix(actorkit.Props(s.cfg.Log, func() actor.Actor { return &waiterActor{w: w, store: s.storePID} }), "wait-")
	t := time.NewTimer(waitReadyTimeout)
	defer t.Stop()
	select {
	case <-w.ready:
	case <-ctx.Done():
	case <-t.C:
		s.cfg.Log.Warn("agent.wait: store actor did not confirm the subscription; relying on the fallback re-check")
	}
	return w
}

// stop stops the waiter actor, which unsubscribes on Stopping. It does not wait: the
// wait's answer should not be held up by an actor round trip (at shutdown the
// connection is about to close).
func (w *waiter) stop() {
	w.s.sys.Root.Stop(w.pid)
}

func (w *waiter) markReady() { w.once.Do(func() { close(w.ready) }) }

// waiterActor is the actor half of a [waiter].
type waiterActor struct {
	w     *waiter
	store *actor.PID
}

// Receive subscribes on Started, forwards commit notifications, and unsubscribes on
// Stopping.
func (a *waiterActor) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *actor.Started:
		c.Send(a.store, Subscribe{PID: c.Self()})
		c.Request(a.store, Bounds{})
	case BoundsResult:
		a.notify(m.Latest)
		a.w.markReady()
	case *actor.DeadLetterResponse:
		// The store actor is gone (shutdown): nothing will ever be notified.
		a.w.markReady()
	case EventsCommitted:
		a.notify(m.Head)
	case *actor.Stopping:
		c.Send(a.store, Unsubscribe{PID: c.Self()})
	}
}

func (a *waiterActor) notify(head int64) {
	for {
		cur := a.w.head.Load()
		if head <= cur || a.w.head.CompareAndSwap(cur, head) {
			break
		}
	}
	select {
	case a.w.wake <- struct{}{}:
	default:
	}
}
