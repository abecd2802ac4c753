package schedule_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/orcr-go/orcr/actors/schedule"
)

func TestDue(t *testing.T) {
	next := instant(t, "2026-05-04T10:00:00Z")
	tests := []struct {
		name string
		next time.Time
		now  time.Time
		want schedule.Decision
	}{
		{"ahead", next, next.Add(-time.Millisecond), schedule.NotYet},
		{"no next fire", time.Time{}, next, schedule.NotYet},
		{"on time", next, next, schedule.Fire},
		{"a tick late", next, next.Add(time.Second), schedule.Fire},
		{"exactly the threshold late", next, next.Add(schedule.MissedAfter), schedule.Fire},
		{"just past the threshold (L5)", next, next.Add(schedule.MissedAfter + time.Millisecond), schedule.Missed},
		{"hours late (suspended)", next, next.Add(5 * time.Hour), schedule.Missed},
	}
	for _, tt := range tests {
		if got := schedule.Due(tt.next, tt.now); got != tt.want {
			t.Errorf("%s: Due(%v, %v) = %v, want %v", tt.name, tt.next, tt.now, got, tt.want)
		}
	}
	if schedule.MissedAfter != 60*time.Second {
		t.Errorf("MissedAfter = %v, want 60s (docs/loops.md §5.3)", schedule.MissedAfter)
	}
}

func TestScheduleSteps(t *testing.T) {
	ny := mustZone(t, "America/New_York")
	hourly := schedule.Schedule{Cron: mustCron(t, "0 * * * *"), Loc: ny}
	never := schedule.Schedule{Cron: mustCron(t, "0 0 30 2 *"), Loc: ny}
	once := schedule.Schedule{Loc: ny}
	now := instant(t, "2026-05-04T10:20:00-04:00")
	past, ahead := now.Add(-3*time.Hour), now.Add(3*time.Hour)
	nextHour := instant(t, "2026-05-04T11:00:00-04:00")
	step := func(next time.Time) schedule.Step { return schedule.Step{Next: next} }

	tests := []struct {
		name string
		got  schedule.Step
		want schedule.Step
	}{
		// Creation: a once instant already past fires at the next tick, not missed.
		{"start cron", hourly.Start(now, time.Time{}), step(nextHour)},
		{"start cron with no occurrence", never.Start(now, time.Time{}), schedule.Step{}},
		{"start once ahead", once.Start(now, ahead), step(ahead)},
		{"start once in the past", once.Start(now, past), step(now)},
		// After a fire, a skip at capacity or a missed occurrence: from now, not from the
		// occurrence, so what lies between is dropped.
		{"advance cron", hourly.Advance(now), step(nextHour)},
		{"advance cron with no occurrence", never.Advance(now), schedule.Step{}},
		{"advance once ends it", once.Advance(now), schedule.Step{End: true}},
		// Resume: a cron restarts from now silently; a once loop past its instant ends (L2).
		{"resume cron, missed while paused", hourly.Resume(past, now), step(nextHour)},
		{"resume cron, ahead", hourly.Resume(ahead, now), step(nextHour)},
		{"resume once, passed while paused", once.Resume(past, now),
			schedule.Step{End: true, Skip: schedule.SkipMissedWhilePaused}},
		{"resume once, ahead", once.Resume(ahead, now), step(ahead)},
		{"resume once, exactly now", once.Resume(now, now), step(now)},
		// Server start (started): an occurrence before the server started passed while
		// nothing ran; one at or after it came while this server ran, recovering, and is
		// kept for the tick, however late recovery reaches the loop.
		{"recover cron, missed", hourly.Recover(past, now),
			schedule.Step{Next: nextHour, Skip: schedule.SkipMissedWhileDown}},
		{"recover cron, missed just before the start", hourly.Recover(now.Add(-time.Millisecond), now),
			schedule.Step{Next: nextHour, Skip: schedule.SkipMissedWhileDown}},
		{"recover cron, due exactly at the start", hourly.Recover(now, now), step(now)},
		{"recover cron, due while recovering", hourly.Recover(now.Add(700*time.Millisecond), now),
			step(now.Add(700 * time.Millisecond))},
		{"recover cron, missed, started 0.7 s before an occurrence", hourly.Recover(past, nextHour.Add(-700*time.Millisecond)),
			schedule.Step{Next: nextHour, Skip: schedule.SkipMissedWhileDown}},
		{"recover cron, missed, started on an occurrence", hourly.Recover(past, nextHour),
			schedule.Step{Next: nextHour, Skip: schedule.SkipMissedWhileDown}},
		{"recover cron, ahead", hourly.Recover(ahead, now), step(ahead)},
		{"recover cron, no next fire", never.Recover(time.Time{}, now), schedule.Step{}},
		{"recover once, missed", once.Recover(past, now),
			schedule.Step{End: true, Skip: schedule.SkipMissedWhileDown}},
		{"recover once, due while recovering", once.Recover(now.Add(time.Second), now), step(now.Add(time.Second))},
		{"recover once, ahead", once.Recover(ahead, now), step(ahead)},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, tt.got, cmp.Comparer(time.Time.Equal)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

// A once loop created with a past instant fires at the first tick after creation.
func TestStartPastOnceFires(t *testing.T) {
	now := instant(t, "2026-05-04T10:20:00Z")
	at, err := schedule.ParseOnceAt("2020-01-01 00:00", now, time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	next := schedule.Schedule{}.Start(now, at).Next
	if got := schedule.Due(next, now.Add(time.Second)); got != schedule.Fire {
		t.Fatalf("Due at the first tick after creating a once loop in the past: got %v, want fire", got)
	}
}

func TestDecisionString(t *testing.T) {
	for d, want := range map[schedule.Decision]string{
		schedule.NotYet: "not_yet", schedule.Fire: "fire", schedule.Missed: "missed", 7: "Decision(7)",
	} {
		if got := d.String(); got != want {
			t.Errorf("Decision(%d).String() = %q, want %q", int(d), got, want)
		}
	}
}
