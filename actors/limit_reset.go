package actors

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// The reset time of a usage-limit message (docs/lifecycle.md §7.6): a best-effort parser
// of what providers print when they stop at their limit — text from outside orcr, so it
// never panics, reads at most maxLimitText bytes and only returns times within
// maxLimitReset of now.

// maxLimitText is how much of a screen or transcript the parser reads (its end: the
// newest lines).
const maxLimitText = 16 << 10

// maxLimitReset is the latest reset the parser believes; anything later (a misread
// date) is no reset at all, and the backoff applies.
const maxLimitReset = 7 * 24 * time.Hour

var (
	// "try again in 2 hours", "resets in 1h 30m", "retry in 45 seconds",
	// "available again in 3 days and 4 hours".
	limitRelative = regexp.MustCompile(`(?:again|resets?|retry|available|wait)\s+(?:in|after)\s+((?:\d{1,4}\s*(?:days?|d|hours?|hrs?|h|minutes?|mins?|m|seconds?|secs?|s)\b(?:\s*,\s*|\s+and\s+|\s*)?)+)`)
	limitPart     = regexp.MustCompile(`(\d{1,4})\s*(days?|d|hours?|hrs?|h|minutes?|mins?|m|seconds?|secs?|s)\b`)
	// "resets at 3pm", "resets 3:30 pm", "reset at 15:30 (UTC)",
	// "try again at 9:05 AM (Europe/Berlin)".
	limitClock = regexp.MustCompile(`(?:resets?|again|retry)(?:\s+at)?\s+(\d{1,2})(?::(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)?(?:\s*\(([a-z0-9_+\-/]{1,40})\))?`)
	// A clock time with its date, as codex writes a reset on another day than today:
	// "try again at Dec 8th, 2026 12:08 AM" (the year and the ordinal may be missing).
	limitDated = regexp.MustCompile(`(?:resets?|again|retry)(?:\s+(?:at|on))?\s+(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?(?:\s+(\d{4}),?)?(?:\s+at)?\s+(\d{1,2})(?::(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)?(?:\s*\(([a-z0-9_+\-/]{1,40})\))?`)
	// The unix time some claude versions append: "usage limit reached|1760000000".
	limitEpoch = regexp.MustCompile(`limit reached\|(\d{10})\b`)
)

// ParseLimitReset returns when the usage limit that text reports resets, as seen at now;
// false when text names no reset time orcr can read. Of several, the one written last
// wins (the bottom of a screen is its newest line). A clock time without a date is the
// next such time after now, in the zone named in parentheses after it (an IANA name or
// UTC), else in now's location; a clock time needs minutes or am/pm ("resets 3" is not
// read).
func ParseLimitReset(text string, now time.Time) (time.Time, bool) {
	if len(text) > maxLimitText {
		text = text[len(text)-maxLimitText:]
	}
	text = strings.ToLower(text)
	best, bestAt := time.Time{}, -1
	take := func(at int, t time.Time) {
		if at > bestAt && t.After(now) && t.Sub(now) <= maxLimitReset {
			best, bestAt = t, at
		}
	}
	for _, m := range limitRelative.FindAllStringSubmatchIndex(text, -1) {
		var d time.Duration
		for _, p := range limitPart.FindAllStringSubmatch(text[m[2]:m[3]], -1) {
			n, _ := strconv.Atoi(p[1])
			d += time.Duration(n) * limitUnit(p[2])
		}
		take(m[0], now.Add(d))
	}
	for _, m := range limitClock.FindAllStringSubmatchIndex(text, -1) {
		g := func(i int) string { return submatch(text, m, i) }
		if t, ok := clockAfter(g(1), g(2), g(3), g(4), now); ok {
			take(m[0], t)
		}
	}
	for _, m := range limitDated.FindAllStringSubmatchIndex(text, -1) {
		g := func(i int) string { return submatch(text, m, i) }
		if t, ok := datedAt(g(1), g(2), g(3), g(4), g(5), g(6), g(7), now); ok {
			take(m[0], t)
		}
	}
	for _, m := range limitEpoch.FindAllStringSubmatchIndex(text, -1) {
		sec, _ := strconv.ParseInt(text[m[2]:m[3]], 10, 64)
		take(m[0], time.Unix(sec, 0))
	}
	return best, bestAt >= 0
}

