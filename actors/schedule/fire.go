package schedule

import (
	"fmt"
	"time"
)

// The decisions the loop actor takes about a loop's next_fire_at (docs/loops.md §5.3).
// They read no clock and write nothing: the actor passes the stored instants and now,
// then performs the returned step (events, run allocation, row update) in one
// transaction.

// MissedAfter is how overdue an occurrence may be when the scheduler tick sees it and
// still fire (docs/loops.md §5.3, L5). A tick that comes later than this — the server was
// suspended with the machine, or stalled — treats the occurrence as missed rather than
// firing it late.
const MissedAfter = 60 * time.Second

// Reasons of the loop.skipped events the rules ask for.
const (
	SkipMissed            = "missed"              // seen by the tick more than MissedAfter late (L5)
	SkipMissedWhilePaused = "missed_while_paused" // a once loop's instant passed while it was paused (L2)
	SkipMissedWhileDown   = "missed_while_down"   // the occurrence passed while no server ran
	SkipBudget            = "budget"              // a budget on the loop or the fleet is spent (docs/usage.md §7.3)
)

// Decision is what the scheduler tick does with an active loop.
type Decision int

const (
	// NotYet: the occurrence is still ahead, or the loop has none; nothing happens.
	NotYet Decision = iota
	// Fire: allocate a scheduled run with due_at = the occurrence, then apply
	// [Schedule.Advance].
	Fire
	// Missed: start nothing; emit loop.skipped {reason: [SkipMissed], due_at} and apply
	// [Schedule.Advance].
	Missed
)

func (d Decision) String() string {
	switch d {
	case NotYet:
		return "not_yet"
	case Fire:
		return "fire"
	case Missed:
		return "missed"
	}
	return fmt.Sprintf("Decision(%d)", int(d))
}

// Due decides the tick's action for an active loop whose next_fire_at is next (zero: no
// next fire): NotYet while now is before next, Fire when next is at most [MissedAfter]
// before now (exactly MissedAfter late still fires), Missed when it is later than that.
func Due(next, now time.Time) Decision {
	switch {
	case next.IsZero() || now.Before(next):
		return NotYet
	case now.Sub(next) > MissedAfter:
		return Missed
	}
	return Fire
}

// Schedule is a loop's cadence as the rules need it: a cron expression evaluated in Loc,
// or, with Cron nil, a once loop.
type Schedule struct {
	Cron *Cron
	Loc  *time.Location
}

// Step is a change to a loop's schedule decided by a rule.
type Step struct {
	// Next is the new next_fire_at; zero means none: the loop ended, or a cron has no
	// occurrence within [SearchDays] (it stays active and never fires).
	Next time.Time
	// End: a once loop is over — status ended, ended_reason fired, event loop.ended.
	End bool
	// Skip, when set, is the reason of a loop.skipped event to emit whose due_at is the
	// occurrence the rule dropped (the old next_fire_at).
	Skip string
}

// Start is a new loop's first next_fire_at, at loop.create (docs/loops.md §5.3): a cron
// loop's first occurrence after now; a once loop's instant at (from [ParseOnceAt]), or now
// when at is already past, so that the next tick fires it instead of judging it
// [Missed] — [MissedAfter] is about ticks that come late, not instants given in the past.
// at is ignored for a cron loop.
func (s Schedule) Start(now, at time.Time) Step {
	switch {
	case s.Cron != nil:
		return s.after(now)
	case at.Before(now):
		return Step{Next: now}
	}
	return Step{Next: at}
}

// Advance is the schedule step applied after a scheduled fire, a skip at capacity or a
// missed occurrence (docs/loops.md §5.3): a cron loop's next occurrence after now (not
// after the occurrence that fired, so occurrences between are dropped), or the end of
// a once loop.
func (s Schedule) Advance(now time.Time) Step {
	if s.Cron == nil {
		return Step{End: true}
	}
	return s.after(now)
}

// Resume is the step of loop.resume for a loop whose next_fire_at is next
// (docs/loops.md §5.3): a cron loop starts again from now, dropping silently what it
// missed while paused; a once loop whose instant passed while paused does not fire
// late but ends, with a loop.skipped [SkipMissedWhilePaused] (L2); one whose instant is
// now or ahead keeps it.
func (s Schedule) Resume(next, now time.Time) Step {
	switch {
	case s.Cron != nil:
		return s.after(now)
	case !next.IsZero() && next.Before(now):
		return Step{End: true, Skip: SkipMissedWhilePaused}
	}
	return Step{Next: next}
}

// Recover is the step of server start for an active or paused loop whose next_fire_at
// is next, given the instant started at which this server started (docs/loops.md §5.3):
// an occurrence before started passed while no server ran, so it is skipped with
// [SkipMissedWhileDown] (once, for the first missed occurrence only) and a cron loop
// advances to its first occurrence at or after started — a once loop ends without ever
// running. An occurrence at or after started came while this server ran, recovering: it
// is kept, and the tick judges it like any other ([Due]). A loop with no next fire keeps
// it. The rule reads the server's start, never the moment recovery reaches the loop,
// which comes after the runs' clean-up (agents' shutdown graces) and may be seconds
// later.
func (s Schedule) Recover(next, started time.Time) Step {
	if next.IsZero() || !next.Before(started) {
		return Step{Next: next}
	}
	st := s.Advance(started.Add(-time.Nanosecond)) // Advance is strictly after its instant
	st.Skip = SkipMissedWhileDown
	return st
}

func (s Schedule) after(now time.Time) Step {
	t, ok := s.Cron.Next(now, s.Loc)
	if !ok {
		return Step{}
	}
	return Step{Next: t}
}
