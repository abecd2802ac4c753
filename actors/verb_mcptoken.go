package actors

import (
	"context"

	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/store"
)

// The MCP face's HTTP credential (docs/mcp.md §1.1): bearer tokens of the same kind as
// the remote stream's (32 random bytes, only their SHA-256 stored, compared in constant
// time), kept in remote_tokens under the reserved owner store.MCPTokens.

// MCPToken is mcp.token: a new token (shown this once), with Rotate every older one
// revoked in the same transaction, with Revoke every token revoked and none issued.
func (s *System) MCPToken(ctx context.Context, r api.MCPTokenRequest) (api.MCPTokenResult, error) {
	if r.Rotate && r.Revoke {
		return api.MCPTokenResult{}, wire.New(wire.InvalidRequest, "rotate and revoke cannot be combined", "field", "revoke")
	}
	var secret string
	if !r.Revoke {
		var err error
		if secret, err = newSecret(); err != nil {
			return api.MCPTokenResult{}, err
		}
	}
	v, err := s.write(func(tx *store.Tx) (any, error) {
		if r.Revoke {
			return tx.RevokeTokens(store.MCPTokens)
		}
		return tx.IssueToken(store.MCPTokens, HashToken(secret), r.Rotate)
	})
	if err != nil {
		return api.MCPTokenResult{}, err
	}
	revoked, _ := v.([]string)
	res := api.MCPTokenResult{Revoked: len(revoked)}
	if secret != "" {
		res.Token = &secret
	}
	return res, nil
}

// MCPAuth is mcp.auth: whether token is a live MCP token, its hash compared with every
// live one in constant time. The token itself is neither stored nor logged.
func (s *System) MCPAuth(ctx context.Context, r api.MCPAuthRequest) (api.MCPAuthResult, error) {
	if r.Token == "" {
		return api.MCPAuthResult{}, nil
	}
	hashes, err := store.LiveTokens(ctx, s.cfg.DB.Reader(), store.MCPTokens)
	if err != nil {
		return api.MCPAuthResult{}, err
	}
	return api.MCPAuthResult{OK: matchHash(HashToken(r.Token), hashes)}, nil
}
