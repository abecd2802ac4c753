package actors

import (
	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/herdr"
	"github.com/orcr-go/orcr/store"
)

// The turn rules (docs/lifecycle.md §10.2–§10.3) as one pure function: no I/O, no clock
// of its own. The agent actor calls [decideTurn] with what it keeps in memory and
// herdr's latest observation of the pane, and performs the step it returns; a step of
// turnNone costs nothing.

// turnFacts is what the agent actor knows in memory about its agent.
type turnFacts struct {
	Status        store.Status // public status; decisions only for working, idle, blocked, parked
	OpenSeq       int64        // input_seq of the open (not completed) turn; 0 = no open turn
	DeliveredAt   int64        // unix ms the open turn's input reached the pane; 0 = unknown (CreatedAt counts)
	WorkingSeenAt int64        // unix ms herdr first reported working during the open turn; 0 = not seen
	IdleSince     int64        // unix ms the current idle streak began; 0 = no streak
	CreatedAt     int64        // unix ms the agent row was created
	Immediate     bool         // gc immediate: completion ends the agent
}

// turnReport is one herdr observation of the pane.
type turnReport struct {
	Status herdr.Status // working, blocked, idle (done normalised) or unknown
	At     int64        // unix ms of the decision
}

type turnAction int

const (
	turnNone              turnAction = iota // nothing to write
	turnStartIdle                           // an idle streak begins at At; no completion yet
	turnWorkingSeen                         // open turn: working seen, idle streak cleared, status working
	turnExternal                            // no open turn and herdr reports working: an external turn opens
	turnBlocked                             // status → blocked (the caller classifies the kind)
	turnUnpark                              // parked and herdr reports working or blocked: move home first
	turnCompleteCandidate                   // every timing rule holds: check the transcript, then complete
)

var turnActionNames = [...]string{"none", "start_idle", "working_seen", "external", "blocked", "unpark", "complete_candidate"}

func (a turnAction) String() string { return turnActionNames[a] }

// turnStep is what [decideTurn] decided.
type turnStep struct {
	Action turnAction
	// IdleSince is the idle streak start after this step (0 = none).
	IdleSince int64
	// Recheck is the unix ms at which to decide again even if herdr reports nothing new
	// (0 = only on the next report): when the idle will be stable, or when the
	// fast-turn grace window ends.
	Recheck int64
}

// decideTurn applies the turn rules to one observation:
//
//   - Only working, idle, blocked and parked rows have turns to decide on.
//   - A parked agent that herdr sees working or blocked is moved home first.
//   - working: with an open turn, working is seen (once) and any idle streak ends;
//     with no open turn, input came from outside orcr and an external turn opens.
//   - blocked: a report inside the fast-turn grace window, before working was seen,
//     belongs to the previous turn and is ignored until the window ends; otherwise the
//     row becomes blocked.
//   - idle with an open turn: the streak starts at the first idle; the turn completes
//     once the idle is stable (held IdleStable) and either working was seen, or the
//     grace window has fully passed with the streak begun inside it (a fast turn
//     whose working herdr never showed). A streak begun after the window cannot prove
//     a fast turn: only working seen can complete it.
//   - idle with no open turn, and unknown: nothing.
func decideTurn(f turnFacts, r turnReport, t config.Tuning) turnStep {
	none := turnStep{Action: turnNone, IdleSince: f.IdleSince}
	switch f.Status {
	case store.StatusWorking, store.StatusIdle, store.StatusBlocked, store.StatusParked:
	default:
		return none
	}
	grace := t.FastTurnGrace.Milliseconds()
	if f.Status == store.StatusParked && (r.Status == herdr.StatusWorking || r.Status == herdr.StatusBlocked) {
		return turnStep{Action: turnUnpark, IdleSince: f.IdleSince}
	}
	switch r.Status {
	case herdr.StatusWorking:
		if f.OpenSeq == 0 {
			return turnStep{Action: turnExternal}
		}
		if f.WorkingSeenAt != 0 && f.IdleSince == 0 && f.Status == store.StatusWorking {
			return none
		}
		return turnStep{Action: turnWorkingSeen}
	case herdr.StatusBlocked:
		if f.OpenSeq > 0 && f.WorkingSeenAt == 0 && f.DeliveredAt > 0 && r.At-f.DeliveredAt < grace {
			none.Recheck = f.DeliveredAt + grace
			return none
		}
		if f.Status == store.StatusBlocked {
			return none
		}
		return turnStep{Action: turnBlocked}
	case herdr.StatusIdle:
		if f.OpenSeq == 0 {
			return none
		}
		if f.IdleSince == 0 {
			return turnStep{Action: turnStartIdle, IdleSince: r.At}
		}
		delivered := f.CreatedAt
		if f.DeliveredAt > 0 {
			delivered = f.DeliveredAt
		}
		stableAt := f.IdleSince + t.IdleStable.Milliseconds()
		workingOK := f.WorkingSeenAt != 0
		fastPossible := f.IdleSince-delivered <= grace
		if !workingOK && !fastPossible {
			return none // only working seen (a new report) can complete this turn
		}
		ready := stableAt
		if !workingOK {
			ready = max(ready, delivered+grace)
		}
		if r.At >= ready {
			return turnStep{Action: turnCompleteCandidate, IdleSince: f.IdleSince}
		}
		none.Recheck = ready
		return none
	}
	return none
}
