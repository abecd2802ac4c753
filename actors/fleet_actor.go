package actors

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/orcr-go/orcr/actors/actorkit"
	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/store"
	"github.com/orcr-go/orcr/store/agentpath"
)

// fleetPinID is the fleet publisher's retention pin (the notifier holds -1).
const fleetPinID = -2

// fleetRetry is how long the publisher waits after a failed batch (the fleet
// unreachable, a store error) before it tries again.
const fleetRetry = time.Second

// fleetBatchTimeout bounds one batch's publishes and acks, and one heartbeat.
const fleetBatchTimeout = 10 * time.Second

// FleetSeenCheck is how often the `fleet` actor considers writing the member's view of
// its agents to the fleet (docs/fleet.md §4.4): it does when an event was committed since
// the last write, and at least every FleetSeenHeartbeat, whose time is the member's
// last-seen time.
const (
	FleetSeenCheck     = 5 * time.Second
	FleetSeenHeartbeat = 30 * time.Second
)

// FleetPublisher is what the `fleet` actor publishes through (package socketapi/fleet
// implements it on JetStream; docs/fleet.md §5).
type FleetPublisher interface {
	// Published returns the highest seq of this host the stream holds (0: none).
	Published(ctx context.Context) (int64, error)
	// Publish publishes the events in order and returns once all are acknowledged.
	Publish(ctx context.Context, evs []store.Event) error
	// Heartbeat writes the member's view of its agents (the rows of a plain agent.ls)
	// for the fleet to show when the member does not answer.
	Heartbeat(ctx context.Context, agents []store.AgentRow) error
}

// FleetQuery asks the `fleet` actor for its progress (server.status, docs/fleet.md §5.1).
type FleetQuery struct{}

// FleetProgress is the `fleet` actor's answer to a FleetQuery.
type FleetProgress struct {
	Cursor int64     // the last seq the stream acknowledged
	Head   int64     // the last seq committed here
	OKAt   time.Time // when the stream last acknowledged a batch (zero: not since the start)
	Err    string    // the last failed batch's error, "" once a batch succeeded after it
}

// FleetSpec configures the fleet publisher.
type FleetSpec struct {
	Env       *AgentEnv // Store, DB, Log and Ops
	Publisher FleetPublisher
	// CursorFile holds the last seq the stream acknowledged (docs/fleet.md §5).
	CursorFile string
}

// fleetActor is the `fleet` actor: it publishes every committed event into the fleet's
// stream from a durable cursor. Like the notifier it subscribes to the store's commit
// notifications and pins retention at its cursor, so an event is never trimmed before
// the stream has it, however long the member was cut off. One batch at a time runs on
// a goroutine (edge code): on its first batch after a start or a failure it asks the
// stream for the last seq it holds of this host and resumes after it, so a publish
// whose ack was lost is not sent twice; each acknowledged batch moves the cursor file.
type fleetActor struct {
	spec   FleetSpec
	cursor int64
	head   int64
	synced bool // the cursor agrees with the stream since the last failure
	busy   bool
	okAt   time.Time // the last acknowledged batch
	err    string    // the last failure, cleared by a success
	// The heartbeat: one write at a time (seenBusy), the head and time of the last
	// written view.
	seen     actorkit.Ticker
	seenBusy bool
	seenHead int64
	seenAt   time.Time
	retry    actorkit.Ticker
	ctx      context.Context
	cancel   context.CancelFunc
}

type fleetPublished struct {
	cursor int64
	err    error
}

type fleetRetryTick struct{ gen int64 }

type fleetSeenTick struct{ gen int64 }

type fleetSeenDone struct {
	head int64
	err  error
}

// NewFleetProps returns the fleet publisher's props; cursor is the stored cursor.
func NewFleetProps(spec FleetSpec) *actor.Props {
	return actorkit.Props(spec.Env.Log, func() actor.Actor { return &fleetActor{spec: spec} })
}

