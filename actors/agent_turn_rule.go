package actors

import (
	"time"

	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/herdr"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/store"
)

// The turn rules of docs/lifecycle.md §10.2 as one pure function: [decideTurn] maps what the
// agent actor knows about its agent, one herdr report and the provider's tuning to the
// next step. It does no I/O and reads no clock (the report carries the time), so the
// caller performs the step: SQL writes, transcript checks, blocked classification, the
// un-park move.

// turnFacts is what the agent actor knows in memory about its agent when a herdr report arrives.
type turnFacts struct {
	Status        store.Status // public status; decisions only for working, idle, blocked, parked
	OpenSeq       int64        // input_seq of the open (not completed) turn; 0 = no open turn
	DeliveredAt   int64        // unix ms the open turn's input reached the pane; 0 = unknown (use CreatedAt)
	WorkingSeenAt int64        // unix ms herdr first reported working during the open turn; 0 = not seen
	IdleSince     int64        // unix ms the current idle streak began; 0 = no streak
	CreatedAt     int64        // unix ms the agent row was created
	Immediate     bool         // gc mode immediate: completion ends the agent (the response must be readable first)

	// CompletionBase is herdr's completion_seq of the pane, read right after the open
	// turn's Enter. Unknown turns the completion_seq rules off for this turn: herdr
	// does not report the field (before protocol 22), the turn was not typed by orcr,
	// or the agent actor restarted (the value lives in its memory only).
	CompletionBase counter
	// CompletionSeen is the highest completion_seq the current idle streak accounts for
	// (CompletionBase.N until an idle edge was seen); meaningless while CompletionBase
	// is unknown.
	CompletionSeen uint64

	// ProbedAt is when the transcript was last probed for this turn's work (0 = never;
	// kept in memory by the agent actor).
	ProbedAt int64
}

// TranscriptProbeEvery is how often a turn whose fast path closed without working seen
// looks in the transcript for its work.
const TranscriptProbeEvery = 5 * time.Second

// counter is an optional herdr counter; Known is false when herdr did not report it.
type counter struct {
	N     uint64
	Known bool
}

// counterOf is *p as a counter (unknown for nil).
func counterOf(p *uint64) counter {
	if p == nil {
		return counter{}
	}
	return counter{N: *p, Known: true}
}

// turnReport is one herdr observation of the pane.
type turnReport struct {
	Status        herdr.Status // herdr.StatusWorking | StatusBlocked | StatusIdle | StatusUnknown (done already normalised to idle)
	At            int64        // unix ms of the observation
	CompletionSeq counter      // herdr's completion_seq of the pane (unknown: not reported)
}

// turnAction is what the caller does after [decideTurn].
type turnAction int

const (
	turnNone              turnAction = iota // nothing to write
	turnStartIdle                           // an idle streak begins at At (record idle_since); no completion yet
	turnWorkingSeen                         // open turn: record working_seen_at (first time only), clear the idle streak, status → working if it was not
	turnExternal                            // no open turn and herdr reports working: open an external turn (status → working)
	turnBlocked                             // status → blocked (classification is I/O, done by the caller)
	turnUnpark                              // parked and herdr reports working or blocked: move the pane home first, then decide again
	turnCompleteCandidate                   // every timing rule holds: the caller checks the transcript (settled; readable for immediate) and completes the turn
	turnIdleEdge                            // idle, and completion_seq passed CompletionSeen: record CompletionSeen, restart the idle streak at At (replacing a running one)
	turnProbeTranscript                     // idle with the fast path closed and no working seen: look for the turn's work in the transcript (written since delivery); record the streak at IdleSince first when it is new
)

func (a turnAction) String() string {
	switch a {
	case turnNone:
		return "none"
	case turnStartIdle:
		return "start-idle"
	case turnWorkingSeen:
		return "working-seen"
	case turnExternal:
		return "external"
	case turnBlocked:
		return "blocked"
	case turnUnpark:
		return "unpark"
	case turnCompleteCandidate:
		return "complete-candidate"
	case turnIdleEdge:
		return "idle-edge"
	case turnProbeTranscript:
		return "probe-transcript"
	}
	return "turnAction(?)"
}

