package config

import "strconv"

// DefaultQuotaPauseAt is quota.pause_at's default: a provider whose quota window is 95%
// used starts nothing new until the window resets.
const DefaultQuotaPauseAt = 0.95

// Quota is the `quota` section (docs/usage.md §7).
type Quota struct {
	// PauseAt is the used fraction (0 < PauseAt ≤ 1) of a provider's quota window at
	// which rate-limit-aware admission pauses the provider until the window resets.
	PauseAt float64
}

var quotaKeys = []string{"pause_at"}

func (l *loader) quota(obj map[string]any) error {
	l.unknown("quota", obj, quotaKeys)
	n, ok, err := numberKey(obj, "pause_at", "quota.pause_at")
	if err != nil || !ok {
		return err
	}
	if n <= 0 || n > 1 {
		return invalid("`quota.pause_at` must be a fraction above 0 and at most 1 (got " +
			strconv.FormatFloat(n, 'g', -1, 64) + ")")
	}
	l.cfg.Quota.PauseAt = n
	return nil
}
