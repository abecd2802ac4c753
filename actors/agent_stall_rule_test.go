package actors

import (
	"slices"
	"testing"
	"time"

	"github.com/orcr-go/orcr/store"
)

func TestDecideStall(t *testing.T) {
	const after = 2 * time.Second
	ms := after.Milliseconds()
	working := stallFacts{Status: store.StatusWorking, Managed: true, OpenSeq: 4, ProgressAt: tDelivered}
	with := func(f stallFacts, edit func(*stallFacts)) stallFacts {
		edit(&f)
		return f
	}
	stalled := with(working, func(f *stallFacts) { f.StalledAt = tDelivered + ms })

	tests := []struct {
		name  string
		facts stallFacts
		now   int64
		after time.Duration
		want  stallStep
	}{
		{"working, progress recent: probe on", working, tDelivered + ms - 1, after, stallStep{Probe: true}},
		{"working, no progress for exactly stall_after: mark", working, tDelivered + ms, after, stallStep{Action: stallMark, Probe: true}},
		{"working, no progress for longer: mark", working, tDelivered + 10*ms, after, stallStep{Action: stallMark, Probe: true}},
		{"stalled, no progress since: stays", stalled, tDelivered + 10*ms, after, stallStep{Probe: true}},
		{"stalled, progress at the mark itself: stays", with(stalled, func(f *stallFacts) { f.ProgressAt = f.StalledAt }),
			tDelivered + 10*ms, after, stallStep{Probe: true}},
		{"stalled, progress after the mark: clear", with(stalled, func(f *stallFacts) { f.ProgressAt = f.StalledAt + 1 }),
			tDelivered + 10*ms, after, stallStep{Action: stallClear, Reason: store.StallClearedProgress, Probe: true}},
		{"idle: not watched", with(working, func(f *stallFacts) { f.Status = store.StatusIdle }), tDelivered + 10*ms, after, stallStep{}},
		{"blocked: not watched (a human is asked)", with(working, func(f *stallFacts) { f.Status = store.StatusBlocked }),
			tDelivered + 10*ms, after, stallStep{}},
		{"working without an open turn: not watched", with(working, func(f *stallFacts) { f.OpenSeq = 0 }), tDelivered + 10*ms, after, stallStep{}},
		{"unmanaged: not watched", with(working, func(f *stallFacts) { f.Managed = false }), tDelivered + 10*ms, after, stallStep{}},
		{"stall_after 0: off", working, tDelivered + 10*ms, 0, stallStep{}},
		{"stall_after 0 with a mark left: clear", stalled, tDelivered + 10*ms, 0,
			stallStep{Action: stallClear, Reason: store.StallClearedStatus}},
		{"stalled but idle now: clear", with(stalled, func(f *stallFacts) { f.Status = store.StatusIdle }), tDelivered + 10*ms, after,
			stallStep{Action: stallClear, Reason: store.StallClearedStatus}},
		{"a clock behind the progress: nothing", working, tDelivered - 5000, after, stallStep{Probe: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := decideStall(tt.facts, tt.now, tt.after)
			if got != tt.want {
				t.Errorf("decideStall(%+v, %d, %v): got %+v, want %+v", tt.facts, tt.now, tt.after, got, tt.want)
			}
			if again := decideStall(tt.facts, tt.now, tt.after); again != got {
				t.Errorf("decideStall is not deterministic: %+v then %+v", got, again)
			}
		})
	}
}

func TestFoldProgress(t *testing.T) {
	const seq = 4
	at := func(n int64) int64 { return tDelivered + n }
	obs := func(n int64, screen uint64, transcript int64) stallObservation {
		return stallObservation{At: at(n), Screen: screen, ScreenOK: true, TranscriptAt: transcript}
	}
	tests := []struct {
		name      string
		p         stallProgress
		o         stallObservation
		stalledAt int64
		want      stallProgress
	}{
		{"first screen of a turn is seen now", stallProgress{}, obs(100, 7, 0), 0,
			stallProgress{Turn: seq, Screen: 7, ScreenKnown: true, ScreenAt: at(100)}},
		{"first screen of a stalled row dates from the mark", stallProgress{}, obs(100, 7, 0), at(50),
			stallProgress{Turn: seq, Screen: 7, ScreenKnown: true, ScreenAt: at(50)}},
		{"same screen: unchanged", stallProgress{Turn: seq, Screen: 7, ScreenKnown: true, ScreenAt: at(100)}, obs(900, 7, 0), 0,
			stallProgress{Turn: seq, Screen: 7, ScreenKnown: true, ScreenAt: at(100)}},
		{"changed screen: progress now", stallProgress{Turn: seq, Screen: 7, ScreenKnown: true, ScreenAt: at(100)}, obs(900, 8, 0), 0,
			stallProgress{Turn: seq, Screen: 8, ScreenKnown: true, ScreenAt: at(900)}},
		{"unread screen keeps the last one", stallProgress{Turn: seq, Screen: 7, ScreenKnown: true, ScreenAt: at(100)},
			stallObservation{At: at(900)}, 0, stallProgress{Turn: seq, Screen: 7, ScreenKnown: true, ScreenAt: at(100)}},
		{"transcript written later: progress at its write", stallProgress{Turn: seq, TranscriptAt: at(10)}, obs(900, 7, at(800)), 0,
			stallProgress{Turn: seq, Screen: 7, ScreenKnown: true, ScreenAt: at(900), TranscriptAt: at(800)}},
		{"transcript older than remembered: kept", stallProgress{Turn: seq, TranscriptAt: at(800)},
			stallObservation{At: at(900), TranscriptAt: at(10)}, 0, stallProgress{Turn: seq, TranscriptAt: at(800)}},
		{"another turn starts afresh", stallProgress{Turn: seq - 1, Screen: 7, ScreenKnown: true, ScreenAt: at(1), ReportAt: at(2)},
			obs(900, 7, 0), 0, stallProgress{Turn: seq, Screen: 7, ScreenKnown: true, ScreenAt: at(900)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := foldProgress(tt.p, seq, tt.o, tt.stalledAt); got != tt.want {
				t.Errorf("foldProgress(%+v, %d, %+v, %d): got %+v, want %+v", tt.p, seq, tt.o, tt.stalledAt, got, tt.want)
			}
		})
	}
}