// submatch is group i of a match m of text (FindAllStringSubmatchIndex), "" when the
// group did not take part.
func submatch(text string, m []int, i int) string {
	if m[2*i] < 0 {
		return ""
	}
	return text[m[2*i]:m[2*i+1]]
}

// limitUnit is the duration of one unit as limitPart spells it.
func limitUnit(u string) time.Duration {
	switch u[0] {
	case 'd':
		return 24 * time.Hour
	case 'h':
		return time.Hour
	case 'm':
		return time.Minute
	}
	return time.Second
}

// clockAfter is the first time after now showing hour:minute (with an am/pm marker or
// 24-hour) in zone (an IANA name or utc; "" or unknown: now's location).
func clockAfter(hour, minute, ampm, zone string, now time.Time) (time.Time, bool) {
	h, m, ok := clockOf(hour, minute, ampm)
	if !ok {
		return time.Time{}, false
	}
	loc := zoneOf(zone, now)
	n := now.In(loc)
	t := time.Date(n.Year(), n.Month(), n.Day(), h, m, 0, 0, loc)
	if !t.After(now) {
		t = t.AddDate(0, 0, 1)
	}
	return t, true
}

// datedAt is the time a dated reset names: month (its first three letters), day, year
// ("" = now's, or the next if that date has passed), the clock as [clockAfter] reads
// it, in zone.
func datedAt(month, day, year, hour, minute, ampm, zone string, now time.Time) (time.Time, bool) {
	h, m, ok := clockOf(hour, minute, ampm)
	if !ok {
		return time.Time{}, false
	}
	mon := time.Month(strings.Index("janfebmaraprmayjunjulaugsepoctnovdec", month)/3 + 1)
	d, _ := strconv.Atoi(day)
	loc := zoneOf(zone, now)
	y := now.In(loc).Year()
	if year != "" {
		y, _ = strconv.Atoi(year)
	}
	t := time.Date(y, mon, d, h, m, 0, 0, loc)
	if t.Day() != d { // Feb 30th and the like
		return time.Time{}, false
	}
	if year == "" && !t.After(now) {
		t = t.AddDate(1, 0, 0)
	}
	return t, true
}

// clockOf reads hour:minute with an am/pm marker or as 24-hour; a clock needs minutes
// or the marker ("3" alone is not a time).
func clockOf(hour, minute, ampm string) (h, m int, ok bool) {
	if minute == "" && ampm == "" {
		return 0, 0, false
	}
	h, _ = strconv.Atoi(hour)
	if minute != "" {
		m, _ = strconv.Atoi(minute)
	}
	if m > 59 {
		return 0, 0, false
	}
	switch {
	case ampm == "":
		if h > 23 {
			return 0, 0, false
		}
	case h < 1 || h > 12:
		return 0, 0, false
	default:
		h %= 12
		if ampm[0] == 'p' {
			h += 12
		}
	}
	return h, m, true
}

// zoneOf is the location zone names (an IANA name or utc), now's for "" or an unknown
// one.
func zoneOf(zone string, now time.Time) *time.Location {
	switch zone {
	case "", "local":
	case "utc", "gmt", "z":
		return time.UTC
	default:
		if l, err := loadZone(zone); err == nil {
			return l
		}
	}
	return now.Location()
}

// loadZone loads an IANA zone named in lower case ("america/new_york"): the zone
// database is case-sensitive, so each part is capitalised as the database spells most
// names.
func loadZone(lower string) (*time.Location, error) {
	parts := strings.Split(lower, "/")
	for i, p := range parts {
		words := strings.Split(p, "_")
		for j, w := range words {
			if w != "" {
				words[j] = strings.ToUpper(w[:1]) + w[1:]
			}
		}
		parts[i] = strings.Join(words, "_")
	}
	return time.LoadLocation(strings.Join(parts, "/"))
}
