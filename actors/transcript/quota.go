package transcript

import (
	"encoding/json"
	"math"
)

// Names of the quota windows (docs/usage.md §7).
const (
	WindowPrimary   = "primary"   // codex's first window (5 hours on the plans of today)
	WindowSecondary = "secondary" // codex's second window (7 days)
	WindowFiveHour  = "five_hour" // claude's 5-hour window
	WindowSevenDay  = "seven_day" // claude's 7-day window
)

// QuotaWindow is one quota window as the provider last reported it: how much of it is
// used (percent, 0–100), its length in minutes (0 when not reported) and when it
// resets (unix ms; 0 when not reported).
type QuotaWindow struct {
	Window        string  `json:"window"`
	UsedPercent   float64 `json:"used_percent"`
	WindowMinutes int64   `json:"window_minutes"`
	ResetsAt      int64   `json:"resets_at"`
}

// maxResetSec bounds a reported reset time (year 9999) so no conversion overflows.
const maxResetSec = 253402300799

// CodexQuota is the quota windows of the last token_count event of a codex rollout
// that reported any: its rate_limits.primary and .secondary {used_percent,
// window_minutes, resets_at (unix s)}. A window reported null is left out; nil when no
// event reported one (codex reports them from its API's x-codex-* headers, which a
// key without a plan does not get).
func CodexQuota(data []byte) []QuotaWindow {
	var out []QuotaWindow
	for _, line := range lines(data) {
		var l codexLine
		if json.Unmarshal(line, &l) != nil {
			continue
		}
		if typ, _ := jsonString(l.Type); typ != "event_msg" {
			continue
		}
		var ev struct {
			Type       json.RawMessage `json:"type"`
			RateLimits *struct {
				Primary   json.RawMessage `json:"primary"`
				Secondary json.RawMessage `json:"secondary"`
			} `json:"rate_limits"`
		}
		if json.Unmarshal(l.Payload, &ev) != nil || ev.RateLimits == nil {
			continue
		}
		if t, _ := jsonString(ev.Type); t != "token_count" {
			continue
		}
		var ws []QuotaWindow
		for _, w := range []struct {
			name string
			raw  json.RawMessage
		}{{WindowPrimary, ev.RateLimits.Primary}, {WindowSecondary, ev.RateLimits.Secondary}} {
			if q, ok := codexWindow(w.name, w.raw); ok {
				ws = append(ws, q)
			}
		}
		if len(ws) > 0 {
			out = ws
		}
	}
	return out
}

func codexWindow(name string, raw json.RawMessage) (QuotaWindow, bool) {
	var w struct {
		Used     json.RawMessage `json:"used_percent"`
		Minutes  json.RawMessage `json:"window_minutes"`
		ResetsAt json.RawMessage `json:"resets_at"`
	}
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &w) != nil {
		return QuotaWindow{}, false
	}
	used, ok := percent(w.Used)
	if !ok {
		return QuotaWindow{}, false
	}
	q := QuotaWindow{Window: name, UsedPercent: used, WindowMinutes: int64Of(w.Minutes)}
	if s := int64Of(w.ResetsAt); s > 0 && s <= maxResetSec {
		q.ResetsAt = s * 1000
	}
	return q, true
}

// percent reads a used percent: a finite JSON number, clamped to 0–100.
func percent(raw json.RawMessage) (float64, bool) {
	if len(raw) == 0 || raw[0] == '"' || raw[0] == 'n' {
		return 0, false
	}
	var f float64
	if json.Unmarshal(raw, &f) != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return min(max(f, 0), 100), true
}

// ClaudeStatusQuota is the quota windows of one JSON object claude sends its status
// line command on stdin: rate_limits.five_hour and .seven_day {used_percentage,
// resets_at (unix s)}. claude sends rate_limits only to a subscription's session, once
// its API answered with the unified rate-limit headers; nil otherwise.
func ClaudeStatusQuota(data []byte) []QuotaWindow {
	var s struct {
		RateLimits *struct {
			FiveHour json.RawMessage `json:"five_hour"`
			SevenDay json.RawMessage `json:"seven_day"`
		} `json:"rate_limits"`
	}
	if json.Unmarshal(data, &s) != nil || s.RateLimits == nil {
		return nil
	}
	var out []QuotaWindow
	for _, w := range []struct {
		name    string
		minutes int64
		raw     json.RawMessage
	}{{WindowFiveHour, 300, s.RateLimits.FiveHour}, {WindowSevenDay, 7 * 24 * 60, s.RateLimits.SevenDay}} {
		var v struct {
			Used     json.RawMessage `json:"used_percentage"`
			ResetsAt json.RawMessage `json:"resets_at"`
		}
		if len(w.raw) == 0 || w.raw[0] != '{' || json.Unmarshal(w.raw, &v) != nil {
			continue
		}
		used, ok := percent(v.Used)
		if !ok {
			continue
		}
		q := QuotaWindow{Window: w.name, UsedPercent: used, WindowMinutes: w.minutes}
		if sec := int64Of(v.ResetsAt); sec > 0 && sec <= maxResetSec {
			q.ResetsAt = sec * 1000
		}
		out = append(out, q)
	}
	return out
}
