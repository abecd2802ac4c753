package fleet

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/socketapi/api"
)

// Events reads the events of hosts (every host the stream holds events of, when
// empty) after since's cursor of each (a host not in since: from its oldest event). With
// none there and wait above zero it waits up to wait for the first to come. Each host's
// start is found in the stream by its own seq (a binary search over the stream), so a
// reader resumes exactly where its cursor is, whatever the other hosts published
// meanwhile.
func (m *Member) Events(ctx context.Context, since map[string]int64, hosts []string, limit int, wait time.Duration) (api.FleetEventsResult, error) {
	page := &eventsPage{FleetEventsResult: api.FleetEventsResult{Events: []api.FleetEvent{}, Cursors: map[string]int64{}}}
	err := page.read(ctx, m, since, hosts, limit, wait)
	return page.FleetEventsResult, err
}

// eventsPage is one read of [Member.Events] under way.
type eventsPage struct{ api.FleetEventsResult }

func (page *eventsPage) read(ctx context.Context, m *Member, since map[string]int64, hosts []string, limit int, wait time.Duration) error {
	s, err := m.js.Stream(ctx, Stream)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		// No member has joined yet: a waiting reader asks again in a moment.
		t := time.NewTimer(min(wait, time.Second))
		defer t.Stop()
		select {
		case <-ctx.Done():
		case <-t.C:
		}
		return nil
	}
	if err != nil {
		return err
	}
	// The stream's last seq before any host's start is looked for: a read that finds
	// nothing after the cursors starts just past it, so an event published while it
	// looks is not missed.
	var opts []jetstream.StreamInfoOpt
	if len(hosts) == 0 {
		opts = append(opts, jetstream.WithSubjectFilter(EventSubject(">")))
	}
	info, err := s.Info(ctx, opts...)
	if err != nil {
		return err
	}
	if len(hosts) == 0 {
		for subj := range info.State.Subjects {
			if h := strings.TrimPrefix(subj, EventSubject("")); config.ValidHost(h) {
				hosts = append(hosts, h)
			}
		}
		slices.Sort(hosts)
	}
	var subjects []string
	var start uint64
	for _, h := range hosts {
		page.Cursors[h] = since[h]
		at, ok, err := firstAfter(ctx, s, h, since[h])
		if err != nil {
			return err
		}
		subjects = append(subjects, EventSubject(h))
		if ok && (start == 0 || at < start) {
			start = at
		}
	}
	if len(subjects) == 0 {
		if wait <= 0 {
			return nil
		}
		subjects = []string{EventSubject(">")} // wait for the first host's first event
	}
	if start == 0 {
		start = info.State.LastSeq + 1 // nothing after any cursor yet
	}
	cfg := jetstream.OrderedConsumerConfig{FilterSubjects: subjects, InactiveThreshold: readerIdle,
		DeliverPolicy: jetstream.DeliverByStartSequencePolicy, OptStartSeq: start}
	cons, err := s.OrderedConsumer(ctx, cfg)
	if err != nil {
		return err
	}
	defer func() {
		dctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if ci := cons.CachedInfo(); ci != nil {
			s.DeleteConsumer(dctx, ci.Name) // else gone once idle (readerIdle)
		}
	}()
	ci, err := cons.Info(ctx)
	if err != nil {
		return err
	}
	pending := ci.NumPending
	if pending == 0 {
		if wait <= 0 {
			return nil
		}
		msg, err := cons.Next(jetstream.FetchMaxWait(wait))
		if errors.Is(err, nats.ErrTimeout) || errors.Is(err, jetstream.ErrNoMessages) {
			return nil
		}
		if err != nil {
			return err
		}
		page.add(msg, since, limit)
		if ci, err = cons.Info(ctx); err != nil {
			return err
		}
		pending = ci.NumPending
	}
	// Read on until the page is full and one more event is seen (More), or nothing is
	// left: events at or before their host's cursor are skipped, not counted.
	for pending > 0 && !page.More {
		batch, err := cons.FetchNoWait(int(min(pending, 256)))
		if err != nil {
			return err
		}
		var n uint64
		for msg := range batch.Messages() {
			n++
			page.add(msg, since, limit)
		}
		if err := batch.Error(); err != nil {
			return err
		}
		if n == 0 {
			break
		}
		pending -= min(n, pending)
	}
	return nil
}

// readerIdle is how long a read's consumer outlives a reader that went away without
// deleting it.
const readerIdle = 10 * time.Second

// add adds one stream message to the page unless it is at or before its host's cursor
// (a host whose start came later than the read's), or the page is full (More).
func (p *eventsPage) add(msg jetstream.Msg, since map[string]int64, limit int) {
	ev, err := DecodeEventMsg(msg.Data())
	if err != nil || ev.Seq <= since[ev.Host] || ev.Seq <= p.Cursors[ev.Host] {
		return
	}
	if len(p.Events) >= limit {
		p.More = true
		return
	}
	p.Events = append(p.Events, api.FleetEvent{Host: ev.Host, Seq: ev.Seq, TS: ev.TS, Event: api.Open(ev.Event)})
	p.Cursors[ev.Host] = ev.Seq
}

// firstAfter is the stream seq of host's first event after its seq cursor; ok false
// when the stream holds none.
func firstAfter(ctx context.Context, s jetstream.Stream, host string, cursor int64) (uint64, bool, error) {
	subj := EventSubject(host)
	last, err := s.GetLastMsgForSubject(ctx, subj)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	if hostSeq(last.Data) <= cursor {
		return 0, false, nil
	}
	// The smallest stream seq whose next message of host is after the cursor: the
	// host's own seqs grow with the stream's.
	lo, hi, found := uint64(1), last.Sequence, last.Sequence
	for lo <= hi {
		mid := lo + (hi-lo)/2
		msg, err := s.GetMsg(ctx, mid, jetstream.WithGetMsgSubject(subj))
		if err != nil {
			return 0, false, err
		}
		if hostSeq(msg.Data) > cursor {
			found, hi = msg.Sequence, mid-1
		} else {
			lo = msg.Sequence + 1
		}
	}
	return found, true, nil
}

// hostSeq is the member's own seq of a stream message (0 when it is no event).
func hostSeq(data []byte) int64 {
	ev, err := DecodeEventMsg(data)
	if err != nil {
		return 0
	}
	return ev.Seq
}