// turnStep is the result of [decideTurn].
type turnStep struct {
	Action    turnAction
	IdleSince int64 // the idle streak start the caller must remember after this step (0 = none); for turnStartIdle and turnIdleEdge = At
	Recheck   int64 // unix ms at which to re-decide even if no new report differs (0 = only on the next report); e.g. when the idle will be stable, or when the fast-turn grace ends
	// CompletionSeen is, for turnIdleEdge, the completion_seq the restarted streak
	// accounts for (the report's); 0 for every other action.
	CompletionSeen uint64
}

// decideTurn is the turn state machine of docs/lifecycle.md §10.2 for one herdr report r on
// an agent described by f, with the provider's tuning t. The rules, in order:
//
//   - Only rows whose status is working, idle, blocked or parked are decided on; for any
//     other status (queued, starting, ended, lost) the step is turnNone.
//   - A done report counts as idle; any status but working, blocked and idle as unknown,
//     and an unknown report changes nothing.
//   - parked and herdr working or blocked: turnUnpark (docs/lifecycle.md M18; quirk docs/lifecycle.md Q3: blocked too). The
//     caller moves the pane home and decides once more on the same report with the
//     status the move left (idle when it worked); it does not decide a third time.
//   - working, no open turn: turnExternal (docs/lifecycle.md M14), whatever the status.
//   - working, open turn: turnWorkingSeen (docs/lifecycle.md M15 when the status was not working), unless
//     the status is working, working was already seen and no idle streak runs: then
//     nothing changes (turnNone).
//   - blocked, open turn not armed — working not seen, DeliveredAt known and less than
//     FastTurnGrace since it — turnNone: the report belongs to the previous turn.
//     Recheck is the end of the grace window (0 when the status is blocked already).
//     An unknown DeliveredAt arms the turn at once (no CreatedAt fallback, as today).
//   - blocked otherwise: turnBlocked (docs/lifecycle.md M16), or turnNone when already blocked (the idle
//     streak is then left as it is, as today).
//   - idle, no open turn: turnNone, the idle streak left as it is (an idle agent stays
//     idle; a no-prompt agent stays primed).
//   - idle, open turn: the streak is IdleSince, or starts at At (turnStartIdle). The
//     turn is a completion candidate when the streak is stable (At − streak ≥
//     IdleStable) and either working was seen, or the fast path holds: the streak began
//     no later than FastTurnGrace after delivery (DeliveredAt, else CreatedAt; a streak
//     that began before delivery counts) and At is at least FastTurnGrace after
//     delivery. All thresholds are inclusive. Otherwise Recheck is the earliest time
//     these rules would hold with idle still held. When the streak began after the
//     grace window and working was not seen (e.g. a restart re-armed a turn that ran
//     while the server was down), time alone never makes them hold: the step is
//     turnProbeTranscript every TranscriptProbeEvery (ProbedAt), whose caller records
//     the transcript's write since the delivery as working seen, and turnNone with
//     Recheck at the next probe in between.
//   - completion_seq (docs/lifecycle.md §10.2, docs/decisions.md D10), only while
//     CompletionBase is known, so never with a herdr that does not report it: an idle
//     report on an open turn whose completion_seq is above CompletionSeen (and
//     CompletionBase) is an idle edge herdr saw that the turn has not accounted for —
//     turnIdleEdge, whatever the streak: the streak restarts at At, Recheck is At +
//     IdleStable (0 when IdleStable is 0: the caller decides again after the step).
//     Once CompletionSeen is above CompletionBase, the turn has evidence that the
//     agent went working/blocked → idle after its Enter: it counts like working seen
//     for the rule above (a stable streak is enough; the fast-path window neither
//     waits nor closes). A report without the field, or one not above CompletionSeen,
//     changes nothing here; working and blocked reports are decided as without it.
//
// turnCompleteCandidate carries the streak start in IdleSince (the caller records it
// when f.IdleSince was 0, which happens only with IdleStable 0) and Recheck one
// [MonitorTick] later: if the transcript is not settled (or, gc immediate, the response
// not readable) the caller keeps the turn open and the next report or the recheck tries
// again. Whether the completion also flips the public status is [turnCompletionFlipsIdle].
//
// A report earlier than DeliveredAt or than IdleSince is decided like any other (the
// elapsed times are then negative). Deciding twice on the same facts and report gives
// the same step; after the caller applied a step, the same report yields turnNone (or
// the same turnCompleteCandidate).
func decideTurn(f turnFacts, r turnReport, t config.Tuning) turnStep {
	keep := turnStep{Action: turnNone, IdleSince: f.IdleSince}
	if !store.PaneStatuses.Has(f.Status) {
		return keep
	}
	status := r.Status.Normalise()
	grace := t.FastTurnGrace.Milliseconds()
	if f.Status == api.StatusParked && (status == herdr.StatusWorking || status == herdr.StatusBlocked) {
		return turnStep{Action: turnUnpark, IdleSince: f.IdleSince}
	}
	switch status {
	case herdr.StatusWorking:
		if f.OpenSeq == 0 {
			return turnStep{Action: turnExternal}
		}
		if f.Status == api.StatusWorking && f.WorkingSeenAt != 0 && f.IdleSince == 0 {
			return keep
		}
		return turnStep{Action: turnWorkingSeen}

	case herdr.StatusBlocked:
		if f.OpenSeq != 0 && f.WorkingSeenAt == 0 && f.DeliveredAt != 0 && r.At-f.DeliveredAt < grace {
			if f.Status != api.StatusBlocked {
				keep.Recheck = f.DeliveredAt + grace
			}
			return keep
		}
		if f.Status == api.StatusBlocked {
			return keep
		}
		return turnStep{Action: turnBlocked}

	case herdr.StatusIdle:
		if f.OpenSeq == 0 {
			return keep
		}
		if f.CompletionBase.Known && r.CompletionSeq.Known && r.CompletionSeq.N > max(f.CompletionSeen, f.CompletionBase.N) {
			step := turnStep{Action: turnIdleEdge, IdleSince: r.At, CompletionSeen: r.CompletionSeq.N}
			if stable := t.IdleStable.Milliseconds(); stable > 0 {
				step.Recheck = r.At + stable
			}
			return step
		}
		step := keep
		if step.IdleSince == 0 {
			step = turnStep{Action: turnStartIdle, IdleSince: r.At}
		}
		// due is when the timing rules hold if idle is held until then.
		due := step.IdleSince + t.IdleStable.Milliseconds()
		edgeSeen := f.CompletionBase.Known && f.CompletionSeen > f.CompletionBase.N
		if f.WorkingSeenAt == 0 && !edgeSeen {
			delivered := f.DeliveredAt
			if delivered == 0 {
				delivered = f.CreatedAt
			}
			if step.IdleSince-delivered > grace {
				// The fast path is closed: only evidence of work can complete this turn —
				// a working report, or the transcript written since the delivery (a turn
				// that ran while the server was down, whose streak began after its
				// restart). Probe for the latter now and then.
				every := TranscriptProbeEvery.Milliseconds()
				if r.At-f.ProbedAt >= every {
					return turnStep{Action: turnProbeTranscript, IdleSince: step.IdleSince, Recheck: r.At + every}
				}
				step.Recheck = f.ProbedAt + every
				return step
			}
			due = max(due, delivered+grace)
		}
		if r.At >= due {
			return turnStep{Action: turnCompleteCandidate, IdleSince: step.IdleSince, Recheck: r.At + MonitorTick.Milliseconds()}
		}
		step.Recheck = due
		return step
	}
	return keep
}

// turnCompletionFlipsIdle reports whether completing f's open turn also moves the public
// status to idle (docs/lifecycle.md M11): never in gc mode immediate (docs/lifecycle.md M12: the agent ends instead); from
// working; from blocked only when working was seen during the turn (quirk docs/lifecycle.md Q2, our
// decision). Any other status stays as it is while the turn row is completed. The
// caller's compare-and-set on status and input_seq still applies (a newer send wins).
func turnCompletionFlipsIdle(f turnFacts) bool {
	switch {
	case f.Immediate:
		return false
	case f.Status == api.StatusWorking:
		return true
	case f.Status == api.StatusBlocked:
		return f.WorkingSeenAt != 0
	}
	return false
}