func (f *fleetActor) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *actor.Started:
		f.ctx, f.cancel = context.WithCancel(context.Background())
		cur, err := ReadFleetCursor(f.spec.CursorFile)
		if err != nil {
			f.spec.Env.Log.Error("fleet: cannot read the publish cursor; resuming from the stream", "err", err)
		}
		f.cursor, f.head = cur, cur
		c.Send(f.spec.Env.Store, Subscribe{PID: c.Self()})
		c.Send(f.spec.Env.Store, Pin{ID: fleetPinID, Seq: f.cursor, Owner: c.Self()})
		c.Request(f.spec.Env.Store, Bounds{})
		f.armSeen(c, 0)
	case BoundsResult:
		f.commit(c, m.Latest)
	case FleetQuery:
		c.Respond(FleetProgress{Cursor: f.cursor, Head: f.head, OKAt: f.okAt, Err: f.err})
	case EventsCommitted:
		f.commit(c, m.Head)
	case fleetPublished:
		f.busy = false
		if m.err != nil {
			if f.ctx.Err() != nil {
				return
			}
			f.synced, f.err = false, m.err.Error()
			f.spec.Env.Log.Warn("fleet: cannot publish events; retrying", "cursor", f.cursor, "err", m.err)
			f.retry.Arm(c, fleetRetry, func(gen int64) any { return fleetRetryTick{gen} })
			return
		}
		f.synced, f.okAt, f.err = true, time.Now(), ""
		// The cursor follows the stream, down too when it lost events (publishBatch
		// resumed below the cursor); the pin only ever moves up.
		if m.cursor != f.cursor {
			f.cursor = m.cursor
			c.Send(f.spec.Env.Store, Pin{ID: fleetPinID, Seq: f.cursor})
		}
		f.publish(c)
	case fleetRetryTick:
		if f.retry.Current(m.gen) {
			f.publish(c)
		}
	case fleetSeenTick:
		if f.seen.Current(m.gen) {
			f.heartbeat(c)
		}
	case fleetSeenDone:
		f.seenBusy = false
		if m.err != nil {
			f.spec.Env.Log.Debug("fleet: cannot write the agents' view", "err", m.err)
		} else {
			f.seenHead, f.seenAt = m.head, time.Now()
		}
	case PinDropped:
		f.spec.Env.Log.Error("fleet: retention pin dropped; events may be missing from the fleet", "oldest", m.OldestSeq)
	case *actor.Stopping:
		f.retry.Stop()
		f.seen.Stop()
		f.cancel()
		c.Send(f.spec.Env.Store, Unsubscribe{PID: c.Self()})
		c.Send(f.spec.Env.Store, Unpin{ID: fleetPinID})
	}
}

func (f *fleetActor) armSeen(c actor.Context, after time.Duration) {
	f.seen.Arm(c, after, func(gen int64) any { return fleetSeenTick{gen} })
}

// heartbeat writes the member's view of its agents when an event was committed since
// the last write or the last is FleetSeenHeartbeat old (one write at a time, on a
// goroutine: edge code), and arms the next check.
func (f *fleetActor) heartbeat(c actor.Context) {
	f.armSeen(c, FleetSeenCheck)
	if f.seenBusy || f.ctx.Err() != nil || (f.head == f.seenHead && time.Since(f.seenAt) < FleetSeenHeartbeat) {
		return
	}
	f.seenBusy = true
	self, root, spec, head, ctx := c.Self(), c.ActorSystem().Root, f.spec, f.head, f.ctx
	spec.Env.Ops.Add(1)
	go func() {
		defer spec.Env.Ops.Done()
		ctx, cancel := context.WithTimeout(ctx, fleetBatchTimeout)
		defer cancel()
		rows, err := agentpath.List(ctx, spec.Env.DB.Reader(), agentpath.Caller{}, agentpath.ListFilter{})
		if err == nil {
			err = spec.Publisher.Heartbeat(ctx, rows)
		}
		root.Send(self, fleetSeenDone{head: head, err: err})
	}()
}

