package schedule_test

import (
	"strings"
	"testing"
	"time"

	"github.com/orcr-go/orcr/actors/schedule"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// fuzzZones are the zones the fuzz targets evaluate in, picked by a byte.
var fuzzZones = []string{
	"UTC", "America/New_York", "Europe/Berlin", "Australia/Lord_Howe", "Pacific/Apia", "Asia/Kolkata",
}

// fuzzInstant maps any int64 to an instant between 1970 and about 2240.
func fuzzInstant(n int64) time.Time {
	const span = 270 * 365 * 24 * 3600
	s := n % span
	if s < 0 {
		s += span
	}
	return time.Unix(s, n&0x3fffffff)
}

// checkInvalidReason fails unless err is an invalid_request with the given reason whose
// details.value is text.
func checkInvalidReason(t *testing.T, what string, err error, reason, text string) *wire.Error {
	t.Helper()
	pe, ok := wire.As(err)
	if !ok || pe.Code != wire.InvalidRequest || pe.Reason() != reason || pe.Details["value"] != text {
		t.Fatalf("%s(%q): got %#v, want invalid_request, reason %s, value as given", what, text, err, reason)
	}
	return pe
}

func FuzzParseCron(f *testing.F) {
	for _, s := range []string{
		"* * * * *", "*/15 9-17 * * 1-5", "5/10 * * * *", "0 0 29 2 *", "0 0 30 2 *", "0 0 15 * 5",
		"30 2 * * *", "30 1 * * *", "0 0 */1 * 7", "@daily", "* * * * MON", "1,,2 * * * *", "22-2 * * * *",
		"*/0 * * * *", "60 * * * *", "* * * * * *", "0 0 L * *", "", "9999999999 * * * *",
	} {
		f.Add(s, int64(1772337600), uint8(1))
	}
	f.Fuzz(func(t *testing.T, expr string, at int64, zone uint8) {
		c, err := schedule.ParseCron(expr)
		if err != nil {
			pe := checkInvalidReason(t, "ParseCron", err, "invalid_cron", expr)
			if field, _ := pe.Details["field"].(string); field != "" && !strings.Contains(pe.Message, field+" field") {
				t.Fatalf("ParseCron(%q): message %q does not name the field %q", expr, pe.Message, field)
			}
			return
		}
		if c.String() != expr {
			t.Fatalf("ParseCron(%q).String() = %q", expr, c.String())
		}
		loc := schedule.Zone(fuzzZones[int(zone)%len(fuzzZones)])
		after := fuzzInstant(at)
		next, ok := c.Next(after, loc)
		if !ok {
			return
		}
		if !next.After(after) {
			t.Fatalf("%q in %v: Next(%v) = %v, not after", expr, loc, after, next)
		}
		if next.Sub(after) > (schedule.SearchDays+2)*24*time.Hour {
			t.Fatalf("%q in %v: Next(%v) = %v, beyond the bound", expr, loc, after, next)
		}
		if !c.Match(next.In(loc)) || next.Second() != 0 || next.Nanosecond() != 0 {
			t.Fatalf("%q in %v: Next(%v) = %v does not match on the minute", expr, loc, after, next)
		}
		for _, back := range []time.Duration{30 * time.Minute, time.Hour} {
			if p := next.Add(-back).In(loc); p.Format(time.DateTime) == next.In(loc).Format(time.DateTime) {
				t.Fatalf("%q in %v: Next(%v) = %v, the second instant of its wall time", expr, loc, after, next)
			}
		}
		if again, ok := c.Next(next, loc); ok && !again.After(next) {
			t.Fatalf("%q in %v: Next(%v) = %v, not increasing", expr, loc, next, again)
		}
	})
}

func FuzzParseOnceAt(f *testing.F) {
	for _, s := range []string{
		"30s", "5m", "1d", "500ms", "0s", "-5m", "1h30m", "2026-03-08T07:30:00Z", "2026-03-08T02:30:00-05:00",
		"2026-06-01T09:00:00", "2026-06-01 09:00", "2026-03-08 02:30", "2026-11-01 01:30", "2026-02-30 10:00",
		"2026-03-08T7:30:00Z", "tomorrow", "",
	} {
		f.Add(s, int64(1772337600), uint8(1))
	}
	f.Fuzz(func(t *testing.T, text string, at int64, zone uint8) {
		loc := schedule.Zone(fuzzZones[int(zone)%len(fuzzZones)])
		now := fuzzInstant(at)
		got, err := schedule.ParseOnceAt(text, now, loc)
		if err != nil {
			checkInvalidReason(t, "ParseOnceAt", err, "invalid_once_at", text)
			return
		}
		if got.Location().String() != loc.String() {
			t.Fatalf("ParseOnceAt(%q) in %v: result in %v", text, loc, got.Location())
		}
		if s := strings.TrimSpace(text); len(s) > 0 && s[0] >= '0' && s[0] <= '9' && !strings.Contains(s, "-") && !got.After(now) {
			t.Fatalf("ParseOnceAt(%q) at %v: a duration gave %v, not after now", text, now, got)
		}
	})
}
