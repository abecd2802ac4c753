package herdrtest

import "time"

// The stand-in's detection loop, written from herdr 0.8.2's (docs/herdr.md §5.2): each
// pane is watched on a tick; a probe of its foreground job names the agent in it; then,
// after a startup grace, the agent's screen rules decide its state on every tick, and a
// change is published to the pane unless it is a working → idle change that the screen
// does not visibly confirm, which waits for a few more ticks first.
const (
	detectTick       = 300 * time.Millisecond // the loop's pace
	holdTick         = 100 * time.Millisecond // its pace while an idle is held
	holdConfirms     = 3                      // held idles seen again before publishing
	holdCap          = 700 * time.Millisecond // longest hold
	blockerRefresh   = 800 * time.Millisecond // republishing of a blocker that stays
	startupGrace     = 3 * time.Second        // no screen rules this long after an agent appears
	probeIdentified  = 5 * time.Second        // re-probe of a pane with an agent
	probeAcquiring   = 500 * time.Millisecond // probe pace in a new pane's first seconds
	probeUnknown     = 2 * time.Second        // probe pace after that, while the screen changes
	missesToForget   = 6                      // probes without the agent before it is dropped
	processExitState = StatusIdle             // what an agent that left the foreground reads as
)

// AcquisitionSpan is how long a new pane's processes are probed at the fast pace
// (every 500 ms): a fleet just spawned costs the stand-in more than the same fleet at
// rest, whoever polls it.
const AcquisitionSpan = 8 * time.Second

// published is the screen state last published for a pane.
type published struct {
	state                                       string
	visibleIdle, visibleBlocker, visibleWorking bool
}

// idleHold delays a working → idle change the screen does not visibly confirm: herdr
// publishes it once it has been seen holdConfirms more times, or holdCap after it was
// first seen; anything else in between ends the hold.
type idleHold struct {
	since  time.Time // zero: no hold
	counts int
}

func (h *idleHold) active() bool { return !h.since.IsZero() }

// holds reports whether the change prev → next must wait at now.
func (h *idleHold) holds(prev, next published, now time.Time) bool {
	if prev.state != StatusWorking || next.state != StatusIdle || next.visibleIdle || next.visibleBlocker {
		*h = idleHold{}
		return false
	}
	if !h.active() {
		*h = idleHold{since: now}
		return true
	}
	if now.Sub(h.since) >= holdCap {
		*h = idleHold{}
		return false
	}
	if h.counts++; h.counts >= holdConfirms {
		*h = idleHold{}
		return false
	}
	return true
}

// identity is what a probe changed about the agent in a pane.
type identity int

const (
	identitySame   identity = iota
	identityNew             // an agent appeared (or replaced another)
	identityExited          // the agent left and the pane's own program is in front again
	identityGone            // the agent is no longer there
)

// agentWatch is the detection state of one pane.
type agentWatch struct {
	started      time.Time // the pane's start
	agent        string    // the agent named by the last probes ("" none)
	misses       int
	pgid         int
	probed       time.Time // zero: never
	exitReported bool
	graceUntil   time.Time
	pub          published
	hold         idleHold
	refreshed    time.Time // when a visible blocker or working was last published
}

// dueProbe reports whether the pane's foreground job should be probed at now, its
// foreground group being pgid and its screen having changed since the last tick or not.
func (w *agentWatch) dueProbe(pgid int, screenChanged bool, now time.Time) bool {
	since := now.Sub(w.probed)
	switch {
	case w.probed.IsZero() || pgid != w.pgid || w.exitReported:
		return true
	case w.agent != "":
		return since >= probeIdentified
	case now.Sub(w.started) <= AcquisitionSpan:
		return since >= probeAcquiring
	default:
		return screenChanged && since >= probeUnknown
	}
}

// observeProbe records a probe's result at now: agent in front ("" none), the
// foreground group, and whether that group is the pane's own program.
func (w *agentWatch) observeProbe(agent string, pgid int, ownGroup bool, now time.Time) identity {
	w.probed, w.pgid = now, pgid
	prev := w.agent
	switch {
	case agent != "" && agent == prev && !w.exitReported:
		w.misses = 0
		return identitySame
	case agent != "": // a new agent, or the same one started again after it left
		w.agent, w.misses, w.exitReported = agent, 0, false
		w.graceUntil, w.pub, w.hold = now.Add(startupGrace), published{state: StatusUnknown}, idleHold{}
		return identityNew
	case prev == "":
		return identitySame
	case w.exitReported:
		w.agent, w.exitReported = "", false
		return identityGone
	case ownGroup:
		// The agent left and the pane's own program (its shell) is in front again: the
		// turn ends (idle) before the label goes, at the next probe.
		w.exitReported, w.hold = true, idleHold{}
		w.pub = published{state: processExitState, visibleIdle: true}
		return identityExited
	}
	if w.misses++; w.misses < missesToForget {
		return identitySame
	}
	w.agent, w.misses = "", 0
	return identityGone
}

// observeScreen applies the screen rules' verdict d at now; publish says the pane's
// state changes to w.pub.
func (w *agentWatch) observeScreen(d Detection, now time.Time) (publish bool) {
	if w.agent == "" || w.exitReported || now.Before(w.graceUntil) || d.Keep {
		w.hold = idleHold{}
		return false
	}
	next := published{
		state:          d.State,
		visibleIdle:    d.VisibleIdle && d.State == StatusIdle,
		visibleBlocker: d.VisibleBlocker && d.State == StatusBlocked,
		visibleWorking: d.VisibleWorking && d.State == StatusWorking,
	}
	if w.hold.holds(w.pub, next, now) {
		return false
	}
	// A blocker still on screen is published again now and then, so that it overrides
	// a custom reporter's state reported after it was first seen.
	refresh := next.visibleBlocker && w.pub.visibleBlocker && now.Sub(w.refreshed) >= blockerRefresh
	if next == w.pub && !refresh {
		return false
	}
	w.pub = next
	w.refreshed = time.Time{}
	if next.visibleBlocker || next.visibleWorking {
		w.refreshed = now
	}
	return true
}

// pace is how long the loop waits before its next tick.
func (w *agentWatch) pace() time.Duration {
	if w.hold.active() {
		return holdTick
	}
	return detectTick
}
