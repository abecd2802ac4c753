package actors

import (
	"time"

	"github.com/orcr-go/orcr/store"
)

// The pause rule of rate-limit-aware admission (docs/lifecycle.md §7.6) as a pure
// function: [decideLimit] maps a provider's standing pause (if any) and one observation —
// one of its agents blocked on its usage limit, or the queue's clock — to the next step.
// The caller writes it (the agent actor's block op, the queue pass).

// limitObs is one observation of a provider's limit.
type limitObs struct {
	At int64 // unix ms
	// Blocked is true when one of the provider's agents was just marked blocked with
	// kind limit; false for the queue pass's look at the clock.
	Blocked bool
	// ResetAt is the reset time read from the agent's screen or transcript (unix ms;
	// 0 = none could be read). Only with Blocked.
	ResetAt int64
}

// limitAction is what the caller does after [decideLimit].
type limitAction int

const (
	limitNone   limitAction = iota // nothing to write
	limitPause                     // write the pause (new, or a later until for the standing one): provider.paused
	limitResume                    // delete the pause: provider.resumed
)

func (a limitAction) String() string {
	switch a {
	case limitNone:
		return "none"
	case limitPause:
		return "pause"
	case limitResume:
		return "resume"
	}
	return "limitAction(?)"
}

// limitStep is the result of [decideLimit].
type limitStep struct {
	Action limitAction
	Since  int64  // for limitPause: the pause's start (the standing pause's, else At)
	Until  int64  // for limitPause: when the provider is promoted again
	Source string // for limitPause: store.PauseSourceReset or store.PauseSourceBackoff
}

// decideLimit is the pause rule (cur nil = no pause stands):
//
//   - A limit block pauses the provider until its reset time when one was read (and
//     lies after At), else for backoff from At. A standing pause is only ever moved
//     later (a second agent's limit with an earlier reset changes nothing), so the
//     pause never ends before any limit seen during it.
//   - The clock resumes the provider once At ≥ Until (inclusive); nothing before.
//   - Without a pause, the clock does nothing.
func decideLimit(cur *store.ProviderPause, o limitObs, backoff time.Duration) limitStep {
	if !o.Blocked {
		if cur != nil && o.At >= cur.Until {
			return limitStep{Action: limitResume}
		}
		return limitStep{}
	}
	step := limitStep{Action: limitPause, Since: o.At, Until: o.At + backoff.Milliseconds(), Source: store.PauseSourceBackoff}
	if o.ResetAt > o.At {
		step.Until, step.Source = o.ResetAt, store.PauseSourceReset
	}
	if cur != nil {
		if step.Until <= cur.Until {
			return limitStep{}
		}
		step.Since = cur.Since
	}
	return step
}
