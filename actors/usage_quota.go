package actors

import (
	"context"
	"math"
	"time"

	"github.com/orcr-go/orcr/actors/provider"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/store"
)

// maxQuotaWindows bounds quota.record's windows (claude reports two).
const maxQuotaWindows = 8

// maxAccountBytes bounds quota.record's account (an email or a directory's path).
const maxAccountBytes = 4096

// QuotaRecord is quota.record (docs/usage.md §7.1): the quota windows a provider
// reported outside its transcript — claude's status line, through `orcr __statusline`
// in orcr's claude panes — recorded for the provider's account (the agent's, else the
// one the pane named; docs/usage.md §7.3) in one transaction with
// their quota.warned events and the provider's pause at quota.pause_at.
func (s *System) QuotaRecord(ctx context.Context, r api.QuotaRecordRequest) (api.QuotaRecordResult, error) {
	if err := validQuota(r, s.providerOptions()); err != nil {
		return api.QuotaRecordResult{}, err
	}
	agent, account := r.Agent, r.Account
	if agent != "" {
		if a, err := store.LoadAgent(ctx, s.cfg.DB.Reader(), agent); err != nil {
			agent = "" // a pane outside orcr's rows (or an ended one): the account's windows still count
		} else if a.Managed {
			account = a.Account // the account orcr recorded when it enqueued the agent (docs/usage.md §7.3)
		}
	}
	ws := make([]store.QuotaWindow, len(r.Windows))
	for i, w := range r.Windows {
		ws[i] = store.QuotaWindow{Window: w.Window, Account: w.Account, UsedPercent: w.UsedPercent,
			WindowMinutes: w.WindowMinutes, ResetsAt: w.ResetsAt}
	}
	warnAt, pauseAt := s.cfg.Config.Quota.WarnAt, s.cfg.Config.Quota.PauseAt
	v, err := s.write(func(tx *store.Tx) (any, error) {
		prev, err := tx.QuotaWindows()
		if err != nil {
			return nil, err
		}
		return recordQuota(tx, r.Provider, account, agent, ws, prev, warnAt, pauseAt, time.Now().UnixMilli(), true, true)
	})
	if err != nil {
		return api.QuotaRecordResult{}, err
	}
	return api.QuotaRecordResult{Windows: len(ws), PausedUntil: v.(int64)}, nil
}

// validQuota refuses quota.record params that are not windows as a provider orcr runs
// (o) reports them (invalid_request invalid_quota).
func validQuota(r api.QuotaRecordRequest, o provider.Options) error {
	bad := func(field string, value any, msg string) error {
		return wire.Invalid(wire.ReasonInvalidQuota, "quota.record: "+msg, "field", field, "value", value)
	}
	if _, err := provider.Lookup(r.Provider, o); err != nil {
		return bad("provider", r.Provider, "provider must be one orcr runs (claude, codex, a declared one)")
	}
	if len(r.Account) > maxAccountBytes {
		return bad("account", len(r.Account), "account must be at most 4096 bytes")
	}
	if len(r.Windows) == 0 || len(r.Windows) > maxQuotaWindows {
		return bad("windows", len(r.Windows), "windows must hold 1 to 8 windows")
	}
	for _, w := range r.Windows {
		switch {
		case w.Window == "" || len(w.Window) > 64:
			return bad("window", w.Window, "a window needs a name of at most 64 bytes")
		case math.IsNaN(w.UsedPercent) || w.UsedPercent < 0 || w.UsedPercent > 100:
			return bad("used_percent", w.UsedPercent, "used_percent must be 0–100")
		case w.ResetsAt < 0 || w.WindowMinutes < 0:
			return bad("resets_at", w.ResetsAt, "resets_at and window_minutes must not be negative")
		}
	}
	return nil
}
