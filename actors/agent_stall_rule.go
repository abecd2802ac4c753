package actors

import (
	"hash/fnv"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/orcr-go/orcr/store"
)

// The stall rule of docs/lifecycle.md §10.7 as pure functions: [foldProgress] folds one
// observation of the pane (its screen digest, the transcript's write time) into what the
// agent actor remembers of the open turn's progress, and [decideStall] maps that, the
// row and the provider's stall_after to the next step. Neither does I/O nor reads a
// clock; the agent actor probes (an op), remembers and writes.

// Bounds of the stall probe's cadence ([stallProbeEvery]).
const (
	minStallProbe = 250 * time.Millisecond
	maxStallProbe = 30 * time.Second
)

// stallProbeEvery is how often a working agent's screen and transcript are probed for
// progress: a quarter of stall_after, between 250 ms and 30 s (30 s for the default
// 10 m), so a stall is marked at most a quarter of stall_after late and a working agent
// costs one pane.read per probe.
func stallProbeEvery(stallAfter time.Duration) time.Duration {
	return min(max(stallAfter/4, minStallProbe), maxStallProbe)
}

// stallProgress is what the agent actor remembers, in memory only, of the open turn's
// progress (a restart starts it again, docs/lifecycle.md §10.7).
type stallProgress struct {
	Turn         int64  // input_seq it belongs to; 0 = nothing remembered yet
	Screen       uint64 // digest of the screen last read
	ScreenKnown  bool
	ScreenAt     int64 // unix ms the screen was first seen as it is now
	TranscriptAt int64 // the transcript's last write (unix ms) as last probed; 0 = none
	ReportAt     int64 // unix ms herdr's view of the pane last changed (a StatusReport)
}

// stallObservation is one probe of the pane.
type stallObservation struct {
	At           int64  // unix ms of the probe
	Screen       uint64 // digest of the screen ([screenDigest])
	ScreenOK     bool   // the screen was read
	TranscriptAt int64  // the transcript's last write, unix ms; 0 = none found
}

// foldProgress returns p after observation o of turn seq. A screen digest that differs
// from the one remembered is progress at o.At; the first digest of a turn counts as
// seen at o.At too, except on a row already marked stalled (stalledAt ≠ 0, a mark that
// survived a restart): its first digest is dated at the mark, so only a screen that
// changes after it clears the mark. A transcript written later than remembered is
// progress at its write time.
func foldProgress(p stallProgress, seq int64, o stallObservation, stalledAt int64) stallProgress {
	if p.Turn != seq {
		p = stallProgress{Turn: seq}
	}
	if o.ScreenOK {
		switch {
		case !p.ScreenKnown:
			p.Screen, p.ScreenKnown, p.ScreenAt = o.Screen, true, o.At
			if stalledAt != 0 {
				p.ScreenAt = min(o.At, stalledAt)
			}
		case p.Screen != o.Screen:
			p.Screen, p.ScreenAt = o.Screen, o.At
		}
	}
	p.TranscriptAt = max(p.TranscriptAt, o.TranscriptAt)
	return p
}

// stallFacts is what the stall rule reads.
type stallFacts struct {
	Status     store.Status
	Managed    bool
	OpenSeq    int64 // input_seq of the open turn; 0 = none
	StalledAt  int64 // the row's stall mark; 0 = not stalled
	ProgressAt int64 // the latest evidence of progress ([progressAt])
}

// progressAt is the latest evidence that st's open turn moves: the turn's delivery, its
// first working report, the row's last status change, and what the actor remembers of
// p for this turn (the screen's last change, the transcript's last write, herdr's last
// changed report).
func progressAt(st store.Agent, p stallProgress) int64 {
	at := max(st.Turn.DeliveredAt, st.Turn.WorkingSeenAt, st.StatusChangedAt)
	if p.Turn == st.Turn.Seq && st.Turn.Seq != 0 {
		at = max(at, p.ScreenAt, p.TranscriptAt, p.ReportAt)
	}
	return at
}

// stallAction is what the caller does after [decideStall].
type stallAction int

const (
	stallNone  stallAction = iota // nothing to write
	stallMark                     // mark the open turn stalled (agent.stalled)
	stallClear                    // clear the mark (agent.stall_cleared)
)

func (a stallAction) String() string {
	switch a {
	case stallNone:
		return "none"
	case stallMark:
		return "mark"
	case stallClear:
		return "clear"
	}
	return "stallAction(?)"
}

// stallStep is the result of [decideStall].
type stallStep struct {
	Action stallAction
	Reason string // for stallClear: store.StallClearedProgress or store.StallClearedStatus
	// Probe is true while the turn is one the rule watches (a managed working row with
	// an open turn and stall_after > 0): the caller keeps probing it every
	// [stallProbeEvery].
	Probe bool
}

// decideStall is the stall rule of docs/lifecycle.md §10.7 at now (unix ms), with the
// provider's stall_after (0 = off):
//
//   - Only a managed working row with an open turn is watched. Any other row, or a
//     stall_after of 0, has its mark cleared (reason status) if it has one — the store
//     clears the mark with every status change already, so this only catches a mark a
//     configuration change left behind — and is otherwise left alone.
//   - A stalled row whose progress is later than its mark is cleared (reason progress);
//     a stalled row without it stays as it is.
//   - A row that is not stalled is marked once now − ProgressAt ≥ stall_after
//     (inclusive).
//
// Deciding twice on the same facts gives the same step.
func decideStall(f stallFacts, now int64, stallAfter time.Duration) stallStep {
	watched := f.Managed && f.Status == store.StatusWorking && f.OpenSeq != 0 && stallAfter > 0
	switch {
	case !watched && f.StalledAt != 0:
		return stallStep{Action: stallClear, Reason: store.StallClearedStatus}
	case !watched:
		return stallStep{}
	case f.StalledAt != 0 && f.ProgressAt > f.StalledAt:
		return stallStep{Action: stallClear, Reason: store.StallClearedProgress, Probe: true}
	case f.StalledAt == 0 && now-f.ProgressAt >= stallAfter.Milliseconds():
		return stallStep{Action: stallMark, Probe: true}
	}
	return stallStep{Probe: true}
}

// screenDigest is the FNV-1a hash of a screen's letters (of any script) alone: digits,
// punctuation, symbols and spacing are left out, so a TUI's elapsed-time counter or
// spinner alone is not progress — claude's spinner cycles through frames one of which is
// the ASCII '*' — while a word that appears, changes or goes is.
func screenDigest(text string) uint64 {
	h := fnv.New64a()
	var buf [utf8.UTFMax]byte
	for _, r := range text {
		if !unicode.IsLetter(r) {
			continue
		}
		n := utf8.EncodeRune(buf[:], r)
		h.Write(buf[:n])
	}
	return h.Sum64()
}
