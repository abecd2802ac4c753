package actors

import "time"

// The rules recovery settles a delivery a crash cut off with (docs/lifecycle.md §13.1),
// as pure functions: [judgeCutDelivery] maps what recovery observed of the pane and the
// transcript to a verdict, and [judgeRedelivery] decides, as time passes, whether a
// prompt recovery typed again reached the agent. Neither does I/O nor reads a clock;
// the agent actor observes, waits and writes.

// cutDelivery is what recovery observed of a delivery a crash cut off.
type cutDelivery struct {
	FromWorking  bool // the turn opened while the agent worked on an earlier one
	HerdrBusy    bool // herdr lists the pane working or blocked
	Readable     bool // the pane's screen could be read
	InBox        bool // the prompt's probe is on the screen
	InTranscript bool // the transcript, written since the delivery, ends with this prompt as its last user text
	First        bool // the first prompt, kept in launch.json, so it can be typed again
	Watched      bool // the provider's fast-turn window has passed since recovery first looked
}

// cutVerdict is how a cut-off delivery is settled.
type cutVerdict int

const (
	cutLeaveOpen cutVerdict = iota // herdr cannot tell now: the intent stays open for the next restart
	cutSubmitted                   // evidence that the agent got the prompt: the turn goes on
	cutRedeliver                   // no evidence: the first prompt is typed again under its turn, then watched ([judgeRedelivery])
	cutUndo                        // no evidence: the turn is undone, the row goes idle
	cutUndoBusy                    // typed into a busy TUI: the turn is undone, the row goes on working on the earlier turn
	cutWait                        // no evidence yet: look again until the provider's window has passed
)

func (v cutVerdict) String() string {
	switch v {
	case cutLeaveOpen:
		return "leave-open"
	case cutSubmitted:
		return "submitted"
	case cutRedeliver:
		return "redeliver"
	case cutUndo:
		return "undo"
	case cutUndoBusy:
		return "undo-busy"
	case cutWait:
		return "wait"
	}
	return "cutVerdict(?)"
}

// judgeCutDelivery settles a cut-off delivery. The rules, in order:
//
//   - typed while an earlier turn ran: undone, the row stays working (neither herdr's
//     working, the earlier turn's, nor the screen tells a prompt waiting unread from one
//     taken);
//   - herdr working or blocked: submitted;
//   - the screen cannot be read: left open;
//   - the transcript was written since the delivery and its last user text is this
//     prompt: submitted (a turn that ran while the server was down; the completion
//     rules settle it). The transcript is asked before the screen, because a TUI shows
//     a submitted prompt in its history too;
//   - anything else is no evidence yet — the probe in the input box, or nothing at all
//     (a transcript merely written since the delivery is not evidence either: a TUI
//     writes it when it starts): recovery looks again until the provider's fast-turn
//     window has passed since its first look, since a server restarted at once can look
//     moments after a prompt was taken, before herdr shows it working or the TUI writes
//     it (claude's first request reached the model 90 ms before the look that typed it
//     again); then the first prompt is typed again, a later one undone.
func judgeCutDelivery(c cutDelivery) cutVerdict {
	switch {
	case c.FromWorking:
		return cutUndoBusy
	case c.HerdrBusy:
		return cutSubmitted
	case !c.Readable:
		return cutLeaveOpen
	case c.InTranscript:
		return cutSubmitted
	case !c.Watched:
		return cutWait
	case c.First:
		return cutRedeliver
	}
	return cutUndo
}

// maxRedeliveries bounds how often recovery types a cut-off first prompt again before
// it undoes the turn.
const maxRedeliveries = 2

// redelivery is what the agent actor knows, while it watches a prompt recovery typed
// again, about whether the agent got it.
type redelivery struct {
	EnterAt  int64 // unix ms the last typing's Enter was sent
	Evidence bool  // herdr showed working or blocked, its completion_seq rose past the baseline, or the transcript ends with the prompt
	Blank    bool  // the pane has drawn nothing yet: a TUI still starting, which has not read what was typed
	Attempts int   // typings so far (the first included)
}

// redeliveryVerdict is the next step of a watched re-delivery.
type redeliveryVerdict int

const (
	redeliveryWait      redeliveryVerdict = iota // look again (within the window)
	redeliverySubmitted                          // evidence: the intent closes ok and the turn goes on
	redeliveryAgain                              // the window passed without evidence: type the prompt again
	redeliveryUndo                               // no evidence after maxRedeliveries typings: undo the turn
)

func (v redeliveryVerdict) String() string {
	switch v {
	case redeliveryWait:
		return "wait"
	case redeliverySubmitted:
		return "submitted"
	case redeliveryAgain:
		return "again"
	case redeliveryUndo:
		return "undo"
	}
	return "redeliveryVerdict(?)"
}

// judgeRedelivery decides at now on a re-delivery r watched for the provider's window
// (its fast-turn window: the time a provider is given to show it took a prompt):
// evidence submits it; without evidence, before EnterAt+window it waits — before
// EnterAt+blankWindow (timings.max_starting) while the pane has drawn nothing, since
// what was typed into a TUI that has not started waits in its terminal, and typing it
// again would submit it twice — and from then on (inclusive) it types the prompt again
// while fewer than maxRedeliveries typings were made, else undoes the turn. A
// re-delivery never ends open.
func judgeRedelivery(r redelivery, now int64, window, blankWindow time.Duration) redeliveryVerdict {
	if r.Blank {
		window = max(window, blankWindow)
	}
	switch {
	case r.Evidence:
		return redeliverySubmitted
	case now-r.EnterAt < window.Milliseconds():
		return redeliveryWait
	case r.Attempts < maxRedeliveries:
		return redeliveryAgain
	}
	return redeliveryUndo
}
