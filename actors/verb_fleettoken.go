package actors

import (
	"context"

	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/store"
)

// Member credentials of the fleet's embedded hub (docs/fleet.md §3.1): tokens of the
// same kind as the remote stream's (32 random bytes, only their SHA-256 stored), kept in
// remote_tokens under the owner store.FleetTokens(host). The hub takes a client that
// presents one for that host alone.

// FleetHub is the embedded hub as the fleet.token verb needs it: it drops the
// connections of a member whose tokens were revoked.
type FleetHub interface {
	Disconnect(host string)
}

// SetFleetHub tells the system the hub it embeds; the server calls it once, before it
// answers requests, when fleet.hub is set.
func (s *System) SetFleetHub(h FleetHub) { s.fleetHub = h }

// FleetToken is fleet.token: a new credential for a member host (shown this once), with
// Rotate the host's older ones revoked, with Revoke every one revoked and none issued.
// Revoked tokens' connections are dropped at once.
func (s *System) FleetToken(ctx context.Context, r api.FleetTokenRequest) (api.FleetTokenResult, error) {
	if !config.ValidHost(r.Host) {
		return api.FleetTokenResult{}, wire.Invalid(wire.ReasonBadFleetToken,
			"fleet.token needs the member's `host`: lowercase letters, digits and '-', at most 63", "field", "host", "value", r.Host)
	}
	if r.Rotate && r.Revoke {
		return api.FleetTokenResult{}, wire.Invalid(wire.ReasonBadFleetToken, "rotate and revoke cannot be combined", "field", "revoke", "value", true)
	}
	if s.fleetHub == nil {
		return api.FleetTokenResult{}, wire.Env(wire.CauseConfigInvalid,
			"fleet.token issues the credentials of the fleet's hub: this server serves no hub (set fleet.hub in config.json, docs/fleet.md §3.1)")
	}
	var secret string
	if !r.Revoke {
		var err error
		if secret, err = newSecret(); err != nil {
			return api.FleetTokenResult{}, err
		}
	}
	owner := store.FleetTokens(r.Host)
	v, err := s.write(func(tx *store.Tx) (any, error) {
		if r.Revoke {
			return tx.RevokeTokens(owner)
		}
		return tx.IssueToken(owner, HashToken(secret), r.Rotate)
	})
	if err != nil {
		return api.FleetTokenResult{}, err
	}
	revoked, _ := v.([]string)
	if len(revoked) > 0 {
		s.fleetHub.Disconnect(r.Host)
	}
	res := api.FleetTokenResult{Host: r.Host, Revoked: len(revoked)}
	if secret != "" {
		res.Token = &secret
	}
	return res, nil
}

// FleetMemberHost is the hub's check of a member token: the host a live one was issued
// for. A token that reads as nothing (or a store that cannot be read) opens nothing.
func (s *System) FleetMemberHost(token string) (string, bool) {
	host, ok, err := store.FleetTokenHost(context.Background(), s.cfg.DB.Reader(), HashToken(token))
	if err != nil {
		s.cfg.Log.Warn("fleet: cannot read the member tokens", "err", err)
		return "", false
	}
	return host, ok
}
