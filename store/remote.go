package store

import (
	"context"
	"database/sql"
	"errors"
	"strings"
)

// TokenHash is a stream token as stored: the hex SHA-256 of the secret, the agent it
// opens, and when it was issued and revoked (0 = live). docs/remote.md §3.
type TokenHash struct {
	Hash      string
	Agent     string
	CreatedAt int64
	RevokedAt int64
}

// IssueToken stores hash as a live token of agent. With rotate, every other live token
// of agent is revoked in the same transaction; their hashes are returned.
func (t *Tx) IssueToken(agent, hash string, rotate bool) (revoked []string, err error) {
	if rotate {
		if revoked, err = t.RevokeTokens(agent); err != nil {
			return nil, err
		}
	}
	if _, err := t.Exec(`INSERT INTO remote_tokens (hash, agent_uuid, created_at) VALUES (?, ?, ?)`, hash, agent, t.now); err != nil {
		return nil, sqliteErr("insert token", err)
	}
	return revoked, nil
}

// RevokeTokens revokes every live token of agent and returns their hashes.
func (t *Tx) RevokeTokens(agent string) ([]string, error) {
	hashes, err := queryStrings(t, t.ctx, `SELECT hash FROM remote_tokens WHERE agent_uuid = ? AND revoked_at IS NULL ORDER BY created_at`, agent)
	if err != nil {
		return nil, err
	}
	if len(hashes) == 0 {
		return nil, nil
	}
	return hashes, t.exec("revoke tokens", `UPDATE remote_tokens SET revoked_at = ? WHERE agent_uuid = ? AND revoked_at IS NULL`, t.now, agent)
}

// LiveTokens reads the live token hashes of agent (the door compares a presented token
// against each in constant time).
func LiveTokens(ctx context.Context, q Querier, agent string) ([]string, error) {
	return queryStrings(q, ctx, `SELECT hash FROM remote_tokens WHERE agent_uuid = ? AND revoked_at IS NULL`, agent)
}

// The dashboard's credentials (docs/dashboard.md §2) and the MCP face's bearer tokens
// (docs/mcp.md §1.1) live in remote_tokens beside the stream tokens, under reserved
// owners that are not uuids, so the stream's door (which only looks up uuids) can never
// accept one: one-time sign-in links, the sessions they are exchanged for, and the
// tokens of `orcr mcp --http`.
const (
	DashboardLogins   = "dashboard-login"
	DashboardSessions = "dashboard"
	// MCPTokens owns the bearer tokens of `orcr mcp --http` (docs/mcp.md §1.1).
	MCPTokens = "mcp"
)

// FleetTokens is the owner of member host's credentials on the fleet's hub
// (docs/fleet.md §3.1), issued and revoked like the others.
func FleetTokens(host string) string { return fleetTokenOwner + host }

const fleetTokenOwner = "fleet:"

// FleetTokenHost is the member host whose live credential hashes to hash (ok false:
// none). The hash is the table's key, so the lookup reveals nothing of other tokens.
func FleetTokenHost(ctx context.Context, q Querier, hash string) (host string, ok bool, err error) {
	var owner string
	err = q.QueryRowContext(ctx, `SELECT agent_uuid FROM remote_tokens WHERE hash = ? AND revoked_at IS NULL`, hash).Scan(&owner)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, sqliteErr("fleet token", err)
	}
	host, ok = strings.CutPrefix(owner, fleetTokenOwner)
	return host, ok, nil
}

// RedeemToken spends the live token hash of owner issued at or after notBefore (ms):
// it is revoked in the same transaction, so a token redeems at most once. ok is false
// when there is no such token (unknown, already spent, revoked or too old).
// Signing a dashboard session out spends it the same way (docs/dashboard.md §2).
func (t *Tx) RedeemToken(owner, hash string, notBefore int64) (ok bool, err error) {
	res, err := t.Exec(`UPDATE remote_tokens SET revoked_at = ? WHERE hash = ? AND agent_uuid = ? AND revoked_at IS NULL AND created_at >= ?`,
		t.now, hash, owner, notBefore)
	if err != nil {
		return false, sqliteErr("redeem token", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, sqliteErr("redeem token", err)
	}
	return n == 1, nil
}

// LiveTokensSince reads the live token hashes of owner issued at or after notBefore (ms).
func LiveTokensSince(ctx context.Context, q Querier, owner string, notBefore int64) ([]string, error) {
	return queryStrings(q, ctx, `SELECT hash FROM remote_tokens WHERE agent_uuid = ? AND revoked_at IS NULL AND created_at >= ?`,
		owner, notBefore)
}

// InboxItem is injected text waiting in an agent's durable inbox (docs/remote.md §6).
type InboxItem struct {
	ID        int64
	Text      string
	Wake      bool // a wake that could not start a turn yet (the agent was blocked or starting)
	CreatedAt int64
	// Source is the session log's source of its sender (SourceRemote, SourceOrcr), the
	// source its turn is logged with.
	Source string
}

// InboxPut appends text from a sender of source (SourceRemote, SourceOrcr) to agent's
// inbox and returns its id.
func (t *Tx) InboxPut(agent, text, source string, wake bool) (int64, error) {
	res, err := t.Exec(`INSERT INTO inbox (agent_uuid, text, wake, created_at, source) VALUES (?, ?, ?, ?, ?)`,
		agent, text, wake, t.now, source)
	if err != nil {
		return 0, sqliteErr("insert inbox", err)
	}
	id, err := res.LastInsertId()
	return id, sqliteErr("insert inbox", err)
}

// InboxDone removes item id from agent's inbox once it was delivered (ErrStale when it
// is no longer there).
func (t *Tx) InboxDone(agent string, id int64) error {
	return t.execOne("delete inbox", `DELETE FROM inbox WHERE agent_uuid = ? AND id = ?`, agent, id)
}

// InboxDrop removes every item of agent's inbox (the agent ended).
func (t *Tx) InboxDrop(agent string) error {
	return t.exec("drop inbox", `DELETE FROM inbox WHERE agent_uuid = ?`, agent)
}

// Inbox reads agent's inbox, oldest first.
func Inbox(ctx context.Context, q Querier, agent string) ([]InboxItem, error) {
	rows, err := q.QueryContext(ctx, `SELECT id, text, wake, created_at, source FROM inbox WHERE agent_uuid = ? ORDER BY id`, agent)
	if err != nil {
		return nil, sqliteErr("read inbox", err)
	}
	defer rows.Close()
	var out []InboxItem
	for rows.Next() {
		var it InboxItem
		if err := rows.Scan(&it.ID, &it.Text, &it.Wake, &it.CreatedAt, &it.Source); err != nil {
			return nil, sqliteErr("read inbox", err)
		}
		out = append(out, it)
	}
	return out, sqliteErr("read inbox", rows.Err())
}

// InboxAgents lists the agents with text waiting in their inbox.
func InboxAgents(ctx context.Context, q Querier) ([]string, error) {
	return queryStrings(q, ctx, `SELECT DISTINCT agent_uuid FROM inbox`)
}
