package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/store"
)

// EventMsg is one message of the ORCR_EVENTS stream: a member's committed event, with
// the same event object an events.subscribe frame carries (docs/fleet.md §5).
type EventMsg struct {
	Host  string          `json:"host"`
	Seq   int64           `json:"seq"`
	TS    int64           `json:"ts"`
	Event json.RawMessage `json:"event"`
}

// DecodeEventMsg reads a stream message's data, checking it is one (a consumer reads
// what any member with the credential published).
func DecodeEventMsg(data []byte) (EventMsg, error) {
	var m EventMsg
	if err := json.Unmarshal(data, &m); err != nil {
		return EventMsg{}, fmt.Errorf("fleet event: %w", err)
	}
	if !config.ValidHost(m.Host) || m.Seq < 1 || len(m.Event) == 0 || m.Event[0] != '{' {
		return EventMsg{}, errors.New("fleet event: needs a valid host, a seq >= 1 and an event object")
	}
	return m, nil
}

// Publisher publishes this member's committed events into the stream; the `fleet`
// actor drives it (actors.FleetPublisher).
type Publisher struct {
	m    *Member
	info MemberInfo
	// ready: the stream and the buckets exist and this member is registered (the
	// publish and the heartbeat goroutines both check it).
	mu    sync.Mutex
	ready bool
}

// Publisher returns the member's publisher; info is its row in the members bucket,
// written (with the stream created if need be) before its first publish.
func (m *Member) Publisher(info MemberInfo) *Publisher { return &Publisher{m: m, info: info} }

// Published returns the highest seq of this host the stream holds (0: none): where the
// publisher resumes after a restart or a reconnect, whatever its cursor file says.
func (p *Publisher) Published(ctx context.Context) (int64, error) {
	if err := p.ensure(ctx); err != nil {
		return 0, err
	}
	s, err := p.m.js.Stream(ctx, Stream)
	if err != nil {
		return 0, err
	}
	msg, err := s.GetLastMsgForSubject(ctx, EventSubject(p.m.Host))
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	id := msg.Header.Get(jetstream.MsgIDHeader)
	seq, err := strconv.ParseInt(strings.TrimPrefix(id, p.m.Host+":"), 10, 64)
	if err != nil || !strings.HasPrefix(id, p.m.Host+":") {
		return 0, fmt.Errorf("fleet: the stream's last message of %s has msg id %q", p.m.Host, id)
	}
	return seq, nil
}

// ensure sets the fleet up for this member once (Member.Setup).
func (p *Publisher) ensure(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ready {
		return nil
	}
	if err := p.m.Setup(ctx, p.info); err != nil {
		return err
	}
	p.ready = true
	return nil
}

// Publish publishes evs in order, each with its Nats-Msg-Id, and returns once the
// stream acknowledged every one (a duplicate's ack counts: it is stored already).
func (p *Publisher) Publish(ctx context.Context, evs []store.Event) error {
	subj := EventSubject(p.m.Host)
	for _, e := range evs {
		data, err := json.Marshal(EventMsg{Host: p.m.Host, Seq: e.Seq, TS: e.TS, Event: e.Frame()})
		if err != nil {
			return err
		}
		msg := &nats.Msg{Subject: subj, Data: data, Header: nats.Header{}}
		if _, err := p.m.js.PublishMsg(ctx, msg, jetstream.WithMsgID(MsgID(p.m.Host, e.Seq))); err != nil {
			return fmt.Errorf("fleet: publish seq %d: %w", e.Seq, err)
		}
	}
	return nil
}
