package top

import (
	"strconv"
	"time"

	"github.com/orcr-go/orcr/socketapi/api"
)

// Label is the word a status is shown as (docs/top.md §3): the socket and the store keep
// the internal words.
func Label(s api.Status) string {
	switch s {
	case api.StatusWorking:
		return "running"
	case api.StatusIdle, api.StatusParked:
		return "done"
	case api.StatusBlocked:
		return "needs input"
	case api.StatusQueued:
		return "pending"
	case api.StatusStarting:
		return "starting"
	case api.StatusLost:
		return "failed"
	}
	return string(s)
}

// tone is a glyph's colour class; the view maps it to a colour (or none).
type tone int

const (
	toneGray tone = iota
	toneGreen
	toneMagenta
	toneDim
	toneRed
	toneCyan
)

// Glyph is the mark in front of an agent row, with its colour class.
func Glyph(s api.Status) (string, tone) {
	switch s {
	case api.StatusWorking:
		return "●", toneGreen
	case api.StatusIdle, api.StatusParked:
		return "✓", toneGreen
	case api.StatusBlocked:
		return "◐", toneMagenta
	case api.StatusQueued, api.StatusStarting:
		return "◌", toneDim
	case api.StatusLost:
		return "✗", toneRed
	}
	return "·", toneGray
}

// StalledGlyph marks an agent whose open turn is stalled (docs/lifecycle.md §10.7) in
// place of its status glyph.
const StalledGlyph = "⧗"

// NeedsHuman reports whether an agent waits on a person: blocked, or lost (its pane went
// away behind orcr's back). The `n` key jumps between them.
func NeedsHuman(a *api.AgentRow) bool {
	return a.Status == api.StatusBlocked || a.Status == api.StatusLost
}

// Age formats a duration for the duration column: "<s>s" under a minute, "<m>m" or
// "<m>m<ss>s" under an hour, "<h>h" under a day, "<d>d"; negative is "0s".
func Age(d time.Duration) string {
	s := int64(d / time.Second)
	switch {
	case s < 0:
		return "0s"
	case s < 60:
		return strconv.FormatInt(s, 10) + "s"
	case s < 3600:
		m, r := s/60, s%60
		if r == 0 {
			return strconv.FormatInt(m, 10) + "m"
		}
		return strconv.FormatInt(m, 10) + "m" + pad2(r) + "s"
	case s < 86400:
		return strconv.FormatInt(s/3600, 10) + "h"
	}
	return strconv.FormatInt(s/86400, 10) + "d"
}

func pad2(n int64) string {
	if n < 10 {
		return "0" + strconv.FormatInt(n, 10)
	}
	return strconv.FormatInt(n, 10)
}

// Duration is an agent's duration column and whether it still runs (so the view needs
// a clock): the latest turn's time while working, frozen at its completion (or the last
// status change) otherwise, a new input restarting it; without a turn, the lifecycle
// clock of the current status.
func Duration(a *api.AgentRow, now time.Time) (string, bool) {
	nowMS := now.UnixMilli()
	if a.TurnDeliveredAt != nil {
		d := *a.TurnDeliveredAt
		if a.Status == api.StatusWorking {
			return Age(ms(nowMS - d)), true
		}
		end := a.TurnCompletedAt
		if end == nil || *end < d {
			end = a.LastStatusChangeAt
		}
		if end == nil {
			return Age(0), false
		}
		return Age(ms(*end - d)), false
	}
	var since *int64
	switch a.Status {
	case api.StatusStarting:
		since = a.StartingAt
	case api.StatusIdle:
		since = a.IdleSince
	case api.StatusParked:
		since = a.ParkedAt
	}
	if since == nil {
		since = a.LastStatusChangeAt
	}
	if since == nil {
		since = &a.CreatedAt
	}
	return Age(ms(nowMS - *since)), true
}

func ms(v int64) time.Duration { return time.Duration(v) * time.Millisecond }

// Clock formats a unix-ms time as local HH:MM ("--:--" when absent).
func Clock(at *int64, loc *time.Location) string {
	if at == nil || *at <= 0 {
		return "--:--"
	}
	return time.UnixMilli(*at).In(loc).Format("15:04")
}

// Cost is a node's cost column (docs/top.md §3): "" before any turn reported usage,
// else dollars — cents, four decimals below a cent, whole dollars from $1,000 — with *
// when turns of models without a price are left out of it.
func Cost(u api.AgentUsage) string {
	if u.Turns == 0 {
		return ""
	}
	var c string
	switch {
	case u.CostUSD > 0 && u.CostUSD < 0.01:
		c = "$" + strconv.FormatFloat(u.CostUSD, 'f', 4, 64)
	case u.CostUSD >= 1000:
		c = "$" + strconv.FormatFloat(u.CostUSD, 'f', 0, 64)
	default:
		c = "$" + strconv.FormatFloat(u.CostUSD, 'f', 2, 64)
	}
	if u.UnpricedTurns > 0 {
		c += "*"
	}
	return c
}

// or returns *p, or def when p is nil or empty.
func or(p *string, def string) string {
	if p == nil || *p == "" {
		return def
	}
	return *p
}

// QuotaName is a quota window's provider, with its account when it names one.
func QuotaName(w api.QuotaWindow) string {
	if w.Account != "" {
		return w.Provider + "/" + w.Account
	}
	return w.Provider
}

// WindowLabel names a quota window by its length (5h, 7d), else by its name.
func WindowLabel(w api.QuotaWindow) string {
	switch m := w.WindowMinutes; {
	case m > 0 && m%1440 == 0:
		return strconv.FormatInt(m/1440, 10) + "d"
	case m > 0 && m%60 == 0:
		return strconv.FormatInt(m/60, 10) + "h"
	case m > 0:
		return strconv.FormatInt(m, 10) + "m"
	}
	switch w.Window {
	case "five_hour":
		return "5h"
	case "seven_day":
		return "7d"
	}
	return w.Window
}

// Remaining formats the time to a quota window's reset: "<m>m" under an hour,
// "<h>h<mm>m" under a day, "<d>d<h>h" beyond; rounded up to the minute.
func Remaining(d time.Duration) string {
	m := int64((d + time.Minute - 1) / time.Minute)
	switch {
	case m < 0:
		return "0m"
	case m < 60:
		return strconv.FormatInt(m, 10) + "m"
	case m < 1440:
		return strconv.FormatInt(m/60, 10) + "h" + pad2(m%60) + "m"
	}
	return strconv.FormatInt(m/1440, 10) + "d" + strconv.FormatInt(m%1440/60, 10) + "h"
}
