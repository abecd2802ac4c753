package schedule_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/orcr-go/orcr/actors/schedule"
)

func mustCron(t testing.TB, expr string) *schedule.Cron {
	t.Helper()
	c, err := schedule.ParseCron(expr)
	if err != nil {
		t.Fatalf("ParseCron(%q): %v", expr, err)
	}
	return c
}

func mustZone(t testing.TB, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatalf("LoadLocation(%q): %v", name, err)
	}
	return loc
}

// instant parses an RFC 3339 time (with its offset, so every test instant is exact).
func instant(t testing.TB, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatalf("time.Parse(%q): %v", s, err)
	}
	return v
}

func TestNext(t *testing.T) {
	tests := []struct {
		name, zone, expr, after string
		want                    string // "" for no next fire within the bound
	}{
		// Ordinary days (UTC).
		{"every 15 min", "UTC", "*/15 * * * *", "2026-05-04T10:07:30Z", "2026-05-04T10:15:00Z"},
		{"strictly after, on the minute", "UTC", "0 10 * * *", "2026-05-04T10:00:00Z", "2026-05-05T10:00:00Z"},
		{"strictly after, within the minute", "UTC", "0 10 * * *", "2026-05-04T10:00:00.5Z", "2026-05-05T10:00:00Z"},
		{"just before", "UTC", "0 10 * * *", "2026-05-04T09:59:59.999Z", "2026-05-04T10:00:00Z"},
		{"later the same hour", "UTC", "10,50 * * * *", "2026-05-04T10:20:00Z", "2026-05-04T10:50:00Z"},
		{"next hour's first minute", "UTC", "10,50 9-11 * * *", "2026-05-04T10:55:00Z", "2026-05-04T11:10:00Z"},
		{"past the last hour", "UTC", "10,50 9-11 * * *", "2026-05-04T11:55:00Z", "2026-05-05T09:10:00Z"},
		{"weekdays, friday to monday", "UTC", "0 9 * * 1-5", "2026-01-02T09:00:00Z", "2026-01-05T09:00:00Z"},
		{"sunday as 7", "UTC", "0 0 * * 7", "2026-01-01T00:00:00Z", "2026-01-04T00:00:00Z"},
		{"sunday as 0", "UTC", "0 0 * * 0", "2026-01-01T00:00:00Z", "2026-01-04T00:00:00Z"},
		{"minute rollover into a new year", "UTC", "* * * * *", "2026-12-31T23:59:30Z", "2027-01-01T00:00:00Z"},
		{"once a year", "UTC", "59 23 31 12 *", "2026-12-31T23:59:00Z", "2027-12-31T23:59:00Z"},
		{"month steps", "UTC", "0 0 1 */3 *", "2026-02-10T00:00:00Z", "2026-04-01T00:00:00Z"},
		// Month ends and leap years.
		{"first of next month", "UTC", "0 0 1 * *", "2026-01-31T12:00:00Z", "2026-02-01T00:00:00Z"},
		{"31st skips 30-day months", "UTC", "0 0 31 * *", "2026-04-01T00:00:00Z", "2026-05-31T00:00:00Z"},
		{"31st skips february", "UTC", "0 0 31 * *", "2026-01-31T00:00:00Z", "2026-03-31T00:00:00Z"},
		{"30th skips february", "UTC", "0 0 30 * *", "2026-01-30T00:00:00Z", "2026-03-30T00:00:00Z"},
		{"29 feb, next leap year", "UTC", "0 12 29 2 *", "2026-03-01T00:00:00Z", "2028-02-29T12:00:00Z"},
		{"29 feb, the one after", "UTC", "0 12 29 2 *", "2028-02-29T12:00:00Z", "2032-02-29T12:00:00Z"},
		{"29 feb in 2000 (÷400)", "UTC", "0 0 29 2 *", "1999-01-01T00:00:00Z", "2000-02-29T00:00:00Z"},
		{"29 feb, not in 2100: beyond the bound", "UTC", "0 0 29 2 *", "2097-03-01T00:00:00Z", ""},
		{"30 feb never", "UTC", "0 0 30 2 *", "2026-01-01T00:00:00Z", ""},
		{"31 apr/jun/sep/nov never", "UTC", "0 0 31 4,6,9,11 *", "2026-01-01T00:00:00Z", ""},
		// Day of month OR day of week when both are restricted.
		{"dom|dow: the friday first", "UTC", "0 0 15 * 5", "2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z"},
		{"dom|dow: the 15th, a thursday", "UTC", "0 0 15 * 5", "2026-01-09T00:00:00Z", "2026-01-15T00:00:00Z"},
		{"dom alone (dow *)", "UTC", "0 0 15 * *", "2026-01-01T00:00:00Z", "2026-01-15T00:00:00Z"},
		{"dow alone (dom *)", "UTC", "0 0 * * 5", "2026-01-02T00:00:00Z", "2026-01-09T00:00:00Z"},
		{"*/1 is restricted: every day OR friday", "UTC", "0 0 */1 * 5", "2026-01-02T00:00:00Z", "2026-01-03T00:00:00Z"},
		{"*/1 dow is restricted: 15th OR any day", "UTC", "0 0 15 * */1", "2026-01-02T00:00:00Z", "2026-01-03T00:00:00Z"},
		{"dom|dow and a month", "UTC", "0 0 1 6 1", "2026-01-01T00:00:00Z", "2026-06-01T00:00:00Z"},
		{"dom|dow: monday in june before the 1st", "UTC", "0 0 2 6 1", "2026-05-01T00:00:00Z", "2026-06-01T00:00:00Z"},
		// America/New_York, 2026: clocks jump 02:00 EST → 03:00 EDT on 8 March and fall
		// back 02:00 EDT → 01:00 EST on 1 November.
		{"spring gap skips the day", "America/New_York", "30 2 * * *", "2026-03-07T02:30:00-05:00", "2026-03-09T02:30:00-04:00"},
		{"spring gap, from inside the night", "America/New_York", "30 2 * * *", "2026-03-08T01:59:00-05:00", "2026-03-09T02:30:00-04:00"},
		{"spring: every 30 min jumps the gap", "America/New_York", "*/30 * * * *", "2026-03-08T01:30:00-05:00", "2026-03-08T03:00:00-04:00"},
		{"spring: 09:00 stays 09:00 local", "America/New_York", "0 9 * * *", "2026-03-07T09:00:00-05:00", "2026-03-08T09:00:00-04:00"},
		{"fall fold: first 01:30", "America/New_York", "30 1 * * *", "2026-10-31T01:30:00-04:00", "2026-11-01T01:30:00-04:00"},
		{"fall fold: second 01:30 skipped", "America/New_York", "30 1 * * *", "2026-11-01T01:30:00-04:00", "2026-11-02T01:30:00-05:00"},
		{"fall fold: from inside the second pass (L4)", "America/New_York", "30 1 * * *", "2026-11-01T01:10:00-05:00", "2026-11-02T01:30:00-05:00"},
		{"fall fold: 0 1 from 01:00 EDT", "America/New_York", "0 1 * * *", "2026-11-01T01:00:00-04:00", "2026-11-02T01:00:00-05:00"},
		{"fall fold: every minute leaves the repeated hour", "America/New_York", "* * * * *", "2026-11-01T01:59:00-04:00", "2026-11-01T02:00:00-05:00"},
		{"fall fold: every minute from the second pass", "America/New_York", "* * * * *", "2026-11-01T01:20:00-05:00", "2026-11-01T02:00:00-05:00"},
		{"fall: 09:00 stays 09:00 local", "America/New_York", "0 9 * * *", "2026-10-31T09:00:00-04:00", "2026-11-01T09:00:00-05:00"},
		// Europe/Berlin, 2026: 02:00 CET → 03:00 CEST on 29 March, 03:00 CEST → 02:00 CET
		// on 25 October. East of Greenwich time.Date picks the later instant of a fold.
		{"berlin spring gap skips the day", "Europe/Berlin", "30 2 * * *", "2026-03-28T02:30:00+01:00", "2026-03-30T02:30:00+02:00"},
		{"berlin fall fold: first 02:30", "Europe/Berlin", "30 2 * * *", "2026-10-24T02:30:00+02:00", "2026-10-25T02:30:00+02:00"},
		{"berlin fall fold: second 02:30 skipped", "Europe/Berlin", "30 2 * * *", "2026-10-25T02:30:00+02:00", "2026-10-26T02:30:00+01:00"},
		{"berlin fall fold: from the second pass", "Europe/Berlin", "30 2 * * *", "2026-10-25T02:10:00+01:00", "2026-10-26T02:30:00+01:00"},
		// Other shapes of transition.
		{"lord howe: half-hour fold, first pass", "Australia/Lord_Howe", "45 1 * * *", "2026-04-04T12:00:00+11:00", "2026-04-05T01:45:00+11:00"},
		{"lord howe: half-hour fold, second skipped", "Australia/Lord_Howe", "45 1 * * *", "2026-04-05T01:45:00+11:00", "2026-04-06T01:45:00+10:30"},
		{"lord howe: half-hour gap", "Australia/Lord_Howe", "15 2 * * *", "2026-10-03T12:00:00+10:30", "2026-10-05T02:15:00+11:00"},
		{"apia: a skipped calendar day", "Pacific/Apia", "0 12 * * *", "2011-12-29T12:00:00-10:00", "2011-12-31T12:00:00+14:00"},
		{"kolkata: half-hour offset", "Asia/Kolkata", "0 0 * * *", "2026-05-04T18:29:00Z", "2026-05-05T00:00:00+05:30"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			loc := mustZone(t, tt.zone)
			after := instant(t, tt.after)
			got, ok := mustCron(t, tt.expr).Next(after, loc)
			if tt.want == "" {
				if ok {
					t.Fatalf("Next(%q, %s): got %v, want none", tt.expr, tt.after, got)
				}
				return
			}
			want := instant(t, tt.want)
			if !ok || !got.Equal(want) {
				t.Fatalf("Next(%q, %s) in %s: got %v (%v), want %v", tt.expr, tt.after, tt.zone, got, ok, want.In(loc))
			}
			if got.Location() != loc {
				t.Errorf("Next(%q, %s): result in %v, want %v", tt.expr, tt.after, got.Location(), loc)
			}
		})
	}
}

