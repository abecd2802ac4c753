package config

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// DurationError reports why a duration string was rejected by [ParseDuration]. It
// carries no protocol code: config wraps it as `timings.<key>: <Error()>` with cause
// config_invalid, and the socket handlers turn it into invalid_request reason
// bad_duration with details {reason, value} (Value is the original, untrimmed text).
type DurationError struct {
	// Value is the string as given, before trimming.
	Value string
	// Reason is a short human explanation, e.g. "missing unit".
	Reason string
}

// Error returns `invalid duration "<value>": <reason> (want <positive integer><ms|s|m|h|d>)`.
func (e *DurationError) Error() string {
	return fmt.Sprintf("invalid duration %q: %s (want <positive integer><ms|s|m|h|d>, e.g. 30s)", e.Value, e.Reason)
}

// durationUnits maps each accepted unit to its length. "ms" must be tried before "m".
var durationUnits = map[string]time.Duration{
	"ms": time.Millisecond,
	"s":  time.Second,
	"m":  time.Minute,
	"h":  time.Hour,
	"d":  24 * time.Hour,
}

// ParseDuration parses orcr's duration grammar: `<positive integer><unit>` with unit one
// of ms, s, m (minutes), h, d (24 hours), after trimming surrounding whitespace. Zero, a
// missing number or unit, a sign, an unknown or upper-case unit, decimals, inner
// whitespace and compound forms such as "1h30m" are rejected, as is a value that does not
// fit in a [time.Duration]. Leading zeros in the number are accepted ("05s" is 5s).
//
// A rejection is always a *[DurationError]; its text is meant to be shown to users and
// reused verbatim by callers (config timings and the protocol's `timeout` params).
func ParseDuration(s string) (time.Duration, error) {
	t := strings.TrimSpace(s)
	fail := func(reason string) (time.Duration, error) {
		return 0, &DurationError{Value: s, Reason: reason}
	}
	if t == "" {
		return fail("empty")
	}
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	num, unit := t[:i], t[i:]
	if num == "" {
		switch t[0] {
		case '+', '-':
			return fail("a sign is not allowed")
		case '.':
			return fail("decimals are not allowed")
		}
		return fail("must start with a positive integer")
	}
	if unit == "" {
		return fail("missing unit")
	}
	if unit[0] == '.' || unit[0] == ',' {
		return fail("decimals are not allowed")
	}
	per, ok := durationUnits[unit]
	if !ok {
		if isCompound(unit) {
			return fail("compound durations are not allowed")
		}
		return fail(fmt.Sprintf("unknown unit %q", unit))
	}
	n, err := strconv.ParseUint(num, 10, 64)
	if err != nil {
		return fail("too large")
	}
	if n == 0 {
		return fail("must be greater than zero")
	}
	if n > uint64(math.MaxInt64/int64(per)) {
		return fail("too large")
	}
	return time.Duration(n) * per, nil
}

// isCompound reports whether rest (what follows the leading number) starts with a valid
// unit that is followed by more digits, as in the "h30m" of "1h30m".
func isCompound(rest string) bool {
	for u := range durationUnits {
		if after, ok := strings.CutPrefix(rest, u); ok && after != "" && after[0] >= '0' && after[0] <= '9' {
			return true
		}
	}
	return false
}
