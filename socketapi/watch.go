package socketapi

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"io"
	"iter"
	"net"
	"slices"

	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// Event is one event of a subscription: its seq, kind, the raw event object (the
// payload of docs/protocol.md §6.3, with kind and ref_uuid) and the payload decoded into
// its type of the events table (*api.AgentStatusChanged, …; nil for a kind the table
// does not have, such as debug.*).
type Event struct {
	Seq  int64
	Kind string
	// RefUUID is the row the event is about ("" for none).
	RefUUID string
	Raw     json.RawMessage
	Payload api.Event
}

// Model is the state a [Client.Watch] keeps current: the snapshot of watch.open with
// every later event applied. Events carry the row after the change (docs/decisions.md
// D2), so no event needs a new snapshot. A Model is owned by the loop that ranges over
// the watch; copy what outlives an iteration with [Model.Snapshot].
type Model struct {
	// Seq is the seq of the last event applied (the snapshot's cursor at first).
	Seq int64
	// Event is the last event applied (zero for the snapshot itself).
	Event  Event
	agents map[string]api.AgentRow
	loops  map[string]api.SnapshotLoop
}

// NewModel returns a model holding s, ready for [Model.Apply].
func NewModel(s api.Snapshot) *Model {
	m := &Model{Seq: s.SnapshotSeq, agents: map[string]api.AgentRow{}, loops: map[string]api.SnapshotLoop{}}
	for _, a := range s.Agents {
		m.agents[a.UUID] = a
	}
	for _, l := range s.Loops {
		m.loops[l.UUID] = l
	}
	return m
}

// Agent returns the row of a non-ended agent.
func (m *Model) Agent(uuid string) (api.AgentRow, bool) {
	a, ok := m.agents[uuid]
	return a, ok
}

// Len is the number of non-ended agents.
func (m *Model) Len() int { return len(m.agents) }

// Snapshot returns the model in api.snapshot's shape and order: what api.snapshot would
// answer at seq m.Seq.
func (m *Model) Snapshot() api.Snapshot {
	s := api.Snapshot{SnapshotSeq: m.Seq, Agents: make([]api.AgentRow, 0, len(m.agents)),
		Loops: make([]api.SnapshotLoop, 0, len(m.loops)), Queue: []api.QueueEntry{}}
	for _, a := range m.agents {
		s.Agents = append(s.Agents, a)
	}
	slices.SortFunc(s.Agents, func(a, b api.AgentRow) int {
		return cmp.Or(cmp.Compare(a.Path, b.Path), cmp.Compare(a.CreatedAt, b.CreatedAt), cmp.Compare(a.UUID, b.UUID))
	})
	for _, a := range s.Agents {
		if a.Status == api.StatusQueued {
			s.Queue = append(s.Queue, api.QueueEntry{UUID: a.UUID, Path: a.Path, Agent: a.Agent})
		}
	}
	for _, l := range m.loops {
		s.Loops = append(s.Loops, l)
	}
	slices.SortFunc(s.Loops, func(a, b api.SnapshotLoop) int {
		return cmp.Or(cmp.Compare(a.CreatedAt, b.CreatedAt), cmp.Compare(a.UUID, b.UUID))
	})
	return s
}

// decodeEvent decodes e's payload into its type; nil for a kind the table does not have.
func decodeEvent(kind string, raw json.RawMessage) (api.Event, error) {
	if _, ok := api.LookupEvent(kind); !ok {
		return nil, nil
	}
	p, err := api.DecodeEvent(kind, raw)
	if err != nil {
		return nil, wire.Internal(wire.CauseDecode, "cannot decode event "+kind+": "+err.Error())
	}
	return p, nil
}