func TestNextNilLocationIsUTC(t *testing.T) {
	got, ok := mustCron(t, "0 0 * * *").Next(instant(t, "2026-05-04T10:00:00+02:00"), nil)
	if want := instant(t, "2026-05-05T00:00:00Z"); !ok || !got.Equal(want) {
		t.Fatalf("Next with nil location: got %v (%v), want %v", got, ok, want)
	}
}

// fires lists the wall clock of each occurrence in [from, until).
func fires(t *testing.T, expr, zone, from, until string) []string {
	t.Helper()
	c, loc := mustCron(t, expr), mustZone(t, zone)
	end := instant(t, until)
	var out []string
	for at := instant(t, from); ; {
		next, ok := c.Next(at, loc)
		if !ok || !next.Before(end) {
			return out
		}
		out = append(out, next.Format("01-02 15:04 -0700"))
		at = next
	}
}

func TestNextHourlyAcrossDST(t *testing.T) {
	tests := []struct {
		name, expr, zone, from, until string
		want                          []string
	}{
		{"new york spring: 02:00 does not exist", "0 * * * *", "America/New_York",
			"2026-03-07T23:30:00-05:00", "2026-03-08T05:30:00-04:00",
			[]string{"03-08 00:00 -0500", "03-08 01:00 -0500", "03-08 03:00 -0400", "03-08 04:00 -0400", "03-08 05:00 -0400"}},
		{"new york fall: 01:00 once, at its first instant", "0 * * * *", "America/New_York",
			"2026-10-31T23:30:00-04:00", "2026-11-01T04:30:00-05:00",
			[]string{"11-01 00:00 -0400", "11-01 01:00 -0400", "11-01 02:00 -0500", "11-01 03:00 -0500", "11-01 04:00 -0500"}},
		{"new york fall: 30 1 once that night", "30 1 * * *", "America/New_York",
			"2026-10-31T00:00:00-04:00", "2026-11-03T00:00:00-05:00",
			[]string{"10-31 01:30 -0400", "11-01 01:30 -0400", "11-02 01:30 -0500"}},
		{"new york spring: 30 2 not that night", "30 2 * * *", "America/New_York",
			"2026-03-06T00:00:00-05:00", "2026-03-10T00:00:00-04:00",
			[]string{"03-06 02:30 -0500", "03-07 02:30 -0500", "03-09 02:30 -0400"}},
		{"berlin spring", "0 * * * *", "Europe/Berlin",
			"2026-03-29T00:30:00+01:00", "2026-03-29T04:30:00+02:00",
			[]string{"03-29 01:00 +0100", "03-29 03:00 +0200", "03-29 04:00 +0200"}},
		{"berlin fall: 02:00 once", "0 * * * *", "Europe/Berlin",
			"2026-10-25T00:30:00+02:00", "2026-10-25T04:30:00+01:00",
			[]string{"10-25 01:00 +0200", "10-25 02:00 +0200", "10-25 03:00 +0100", "10-25 04:00 +0100"}},
		{"berlin fall: quarter hours through the fold", "*/15 2 * * *", "Europe/Berlin",
			"2026-10-25T01:50:00+02:00", "2026-10-25T04:00:00+01:00",
			[]string{"10-25 02:00 +0200", "10-25 02:15 +0200", "10-25 02:30 +0200", "10-25 02:45 +0200"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := fires(t, tt.expr, tt.zone, tt.from, tt.until)
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Fatalf("%q in %s from %s:\n got %v\nwant %v", tt.expr, tt.zone, tt.from, got, tt.want)
			}
		})
	}
}

