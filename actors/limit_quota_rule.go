package actors

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/store"
)

// The quota rules (docs/usage.md §7) as pure functions: [decideQuota] maps the quota
// windows a provider just reported to the reset until which the provider starts nothing
// new, so the next start does not run into the limit; [quotaWarnings] picks the windows
// that just reached quota.warn_at.

// decideQuota is the pause the windows ws call for at now with quota.pause_at pauseAt
// (a fraction): every window used at pauseAt or more (≥, in percent) whose reset lies
// after now holds the provider until that reset; the latest such reset wins. A window
// without a reset time pauses nothing (the provider's own limit message pauses at the
// limit, docs/lifecycle.md §7.6). ok is false when no window calls for a pause.
func decideQuota(ws []store.QuotaWindow, pauseAt float64, now int64) (until int64, why string, ok bool) {
	for _, w := range ws {
		if w.UsedPercent < pauseAt*100 || w.ResetsAt <= now || w.ResetsAt <= until {
			continue
		}
		until, ok = w.ResetsAt, true
		why = fmt.Sprintf("quota window %s %.0f%% used (quota.pause_at %.0f%%)", w.Window, w.UsedPercent, pauseAt*100)
	}
	return until, why, ok
}

// quotaWarnings is the quota.warned events the windows cur of provider's account call
// for at now with quota.warn_at warnAt, given the windows recorded before them (prev,
// any provider and account): a window at warnAt or more (in percent) warns when its last report was
// below warnAt, or its period has ended since (the earlier report's reset is past), or
// there was none — so each window warns once per period, however often it is reported.
func quotaWarnings(prev, cur []store.QuotaWindow, provider, account, agent string, warnAt float64, now int64) []api.QuotaWarned {
	if warnAt <= 0 {
		return nil
	}
	var out []api.QuotaWarned
	for _, w := range cur {
		if w.UsedPercent < warnAt*100 {
			continue
		}
		warned := false
		for _, p := range prev {
			if p.Provider == provider && p.Account == account && p.Window == w.Window {
				warned = p.UsedPercent >= warnAt*100 && (p.ResetsAt == 0 || p.ResetsAt > now)
			}
		}
		if !warned {
			out = append(out, api.QuotaWarned{Provider: provider, Account: account, Window: w.Window,
				UsedPercent: w.UsedPercent, ResetsAt: w.ResetsAt, WarnAt: warnAt, AgentUUID: agent})
		}
	}
	return out
}

// recordQuota writes the windows ws that agent's pane or turn reported for provider's
// account in tx (record unless the completion already did), emits quota.warned for those
// that just reached warnAt, and pauses that account of provider per [decideQuota] when
// pause is set (docs/usage.md §7.3). It returns the pause's until (0: none).
func recordQuota(tx *store.Tx, provider, account, agent string, ws []store.QuotaWindow, prev []store.QuotaWindow,
	warnAt, pauseAt float64, now int64, record, pause bool) (int64, error) {
	if record {
		if err := tx.RecordQuota(agent, provider, account, ws); err != nil {
			return 0, err
		}
	}
	for _, w := range quotaWarnings(prev, ws, provider, account, agent, warnAt, now) {
		if err := tx.WarnQuota(w); err != nil {
			return 0, err
		}
	}
	if !pause || pauseAt <= 0 {
		return 0, nil
	}
	until, why, ok := decideQuota(ws, pauseAt, now)
	if !ok {
		return 0, nil
	}
	return until, pauseProviderUntil(tx, provider, account, agent, until, why, now)
}

// quotaPausesAtStart is what the stored windows ws call for under quota.pause_at pauseAt
// at now, beside the standing pauses (docs/usage.md §7.2): orcr reads its config when it
// starts, so a changed pause_at applies to the windows already recorded then, not only
// to the next report. pause maps each provider and account a window holds (a reset
// ahead of the standing pause's until, if any) to its pause; resume lists the providers
// and accounts held by a quota pause that no window calls for any more (pause_at raised
// or turned off).
func quotaPausesAtStart(ws []store.QuotaWindow, pauses []store.ProviderPause, pauseAt float64, now int64) (
	pause map[[2]string]store.ProviderPause, resume [][2]string) {
	byAccount := map[[2]string][]store.QuotaWindow{}
	for _, w := range ws {
		k := [2]string{w.Provider, w.Account}
		byAccount[k] = append(byAccount[k], w)
	}
	standing := map[[2]string]store.ProviderPause{}
	for _, p := range pauses {
		standing[[2]string{p.Provider, p.Account}] = p
	}
	pause = map[[2]string]store.ProviderPause{}
	for key, pws := range byAccount {
		until, why, ok := int64(0), "", false
		if pauseAt > 0 {
			until, why, ok = decideQuota(pws, pauseAt, now)
		}
		cur, held := standing[key]
		switch {
		case ok && (!held || cur.Until < until):
			pause[key] = store.ProviderPause{Provider: key[0], Account: key[1], Until: until, Message: why}
		case !ok && held && cur.Source == store.PauseSourceQuota:
			resume = append(resume, key)
		}
	}
	slices.SortFunc(resume, cmpKey)
	return pause, resume
}

// applyQuotaPauseAt writes [quotaPausesAtStart]'s pauses and resumes in tx.
func applyQuotaPauseAt(tx *store.Tx, pauseAt float64) error {
	ws, err := tx.QuotaWindows()
	if err != nil {
		return err
	}
	pauses, err := tx.ProviderPauses()
	if err != nil {
		return err
	}
	pause, resume := quotaPausesAtStart(ws, pauses, pauseAt, tx.Now())
	for _, key := range slices.SortedFunc(maps.Keys(pause), cmpKey) {
		p := pause[key]
		if err := pauseProviderUntil(tx, p.Provider, p.Account, "", p.Until, p.Message, tx.Now()); err != nil {
			return err
		}
	}
	for _, key := range resume {
		if err := tx.ResumeProvider(key[0], key[1], "quota.pause_at"); err != nil {
			return err
		}
	}
	return nil
}

// cmpKey orders provider and account keys.
func cmpKey(a, b [2]string) int {
	if c := strings.Compare(a[0], b[0]); c != 0 {
		return c
	}
	return strings.Compare(a[1], b[1])
}
