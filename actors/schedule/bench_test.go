package schedule_test

import (
	"testing"
	"time"
)

// BenchmarkNext chains Next from its own result, as the loop actor does after each fire,
// over typical expressions and one that never matches (a full scan of the bound). The
// chain restarts after 2026, so it measures dates near today: beyond the zone tables'
// last listed year (2037) the time package computes offsets from a rule, much slower.
func BenchmarkNext(b *testing.B) {
	for _, bc := range []struct{ name, expr, zone string }{
		{"every_minute", "* * * * *", "America/New_York"},
		{"every_5_min", "*/5 * * * *", "America/New_York"},
		{"hourly", "0 * * * *", "Europe/Berlin"},
		{"weekdays_0900", "0 9 * * 1-5", "America/New_York"},
		{"nightly_0230", "30 2 * * *", "America/New_York"},
		{"monthly", "0 0 1 * *", "UTC"},
		{"dom_or_dow", "0 12 13 * 5", "Europe/Berlin"},
		{"leap_day", "0 12 29 2 *", "UTC"},
		{"never", "0 0 30 2 *", "UTC"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			c, loc := mustCron(b, bc.expr), mustZone(b, bc.zone)
			start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			end := start.AddDate(1, 0, 0)
			at := start
			b.ReportAllocs()
			for b.Loop() {
				next, ok := c.Next(at, loc)
				if !ok || next.After(end) {
					next = start
				}
				at = next
			}
		})
	}
}

// BenchmarkNextPlainWalk is the minute-by-minute walk of the tests' reference, for
// comparison with BenchmarkNext/nightly_0230.
func BenchmarkNextPlainWalk(b *testing.B) {
	c, loc := mustCron(b, "30 2 * * *"), mustZone(b, "America/New_York")
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := start
	for b.Loop() {
		next, ok := naiveNext(c, at, loc, 48*time.Hour)
		if !ok || next.Year() > 2026 {
			next = start
		}
		at = next
	}
}
