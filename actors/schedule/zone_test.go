package schedule_test

import (
	"errors"
	"testing"
	"time"

	"github.com/orcr-go/orcr/actors/schedule"
)

func TestZone(t *testing.T) {
	tests := []struct{ name, want string }{
		{"America/New_York", "America/New_York"},
		{"Europe/Berlin", "Europe/Berlin"},
		{"UTC", "UTC"},
		{"", "UTC"},
		{"Local", "UTC"},
		{"Nowhere/Special", "UTC"},
		{"../etc/passwd", "UTC"},
	}
	for _, tt := range tests {
		if got := schedule.Zone(tt.name).String(); got != tt.want {
			t.Errorf("Zone(%q) = %s, want %s", tt.name, got, tt.want)
		}
	}
	if schedule.Zone("") != time.UTC {
		t.Errorf("Zone(\"\") is not time.UTC")
	}
}

func TestLocalZoneName(t *testing.T) {
	const noLink = "\x00none"
	tests := []struct {
		name string
		tz   string // "\x00unset" for no TZ
		link string // /etc/localtime's target; noLink when it is no link
		want string
	}{
		{"TZ names a zone", "Europe/Berlin", "/usr/share/zoneinfo/Asia/Tokyo", "Europe/Berlin"},
		{"TZ with a leading colon", ":America/New_York", noLink, "America/New_York"},
		{"TZ as a zoneinfo path", "/usr/share/zoneinfo/Europe/Rome", noLink, "Europe/Rome"},
		{"TZ UTC", "UTC", "/usr/share/zoneinfo/Asia/Tokyo", "UTC"},
		{"TZ not a zone: the link", "EST5", "/usr/share/zoneinfo/Asia/Tokyo", "Asia/Tokyo"},
		{"TZ empty: the link", "", "/usr/share/zoneinfo/Asia/Tokyo", "Asia/Tokyo"},
		{"no TZ: the link", "\x00unset", "/usr/share/zoneinfo/Asia/Tokyo", "Asia/Tokyo"},
		{"relative link", "\x00unset", "../usr/share/zoneinfo/America/Chicago", "America/Chicago"},
		{"posix tree", "\x00unset", "/usr/share/zoneinfo/posix/Europe/Paris", "Europe/Paris"},
		{"macOS link", "\x00unset", "/var/db/timezone/zoneinfo/Australia/Sydney", "Australia/Sydney"},
		{"link outside zoneinfo", "\x00unset", "/etc/some/file", "UTC"},
		{"link to an unknown zone", "\x00unset", "/usr/share/zoneinfo/Nowhere/Special", "UTC"},
		{"no link", "\x00unset", noLink, "UTC"},
		{"nothing usable", "garbage", noLink, "UTC"},
	}
	for _, tt := range tests {
		env := func(k string) (string, bool) {
			if k != "TZ" || tt.tz == "\x00unset" {
				return "", false
			}
			return tt.tz, true
		}
		readlink := func(p string) (string, error) {
			if p != "/etc/localtime" || tt.link == noLink {
				return "", errors.New("not a link")
			}
			return tt.link, nil
		}
		if got := schedule.LocalZoneNameWith(env, readlink); got != tt.want {
			t.Errorf("%s: LocalZoneName() = %q, want %q", tt.name, got, tt.want)
		}
	}
	// On this host: whatever it answers names a zone.
	if got := schedule.LocalZoneName(); schedule.Zone(got).String() != got {
		t.Errorf("LocalZoneName() = %q, which Zone does not resolve", got)
	}
}
