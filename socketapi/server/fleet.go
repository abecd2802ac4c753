package server

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/socketapi/fleet"
)

// fleetSetupTimeout bounds the hub's creation of the stream and the members bucket.
const fleetSetupTimeout = 10 * time.Second

// fleetFaces are the fleet's parts of a server (docs/fleet.md): the embedded hub (nil
// unless fleet.hub), the member's connection and the API it answers.
type fleetFaces struct {
	hub    *fleet.Hub
	member *fleet.Member
	api    *fleet.Responder
	attach *fleet.Attacher
	leases *fleet.Leases // nil without fleet.caps
}

// startFleet joins the fleet (serving it first with fleet.hub), answers the API on the
// member's subject and starts the `fleet` actor. Off (nil, nil) without a fleet section.
func (s *Server) startFleet() (*fleetFaces, error) {
	f := s.cfg.Fleet
	if !f.On {
		return nil, nil
	}
	dir := filepath.Join(s.paths.Home, config.FleetDirName)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	ff := &fleetFaces{}
	url, token := f.URL, ""
	id, err := fleet.EnsureMemberID(dir)
	if err != nil {
		return nil, err
	}
	info := fleet.MemberInfo{Host: f.Host, ID: id, Version: api.Version, Started: s.started.UTC().Format(time.RFC3339)}
	if f.Hub != nil {
		if token, err = fleet.EnsureToken(dir); err != nil {
			return nil, err
		}
		if ff.hub, err = fleet.StartHub(dir, *f.Hub, token, s.system.FleetMemberHost); err != nil {
			return nil, err
		}
		s.system.SetFleetHub(ff.hub)
		url = ff.hub.URL()
		// The hub's own CLI finds the port a listen of :0 got here (docs/fleet.md §2).
		if err := os.WriteFile(filepath.Join(dir, fleet.HubURLName), []byte(url+"\n"), 0o600); err != nil {
			ff.close()
			return nil, err
		}
	}
	m, err := fleet.Connect(f, url, token, s.log)
	if err != nil {
		ff.close()
		return nil, err
	}
	ff.member = m
	if ff.hub != nil {
		ctx, cancel := context.WithTimeout(context.Background(), fleetSetupTimeout)
		err := m.Setup(ctx, info)
		cancel()
		if err != nil {
			ff.close()
			return nil, wire.Env(wire.CauseConfigInvalid, "fleet: "+err.Error())
		}
	}
	if ff.api, err = m.Serve(s.system, f.AllowFor); err != nil {
		ff.close()
		return nil, err
	}
	if ff.attach, err = m.ServeAttach(s.system, f.AllowFor); err != nil {
		ff.close()
		return nil, err
	}
	if err := s.system.StartFleet(m.Publisher(info), m, filepath.Join(dir, fleet.CursorName)); err != nil {
		ff.close()
		return nil, err
	}
	if len(f.Caps) > 0 {
		ff.leases = m.Leases(info, f.Caps, f.LeaseTTL)
		if err := s.system.StartFleetLeases(ff.leases); err != nil {
			ff.close()
			return nil, err
		}
	}
	s.log.Info("fleet joined", "host", f.Host, "url", url, "hub", ff.hub != nil)
	return ff, nil
}

// leaseReleaseTimeout bounds the release of the fleet-wide slots at a stop.
const leaseReleaseTimeout = 2 * time.Second

// stopAPI stops answering fleet calls (before the actors stop).
func (ff *fleetFaces) stopAPI() {
	if ff != nil && ff.api != nil {
		ff.api.Close()
		ff.api = nil
	}
	if ff != nil && ff.attach != nil {
		ff.attach.Close()
		ff.attach = nil
	}
}

// close ends the connection, then the hub (after the `fleet` actor stopped).
func (ff *fleetFaces) close() {
	if ff == nil {
		return
	}
	ff.stopAPI()
	if ff.leases != nil {
		// The slots go back at once rather than after the lease TTL (the fleet-leases
		// actor, which renews them, stopped before).
		ctx, cancel := context.WithTimeout(context.Background(), leaseReleaseTimeout)
		if err := ff.leases.Release(ctx); err != nil {
			ff.member.Log().Warn("fleet: cannot release the provider slots; they go after the lease TTL", "err", err)
		}
		cancel()
	}
	if ff.member != nil {
		ff.member.Close()
	}
	if ff.hub != nil {
		ff.hub.Close()
	}
}

// FleetHubURL is the embedded hub's address ("" when this server is no hub).
func (s *Server) FleetHubURL() string {
	if s.fleet == nil || s.fleet.hub == nil {
		return ""
	}
	return s.fleet.hub.URL()
}