func (f *fleetActor) commit(c actor.Context, head int64) {
	f.head = max(f.head, head)
	f.publish(c)
}

// publish starts a batch when none runs, no retry is pending and events are waiting
// (or the cursor has not been checked against the stream yet).
func (f *fleetActor) publish(c actor.Context) {
	if f.busy || f.ctx.Err() != nil || (f.synced && f.cursor >= f.head) {
		return
	}
	f.retry.Stop()
	f.busy = true
	self, root, spec, cursor, synced, ctx := c.Self(), c.ActorSystem().Root, f.spec, f.cursor, f.synced, f.ctx
	spec.Env.Ops.Add(1)
	go func() {
		defer spec.Env.Ops.Done()
		cur, err := publishBatch(ctx, spec, cursor, synced)
		root.Send(self, fleetPublished{cursor: cur, err: err})
	}()
}

// publishBatch publishes the events after cursor (one batch) and stores the new
// cursor; unsynced, it first resumes from the stream's last seq of this host. Edge code.
func publishBatch(ctx context.Context, spec FleetSpec, cursor int64, synced bool) (int64, error) {
	ctx, cancel := context.WithTimeout(ctx, fleetBatchTimeout)
	defer cancel()
	start := cursor
	if !synced {
		floor, err := spec.Publisher.Published(ctx)
		if err != nil {
			return cursor, err
		}
		if floor < cursor {
			// The stream lost what it acknowledged (a hub machine that crashed before its
			// disk had it, a stream deleted): publish again from what it holds, as far
			// as the retained events reach (docs/fleet.md §5).
			spec.Env.Log.Warn("fleet: the stream holds fewer of this host's events than were acknowledged; publishing them again",
				"stream", floor, "cursor", cursor)
		}
		cursor = floor
	}
	evs, err := spec.Env.DB.EventsAfter(ctx, cursor, store.DefaultEventsBatch)
	if err != nil || len(evs) == 0 {
		if err == nil && cursor != start {
			err = WriteFleetCursor(spec.CursorFile, cursor)
		}
		return cursor, err
	}
	if first := evs[0].Seq; first > cursor+1 && cursor > 0 {
		spec.Env.Log.Error("fleet: events were trimmed before they were published", "from", cursor+1, "to", first-1)
	}
	if err := spec.Publisher.Publish(ctx, evs); err != nil {
		return cursor, err
	}
	cursor = evs[len(evs)-1].Seq
	return cursor, WriteFleetCursor(spec.CursorFile, cursor)
}

// ReadFleetCursor reads the publish cursor file (0 when absent: publish from the oldest
// retained event).
func ReadFleetCursor(path string) (int64, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil || n < 0 {
		return 0, wire.Internal(wire.CauseDecode, "fleet cursor file "+path+" does not hold a seq")
	}
	return n, nil
}

// WriteFleetCursor replaces the cursor file atomically (a temporary file renamed over
// it), mode 0600.
func WriteFleetCursor(path string, seq int64) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".cursor-*")
	if err != nil {
		return err
	}
	_, err = tmp.WriteString(strconv.FormatInt(seq, 10) + "\n")
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// StartFleet starts the `fleet` actor, which publishes every committed event through
// pub from the cursor in cursorFile (docs/fleet.md §5), and serves fleet.call and
// fleet.members through caller. The server calls it once, after [Start], when the fleet
// is on.
func (s *System) StartFleet(pub FleetPublisher, caller FleetCaller, cursorFile string) error {
	pid, err := s.sys.Root.SpawnNamed(NewFleetProps(FleetSpec{Env: s.env, Publisher: pub, CursorFile: cursorFile}), "fleet")
	if err != nil {
		return wire.Internal(wire.CauseActor, "cannot start the fleet publisher: "+err.Error())
	}
	s.fleet, s.fleetCaller = pid, caller
	return nil
}

