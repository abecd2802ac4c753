package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/store"
)

// SeenMaxAgents bounds the rows of a member's view in the seen bucket: a member with
// more writes its first SeenMaxAgents (in tree order) and marks the view truncated.
const SeenMaxAgents = 1000

// Seen is a member's last written view of its agents (docs/fleet.md §4.4): what
// `agent ls --fleet` shows of a member that does not answer, as it was then.
type Seen struct {
	Host      string         `json:"host"`
	Agents    []api.AgentRow `json:"agents"`
	Truncated bool           `json:"truncated,omitempty"`
	// At is when the fleet stored the view (the NATS server's clock); not in the value.
	At time.Time `json:"-"`
}

// Heartbeat writes this member's view of its agents to the seen bucket; its time is
// the member's last-seen time (actors.FleetPublisher).
func (p *Publisher) Heartbeat(ctx context.Context, agents []store.AgentRow) error {
	if err := p.ensure(ctx); err != nil {
		return err
	}
	v := Seen{Host: p.m.Host, Agents: agents}
	if v.Agents == nil {
		v.Agents = []api.AgentRow{}
	}
	if len(v.Agents) > SeenMaxAgents {
		v.Agents, v.Truncated = v.Agents[:SeenMaxAgents], true
	}
	limit := int(p.m.nc.MaxPayload()) - chunkRoom
	if limit <= 0 {
		limit = math.MaxInt // not connected yet: the put fails on its own
	}
	b, err := seenValue(v, limit)
	if err != nil {
		return err
	}
	kv, err := p.m.js.KeyValue(ctx, SeenBucket)
	if err != nil {
		return err
	}
	_, err = kv.Put(ctx, p.m.Host, b)
	return err
}

// seenValue is v as the seen bucket's value, its agents cut (and the view marked
// truncated) until it fits in limit bytes: a KV value is one NATS message, and a
// server's max_payload may be 1 MiB.
func seenValue(v Seen, limit int) ([]byte, error) {
	for {
		b, err := json.Marshal(v)
		if err != nil || len(b) <= limit || len(v.Agents) == 0 {
			return b, err
		}
		// The rows are about the same size: keep the share that fits, less a tenth.
		keep := min(len(v.Agents)-1, int(int64(len(v.Agents))*int64(limit)/int64(len(b))*9/10))
		v.Agents, v.Truncated = v.Agents[:max(keep, 0)], true
	}
}

// LastSeenAt is when host last wrote its view of its agents (ok false: never).
func (m *Member) LastSeenAt(ctx context.Context, host string) (at time.Time, ok bool, err error) {
	e, err := m.seenEntry(ctx, host)
	if err != nil || e == nil {
		return time.Time{}, false, err
	}
	return e.Created(), true, nil
}

// seenEntry is host's entry in the seen bucket (nil when it has none).
func (m *Member) seenEntry(ctx context.Context, host string) (jetstream.KeyValueEntry, error) {
	kv, err := m.js.KeyValue(ctx, SeenBucket)
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	e, err := kv.Get(ctx, host)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil, nil
	}
	return e, err
}

// LastSeen reads host's last written view (nil when it never wrote one).
func (m *Member) LastSeen(ctx context.Context, host string) (*Seen, error) {
	e, err := m.seenEntry(ctx, host)
	if err != nil || e == nil {
		return nil, err
	}
	var s Seen
	if err := json.Unmarshal(e.Value(), &s); err != nil {
		return nil, fmt.Errorf("fleet: the seen view of %s: %w", host, err)
	}
	s.At = e.Created()
	return &s, nil
}
