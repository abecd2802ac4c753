package store

import (
	"context"

	"github.com/orcr-go/orcr/socketapi/api"
)

// QuotaWindow is one quota_windows row (docs/usage.md §7): the wire shape of
// usage.report's and server.status's quota.
type QuotaWindow = api.QuotaWindow

// recordQuota writes the windows a turn of agent uuid reported for provider's account,
// observed now; each replaces the window's earlier report.
func (t *Tx) recordQuota(uuid, provider, account string, ws []QuotaWindow) error {
	for _, w := range ws {
		if err := t.exec("record quota window", `INSERT INTO quota_windows (provider, account, window, used_percent,
			window_minutes, resets_at, observed_at, agent_uuid) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (provider, account, window) DO UPDATE SET used_percent = excluded.used_percent,
			window_minutes = excluded.window_minutes, resets_at = excluded.resets_at,
			observed_at = excluded.observed_at, agent_uuid = excluded.agent_uuid`,
			provider, account, w.Window, w.UsedPercent, w.WindowMinutes, w.ResetsAt, t.now, null(uuid)); err != nil {
			return err
		}
	}
	return nil
}

const quotaSelect = `SELECT provider, account, window, used_percent, window_minutes, resets_at, observed_at,
	COALESCE(agent_uuid, '') FROM quota_windows ORDER BY provider, account, window`

func scanQuota(s Scanner) (w QuotaWindow, err error) {
	return w, s.Scan(&w.Provider, &w.Account, &w.Window, &w.UsedPercent, &w.WindowMinutes, &w.ResetsAt,
		&w.ObservedAt, &w.AgentUUID)
}

// QuotaWindows lists the last report of every quota window, by provider, account and
// window, inside a write transaction (a rule that decides on them, as budgets will).
func (t *Tx) QuotaWindows() ([]QuotaWindow, error) {
	return queryRows(t.ctx, t, quotaSelect, nil, scanQuota)
}

// QuotaWindows lists the last report of every quota window from the read pool, by
// provider, account and window.
func (db *DB) QuotaWindows(ctx context.Context) ([]QuotaWindow, error) {
	return queryRows(ctx, db.r, quotaSelect, nil, scanQuota)
}

// RecordQuota writes the windows agent uuid's pane reported for provider's account
// outside a turn's completion (claude's status line, docs/usage.md §7.1), observed now;
// each replaces the window's earlier report.
func (t *Tx) RecordQuota(uuid, provider, account string, ws []QuotaWindow) error {
	return t.recordQuota(uuid, provider, account, ws)
}

// WarnQuota emits quota.warned for w (docs/usage.md §7).
func (t *Tx) WarnQuota(w api.QuotaWarned) error {
	_, err := t.Emit("", &w)
	return err
}