// Apply folds the next event of the stream into the model (events carry the row after
// the change, docs/decisions.md D2). An event without Payload is decoded from Raw.
func (m *Model) Apply(e Event) error {
	if e.Payload == nil {
		p, err := decodeEvent(e.Kind, e.Raw)
		if err != nil {
			return err
		}
		e.Payload = p
	}
	m.Seq, m.Event = e.Seq, e
	switch p := e.Payload.(type) {
	case api.AgentEvent:
		m.applyAgent(&p.AgentRef().Agent)
	case api.IntentEvent:
		m.applyAgent(p.Intent().Agent)
	case api.AppliedEvent:
		m.applyAgent(p.Outcome().Agent)
	case api.LoopEvent:
		m.applyLoop(p.LoopRef().Loop)
	case api.RunEvent:
		m.applyRun(p.RunRef().Run)
	}
	return nil
}

// applyAgent swaps in an agent row (none: nil, or a payload without its row). Queue
// positions of the other queued rows are derived (docs/protocol.md §4.3), so they move
// here as rows join and leave the queue.
func (m *Model) applyAgent(row *api.AgentRow) {
	if row == nil || row.UUID == "" {
		return
	}
	a := *row
	old, had := m.agents[a.UUID]
	if had && old.Status == api.StatusQueued && old.QueuePosition != nil && a.Status != api.StatusQueued {
		m.shiftQueue(*old.QueuePosition, -1)
	}
	if a.Status == api.StatusEnded {
		delete(m.agents, a.UUID)
		return
	}
	if a.Status == api.StatusQueued && (!had || old.Status != api.StatusQueued) && a.QueuePosition != nil {
		m.shiftQueue(*a.QueuePosition-1, +1)
	}
	m.agents[a.UUID] = a
}

// shiftQueue moves every queued row behind position after by delta.
func (m *Model) shiftQueue(after int64, delta int64) {
	for id, q := range m.agents {
		if q.Status == api.StatusQueued && q.QueuePosition != nil && *q.QueuePosition > after {
			p := *q.QueuePosition + delta
			q.QueuePosition = &p
			m.agents[id] = q
		}
	}
}

func (m *Model) applyLoop(l api.LoopRow) {
	if l.UUID == "" {
		return // a payload without its row
	}
	if l.Status != "active" && l.Status != "paused" {
		delete(m.loops, l.UUID)
		return
	}
	cur := m.loops[l.UUID]
	cur.LoopRow = l
	if cur.Runs == nil {
		cur.Runs = []api.SnapshotRun{}
	}
	m.loops[l.UUID] = cur
}

// applyRun keeps a loop's running and stopping runs.
func (m *Model) applyRun(r api.RunRow) {
	l, ok := m.loops[r.LoopUUID]
	if !ok || r.UUID == "" {
		return
	}
	l.Runs = slices.DeleteFunc(slices.Clone(l.Runs), func(x api.SnapshotRun) bool { return x.UUID == r.UUID })
	if r.Status == "running" || r.Status == "stopping" {
		l.Runs = append(l.Runs, api.SnapshotRun{UUID: r.UUID, RunID: r.RunID, Kind: r.Kind, Status: r.Status,
			DueAt: r.DueAt, StartedAt: r.StartedAt})
		slices.SortFunc(l.Runs, func(a, b api.SnapshotRun) int {
			return cmp.Or(cmp.Compare(*cmp.Or(a.StartedAt, new(int64)), *cmp.Or(b.StartedAt, new(int64))), cmp.Compare(a.UUID, b.UUID))
		})
	}
	m.loops[r.LoopUUID] = l
}

// Watch opens watch.open on its own connection and yields the model after each step:
// first the snapshot alone (Model.Event is zero), then once per event, in seq order with
// no gap (the subscription is pinned against retention, docs/protocol.md §7.5). It ends
// when the loop breaks, when ctx ends (the connection is closed; the caller's own
// cancellation yields no error), or with one final (nil, err): the server stopping
// (environment_error server_stopping) or a broken stream.
func (c *Client) Watch(ctx context.Context) iter.Seq2[*Model, error] {
	return func(yield func(*Model, error) bool) { c.watch(ctx, yield) }
}

