package actors

import (
	"context"
	"time"

	"github.com/orcr-go/orcr/herdr"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/store"
)

// attachLookupTimeout bounds prepare's look-up of the pane's current id.
const attachLookupTimeout = 5 * time.Second

// AttachPrepare is agent.attach.prepare (docs/lifecycle.md §11.6): in one transaction it
// re-reads the row, refuses one that has no pane to attach to and stores the lease
// (attach.started); then it finds the herdr binary (herdr_missing leaves the lease to
// expire, as the reference does) and looks the pane up by terminal id, so the command
// names the pane's id of now even if a move renumbered it (docs/decisions.md D6).
//
// The lease is taken outside the agent actor: an attach never waits behind a send or a
// move of its agent. The GC checks the lease inside the park's compare-and-set and
// before a reap shuts the pane down (actors/sched_gc.go).
func (s *System) AttachPrepare(ctx context.Context, r api.AttachPrepareRequest) (api.AttachPrepareResult, error) {
	row, _, err := s.exactTarget(ctx, r.Caller, r.Target)
	if err != nil {
		return api.AttachPrepareResult{}, err
	}
	ttl := s.cfg.Config.Timings.AttachLeaseTTL
	type prepared struct {
		st    store.Agent
		lease store.Lease
	}
	v, err := s.write(func(tx *store.Tx) (any, error) {
		st, err := tx.Agent(row.UUID)
		if err != nil {
			return nil, err
		}
		if err := attachable(st); err != nil {
			return nil, err
		}
		l, err := tx.InsertLease(store.NewLease{AgentUUID: st.UUID, Takeover: r.Takeover, ClientPID: r.ClientPID, TTL: ttl})
		return prepared{st: st, lease: l}, err
	})
	if err != nil {
		return api.AttachPrepareResult{}, err
	}
	p := v.(prepared)
	if err := s.findHerdr(); err != nil {
		return api.AttachPrepareResult{}, err
	}
	session := p.st.Session
	if session == "" {
		session = s.driver.Owned().Name()
	}
	paneID := p.st.PaneID
	hctx, cancel := context.WithTimeout(ctx, attachLookupTimeout)
	live, err := s.driver.Session(session).PaneGet(hctx, p.st.TerminalID)
	cancel()
	switch {
	case err == nil && live.PaneID != "":
		paneID = live.PaneID
	case err != nil:
		// The recorded id is the best guess; the CLI falls back to the terminal id.
		s.cfg.Log.Info("attach: cannot look the pane up; using the recorded pane id", "agent", p.st.UUID, "err", err)
	}
	primary, fallback := herdr.AttachCommand(s.driver.Bin(), session, paneID, p.st.TerminalID)
	if r.Takeover {
		primary = append(primary, "--takeover")
		if fallback != nil {
			fallback = append(fallback, "--takeover")
		}
	}
	return api.AttachPrepareResult{
		UUID: p.st.UUID, Path: p.st.Path, LeaseID: p.lease.LeaseID, Takeover: r.Takeover,
		TTLMS: ttl.Milliseconds(), Command: primary, FallbackCommand: fallback,
	}, nil
}

// attachable refuses a row that has no running pane to attach to: queued, starting,
// ended and lost rows, and any row without a terminal (state_conflict {current_status}).
func attachable(st store.Agent) error {
	switch st.Status {
	case store.StatusQueued, store.StatusStarting, store.StatusEnded, store.StatusLost:
		return wire.Conflict("agent "+st.Path+" is "+string(st.Status)+": only a running agent can be attached",
			"current_status", st.Status)
	}
	if st.TerminalID == "" {
		return wire.Conflict("agent "+st.Path+" has no pane to attach to", "current_status", st.Status)
	}
	return nil
}

// AttachHeartbeat is agent.attach.heartbeat: it extends the lease to now + the
// configured lease TTL. A lease that is no longer stored answers {ok: false}.
func (s *System) AttachHeartbeat(ctx context.Context, r api.LeaseRequest) (api.HeartbeatResult, error) {
	if r.LeaseID == "" {
		return api.HeartbeatResult{}, leaseRequired()
	}
	ttl := s.cfg.Config.Timings.AttachLeaseTTL
	v, err := s.write(func(tx *store.Tx) (any, error) { return tx.HeartbeatLease(r.LeaseID, ttl) })
	if err != nil {
		return api.HeartbeatResult{}, err
	}
	return api.HeartbeatResult{OK: v.(bool)}, nil
}

// AttachRelease is agent.attach.release: it deletes the lease (attach.ended). A lease
// that is no longer stored answers {released: false}.
func (s *System) AttachRelease(ctx context.Context, r api.LeaseRequest) (api.ReleaseResult, error) {
	if r.LeaseID == "" {
		return api.ReleaseResult{}, leaseRequired()
	}
	v, err := s.write(func(tx *store.Tx) (any, error) { return tx.ReleaseLease(r.LeaseID) })
	if err != nil {
		return api.ReleaseResult{}, err
	}
	return api.ReleaseResult{Released: v.(bool)}, nil
}

func leaseRequired() error { return wire.Invalid(wire.ReasonLeaseRequired, "a lease_id is required") }
