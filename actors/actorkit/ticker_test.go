package actorkit

import (
	"testing"
	"time"
)

// Slow ticks fall on the idle beat (docs/lifecycle.md §13.7): on a multiple of the beat,
// within half a beat of their period, so that ticks armed at different moments wake
// the server together; shorter ones are not moved.
func TestOnBeat(t *testing.T) {
	beat := 2 * time.Second
	at := func(ms int64) time.Time { return time.Unix(1_800_000_000, 0).Add(time.Duration(ms) * time.Millisecond) }
	for _, c := range []struct {
		name string
		now  int64 // ms past an even second
		d    time.Duration
		want time.Duration
	}{
		{"just after a beat, a beat's period: the next beat", 4, beat, beat - 4*time.Millisecond},
		{"half a beat in: the next beat", 1000, beat, 1 * time.Second},
		{"just past half a beat: the beat after", 1001, beat, 2999 * time.Millisecond},
		{"on a beat exactly: the next one", 0, beat, beat},
		{"a 4 s period just after a beat", 10, 4 * time.Second, 3990 * time.Millisecond},
		{"30 s just after a beat", 50, 30 * time.Second, 29950 * time.Millisecond},
		{"30 s in the middle", 1500, 30 * time.Second, 30500 * time.Millisecond},
		{"a fast pace is not moved", 300, 200 * time.Millisecond, 200 * time.Millisecond},
		{"a test's short idle tick is not moved", 300, 50 * time.Millisecond, 50 * time.Millisecond},
	} {
		now := at(c.now)
		got := OnBeat(now, c.d, beat)
		if got != c.want {
			t.Errorf("%s: OnBeat(+%d ms, %v) = %v, want %v", c.name, c.now, c.d, got, c.want)
		}
		if c.d >= beat {
			if fire := now.Add(got); fire.UnixNano()%int64(beat) != 0 {
				t.Errorf("%s: fires at %v, not on a beat", c.name, fire)
			}
			if got < c.d-beat/2 || got > c.d+beat/2 {
				t.Errorf("%s: %v is not within half a beat of %v", c.name, got, c.d)
			}
		}
	}
	// Two ticks of the same period armed at different moments of one beat fire together.
	a, b := at(100), at(900)
	if fa, fb := a.Add(OnBeat(a, beat, beat)), b.Add(OnBeat(b, beat, beat)); !fa.Equal(fb) {
		t.Errorf("ticks armed at +0.1 s and +0.9 s fire at %v and %v", fa, fb)
	}
}
