package actors

import (
	"fmt"

	"github.com/orcr-go/orcr/store"
)

// The quota rule of rate-limit-aware admission (docs/usage.md §7) as a pure function:
// [decideQuota] maps the quota windows a turn just reported to the reset until which
// the provider starts nothing new, so the next start does not run into the limit.

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
