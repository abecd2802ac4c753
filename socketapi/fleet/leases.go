package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// LeasesBucket is the JetStream KV bucket of fleet-wide provider slots (docs/fleet.md
// §4.7): key <provider>.<i> for i below the provider's fleet cap, held by the member
// whose Lease value it carries. The bucket's MaxAge is the lease TTL, so a key its
// holder stopped renewing goes by itself.
const LeasesBucket = "ORCR_LEASES"

// Lease is the value of a held slot.
type Lease struct {
	Host string `json:"host"`
	ID   string `json:"id"` // the holder's member id: a restarted member takes its own keys back
}

// held is one slot this member holds: its key's revision, for the compare-and-set of a
// renewal or a release, and when it was last written.
type held struct {
	rev uint64
	at  time.Time
}

// Leases holds this member's fleet-wide slots (actors.FleetLeaser). Its methods are
// called from one goroutine at a time (the `fleet-leases` actor's reconcile).
type Leases struct {
	m    *Member
	info MemberInfo
	caps map[string]int
	ttl  time.Duration
	kv   jetstream.KeyValue
	held map[string]map[int]held // provider → slot index → lease
}

// Leases returns the member's slot holder for the fleet caps caps with lease time ttl.
func (m *Member) Leases(info MemberInfo, caps map[string]int, ttl time.Duration) *Leases {
	return &Leases{m: m, info: info, caps: caps, ttl: ttl, held: map[string]map[int]held{}}
}

// leaseUpdateTimeout bounds the change of the leases bucket's TTL to this member's.
const leaseUpdateTimeout = 2 * time.Second

// LeaseKey is the key of provider's slot i.
func LeaseKey(provider string, i int) string { return provider + "." + strconv.Itoa(i) }

func (l *Leases) bucket(ctx context.Context) (jetstream.KeyValue, error) {
	if l.kv != nil {
		return l.kv, nil
	}
	cfg := jetstream.KeyValueConfig{Bucket: LeasesBucket, TTL: l.ttl, History: 1}
	kv, err := l.m.bucket(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if st, err := kv.Status(ctx); err == nil && st.TTL() != l.ttl {
		// Another lease_ttl made the bucket: this one's applies if its credential may
		// change the bucket (a member token may not; docs/fleet.md §3.1).
		uctx, cancel := context.WithTimeout(ctx, leaseUpdateTimeout)
		_, err := l.m.js.UpdateKeyValue(uctx, cfg)
		cancel()
		if err != nil {
			l.m.log.Warn("fleet: the leases bucket keeps its TTL; set the same fleet.lease_ttl on every member",
				"bucket_ttl", st.TTL().String(), "lease_ttl", l.ttl.String(), "err", err)
		}
	}
	l.kv = kv
	return kv, nil
}

// Lease brings the slots held for each capped provider to want[p] (at most its cap):
// it renews those last written a third of the TTL ago (a renewal that finds its key
// taken or gone loses that slot), takes free slots, or lets the highest go, and
// returns how many it holds per provider. On an error it returns what it holds as far
// as it knows, with the error.
func (l *Leases) Lease(ctx context.Context, want map[string]int) (map[string]int, error) {
	kv, err := l.bucket(ctx)
	if err != nil {
		return l.counts(), err
	}
	val, _ := json.Marshal(Lease{Host: l.info.Host, ID: l.info.ID})
	now := time.Now()
	for _, p := range slices.Sorted(maps.Keys(l.caps)) {
		c := l.caps[p]
		w := min(max(want[p], 0), c)
		h := l.held[p]
		if h == nil {
			h = map[int]held{}
			l.held[p] = h
		}
		for _, i := range slices.Sorted(maps.Keys(h)) {
			if now.Sub(h[i].at) < l.ttl/3 {
				continue
			}
			rev, err := kv.Update(ctx, LeaseKey(p, i), val, h[i].rev)
			switch {
			case err == nil:
				h[i] = held{rev: rev, at: now}
			case errors.Is(err, jetstream.ErrKeyExists) || isWrongSeq(err):
				delete(h, i) // expired and taken, or gone: not ours any more
			default:
				return l.counts(), err
			}
		}
		for i := 0; i < c && len(h) < w; i++ {
			if _, ok := h[i]; ok {
				continue
			}
			rev, err := l.take(ctx, kv, LeaseKey(p, i), val)
			if err != nil {
				return l.counts(), err
			}
			if rev != 0 {
				h[i] = held{rev: rev, at: now}
			}
		}
		idx := slices.Sorted(maps.Keys(h))
		for j := len(idx) - 1; j >= 0 && len(h) > w; j-- {
			i := idx[j]
			err := kv.Delete(ctx, LeaseKey(p, i), jetstream.LastRevision(h[i].rev))
			if err != nil && !isWrongSeq(err) && !errors.Is(err, jetstream.ErrKeyNotFound) {
				return l.counts(), err
			}
			delete(h, i)
		}
	}
	return l.counts(), nil
}

// take creates key for this member, or takes it back when it already holds this
// member's id (a lease from before a restart); 0 when another member holds it.
func (l *Leases) take(ctx context.Context, kv jetstream.KeyValue, key string, val []byte) (uint64, error) {
	rev, err := kv.Create(ctx, key, val)
	if err == nil {
		return rev, nil
	}
	if !errors.Is(err, jetstream.ErrKeyExists) {
		return 0, err
	}
	e, err := kv.Get(ctx, key)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return 0, nil // gone in between: the next pass tries again
	}
	if err != nil {
		return 0, err
	}
	var was Lease
	if json.Unmarshal(e.Value(), &was) != nil || was.ID != l.info.ID {
		return 0, nil
	}
	rev, err = kv.Update(ctx, key, val, e.Revision())
	if isWrongSeq(err) {
		return 0, nil
	}
	return rev, err
}

// Release lets every held slot go (a stop): the other members need not wait out the TTL.
func (l *Leases) Release(ctx context.Context) error {
	if l.kv == nil {
		return nil
	}
	var first error
	for p, h := range l.held {
		for i, x := range h {
			err := l.kv.Delete(ctx, LeaseKey(p, i), jetstream.LastRevision(x.rev))
			if err != nil && !isWrongSeq(err) && !errors.Is(err, jetstream.ErrKeyNotFound) && first == nil {
				first = err
			}
			delete(h, i)
		}
	}
	return first
}

// Holders counts the slots of provider held in the fleet, by host (a status read).
func (l *Leases) Holders(ctx context.Context, provider string) (map[string]int, error) {
	kv, err := l.bucket(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]int{}
	for i := range l.caps[provider] {
		e, err := kv.Get(ctx, LeaseKey(provider, i))
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		var v Lease
		if json.Unmarshal(e.Value(), &v) == nil {
			out[v.Host]++
		}
	}
	return out, nil
}

func (l *Leases) counts() map[string]int {
	out := make(map[string]int, len(l.held))
	for p, h := range l.held {
		out[p] = len(h)
	}
	return out
}

// isWrongSeq reports a compare-and-set refused because the key moved on (JetStream's
// "wrong last sequence").
func isWrongSeq(err error) bool {
	var apiErr *jetstream.APIError
	return errors.As(err, &apiErr) && (apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence ||
		apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequenceConstant)
}
