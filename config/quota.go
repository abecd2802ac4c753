package config

import "strconv"

// DefaultQuotaPauseAt is quota.pause_at's default: a provider whose quota window is 95%
// used starts nothing new until the window resets.
const DefaultQuotaPauseAt = 0.95

// DefaultQuotaWarnAt is quota.warn_at's default: a window 80% used is announced once.
const DefaultQuotaWarnAt = 0.8

// Quota is the `quota` section (docs/usage.md §7).
type Quota struct {
	// PauseAt is the used fraction (0 < PauseAt ≤ 1) of a provider's quota window at
	// which rate-limit-aware admission pauses the provider until the window resets.
	PauseAt float64
	// WarnAt is the used fraction (0 < WarnAt ≤ 1) of a quota window at which orcr
	// emits quota.warned, once per window and period.
	WarnAt float64
}

var quotaKeys = []string{"pause_at", "warn_at"}

func (l *loader) quota(obj map[string]any) error {
	l.unknown("quota", obj, quotaKeys)
	for _, k := range []struct {
		key string
		dst *float64
	}{{"pause_at", &l.cfg.Quota.PauseAt}, {"warn_at", &l.cfg.Quota.WarnAt}} {
		n, ok, err := numberKey(obj, k.key, "quota."+k.key)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		if n <= 0 || n > 1 {
			return invalid("`quota." + k.key + "` must be a fraction above 0 and at most 1 (got " +
				strconv.FormatFloat(n, 'g', -1, 64) + ")")
		}
		*k.dst = n
	}
	return nil
}
