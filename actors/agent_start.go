package actors

import (
	"errors"
	"strings"
	"time"

	"github.com/orcr-go/orcr/actors/paneexec"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/store"
)

// settle finishes a start whose pane is recorded (docs/lifecycle.md §8.1 step 9): the
// readiness wait runs while the row is still starting, then the first prompt is
// delivered (M6) or, without one, the row becomes idle (M7). A provider that exits or
// stays blank during the wait, or shows a screen that takes no prompt, is an error for
// the caller to fail the row with. A cancel returns store.ErrStale.
func (w *agentWork) settle(target, prompt string) error {
	if err := w.awaitStart(target, prompt != ""); err != nil {
		return err
	}
	if w.cut() {
		return store.ErrStale
	}
	if prompt == "" {
		return w.apply(func(tx *store.Tx) error { return tx.SettleIdle(w.uuid) })
	}
	typing := time.Now()
	_, err := w.deliver(prompt, []store.Status{store.StatusStarting}, target, "")
	if e, ok := w.providerExit(); ok && (err != nil || exitedBefore(e, typing)) {
		// The process exited between the readiness wait and the typing (its launcher
		// holds the pane); without a launcher herdr removed the pane. One that exited
		// after a delivery that went through took its prompt (a fast turn, then an
		// exit): started, its exit is the monitor's (lost, docs/lifecycle.md §4.3).
		w.readScreen(target)
		return errors.New(exitedDetail(w.st.Provider, " during start", e.String(), w.screenText))
	}
	if paneGone(err) {
		return errors.New(exitedDetail(w.st.Provider, " during start", "", w.screenText))
	}
	return err
}

// exitedBefore reports whether the launcher recorded e before t.
func exitedBefore(e paneexec.Exit, t time.Time) bool {
	return e.At < t.UnixMilli()
}

// awaitStart is the readiness wait of a start (docs/lifecycle.md §9.2, decided by
// [decideStart]), skipped for a provider whose submit_ready_ms is 0, then, when a
// prompt is to follow, the check for a screen that takes no prompt, repeated for the
// provider's gate_settle_ms. Every poll that can
// read the screen keeps it (the pane's last screen, kept with the row if the start
// fails). A provider that exits is seen by its launcher's record (the launcher holds
// the pane, its last screen on it) or, without one, by its pane vanishing. The first
// delivery then skips both (w.started).
func (w *agentWork) awaitStart(target string, prompt bool) error {
	plan := w.plan(w.st.Provider)
	if plan.ReadyBudget > 0 {
		poll := plan.readyPoll()
		begin := time.Now()
		prev := ""
	wait:
		for {
			p := startPoll{Elapsed: time.Since(begin), Prev: prev}
			// The launcher's record first: the screen read after it holds the
			// provider's last words.
			e, exited := w.providerExit()
			p.Exited = exited
			if st, ok := w.paneStatus(target); ok && !exited {
				p.StatusReady = statusShowsReady(st)
			}
			if !p.StatusReady {
				p.Screen, p.Readable, p.Gone = w.readScreen(target)
			}
			switch decideStart(p, plan) {
			case startReady:
				break wait
			case startExited:
				how := ""
				if exited {
					how = e.String()
				}
				return errors.New(exitedDetail(w.st.Provider, " during start", how, w.screenText))
			case startStalled:
				return errors.New(stalledDetail(w.st.Provider, plan))
			}
			if p.Readable && strings.TrimSpace(p.Screen) != "" {
				prev = p.Screen
			}
			if !w.sleepCtx(poll) {
				return nil // canceled: the caller's cut() sees it
			}
		}
	}
	if prompt && plan.Gate != nil {
		// A TUI may draw its input box and ask its question a moment later (claude's
		// auto-mode question): the screen is read for it until the settle time is up.
		begin := time.Now()
		for {
			if text, ok, _ := w.readScreen(target); ok {
				if phrase, cause := plan.Gate(text); phrase != "" {
					return gateError(w.st.Provider, phrase, cause, w.st.Cwd)
				}
			}
			if !gateSettleGoesOn(time.Since(begin), plan) {
				break
			}
			if !w.sleepCtx(min(plan.readyPoll(), plan.GateSettle)) {
				return nil // canceled: the caller's cut() sees it
			}
		}
	}
	w.started = true
	return nil
}

// readScreen reads target's visible screen, keeping it as the pane's last screen when
// it is not blank; gone reports that herdr has no such pane any more.
func (w *agentWork) readScreen(target string) (text string, ok, gone bool) {
	ctx, cancel := w.herdrCtx()
	defer cancel()
	rd, err := w.sess().Read(ctx, target, 0)
	if err != nil {
		return "", false, paneGone(err)
	}
	if strings.TrimSpace(rd.Text) != "" {
		w.screenText, w.screenAt = rd.Text, time.Now().UnixMilli()
	}
	return rd.Text, true, false
}

// endDetail is the exit detail a failure records: the message of a protocol error, the
// text of any other.
func endDetail(err error) string {
	if pe, ok := wire.As(err); ok {
		return pe.Message
	}
	return err.Error()
}