func (c *Client) watch(ctx context.Context, step func(*Model, error) bool) {
	w, err := c.OpenWatch(ctx)
	if err != nil {
		if ctx.Err() == nil {
			step(nil, err)
		}
		return
	}
	defer w.Close()
	m := NewModel(w.Snapshot)
	if !step(m, nil) {
		return
	}
	for {
		e, err := w.Next()
		if err == nil {
			err = m.Apply(e)
		}
		if err != nil {
			if ctx.Err() == nil {
				step(nil, err)
			}
			return
		}
		if !step(m, nil) {
			return
		}
	}
}

// WatchStream is an open watch.open subscription read one event at a time: for a client
// that keeps its own [Model] on another goroutine than the one reading (orcr top applies
// events on its UI loop). [Client.Watch] is the same stream with the model kept for you.
type WatchStream struct {
	// Snapshot is the state at the subscription's start (snapshot_seq).
	Snapshot api.Snapshot
	st       *Stream
	seq      int64
	stop     func() bool
}

// OpenWatch opens watch.open on its own connection. Closing ctx closes the stream.
func (c *Client) OpenWatch(ctx context.Context) (*WatchStream, error) {
	st, err := c.Subscribe(ctx, api.WatchOpen.Name, api.NoParams{})
	if err != nil {
		return nil, err
	}
	var open api.WatchResult
	if err := json.Unmarshal(st.Result, &open); err != nil {
		st.Close()
		return nil, wire.Internal(wire.CauseDecode, "cannot decode watch.open: "+err.Error())
	}
	w := &WatchStream{Snapshot: open.Snapshot, st: st, seq: open.Snapshot.SnapshotSeq}
	w.stop = context.AfterFunc(ctx, func() { st.Close() })
	return w, nil
}

// Next blocks for the next event, in seq order with no gap. It fails with
// environment_error server_stopping, server_error cursor_expired, a broken stream
// (environment_error server_unreachable) or a gap (server_error, which a pinned
// subscription never shows).
func (w *WatchStream) Next() (Event, error) {
	f, err := w.st.Next()
	if err != nil {
		return Event{}, streamEnd(err)
	}
	var head struct {
		Kind    string `json:"kind"`
		RefUUID string `json:"ref_uuid"`
	}
	if err := json.Unmarshal(f.Event, &head); err != nil {
		return Event{}, wire.Internal(wire.CauseDecode, "cannot decode an event: "+err.Error())
	}
	if f.Seq == 0 {
		return Event{}, controlEnd(head.Kind, f.Event)
	}
	if f.Seq != w.seq+1 {
		return Event{}, wire.Internal(wire.CauseGap, "watch stream skipped from seq "+itoa(w.seq)+" to "+itoa(f.Seq))
	}
	w.seq = f.Seq
	p, err := decodeEvent(head.Kind, f.Event)
	if err != nil {
		return Event{}, err
	}
	return Event{Seq: f.Seq, Kind: head.Kind, RefUUID: head.RefUUID, Raw: f.Event, Payload: p}, nil
}

// Close ends the subscription (its connection).
func (w *WatchStream) Close() error {
	w.stop()
	return w.st.Close()
}

// controlEnd is the error a control frame (seq 0) ends a stream with.
func controlEnd(kind string, raw json.RawMessage) error {
	if kind == "server_stopping" {
		return wire.Env(wire.CauseServerStopping, "the orcr server is stopping")
	}
	var ce struct {
		OldestSeq int64 `json:"oldest_seq"`
	}
	_ = json.Unmarshal(raw, &ce)
	return wire.New(wire.ServerError, "the subscription's cursor expired", "reason", wire.CauseCursorExpired, "oldest_seq", ce.OldestSeq)
}

func streamEnd(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) {
		return wire.Env(wire.CauseServerUnreachable, "the orcr server closed the stream").Wrap(err)
	}
	if _, ok := wire.As(err); ok {
		return err
	}
	return wire.Env(wire.CauseServerUnreachable, "the stream broke: "+err.Error()).Wrap(err)
}