// fleetStatus is server.status's fleet: nil with the fleet off; else the member's
// host, its link and how far its events reached the stream (docs/fleet.md §5.1).
func (s *System) fleetStatus() *api.FleetStatus {
	if s.fleet == nil {
		return nil
	}
	f := s.cfg.Config.Fleet
	st := &api.FleetStatus{Host: f.Host, Hub: f.Hub != nil, Labels: f.Labels}
	var url string
	st.Connection, url = s.fleetCaller.Connection()
	if url != "" {
		st.URL = &url
	}
	res, err := s.sys.Root.RequestFuture(s.fleet, FleetQuery{}, 2*time.Second).Result()
	if err != nil {
		s.cfg.Log.Warn("server.status: the fleet publisher did not answer", "err", err)
		msg := "the fleet publisher did not answer: " + err.Error()
		st.Error = &msg
		return st
	}
	st.Leases = s.leases.status()
	p := res.(FleetProgress)
	st.Published, st.Lag = p.Cursor, max(p.Head-p.Cursor, 0)
	if !p.OKAt.IsZero() {
		ms := p.OKAt.UnixMilli()
		st.LastPublishAt = &ms
	}
	if p.Err != "" {
		st.Error = &p.Err
	}
	return st
}

// FleetCaller is the fleet connection fleet.call and fleet.members go through (package
// fleet's Member implements it; docs/fleet.md §4.6).
type FleetCaller interface {
	// CallHost calls method on host after a probe, failing fast when it is gone.
	CallHost(ctx context.Context, host, method string, params any) (json.RawMessage, *wire.Error)
	// Members lists the registered hosts.
	Members(ctx context.Context) ([]string, error)
	// Ping probes host.
	Ping(ctx context.Context, host string) *wire.Error
	// LastSeenAt is when host last wrote its view of its agents (ok false: never).
	LastSeenAt(ctx context.Context, host string) (at time.Time, ok bool, err error)
	// Events reads every member's events after a cursor per host (fleet.Member.Events).
	Events(ctx context.Context, since map[string]int64, hosts []string, limit int, wait time.Duration) (api.FleetEventsResult, error)
	// Connection is the state of the link to the fleet (connected, connecting,
	// reconnecting, disconnected, closed) and the server it is connected to, its
	// credentials removed ("" while not connected). It may be called from any goroutine.
	Connection() (state, url string)
}

// fleetCallTimeout bounds a fleet.call of a bounded method: the member's own 10 s and
// the way back (docs/fleet.md §4.2); agent.wait and agent.ask are bounded by their own
// timeout, agent.kill by its progress (docs/fleet.md §4.9).
const fleetCallTimeout = 15 * time.Second

// FleetCall is fleet.call: method on a fleet member through this server's connection,
// its result or its error as the member gave them (docs/fleet.md §4.6).
func (s *System) FleetCall(ctx context.Context, r api.FleetCallRequest) (api.FleetCallResult, error) {
	if err := s.fleetOn(); err != nil {
		return api.FleetCallResult{}, err
	}
	for _, f := range []struct{ name, v string }{{"host", r.Host}, {"method", r.Method}} {
		if f.v == "" {
			return api.FleetCallResult{}, wire.Invalid(wire.ReasonFleetCallIncomplete, "fleet.call needs its `"+f.name+"`", "missing", f.name)
		}
	}
	// A call that reports progress (agent.kill) goes on while its progress frames come,
	// each within the fleet's idle bound, and the member is probed meanwhile.
	if m, ok := api.Lookup(r.Method); !ok || !m.Info().Unbounded && !api.ReportsProgress(r.Method) {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, fleetCallTimeout)
		defer cancel()
	}
	params := r.Params
	if len(params) == 0 {
		params = api.Open("{}")
	}
	raw, werr := s.fleetCaller.CallHost(ctx, r.Host, r.Method, params)
	if werr != nil {
		return api.FleetCallResult{}, werr
	}
	return api.FleetCallResult{Host: r.Host, Result: raw}, nil
}

// fleetMembersTimeout bounds fleet.members's probes and reads.
const fleetMembersTimeout = 5 * time.Second

