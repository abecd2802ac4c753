package schedule

import (
	"math/bits"
	"time"
)

// SearchDays bounds [Cron.Next]: it looks at the day of the instant it starts from and
// the 4 × 366 days after it (docs/loops.md §5.2). Every expression that can match at all
// matches within that span, except a 29 February across a century year that is not a
// leap year (2100).
const SearchDays = 4 * 366

// Next returns the first occurrence of c strictly after after, evaluated on the wall
// clock of loc (nil means UTC), and false when there is none within [SearchDays]
// (docs/loops.md §5.2):
//
//   - Candidates are the local wall-clock minutes from the one after after's, in order,
//     whose fields match.
//   - A candidate that does not exist in loc (a spring-forward gap) is skipped: `30 2 * * *`
//     does not fire on a day whose clocks jump from 02:00 to 03:00.
//   - A candidate that exists twice (a fall-back fold) stands for its earlier instant only;
//     its second occurrence is skipped, so `30 1 * * *` fires once on the day clocks go
//     back from 02:00 to 01:00, at the first 01:30 (docs/loops.md L4).
//   - The result is always strictly after after: a candidate whose earlier instant is not
//     after after (after lies in the second pass of a fold) is skipped.
//
// The search skips whole months, days and hours that cannot match, so its cost does not
// grow with the distance to the next occurrence minute by minute. The result is in loc.
func (c *Cron) Next(after time.Time, loc *time.Location) (time.Time, bool) {
	if loc == nil {
		loc = time.UTC
	}
	a := after.In(loc)
	y, mo, d := a.Date()
	h, mi, _ := a.Clock()
	if mi++; mi == 60 {
		if mi, h = 0, h+1; h == 24 {
			h = 0
			y, mo, d = time.Date(y, mo, d+1, 0, 0, 0, 0, time.UTC).Date()
		}
	}
	for left := SearchDays; left >= 0; {
		dim := daysIn(y, mo)
		if c.month&(1<<mo) == 0 {
			left -= dim - d + 1
		} else {
			wd := time.Date(y, mo, d, 0, 0, 0, 0, time.UTC).Weekday()
			for ; d <= dim && left >= 0; d, left = d+1, left-1 {
				if c.dayMatch(d, wd) {
					if t, ok := c.inDay(y, mo, d, h, mi, after, loc); ok {
						return t, true
					}
				}
				h, mi = 0, 0
				wd = (wd + 1) % 7
			}
		}
		d, h, mi = 1, 0, 0
		if mo++; mo > time.December {
			mo, y = time.January, y+1
		}
	}
	return time.Time{}, false
}

// inDay returns the first occurrence on the local day y-mo-d at or after h:mi whose
// instant is after after.
func (c *Cron) inDay(y int, mo time.Month, d, h, mi int, after time.Time, loc *time.Location) (time.Time, bool) {
	for hh := nextBit(c.hour, h); hh < 24; hh = nextBit(c.hour, hh+1) {
		if hh != h {
			mi = 0
		}
		for mm := nextBit(c.minute, mi); mm < 60; mm = nextBit(c.minute, mm+1) {
			if t, ok := earliest(y, mo, d, hh, mm, 0, loc); ok && t.After(after) {
				return t, true
			}
		}
	}
	return time.Time{}, false
}

// nextBit returns the lowest set bit of mask at or above from, or 64.
func nextBit(mask uint64, from int) int {
	if from >= 64 {
		return 64
	}
	return bits.TrailingZeros64(mask &^ (1<<from - 1))
}

var monthDays = [13]int{0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}

func daysIn(y int, mo time.Month) int {
	if mo == time.February && y%4 == 0 && (y%100 != 0 || y%400 == 0) {
		return 29
	}
	return monthDays[mo]
}

// earliest returns the first instant whose wall clock in loc reads the given fields,
// and false when the wall time does not exist there (a spring-forward gap).
func earliest(y int, mo time.Month, d, h, mi, s int, loc *time.Location) (time.Time, bool) {
	t := time.Date(y, mo, d, h, mi, s, 0, loc)
	if yy, mm, dd := t.Date(); yy != y || mm != mo || dd != d {
		return time.Time{}, false
	}
	if hh, mn, ss := t.Clock(); hh != h || mn != mi || ss != s {
		return time.Time{}, false
	}
	// time.Date picks one of the instants of a repeated wall time, and not always the
	// first (it takes the later one east of Greenwich). An earlier one lies in an
	// earlier zone period whose offset is larger by the size of the fold.
	for range 2 {
		start, _ := t.ZoneBounds()
		if start.IsZero() {
			break
		}
		_, prev := start.Add(-time.Second).Zone()
		_, cur := t.Zone()
		if prev <= cur {
			break
		}
		e := t.Add(-time.Duration(prev-cur) * time.Second)
		if !e.Before(start) || !sameWall(e, t) {
			break
		}
		t = e
	}
	return t, true
}

// repeated reports whether the wall time of t, the earliest instant with that wall time,
// comes again later in t's location (t lies before a fall-back fold ends).
func repeated(t time.Time) bool {
	_, end := t.ZoneBounds()
	if end.IsZero() {
		return false
	}
	_, next := end.Zone()
	_, cur := t.Zone()
	if next >= cur {
		return false
	}
	l := t.Add(time.Duration(cur-next) * time.Second)
	return !l.Before(end) && sameWall(l, t)
}

func sameWall(a, b time.Time) bool {
	ay, am, ad := a.Date()
	by, bm, bd := b.Date()
	ah, ai, as := a.Clock()
	bh, bi, bs := b.Clock()
	return ay == by && am == bm && ad == bd && ah == bh && ai == bi && as == bs
}
