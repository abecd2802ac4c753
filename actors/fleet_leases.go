package actors

import (
	"context"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/orcr-go/orcr/actors/actorkit"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// Fleet-wide provider caps (docs/fleet.md §4.7): a capped provider's queued agent is
// promoted only into a slot this member holds a lease for in the fleet's ORCR_LEASES
// bucket, on top of the member's own caps. The `fleet-leases` actor keeps the leases
// held equal to what the member wants ([leaseWant]) and renews them; the queue reads
// the count through the leaseBook. While the fleet does not answer, the member's own
// caps alone hold.

// FleetLeaser holds this member's fleet-wide slots (package socketapi/fleet's Leases). Its
// methods are called from one goroutine at a time.
type FleetLeaser interface {
	// Lease brings the slots held per capped provider to want (renewing those held) and
	// returns how many it holds.
	Lease(ctx context.Context, want map[string]int) (map[string]int, error)
}

// The states of the lease book.
const (
	leasesWaiting = "waiting" // no answer from the fleet yet: capped providers start nothing
	leasesUp      = "up"      // the held leases bound the capped providers
	leasesDown    = "down"    // the fleet did not answer: the member's own caps alone
)

// leaseBook is what the queue's pass reads of the leases (under its lock: the queue's
// pass runs on the store actor's goroutine, the updates come from the fleet-leases
// actor).
type leaseBook struct {
	caps  map[string]int // fleet.caps
	ttl   time.Duration  // fleet.lease_ttl
	mu    sync.Mutex
	state string
	held  map[string]int
	okAt  time.Time // the last reconcile the fleet answered, or the book's start
	err   string
}

func newLeaseBook(caps map[string]int, ttl time.Duration, now time.Time) *leaseBook {
	return &leaseBook{caps: caps, ttl: ttl, state: leasesWaiting, held: map[string]int{}, okAt: now}
}

// cap is the fleet's bound on provider's slot holders here: the leases held, unless
// the provider has no fleet cap or the fleet is down (ok false).
func (b *leaseBook) cap(provider string) (int, bool) {
	if b == nil {
		return 0, false
	}
	if _, capped := b.caps[provider]; !capped {
		return 0, false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.state == leasesDown {
		return 0, false
	}
	return b.held[provider], true
}

// set records a reconcile's outcome at now and reports whether the queue may promote
// more than before. The leases held stay valid at the fleet for a TTL after their last
// renewal, so a failure counts only once the fleet has not answered for a TTL: then
// the book is down and the member's own caps alone hold.
func (b *leaseBook) set(held map[string]int, err error, now time.Time) (more bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if held != nil {
		for p, n := range held {
			more = more || n > b.held[p]
		}
		b.held = maps.Clone(held)
	}
	if err == nil {
		more = more || b.state == leasesDown
		b.state, b.err, b.okAt = leasesUp, "", now
		return more
	}
	b.err = err.Error()
	if b.state != leasesDown && now.Sub(b.okAt) >= b.ttl {
		b.state, more = leasesDown, true
	}
	return more
}

// status is server.status's fleet.leases (nil without fleet caps).
func (b *leaseBook) status() *api.FleetLeases {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	out := &api.FleetLeases{State: b.state, Providers: []api.FleetLease{}}
	if b.err != "" {
		out.Error = &b.err
	}
	for _, p := range slices.Sorted(maps.Keys(b.caps)) {
		out.Providers = append(out.Providers, api.FleetLease{Provider: p, Cap: b.caps[p], Held: b.held[p]})
	}
	return out
}

// leaseWant is how many slots of each capped provider the member wants: those its
// agents hold and those its queue waits for, within its own cap for the provider,
// concurrency.max and the fleet cap. Never fewer than its holders while the fleet cap
// allows: a slot in use is kept.
func leaseWant(used, queued map[string]int64, caps map[string]int, own func(string) (int, bool), maxCap int) map[string]int {
	want := make(map[string]int, len(caps))
	for p, c := range caps {
		w := int(used[p] + queued[p])
		if n, ok := own(p); ok {
			w = min(w, max(n, int(used[p])))
		}
		want[p] = min(w, max(maxCap, int(used[p])), c)
	}
	return want
}

// FleetLeasesSpec configures the fleet-leases actor.
type FleetLeasesSpec struct {
	Env    *AgentEnv
	Leaser FleetLeaser
	Book   *leaseBook
	Queue  *actor.PID // poked when more slots are held
	Caps   Caps       // the member's own caps
	Renew  time.Duration
}

// fleetLeasesActor keeps the member's leases equal to leaseWant: after every commit
// (one reconcile at a time, on a goroutine: edge code, bounded) and every Renew.
type fleetLeasesActor struct {
	spec   FleetLeasesSpec
	busy   bool
	again  bool
	tick   actorkit.Ticker
	ctx    context.Context
	cancel context.CancelFunc
}

type leasesTick struct{ gen int64 }

type leasesDone struct {
	held map[string]int
	err  error
}

// NewFleetLeasesProps returns the fleet-leases actor's props.
func NewFleetLeasesProps(spec FleetLeasesSpec) *actor.Props {
	return actorkit.Props(spec.Env.Log, func() actor.Actor { return &fleetLeasesActor{spec: spec} })
}

func (f *fleetLeasesActor) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *actor.Started:
		f.ctx, f.cancel = context.WithCancel(context.Background())
		c.Send(f.spec.Env.Store, Subscribe{PID: c.Self()})
		f.reconcile(c)
	case EventsCommitted:
		f.reconcile(c)
	case leasesTick:
		if f.tick.Current(m.gen) {
			f.reconcile(c)
		}
	case leasesDone:
		f.busy = false
		if f.ctx.Err() != nil {
			return
		}
		if m.err != nil {
			f.spec.Env.Log.Warn("fleet: cannot hold the fleet-wide provider slots; this member's own caps alone hold", "err", m.err)
		}
		if f.spec.Book.set(m.held, m.err, time.Now()) {
			c.Send(f.spec.Queue, PokeQueue{})
		}
		if f.again {
			f.again = false
			f.reconcile(c)
			return
		}
		f.tick.Arm(c, f.spec.Renew, func(gen int64) any { return leasesTick{gen} })
	case *actor.Stopping:
		f.tick.Stop()
		f.cancel()
		c.Send(f.spec.Env.Store, Unsubscribe{PID: c.Self()})
	}
}