// TestStallClock runs the probe loop against a fake clock: a turn whose screen never
// changes is marked after stall_after (within one probe), a screen change clears the
// mark, and a frozen screen marks it again.
func TestStallClock(t *testing.T) {
	const after = 2 * time.Second
	every := stallProbeEvery(after).Milliseconds()
	st := store.Agent{Status: store.StatusWorking, Managed: true, Turn: store.Turn{Seq: 1, DeliveredAt: tDelivered},
		StatusChangedAt: tDelivered}
	var p stallProgress
	screen := uint64(1)
	var marks, clears []int64
	for now := tDelivered; now <= tDelivered+10_000; now += every {
		if now == tDelivered+5000 {
			screen = 2 // the agent draws something new
		}
		p = foldProgress(p, st.Turn.Seq, stallObservation{At: now, Screen: screen, ScreenOK: true}, st.StalledAt)
		step := decideStall(stallFacts{Status: st.Status, Managed: st.Managed, OpenSeq: st.Turn.Seq, StalledAt: st.StalledAt,
			ProgressAt: progressAt(st, p)}, now, after)
		switch step.Action {
		case stallMark:
			st.StalledAt = now
			marks = append(marks, now-tDelivered)
		case stallClear:
			st.StalledAt = 0
			clears = append(clears, now-tDelivered)
		}
		if !step.Probe {
			t.Fatalf("at +%d ms: the working turn is no longer probed", now-tDelivered)
		}
	}
	if want := []int64{2000, 7000}; !slices.Equal(marks, want) {
		t.Errorf("marks at %v ms, want %v", marks, want)
	}
	if want := []int64{5000}; !slices.Equal(clears, want) {
		t.Errorf("clears at %v ms, want %v", clears, want)
	}
}

func TestStallProbeEvery(t *testing.T) {
	for _, tt := range []struct{ after, want time.Duration }{
		{10 * time.Minute, 30 * time.Second},
		{2 * time.Minute, 30 * time.Second},
		{time.Minute, 15 * time.Second},
		{2 * time.Second, 500 * time.Millisecond},
		{time.Second, 250 * time.Millisecond},
		{0, 250 * time.Millisecond},
	} {
		if got := stallProbeEvery(tt.after); got != tt.want {
			t.Errorf("stallProbeEvery(%v): got %v, want %v", tt.after, got, tt.want)
		}
	}
}

func TestScreenDigest(t *testing.T) {
	same := [][2]string{
		{"✻ Thinking… (12s · esc to interrupt)", "✶ Thinking… (13s · esc to interrupt)"},
		{"[working] 1.2 kB", "[working] 9.9 kB"},
		// claude's spinner: one of its frames is ASCII.
		{"* Misting…\n  esc to interrupt", "✶ Misting…\n  esc to interrupt"},
		{"a b", "a  b"},
	}
	for _, p := range same {
		if screenDigest(p[0]) != screenDigest(p[1]) {
			t.Errorf("screenDigest(%q) != screenDigest(%q): a counter or spinner alone must not be progress", p[0], p[1])
		}
	}
	differ := [][2]string{
		{"> fix the bug", "> fix the bug\nRead file.go"},
		{"Grüße", "Grüßen"},
		{"esc to interrupt", "esc to"},
	}
	for _, p := range differ {
		if screenDigest(p[0]) == screenDigest(p[1]) {
			t.Errorf("screenDigest(%q) == screenDigest(%q): new text must be progress", p[0], p[1])
		}
	}
}