// FleetMembers is fleet.members: every registered member, probed at once, with when it
// last wrote its view of its agents (docs/fleet.md §4.6).
func (s *System) FleetMembers(ctx context.Context, _ api.NoParams) (api.FleetMembersResult, error) {
	if err := s.fleetOn(); err != nil {
		return api.FleetMembersResult{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, fleetMembersTimeout)
	defer cancel()
	hosts, err := s.fleetCaller.Members(ctx)
	if err != nil {
		return api.FleetMembersResult{}, wire.Env(wire.CauseFleetUnreachable, "fleet: cannot list the members: "+err.Error())
	}
	slices.Sort(hosts)
	out := api.FleetMembersResult{Members: make([]api.FleetMember, len(hosts))}
	var wg sync.WaitGroup
	for i, h := range hosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m := api.FleetMember{Host: h, Self: h == s.cfg.Config.Fleet.Host}
			m.Error = s.fleetCaller.Ping(ctx, h)
			m.Reachable = m.Error == nil
			if at, ok, err := s.fleetCaller.LastSeenAt(ctx, h); err == nil && ok {
				ms := at.UnixMilli()
				m.LastSeen = &ms
			}
			out.Members[i] = m
		}()
	}
	wg.Wait()
	return out, nil
}

// fleetOn refuses a fleet method on a server without a fleet section.
func (s *System) fleetOn() error {
	if s.fleetCaller == nil {
		return wire.Env(wire.CauseConfigInvalid, "this server is in no fleet: add a `fleet` section to config.json and restart it (docs/fleet.md §2)")
	}
	return nil
}

// Bounds of a fleet.events read (docs/fleet.md §5.3).
const (
	fleetEventsLimit    = 500
	fleetEventsMaxLimit = 10000
	fleetEventsMaxWait  = 25 * time.Second
)

// FleetEvents is fleet.events: every member's events after a cursor per host, read from
// the fleet's stream through this server's connection (docs/fleet.md §5.3).
func (s *System) FleetEvents(ctx context.Context, req api.FleetEventsRequest) (api.FleetEventsResult, error) {
	bad := func(field string, value any, what string) error {
		return wire.Invalid(wire.ReasonBadFleetRead, "fleet.events: "+field+" "+what, "field", field, "value", value)
	}
	for h, c := range req.Since {
		if !config.ValidHost(h) {
			return api.FleetEventsResult{}, bad("since", h, "names no host (lowercase letters, digits and '-', at most 63)")
		}
		if c < 0 {
			return api.FleetEventsResult{}, bad("since", c, "holds a negative seq for "+h)
		}
	}
	for _, h := range req.Hosts {
		if !config.ValidHost(h) {
			return api.FleetEventsResult{}, bad("hosts", h, "names no host (lowercase letters, digits and '-', at most 63)")
		}
	}
	limit := req.Limit
	if limit == 0 {
		limit = fleetEventsLimit
	}
	if limit < 1 || limit > fleetEventsMaxLimit {
		return api.FleetEventsResult{}, bad("limit", req.Limit, fmt.Sprintf("must be 1 to %d", fleetEventsMaxLimit))
	}
	wait := time.Duration(req.WaitMS) * time.Millisecond
	if req.WaitMS < 0 || wait > fleetEventsMaxWait {
		return api.FleetEventsResult{}, bad("wait_ms", req.WaitMS, fmt.Sprintf("must be 0 to %d", fleetEventsMaxWait.Milliseconds()))
	}
	if err := s.fleetOn(); err != nil {
		return api.FleetEventsResult{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, wait+fleetCallTimeout)
	defer cancel()
	out, err := s.fleetCaller.Events(ctx, req.Since, slices.Compact(slices.Sorted(slices.Values(req.Hosts))), limit, wait)
	if err != nil {
		return api.FleetEventsResult{}, wire.Env(wire.CauseFleetUnreachable, "fleet: cannot read the fleet's events: "+err.Error())
	}
	return out, nil
}
