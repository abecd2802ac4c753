package schedule_test

import (
	"strings"
	"testing"
	"time"

	"github.com/orcr-go/orcr/actors/schedule"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

func TestParseOnceAt(t *testing.T) {
	now := instant(t, "2026-03-01T12:00:00Z")
	tests := []struct {
		text, zone, want string
	}{
		// Durations from now.
		{"30s", "America/New_York", "2026-03-01T12:00:30Z"},
		{"5m", "America/New_York", "2026-03-01T12:05:00Z"},
		{"2h", "America/New_York", "2026-03-01T14:00:00Z"},
		{"1d", "America/New_York", "2026-03-02T12:00:00Z"},
		{"500ms", "America/New_York", "2026-03-01T12:00:00.5Z"},
		{"10d", "America/New_York", "2026-03-11T12:00:00Z"}, // 24 h days, across the DST change
		{" 5m\n", "America/New_York", "2026-03-01T12:05:00Z"},
		// RFC 3339 with an offset: the instant, even where the local form would be refused.
		{"2026-03-08T07:30:00Z", "America/New_York", "2026-03-08T07:30:00Z"},
		{"2026-03-08T02:30:00-05:00", "America/New_York", "2026-03-08T07:30:00Z"},
		{"2026-11-01T01:30:00-05:00", "America/New_York", "2026-11-01T06:30:00Z"},
		{"2026-11-01T01:30:00.250-04:00", "America/New_York", "2026-11-01T05:30:00.25Z"},
		// Local wall-clock forms in the zone.
		{"2026-06-01T09:00:00", "America/New_York", "2026-06-01T09:00:00-04:00"},
		{"2026-06-01T09:00", "America/New_York", "2026-06-01T09:00:00-04:00"},
		{"2026-06-01 09:00:00", "America/New_York", "2026-06-01T09:00:00-04:00"},
		{"2026-06-01 09:00", "America/New_York", "2026-06-01T09:00:00-04:00"},
		{"2026-06-01 09:00", "Europe/Berlin", "2026-06-01T09:00:00+02:00"},
		{"2026-06-01 09:00", "", "2026-06-01T09:00:00Z"}, // nil location: UTC
		{"2026-03-08 01:59:59", "America/New_York", "2026-03-08T01:59:59-05:00"},
		{"2026-03-08 03:00", "America/New_York", "2026-03-08T03:00:00-04:00"},
		{"2026-11-01 00:59:59", "America/New_York", "2026-11-01T00:59:59-04:00"},
		{"2026-11-01 02:00", "America/New_York", "2026-11-01T02:00:00-05:00"},
		{"2026-10-25 03:00", "Europe/Berlin", "2026-10-25T03:00:00+01:00"},
		{"2026-10-25 01:59", "Europe/Berlin", "2026-10-25T01:59:00+02:00"},
		// The past is allowed: the loop fires at the next tick.
		{"2020-01-01 00:00", "America/New_York", "2020-01-01T00:00:00-05:00"},
		{"2020-01-01T00:00:00Z", "America/New_York", "2020-01-01T00:00:00Z"},
	}
	for _, tt := range tests {
		var loc *time.Location
		if tt.zone != "" {
			loc = mustZone(t, tt.zone)
		}
		got, err := schedule.ParseOnceAt(tt.text, now, loc)
		if err != nil {
			t.Errorf("ParseOnceAt(%q) in %q: %v", tt.text, tt.zone, err)
			continue
		}
		if want := instant(t, tt.want); !got.Equal(want) {
			t.Errorf("ParseOnceAt(%q) in %q: got %v, want %v", tt.text, tt.zone, got, want)
		}
		if wantLoc := schedule.Zone(tt.zone); got.Location().String() != wantLoc.String() {
			t.Errorf("ParseOnceAt(%q) in %q: result in %v", tt.text, tt.zone, got.Location())
		}
	}
}

func TestParseOnceAtErrors(t *testing.T) {
	now := instant(t, "2026-03-01T12:00:00Z")
	tests := []struct {
		text, zone, want string // want: a fragment of the message
	}{
		{"", "UTC", "want a duration"},
		{"   ", "UTC", "want a duration"},
		{"0s", "UTC", "not a valid duration: must be greater than zero"},
		{"-5m", "UTC", "a sign is not allowed"},
		{"+5m", "UTC", "a sign is not allowed"},
		{"5", "UTC", "missing unit"},
		{"5w", "UTC", `unknown unit "w"`},
		{"1h30m", "UTC", "compound durations are not allowed"},
		{"1.5h", "UTC", "decimals are not allowed"},
		{"5M", "UTC", "unknown unit"},
		{"tomorrow", "UTC", "want a duration"},
		{"12:00", "UTC", "want a duration"},
		{"2026-03-08", "UTC", "want a duration"},
		{"2026-02-30 10:00", "UTC", "want a duration"},
		{"2026-03-08 24:00", "UTC", "want a duration"},
		{"2026-03-08 9:30", "UTC", "want a duration"},
		{"2026-3-08 09:30", "UTC", "want a duration"},
		{"2026-03-08 09:30:00.5", "UTC", "want a duration"},
		{"2026-03-08T07:30Z", "UTC", "want a duration"},
		{"2026-03-08T07:30:00.Z", "UTC", "want a duration"},
		{"2026-03-08T07:30:00+0100", "UTC", "want a duration"},
		{"2026-03-08T07:30:00+01", "UTC", "want a duration"},
		{"2026-03-08t07:30:00z", "UTC", "want a duration"},
		{"2026-03-08T7:30:00Z", "UTC", "want a duration"},
		{"2026-03-08T07:30:00+25:00", "UTC", "want a duration"},
		{"2026-03-08 07:30:00 +0000", "UTC", "want a duration"},
		{"2026-03-08T07:30:00 America/New_York", "UTC", "want a duration"},
		// A local time in a spring-forward gap does not exist; one in a fold exists twice.
		{"2026-03-08 02:30", "America/New_York", "does not exist in America/New_York"},
		{"2026-03-08T02:00:00", "America/New_York", "does not exist"},
		{"2026-03-08 02:59:59", "America/New_York", "does not exist"},
		{"2026-11-01 01:30", "America/New_York", "happens twice in America/New_York"},
		{"2026-11-01T01:00:00", "America/New_York", "happens twice"},
		{"2026-11-01 01:59:59", "America/New_York", "happens twice"},
		{"2026-03-29 02:30", "Europe/Berlin", "does not exist in Europe/Berlin"},
		{"2026-10-25 02:30", "Europe/Berlin", "happens twice in Europe/Berlin"},
		{"2026-10-25 02:00", "Europe/Berlin", "happens twice"},
		{"2026-04-05 01:45", "Australia/Lord_Howe", "happens twice"},
		{"2011-12-30 12:00", "Pacific/Apia", "does not exist"},
	}
	for _, tt := range tests {
		loc := schedule.Zone(tt.zone)
		got, err := schedule.ParseOnceAt(tt.text, now, loc)
		if err == nil {
			t.Errorf("ParseOnceAt(%q) in %s: got %v, want an error", tt.text, tt.zone, got)
			continue
		}
		pe, ok := wire.As(err)
		if !ok || pe.Code != wire.InvalidRequest || pe.Reason() != "invalid_once_at" {
			t.Errorf("ParseOnceAt(%q): got %#v, want invalid_request, reason invalid_once_at", tt.text, err)
			continue
		}
		if pe.Details["value"] != tt.text {
			t.Errorf("ParseOnceAt(%q): details.value = %v, want the text as given", tt.text, pe.Details["value"])
		}
		if !strings.Contains(pe.Message, tt.want) {
			t.Errorf("ParseOnceAt(%q) in %s: message %q, want it to contain %q", tt.text, tt.zone, pe.Message, tt.want)
		}
	}
}
