package schedule

import (
	"os"
	"strings"
	"time"
	_ "time/tzdata" // zone names resolve on hosts without a zoneinfo database
)

// Zone returns the location a loop's stored zone name evaluates in (docs/loops.md §5.1):
// the IANA zone of that name, or UTC when the name is empty, unknown, or "Local" (the
// stored name is always a real zone; the server's local zone may change between runs).
// Loading a zone parses its rules, so callers keep the result rather than calling Zone
// per evaluation.
func Zone(name string) *time.Location {
	if name == "" || name == "Local" {
		return time.UTC
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return time.UTC
	}
	return loc
}

// LocalZoneName returns the IANA name of the server process's zone, stored with a loop
// when it is created (docs/loops.md §5.1): $TZ when it names a zone (a leading ":" is
// dropped, and a path into a zoneinfo directory is read as the zone below it), else the
// zone the /etc/localtime symbolic link points at below a zoneinfo directory, else "UTC".
func LocalZoneName() string { return localZoneName(os.LookupEnv, os.Readlink) }

func localZoneName(lookupEnv func(string) (string, bool), readlink func(string) (string, error)) string {
	if tz, ok := lookupEnv("TZ"); ok {
		if name := zoneName(strings.TrimPrefix(tz, ":")); name != "" {
			return name
		}
	}
	if target, err := readlink("/etc/localtime"); err == nil && strings.Contains(target, "zoneinfo/") {
		if name := zoneName(target); name != "" {
			return name
		}
	}
	return "UTC"
}

// zoneName returns s, or the zone name below a zoneinfo directory in it, when that names
// a zone; else "". The posix/ and right/ variants of a zoneinfo tree name the same zones.
func zoneName(s string) string {
	if i := strings.LastIndex(s, "zoneinfo/"); i >= 0 {
		s = s[i+len("zoneinfo/"):]
	}
	if rest, ok := strings.CutPrefix(s, "posix/"); ok {
		s = rest
	}
	if rest, ok := strings.CutPrefix(s, "right/"); ok {
		s = rest
	}
	if s == "" || s == "Local" || strings.HasPrefix(s, "/") {
		return ""
	}
	if _, err := time.LoadLocation(s); err != nil {
		return ""
	}
	return s
}
