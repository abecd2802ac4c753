package actors

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/orcr-go/orcr/herdr"
)

// SubmitPlan is a provider's input-delivery recipe (lifecycle.md §9): the readiness wait
// before typing, the text→Enter pause, and the confirmation loop that re-drives a
// dropped Enter or dropped text. A zero ConfirmBudget means plain two-call delivery
// (the mock); a zero ReadyBudget skips the readiness wait.
type SubmitPlan struct {
	ReadyBudget, ReadyPoll time.Duration
	EnterDelay             time.Duration
	ConfirmBudget          time.Duration
	ConfirmPoll            time.Duration
	RetypeDelay            time.Duration
	Attempts               int
	ProbeMaxChars          int
}

func (w *agentWork) plan(provider string) SubmitPlan {
	if w.env.Submit == nil {
		return SubmitPlan{}
	}
	return w.env.Submit(provider)
}

// sleepCtx waits d or until the op is canceled; false when canceled.
func (w *agentWork) sleepCtx(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-w.ctx.Done():
		return false
	}
}

// paneStatus is herdr's agent status of target (a terminal id), if listed.
func (w *agentWork) paneStatus(target string) (herdr.Status, bool) {
	ctx, cancel := w.herdrCtx()
	defer cancel()
	list, err := w.env.Herdr.Owned().AgentList(ctx)
	if err != nil {
		return "", false
	}
	for _, a := range list {
		if a.TerminalID == target || a.PaneID == target {
			return a.AgentStatus, true
		}
	}
	return "", false
}

func (w *agentWork) screen(target string) (string, bool) {
	ctx, cancel := w.herdrCtx()
	defer cancel()
	rd, err := w.env.Herdr.Owned().Read(ctx, target, 0)
	if err != nil {
		return "", false
	}
	return rd.Text, true
}

// submit delivers prompt to target following plan (lifecycle.md §9.1–§9.2). orcr
// confirms delivery to the terminal, not acceptance by the provider: when the budget
// runs out the turn simply stays open.
func (w *agentWork) submit(target, prompt string, plan SubmitPlan) error {
	sess := w.env.Herdr.Owned()
	if plan.ReadyBudget > 0 {
		w.waitReady(target, plan)
	}
	pause := plan.EnterDelay
	if pause <= 0 {
		pause = time.Second
	}
	ctx, cancel := w.herdrCtx()
	err := sess.DeliverWith(ctx, target, prompt, pause)
	cancel()
	if err != nil || plan.ConfirmBudget <= 0 {
		return err
	}
	probe := promptProbe(prompt, plan.ProbeMaxChars)
	poll := plan.ConfirmPoll
	if poll <= 0 {
		poll = 400 * time.Millisecond
	}
	deadline := time.Now().Add(plan.ConfirmBudget)
	seen, retypes := false, 0
	for w.sleepCtx(poll) {
		if time.Now().After(deadline) {
			w.log().Warn("input not confirmed within the submit budget; the turn stays open", "target", target)
			return nil
		}
		if st, ok := w.paneStatus(target); ok && (st == herdr.StatusWorking || st == herdr.StatusBlocked) {
			return nil
		}
		text, readable := w.screen(target)
		shown := !readable || probe == "" || strings.Contains(text, probe)
		ctx, cancel := w.herdrCtx()
		switch {
		case shown:
			// The text sits in the input box: the Enter was dropped.
			sess.SendKeys(ctx, target, "Enter")
			seen = true
		case seen:
			cancel()
			return nil // it was there and is gone: submitted
		case retypes < plan.Attempts:
			// Never shown: the text itself was dropped. Type it again (never after it
			// was seen once, so it is not typed twice).
			retypes++
			sess.DeliverWith(ctx, target, prompt, plan.RetypeDelay)
		default:
			sess.SendKeys(ctx, target, "Enter")
		}
		cancel()
	}
	return nil
}

// waitReady waits (bounded) until herdr reports any status but unknown for the pane,
// or its visible text is non-empty and the same on two reads in a row.
func (w *agentWork) waitReady(target string, plan SubmitPlan) {
	poll := plan.ReadyPoll
	if poll <= 0 {
		poll = 400 * time.Millisecond
	}
	deadline := time.Now().Add(plan.ReadyBudget)
	prev := ""
	for time.Now().Before(deadline) {
		if st, ok := w.paneStatus(target); ok && st != "" && st != herdr.StatusUnknown {
			return
		}
		if text, ok := w.screen(target); ok && strings.TrimSpace(text) != "" {
			if text == prev {
				return
			}
			prev = text
		}
		if !w.sleepCtx(poll) {
			return
		}
	}
}

// promptProbe is the first non-empty line of prompt, capped at max characters: what
// the confirmation loop looks for on the screen.
func promptProbe(prompt string, max int) string {
	for _, line := range strings.Split(prompt, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if max > 0 && utf8.RuneCountInString(line) > max {
			r := []rune(line)
			line = string(r[:max])
		}
		return line
	}
	return ""
}
