package schedule

import (
	"fmt"
	"strings"
	"time"

	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// Cron is a parsed five-field cron expression (docs/loops.md §3). It is immutable and
// safe for concurrent use.
type Cron struct {
	text string

	// One bit per allowed value: minute 0–59, hour 0–23, dom 1–31, month 1–12,
	// dow 0–6 (a 7 in the text is stored as 0, Sunday).
	minute, hour, dom, month, dow uint64

	// anyDom and anyDow record a field written as the literal `*`. Only then is the
	// field unrestricted for the day rule: `*/1` or `*,1` select every day too but
	// count as restricted.
	anyDom, anyDow bool
}

// field describes one of the five positions.
type field struct {
	name     string
	min, max int
}

var fields = [5]field{
	{"minute", 0, 59},
	{"hour", 0, 23},
	{"day-of-month", 1, 31},
	{"month", 1, 12},
	{"day-of-week", 0, 7},
}

// ParseCron parses exactly the grammar of docs/loops.md §3: five whitespace-separated
// fields (minute, hour, day-of-month, month, day-of-week); each a comma list of terms
// `*`, `N` or `A-B` (A ≤ B), each optionally followed by `/S` (S ≥ 1). `*/S` and `A-B/S`
// step from the low end of their range, and `N/S` means `N-max/S`. A step larger than
// its range selects only the low end. In the day-of-week field both 0 and 7 are Sunday.
// Numbers are decimal digits only (leading zeros allowed; no sign). Names, `?`, `L`,
// `W`, `#`, `@` macros, a seconds or year field and a time-zone prefix are refused.
//
// Every error is an invalid_request with reason [wire.ReasonInvalidCron], details {reason,
// value} plus field (the field's name) when one field is at fault; the message names
// the field.
func ParseCron(expr string) (*Cron, error) {
	parts := strings.Fields(expr)
	if len(parts) != len(fields) {
		return nil, cronCountError(expr, parts)
	}
	c := &Cron{text: expr}
	masks := [5]*uint64{&c.minute, &c.hour, &c.dom, &c.month, &c.dow}
	for i, f := range fields {
		bits, err := f.parse(parts[i])
		if err != nil {
			return nil, wire.Invalid(wire.ReasonInvalidCron,
				fmt.Sprintf("invalid cron %q: %s field: %s", expr, f.name, err),
				"value", expr, "field", f.name)
		}
		*masks[i] = bits
	}
	if c.dow&(1<<7) != 0 {
		c.dow = c.dow&^(1<<7) | 1
	}
	c.anyDom, c.anyDow = parts[2] == "*", parts[4] == "*"
	return c, nil
}

func cronCountError(expr string, parts []string) error {
	msg := fmt.Sprintf("want 5 fields (minute hour day-of-month month day-of-week), got %d", len(parts))
	switch {
	case len(parts) > 0 && strings.HasPrefix(parts[0], "@"):
		msg = "macros such as @daily are not supported; " + msg
	case len(parts) > 0 && strings.Contains(parts[0], "="):
		msg = "a time-zone prefix is not supported (loops run in the server's zone); " + msg
	case len(parts) > 5:
		msg += "; seconds and year fields are not supported"
	}
	return wire.Invalid(wire.ReasonInvalidCron, fmt.Sprintf("invalid cron %q: %s", expr, msg), "value", expr)
}

// parse returns the bits a field's text selects, or an error naming what is wrong
// (without the field's name, which the caller adds).
func (f field) parse(text string) (uint64, error) {
	var bits uint64
	for _, term := range strings.Split(text, ",") {
		if term == "" {
			return 0, fmt.Errorf("empty item in the list %q", text)
		}
		b, err := f.term(term)
		if err != nil {
			return 0, err
		}
		bits |= b
	}
	return bits, nil
}

// term parses `*`, `N` or `A-B`, each with an optional `/S`.
func (f field) term(term string) (uint64, error) {
	base, stepText, stepped := strings.Cut(term, "/")
	step := 1
	if stepped {
		n, ok := number(stepText)
		switch {
		case !ok:
			return 0, fmt.Errorf("step %q in %q is not a positive integer", stepText, term)
		case n == 0:
			return 0, fmt.Errorf("step 0 in %q: a step must be at least 1", term)
		}
		step = n
	}
	lo, hi := f.min, f.max
	if base != "*" {
		a, b, isRange := strings.Cut(base, "-")
		var err error
		if lo, err = f.value(a, term); err != nil {
			return 0, err
		}
		hi = lo
		switch {
		case isRange:
			if hi, err = f.value(b, term); err != nil {
				return 0, err
			}
			if lo > hi {
				return 0, fmt.Errorf("range %q runs backwards (start %d is after end %d)", base, lo, hi)
			}
		case stepped:
			hi = f.max // N/S reads as N-max/S (docs/loops.md §3, L3)
		}
	}
	var bits uint64
	for v := lo; v <= hi; v += step {
		bits |= 1 << v
	}
	return bits, nil
}

// value parses one number of a term and checks it against the field's range.
func (f field) value(s, term string) (int, error) {
	where := ""
	if s != term {
		where = fmt.Sprintf(" in %q", term)
	}
	n, ok := number(s)
	if !ok {
		return 0, fmt.Errorf("%q%s is not a number%s", s, where, unsupportedHint(s))
	}
	if n < f.min || n > f.max {
		return 0, fmt.Errorf("%s%s is out of range %d-%d", s, where, f.min, f.max)
	}
	return n, nil
}

// unsupportedHint explains a non-number that is a known extension of other crons.
func unsupportedHint(s string) string {
	switch {
	case s == "":
		return ""
	case s == "?" || strings.ContainsAny(s, "#LW"):
		return " (?, L, W and # are not supported)"
	case isLetters(s):
		return " (month and weekday names are not supported)"
	}
	return ""
}

func isLetters(s string) bool {
	for _, r := range s {
		if (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') {
			return false
		}
	}
	return true
}

// number parses a non-empty run of ASCII digits. Values saturate at 1000, which is
// above every field's range and every step that still selects more than the low end.
func number(s string) (int, bool) {
	if s == "" {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = min(n*10+int(c-'0'), 1000)
	}
	return n, true
}

// String returns the expression as it was given to [ParseCron].
func (c *Cron) String() string { return c.text }

// Match reports whether the wall-clock fields of t, read in t's own location, match the
// expression (seconds are ignored). It says nothing about daylight-saving gaps and folds;
// [Cron.Next] applies those.
func (c *Cron) Match(t time.Time) bool {
	_, mo, d := t.Date()
	h, mi, _ := t.Clock()
	return c.minute&(1<<mi) != 0 && c.hour&(1<<h) != 0 && c.month&(1<<mo) != 0 &&
		c.dayMatch(d, t.Weekday())
}

// dayMatch is the day rule of docs/loops.md §3: when both day fields are restricted a day
// matches if either does; otherwise both must (the literal `*` matches every day).
func (c *Cron) dayMatch(d int, wd time.Weekday) bool {
	domOK, dowOK := c.dom&(1<<d) != 0, c.dow&(1<<wd) != 0
	if !c.anyDom && !c.anyDow {
		return domOK || dowOK
	}
	return domOK && dowOK
}
