package schedule

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// localLayouts are the wall-clock forms of --once-at, read in the loop's zone.
var localLayouts = []string{
	"2006-01-02T15:04:05",
	"2006-01-02T15:04",
	"2006-01-02 15:04:05",
	"2006-01-02 15:04",
}

const onceAtForms = "want a duration (30s, 5m, 2h, 1d, 500ms), an RFC 3339 time with an offset, " +
	"or a local time YYYY-MM-DD[T| ]HH:MM[:SS]"

// ParseOnceAt resolves the --once-at text of a loop to its instant, trying in order
// (docs/loops.md §4), after trimming surrounding whitespace:
//
//  1. a duration in orcr's grammar ([config.ParseDuration]: a positive integer and one
//     of ms, s, m, h, d) → now plus the duration;
//  2. an RFC 3339 time with an offset (`Z` or `±hh:mm`, fractional seconds allowed) →
//     that instant;
//  3. a local wall-clock time `YYYY-MM-DDTHH:MM:SS`, `YYYY-MM-DDTHH:MM`,
//     `YYYY-MM-DD HH:MM:SS` or `YYYY-MM-DD HH:MM` in loc (nil means UTC), accepted only
//     when it names exactly one instant there: a time inside a spring-forward gap does
//     not exist and one inside a fall-back fold exists twice, and both are refused.
//
// An instant in the past is accepted: such a loop fires at the scheduler's next tick.
// Anything else is an invalid_request with reason [wire.ReasonInvalidOnceAt], details
// {reason, value} (value as given); the message says why. The result is in loc.
func ParseOnceAt(text string, now time.Time, loc *time.Location) (time.Time, error) {
	if loc == nil {
		loc = time.UTC
	}
	s := strings.TrimSpace(text)
	d, derr := config.ParseDuration(s)
	if derr == nil {
		return now.Add(d).In(loc), nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil && rfc3339Shaped(s) {
		return t.In(loc), nil
	}
	for _, layout := range localLayouts {
		w, err := time.ParseInLocation(layout, s, time.UTC)
		if err != nil || len(s) != len(layout) { // fixed-width fields: 9:30 is not HH:MM
			continue
		}
		return local(text, w, loc)
	}
	why := onceAtForms
	var de *config.DurationError
	if durationShaped(s) && errors.As(derr, &de) {
		why = "not a valid duration: " + de.Reason + "; " + onceAtForms
	}
	return time.Time{}, onceAtError(text, why)
}

// local resolves the wall-clock fields of w (parsed as UTC) in loc.
func local(text string, w time.Time, loc *time.Location) (time.Time, error) {
	y, mo, d := w.Date()
	h, mi, s := w.Clock()
	t, ok := earliest(y, mo, d, h, mi, s, loc)
	switch {
	case !ok:
		return time.Time{}, onceAtError(text, fmt.Sprintf(
			"%s does not exist in %s (the clocks skip it when daylight saving starts); give an offset or another time",
			w.Format(time.DateTime), loc))
	case repeated(t):
		return time.Time{}, onceAtError(text, fmt.Sprintf(
			"%s happens twice in %s (the clocks repeat it when daylight saving ends); give an offset to choose one",
			w.Format(time.DateTime), loc))
	}
	return t, nil
}

func onceAtError(text, why string) error {
	return wire.Invalid(wire.ReasonInvalidOnceAt, fmt.Sprintf("invalid --once-at %q: %s", text, why), "value", text)
}

// durationShaped reports whether s looks like an attempt at a duration (a digit first,
// no date or time punctuation), so the duration's own complaint is the useful one.
func durationShaped(s string) bool {
	return s != "" && (s[0] >= '0' && s[0] <= '9' || s[0] == '-' || s[0] == '+') &&
		!strings.ContainsAny(s, ":T ") && strings.Count(s, "-") <= 1
}

// rfc3339Shaped checks what time.Parse leaves loose in RFC 3339: two-digit fields (it
// takes a one-digit hour) and an offset of Z or ±hh:mm after optional fractional seconds.
func rfc3339Shaped(s string) bool {
	const head = "dddd-dd-ddTdd:dd:dd"
	if len(s) <= len(head) || !shaped(s[:len(head)], head) {
		return false
	}
	rest := s[len(head):]
	if rest[0] == '.' {
		n := 1
		for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
			n++
		}
		if n == 1 {
			return false
		}
		rest = rest[n:]
	}
	return rest == "Z" || len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && shaped(rest[1:], "dd:dd")
}

// shaped reports whether s has the shape of pattern, where 'd' is any ASCII digit and
// every other byte stands for itself.
func shaped(s, pattern string) bool {
	if len(s) != len(pattern) {
		return false
	}
	for i := range len(s) {
		if p := pattern[i]; p == 'd' && (s[i] < '0' || s[i] > '9') || p != 'd' && s[i] != p {
			return false
		}
	}
	return true
}
