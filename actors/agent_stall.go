package actors

import (
	"strconv"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/orcr-go/orcr/store"
)

// The agent actor's side of the stall signal (docs/lifecycle.md §10.7): while its row is
// a managed working turn it probes the pane every [stallProbeEvery] (one pane.read and a
// stat of the transcript, on an op goroutine), keeps what it learnt in memory
// (stallProgress) and decides with [decideStall]; only a mark or a clear costs a write.

type (
	// stallTick is the stall probe's timer firing.
	stallTick struct{ gen int64 }
	// stallProbe is the op that reads the screen and the transcript's write time.
	stallProbe struct{}
	// stallWrite is the op that applies a stall step decided in memory.
	stallWrite struct {
		step       stallStep
		seq        int64
		progressAt int64
	}
)

// stallAfter is the row's provider's stall_after (0 = off).
func (a *agentActor) stallAfter() time.Duration { return a.env.tuning(a.st.Provider).StallAfter }

// noteReport counts herdr's report r as progress of the open turn when it differs from
// the report before it in what the agent does (status, completion_seq). The first
// report an actor gets (after a start or a restart) is not progress: the monitor sends
// every newly watched pane once.
func (a *agentActor) noteReport(prev *StatusReport, r StatusReport) {
	if prev == nil || a.st.Turn.Seq == 0 {
		return
	}
	if prev.Status == r.Status && counterOf(prev.CompletionSeq) == counterOf(r.CompletionSeq) {
		return
	}
	if a.stall.Turn != a.st.Turn.Seq {
		a.stall = stallProgress{Turn: a.st.Turn.Seq}
	}
	a.stall.ReportAt = r.At.UnixMilli()
}

// watchStall decides the stall rule on the row in memory and keeps the probe timer
// armed while the turn is watched. With act (after a probe or a changed herdr report) it
// also starts the write a mark or a clear needs; when an op runs, the write waits for its
// opDone (stallDue). Other decisions never write, so a write the row outran is retried
// at the next probe at the earliest, never in a loop.
func (a *agentActor) watchStall(c actor.Context, act bool) {
	if !a.loaded || a.ended {
		return
	}
	now := time.Now().UnixMilli()
	after := a.stallAfter()
	step := decideStall(stallFacts{Status: a.st.Status, Managed: a.st.Managed, OpenSeq: a.st.Turn.Seq,
		StalledAt: a.st.StalledAt, ProgressAt: progressAt(a.st, a.stall)}, now, after)
	if !step.Probe {
		a.disarmStall()
	} else if a.stallTimer == nil {
		gen, self, root := a.stallGen, c.Self(), c.ActorSystem().Root
		a.stallTimer = time.AfterFunc(stallProbeEvery(after), func() { root.Send(self, stallTick{gen: gen}) })
	}
	if !act || step.Action == stallNone {
		return
	}
	if a.busy {
		a.stallDue = true
		return
	}
	a.stallDue = false
	a.start(c, queuedOp{msg: stallWrite{step: step, seq: a.st.InputSeq, progressAt: progressAt(a.st, a.stall)}})
}

func (a *agentActor) disarmStall() {
	a.stallGen++
	if a.stallTimer != nil {
		a.stallTimer.Stop()
		a.stallTimer = nil
	}
}

// onStallTick queues one probe when the timer that was armed last fires.
func (a *agentActor) onStallTick(c actor.Context, m stallTick) {
	if m.gen != a.stallGen || a.ended {
		return
	}
	a.stallTimer = nil
	a.queueOp(c, stallProbe{})
}

// probeStall reads the pane's screen (its digest) and the transcript's last write for
// the stall rule. A screen that cannot be read or a transcript that is not found is
// simply not evidence.
func (w *agentWork) probeStall() stallObservation {
	o := stallObservation{At: time.Now().UnixMilli()}
	if w.st.Status != store.StatusWorking || w.st.Turn.Seq == 0 {
		return o
	}
	if w.env.Herdr != nil && w.st.PaneID != "" {
		if text, ok := w.screen(w.st.PaneID); ok {
			o.Screen, o.ScreenOK = screenDigest(text), true
		}
	}
	if w.env.Transcripts != nil {
		if path, err := w.locate(); err == nil {
			if cur, ok := w.env.Transcripts.Cursor(path); ok {
				o.TranscriptAt, _ = strconv.ParseInt(cur, 10, 64)
			}
		}
	}
	return o
}

// writeStall applies a stall step; the store's compare-and-sets make a step that the
// row outran (a completion in between) a no-op.
func (w *agentWork) writeStall(m stallWrite) {
	switch m.step.Action {
	case stallMark:
		w.logErr("mark stalled", w.apply(func(tx *store.Tx) error { return tx.MarkStalled(w.uuid, m.seq, m.progressAt) }))
	case stallClear:
		w.logErr("clear stall", w.apply(func(tx *store.Tx) error { return tx.ClearStall(w.uuid, m.step.Reason) }))
	}
}