// naiveNext is the rule of docs/loops.md §5 written as plainly as possible, for zones
// whose offsets are whole minutes and whose folds last 30 or 60 minutes: walk absolute
// minutes after after; fire on the first whose wall clock matches and is not a repeat
// of a wall time seen 30 or 60 minutes before. It gives up after limit.
func naiveNext(c *schedule.Cron, after time.Time, loc *time.Location, limit time.Duration) (time.Time, bool) {
	for u := after.Truncate(time.Minute).Add(time.Minute); u.Sub(after) <= limit; u = u.Add(time.Minute) {
		w := u.In(loc)
		if !c.Match(w) {
			continue
		}
		again := false
		for _, back := range []time.Duration{30 * time.Minute, time.Hour} {
			p := u.Add(-back).In(loc)
			if p.Format(time.DateTime) == w.Format(time.DateTime) {
				again = true
			}
		}
		if !again {
			return w, true
		}
	}
	return time.Time{}, false
}

// TestNextProperties chains Next through both 2026 DST nights of several zones: every
// result is strictly after its input, matches the expression, is the first instant of
// its wall time, and agrees with the plain minute walk.
func TestNextProperties(t *testing.T) {
	exprs := []string{
		"* * * * *", "*/7 * * * *", "0 * * * *", "30 1 * * *", "30 2 * * *", "0 0 * * 0",
		"15 2,3 * * *", "*/20 1-3 * * *", "0 0 1,15 * 5", "59 23 * * *", "45 1,2 * * 0",
		"0 12 29 2 *", "*/10 0-3 25-31 3,10 0",
	}
	starts := []struct{ zone, at string }{
		{"America/New_York", "2026-03-07T20:00:00Z"}, {"America/New_York", "2026-10-31T20:00:00Z"},
		{"Europe/Berlin", "2026-03-28T20:00:00Z"}, {"Europe/Berlin", "2026-10-24T20:00:00Z"},
		{"Australia/Lord_Howe", "2026-04-04T10:00:00Z"}, {"Australia/Lord_Howe", "2026-10-03T10:00:00Z"},
		{"America/New_York", "2026-11-01T06:10:00Z"}, // 01:10 EST, in the second pass of the fold
		{"Europe/Berlin", "2026-10-25T01:10:00Z"},    // 02:10 CET, likewise
		{"UTC", "2028-02-28T20:00:00Z"},
	}
	const limit = 50 * time.Hour
	for _, expr := range exprs {
		c := mustCron(t, expr)
		for _, s := range starts {
			loc := mustZone(t, s.zone)
			at := instant(t, s.at)
			for i := range 60 {
				got, ok := c.Next(at, loc)
				want, wok := naiveNext(c, at, loc, limit)
				if wok && (!ok || !got.Equal(want)) || !wok && ok && got.Sub(at) <= limit {
					t.Fatalf("%q in %s, step %d after %v: got %v (%v), plain walk %v (%v)",
						expr, s.zone, i, at.In(loc), got, ok, want, wok)
				}
				if !ok {
					break
				}
				if !got.After(at) {
					t.Fatalf("%q in %s: Next(%v) = %v, not after", expr, s.zone, at, got)
				}
				if !c.Match(got) {
					t.Fatalf("%q in %s: Next(%v) = %v does not match", expr, s.zone, at, got)
				}
				if got.Sub(at) > (schedule.SearchDays+1)*24*time.Hour+time.Hour {
					t.Fatalf("%q in %s: Next(%v) = %v, beyond the bound", expr, s.zone, at, got)
				}
				at = got
			}
		}
	}
}