// reconcile starts one reconcile unless one runs (then one more follows it).
func (f *fleetLeasesActor) reconcile(c actor.Context) {
	if f.busy {
		f.again = true
		return
	}
	if f.ctx.Err() != nil {
		return
	}
	f.busy = true
	self, root, spec, ctx := c.Self(), c.ActorSystem().Root, f.spec, f.ctx
	spec.Env.Ops.Add(1)
	go func() {
		defer spec.Env.Ops.Done()
		ctx, cancel := context.WithTimeout(ctx, min(fleetBatchTimeout, spec.Book.ttl))
		defer cancel()
		held, err := reconcileLeases(ctx, spec)
		root.Send(self, leasesDone{held: held, err: err})
	}()
}

// reconcileLeases reads the slots used and queued from the read pool and brings the
// leases to what they call for. Edge code.
func reconcileLeases(ctx context.Context, spec FleetLeasesSpec) (map[string]int, error) {
	used, err := spec.Env.DB.SlotsUsed(ctx)
	if err != nil {
		return nil, err
	}
	queued, err := spec.Env.DB.QueuedByProvider(ctx)
	if err != nil {
		return nil, err
	}
	own := spec.Caps.Provider
	if own == nil {
		own = func(string) (int, bool) { return 0, false }
	}
	return spec.Leaser.Lease(ctx, leaseWant(used, queued, spec.Book.caps, own, spec.Caps.Max))
}

// providerCap is the queue's cap for a provider: its own (concurrency.<provider>), and
// with a fleet cap the slots leased for it while the fleet answers.
func (s *System) providerCap(provider string) (int, bool) {
	n, ok := s.cfg.Config.ProviderCap(provider)
	if m, leased := s.leases.cap(provider); leased && (!ok || m < n) {
		return m, true
	}
	return n, ok
}

// StartFleetLeases starts the `fleet-leases` actor, which holds this member's
// fleet-wide provider slots through leaser (docs/fleet.md §4.7). The server calls it
// once, after [System.StartFleet], when fleet.caps is set; without it the capped
// providers start nothing (the book waits for the fleet).
func (s *System) StartFleetLeases(leaser FleetLeaser) error {
	if s.leases == nil {
		return nil
	}
	pid, err := s.sys.Root.SpawnNamed(NewFleetLeasesProps(FleetLeasesSpec{
		Env: s.env, Leaser: leaser, Book: s.leases, Queue: s.queue,
		Caps:  Caps{Max: s.cfg.Config.Concurrency.Max, Provider: s.cfg.Config.ProviderCap},
		Renew: s.leases.ttl / 4,
	}), "fleet-leases")
	if err != nil {
		return wire.Internal(wire.CauseActor, "cannot start the fleet leases: "+err.Error())
	}
	s.fleetLeases = pid
	return nil
}
