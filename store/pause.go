package store

import (
	"context"

	"github.com/orcr-go/orcr/socketapi/api"
)

// Provider pauses (docs/lifecycle.md §7.6): while a provider's row stands, the queue
// promotes none of its agents (or promotes them as routing.fallback's provider). The
// agent actor that saw one of its agents blocked on its usage limit writes it, with the
// block, in one transaction; the queue pass deletes it once `until` passed.

// ProviderPause is one provider_pauses row: the wire shape of server.status's paused.
type ProviderPause = api.ProviderPause

// Sources of a pause's until.
const (
	PauseSourceReset   = "reset"   // the reset time read from the limit message
	PauseSourceBackoff = "backoff" // timings.limit_backoff: no reset time could be read
	PauseSourceQuota   = "quota"   // a quota window reached quota.pause_at: until its reset (docs/usage.md §7)
)

const pauseSelect = `SELECT provider, account, since, until, COALESCE(agent_uuid, ''), source, COALESCE(message, '') FROM provider_pauses`

func scanPause(s Scanner) (p ProviderPause, err error) {
	return p, s.Scan(&p.Provider, &p.Account, &p.Since, &p.Until, &p.AgentUUID, &p.Source, &p.Message)
}

// ProviderPauses lists the standing pauses in provider order.
func (t *Tx) ProviderPauses() ([]ProviderPause, error) {
	return queryRows(t.ctx, t, pauseSelect+` ORDER BY provider, account`, nil, scanPause)
}

// ProviderPauses lists the standing pauses from the read pool (server.status), in
// provider order.
func (db *DB) ProviderPauses(ctx context.Context) ([]ProviderPause, error) {
	return queryRows(ctx, db.r, pauseSelect+` ORDER BY provider, account`, nil, scanPause)
}

// PauseProvider writes p (a new pause of p's provider and account, or a later until for
// a standing one) and emits provider.paused {provider, account, since, until,
// agent_uuid, source, message}.
func (t *Tx) PauseProvider(p ProviderPause) error {
	if err := t.exec("pause provider", `INSERT INTO provider_pauses (provider, account, since, until, agent_uuid, source, message)
		VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (provider, account) DO UPDATE SET until = excluded.until,
		agent_uuid = excluded.agent_uuid, source = excluded.source, message = excluded.message`,
		p.Provider, p.Account, p.Since, p.Until, null(p.AgentUUID), p.Source, null(p.Message)); err != nil {
		return err
	}
	_, err := t.Emit("", &api.ProviderPaused{ProviderPause: p})
	return err
}

// ResumeProvider deletes the pause of provider's account and emits provider.resumed
// {provider, account, reason}; nothing happens when none stands.
func (t *Tx) ResumeProvider(provider, account, reason string) error {
	res, err := t.Exec(`DELETE FROM provider_pauses WHERE provider = ? AND account = ?`, provider, account)
	if err != nil {
		return sqliteErr("resume provider", err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return sqliteErr("resume provider", err)
	}
	_, err = t.Emit("", &api.ProviderResumed{Provider: provider, Account: account, Reason: reason})
	return err
}

// PauseSet is the standing pauses as admission reads them (docs/usage.md §7.3): by
// provider and account.
type PauseSet map[[2]string]bool

// Add records a pause of provider's account.
func (s PauseSet) Add(provider, account string) { s[[2]string{provider, account}] = true }

// Holds reports whether an agent of provider under account waits: a pause of its
// account, or one of the provider with account "" (every account), stands.
func (s PauseSet) Holds(provider, account string) bool {
	return s[[2]string{provider, ""}] || (account != "" && s[[2]string{provider, account}])
}
