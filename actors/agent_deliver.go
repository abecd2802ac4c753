package actors

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/orcr-go/orcr/actors/provider"
	"github.com/orcr-go/orcr/herdr"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/store"
)

// deliver opens the next turn (status working, input_seq+1, a turn row, the input
// intent) before typing, then types the text and Enter (the two-call rule) and records
// the applied fact (docs/lifecycle.md §9, M6/M13). while is the status the send found
// ("" = the status the turn opened from).
func (w *agentWork) deliver(prompt string, from []store.Status, target string, while store.Status) (api.SendResult, error) {
	v, err := w.write(func(tx *store.Tx) (any, error) {
		seq, was, err := tx.OpenTurn(w.uuid, from)
		if err != nil {
			return nil, err
		}
		id, _, err := tx.Intent(w.uuid, &api.AgentInputRequested{InputSeq: seq, Target: target, Bytes: len(prompt),
			Probe: promptProbe(prompt, recoveryProbeChars), From: was})
		return openedTurn{seq: seq, opID: id, was: was}, err
	})
	if err != nil {
		return api.SendResult{}, w.openFailed(err)
	}
	o := v.(openedTurn)
	if while == "" {
		while = o.was
	}
	plan := w.plan(w.st.Provider)
	if w.started {
		plan.ReadyBudget, plan.Gate = 0, nil // the start's readiness wait ran (awaitStart)
	}
	base, entered, derr := w.submit(target, prompt, plan)
	// A first prompt's pane gone means the provider exited during its start: the turn
	// is undone and the caller fails the row (docs/lifecycle.md §8.1), never lost.
	gone := paneGone(derr) && o.was != store.StatusStarting
	w.mark = completionMark{Turn: o.seq}
	if derr == nil {
		w.mark.Base, w.mark.Seen = base, base.N
	}
	err = w.apply(func(tx *store.Tx) error {
		if err := w.recordDelivery(tx, o, prompt, entered, derr); err != nil {
			return err
		}
		switch {
		case gone:
			return tx.MarkLost(w.uuid) // the lost rule (M20); the open turn waits for a revival
		case derr != nil:
			// The text never reached the pane, so the turn could never complete: the
			// row goes back to the status the send found (docs/lifecycle.md §9.1).
			return ignoreStale(tx.AbandonTurn(w.uuid, o.seq, o.was))
		}
		return nil
	})
	w.logErr("input applied", err)
	if gone {
		w.log().Warn("reconcile: pane gone during a delivery, agent lost", "path", w.st.Path)
		return api.SendResult{}, w.lostError("deliver to")
	}
	return api.SendResult{UUID: w.uuid, Path: w.st.Path, DeliveredWhile: while, InputSeq: o.seq}, derr
}

// openedTurn is a turn a delivery opened: its input_seq, its input intent, and the
// status the row had.
type openedTurn struct {
	seq  int64
	opID string
	was  store.Status
}

// openFailed maps the failure of opening a turn: an ended or lost row is gone; a row
// that changed meanwhile is read again (the caller answers state_conflict).
func (w *agentWork) openFailed(err error) error {
	var gone *store.GoneError
	if errors.As(err, &gone) {
		w.st.Status = gone.Status
		return w.gone()
	}
	if errors.Is(err, store.ErrStale) {
		w.logErr("re-read the row", w.reload())
	}
	return err
}

// send is agent.send on a managed row (docs/lifecycle.md §11.1). A parked agent (or
// one with a move left in flight) is moved home first (docs/lifecycle.md M18); the delivery then
// reports the status the send found.
func (w *agentWork) send(prompt string) (api.SendResult, error) {
	// An unmanaged row is also written by discovery, so it is always read afresh.
	if !w.loaded || !w.st.Managed {
		if err := w.reload(); err != nil {
			return api.SendResult{}, err
		}
	}
	if w.st.Status.Gone() {
		return api.SendResult{}, w.gone()
	}
	if res, queued, err := w.budgetQueue(prompt); queued || err != nil {
		return res, err
	}
	if !w.st.Managed {
		return w.sendExternal(prompt)
	}
	if w.st.TerminalID == "" || w.env.Herdr == nil {
		return api.SendResult{}, wire.Conflict(fmt.Sprintf("agent %s has no pane yet (status %s)", w.st.Path, w.st.Status),
			"current_status", w.st.Status)
	}
	if w.source == store.SourceRemote && w.st.Status == store.StatusBlocked {
		// docs/remote.md §6: stream text is never typed into a blocked agent.
		return api.SendResult{}, wire.Conflict("agent "+w.st.Path+" is blocked", "current_status", w.st.Status)
	}
	while := w.st.Status
	if w.st.Status == store.StatusParked || w.st.MoveState != store.MoveNone {
		if err := w.unpark(); err != nil {
			return api.SendResult{}, err
		}
		if w.st.Status.Gone() {
			return api.SendResult{}, w.gone()
		}
		if w.st.Status == store.StatusParked {
			return api.SendResult{}, wire.Conflict(fmt.Sprintf("agent %s could not be un-parked", w.st.Path),
				"current_status", w.st.Status)
		}
	}
	w.switchModel()
	res, err := w.deliver(prompt, store.InputStatuses, w.st.TerminalID, while)
	if errors.Is(err, store.ErrStale) {
		return res, wire.Conflict("agent "+w.st.Path+" changed state during delivery", "current_status", w.st.Status)
	}
	return res, err
}

// budgetQueue puts prompt into the inbox of an agent a budget paused (docs/usage.md
// §7.3), in one transaction with the check: nothing is typed, nothing is dropped. A
// prompt the inbox already holds (a drain) stays there: the drain is deferred.
func (w *agentWork) budgetQueue(prompt string) (api.SendResult, bool, error) {
	v, err := w.write(func(tx *store.Tx) (any, error) {
		return tx.QueueIfBudgetPaused(w.uuid, prompt, w.inputSource(), w.inboxID == 0)
	})
	if err != nil {
		return api.SendResult{}, false, err
	}
	budget := v.(string)
	switch {
	case budget == "":
		return api.SendResult{}, false, nil
	case w.inboxID != 0:
		return api.SendResult{}, true, wire.Conflict("agent "+w.st.Path+" is paused on budget "+budget, "current_status", w.st.Status)
	}
	w.log().Info("budget: agent paused, the send waits in its inbox", "path", w.st.Path, "budget", budget)
	w.st.BudgetPaused = budget
	return api.SendResult{UUID: w.uuid, Path: w.st.Path, DeliveredWhile: w.st.Status, Queued: api.QueuedBudget}, true, nil
}

// defaultEnterDelay is the pause between the text and its Enter of a delivery with no
// provider recipe (claude's and codex's submit_enter_delay_ms).
const defaultEnterDelay = time.Second

// SubmitPlan is a provider's input-delivery recipe (docs/lifecycle.md §9): the readiness wait
// before typing, how the text is typed (the input box cleared first, one bracketed
// paste), the text→Enter pause, and the confirmation loop that re-drives a dropped
// Enter or dropped text. A zero ConfirmBudget means no confirmation (the mock); a zero
// ReadyBudget skips the readiness wait.
type SubmitPlan struct {
	ReadyBudget, ReadyPoll time.Duration
	// BlankBudget is how long the readiness wait goes on past ReadyBudget while the
	// pane has shown nothing (timings.max_starting).
	BlankBudget time.Duration
	// Gate reports the phrase of a provider screen that takes no prompt (a login or a
	// trust question) a visible screen holds and its cause ([provider.Startup.Gate]);
	// nil when orcr knows no such screen of the provider.
	Gate func(screen string) (phrase, cause string)
	// GateSettle is how long after a start's readiness wait Gate is still read before
	// the first prompt is typed ([provider.Startup.GateSettle]).
	GateSettle    time.Duration
	Paste         bool
	ClearKeys     []string
	EnterDelay    time.Duration
	ConfirmBudget time.Duration
	ConfirmPoll   time.Duration
	RetypeDelay   time.Duration
	Attempts      int
	ProbeMaxChars int
}

func (w *agentWork) plan(provider string) SubmitPlan {
	return w.env.providers().Submit(provider)
}

// submission is text typed the way plan types a prompt: the input box cleared, the
// text (as one bracketed paste where the provider takes one), pause, Enter. A
// provider whose deliveries are confirmed (the real TUIs) gets its Enter only once
// the text shows on screen, or after provider.ShowBudget (docs/lifecycle.md §9.1).
func (p SubmitPlan) submission(text string, pause time.Duration) herdr.Submission {
	s := herdr.Submission{Text: text, Paste: p.Paste, Clear: p.ClearKeys, ClearPause: provider.ClearTypePause, Pause: pause}
	if p.ConfirmBudget > 0 {
		s.Shows = typedShows(promptProbe(text, p.ProbeMaxChars), placeheld(text))
		s.ShowBudget, s.ShowPoll, s.ShowGap = provider.ShowBudget, provider.ShowPoll, provider.ShowGap
	}
	return s
}

// typedShows reports whether a screen read after a prompt was typed shows it: its
// probe there more often than before the typing. A prompt a TUI may show as a
// placeholder (placeheld) counts as shown on any change of the screen too.
func typedShows(probe string, placeheld bool) func(before, now string) bool {
	return func(before, now string) bool {
		if probe != "" && strings.Count(now, probe) > strings.Count(before, probe) {
			return true
		}
		return placeheld && now != before
	}
}

// placeheld reports whether a TUI may show prompt as a placeholder rather than its
// text: a paste of several lines (opencode's "[Pasted ~3 lines]") or a long one
// (claude's "[Pasted text #1 …]").
func placeheld(prompt string) bool {
	prompt = strings.TrimSpace(prompt)
	return strings.Contains(prompt, "\n") || utf8.RuneCountInString(prompt) > placeheldRunes
}

// placeheldRunes is the length above which a one-line prompt may be shown as a
// placeholder ([placeheld]).
const placeheldRunes = 200

// agentRow is herdr's agent.list row of target (a terminal id; or a pane id, when
// byPane), if listed.
func (w *agentWork) agentRow(target string, byPane bool) (herdr.AgentInfo, bool) {
	ctx, cancel := w.herdrCtx()
	defer cancel()
	list, err := w.sess().AgentList(ctx)
	if err != nil {
		return herdr.AgentInfo{}, false
	}
	for _, a := range list {
		if a.TerminalID == target || (byPane && a.PaneID == target) {
			return a, true
		}
	}
	return herdr.AgentInfo{}, false
}

// paneStatus is herdr's agent status of target (a terminal id or a pane id), if listed.
// For a provider whose status is read from the screen (docs/providers.md §11.4) it is
// the screen's, when one of its rules matches.
func (w *agentWork) paneStatus(target string) (herdr.Status, bool) {
	if spec, ok := w.env.screenStatus(w.st.Provider); ok {
		text, ok := w.screen(target)
		if !ok {
			return "", false
		}
		st, _ := provider.ScreenStatus(spec, text)
		return st, st != herdr.StatusUnknown
	}
	a, ok := w.agentRow(target, true)
	return a.AgentStatus, ok
}

// completionBase reads herdr's completion_seq of target (a terminal id) right after
// its Enter: the open turn's baseline (docs/lifecycle.md §10.2). It costs one
// agent.list, skipped once the monitor saw herdr's agent rows without the field;
// unknown when herdr does not report it, does not list the terminal, or the call fails.
func (w *agentWork) completionBase(target string) counter {
	if w.env.completionSeq.Load() == completionSeqAbsent {
		return counter{}
	}
	a, ok := w.agentRow(target, false)
	if !ok {
		return counter{}
	}
	return counterOf(a.CompletionSeq)
}

func (w *agentWork) screen(target string) (string, bool) {
	ctx, cancel := w.herdrCtx()
	defer cancel()
	rd, err := w.sess().Read(ctx, target, 0)
	if err != nil {
		return "", false
	}
	return rd.Text, true
}

// gateError is the environment_error of a delivery that found the provider's TUI at a
// screen that takes no prompt (docs/providers.md §5.2).
func gateError(prov, phrase, cause, cwd string) error {
	if cause == wire.CauseProviderSetupRequired {
		return wire.Env(cause, fmt.Sprintf("%s asks a question about its own settings (`%s` on screen): answer it in the agent's pane (orcr agent attach) "+
			"or once in a terminal, then try again", prov, phrase), "provider", prov)
	}
	if cause == wire.CauseProviderTrustRequired {
		return wire.Env(cause, fmt.Sprintf("%s asks whether to trust the agent's working directory %s (`%s` on screen): "+
			"start %s there once in a terminal and trust it (a trusted directory's subdirectories are trusted too), then run the agent again",
			prov, cwd, phrase, prov), "provider", prov, "cwd", cwd)
	}
	return wire.Env(cause, fmt.Sprintf("%s is at its login screen (`%s` on screen): log in to %s in a terminal first, then run the agent again",
		prov, phrase, prov), "provider", prov)
}

// submit delivers prompt to target following plan (docs/lifecycle.md §9.1–§9.2). orcr
// confirms delivery to the terminal, not acceptance by the provider: when the budget
// runs out the turn simply stays open. Right after the first Enter it reads the
// turn's completion_seq baseline, which it returns (before the confirmation loop, so
// a fast turn's own idle edge comes after it), and when its first Enter was sent: the
// turn's delivered_at (docs/lifecycle.md §9.1), not the moment submit returns, by
// which a fast provider has answered. What the provider does with the input follows
// the first Enter, a re-driven one's too.
func (w *agentWork) submit(target, prompt string, plan SubmitPlan) (counter, time.Time, error) {
	sess := w.sess()
	if plan.ReadyBudget > 0 {
		w.waitReady(target, plan)
	}
	// A TUI at its login screen or asking whether to trust its directory takes no
	// prompt; typing into it would answer the dialog instead (docs/providers.md §5.2).
	if plan.Gate != nil {
		if text, ok := w.screen(target); ok {
			if phrase, cause := plan.Gate(text); phrase != "" {
				return counter{}, time.Time{}, gateError(w.st.Provider, phrase, cause, w.st.Cwd)
			}
		}
	}
	// Every delivery, a re-delivery included, empties the input box first, so nothing
	// left there is glued onto the prompt and a retyped prompt is never there twice.
	written := w.transcriptWritten(target)
	ctx, cancel := w.herdrCtx()
	typed, err := sess.SubmitAt(ctx, target, plan.submission(prompt, plan.EnterDelay))
	cancel()
	if err != nil {
		return counter{}, time.Time{}, err
	}
	entered := typed.Entered
	base := w.completionBase(target)
	if plan.ConfirmBudget <= 0 {
		return base, entered, nil
	}
	probe := promptProbe(prompt, plan.ProbeMaxChars)
	poll := plan.ConfirmPoll
	if poll <= 0 {
		poll = 400 * time.Millisecond
	}
	deadline := time.Now().Add(plan.ConfirmBudget)
	seen, retypes, absent, retyped := false, 0, 0, time.Now()
	// The screen right before the last Enter, and when that Enter was pressed.
	enterScreen, enteredAt := typed.Screen, typed.Entered
	for w.sleepCtx(poll) {
		if time.Now().After(deadline) {
			w.log().Warn("input not confirmed within the submit budget; the turn stays open", "target", target)
			return base, entered, nil
		}
		if st, ok := w.paneStatus(target); ok && (st == herdr.StatusWorking || st == herdr.StatusBlocked) {
			return base, entered, nil
		}
		text, readable := w.screen(target)
		if readable && strings.TrimSpace(text) == "" {
			continue // nothing drawn: what was typed waits in the terminal, not lost
		}
		shown := !readable || probe == "" || strings.Contains(text, probe)
		// The transcript written since the Enter and holding this prompt: the provider
		// took it. On screen, that is the conversation's copy (the real TUIs keep it
		// above the input box, and a turn faster than the poll is over before herdr is
		// seen working); never shown, the provider redrew its screen as it took it
		// (gemini). Written without it, the write is no evidence either way: a resumed
		// gemini writes its session file on its own, its prompt left in the input box,
		// and qwen writes telemetry lines before the prompt's. Written moments ago,
		// look again rather than press Enter or type the prompt twice.
		taken, writing := false, false
		if (shown || !seen) && written() {
			taken = probe == "" || w.transcriptHolds(target, probe)
			writing = !taken && w.writtenWithin(target, transcriptQuiet)
		}
		if taken {
			return base, entered, nil
		}
		if writing {
			continue
		}
		ctx, cancel := w.herdrCtx()
		switch {
		case shown && enterScreen != "" && text == enterScreen && time.Since(enteredAt) < enterUnread:
			// Nothing drawn since the last Enter: a busy TUI has not read it yet. Another
			// Enter now would be read with it in one burst, and gemini submits the
			// prompt once for each; look again.
			seen = true
		case shown:
			// The text sits in the input box: the Enter was dropped.
			w.log().Info("submit: the prompt still sits in the input box; Enter pressed again", "target", target,
				"since_enter_ms", time.Since(enteredAt).Milliseconds())
			sess.SendKeys(ctx, target, "Enter")
			seen = true
			enterScreen, enteredAt = text, time.Now()
		case seen:
			cancel()
			return base, entered, nil // it was there and is gone: submitted
		case absent+1 < retypeAbsences || time.Since(retyped) < retypeAfter:
			// Not on screen yet: a TUI that took it, or a busy one that has not read it
			// yet, may not have drawn it (a resumed qwen under load; a gemini booting
			// beside other CLIs read the prompt and its Enter as a newline in one
			// burst, after a retype), so look again before typing it twice.
			absent++
		case retypes < plan.Attempts:
			// Never shown: the text itself was dropped. Type it again (never after it
			// was seen once, so it is not typed twice).
			retypes, absent, retyped = retypes+1, 0, time.Now()
			w.log().Info("submit: the prompt never showed; typed again", "target", target, "retype", retypes)
			if again, err := sess.SubmitAt(ctx, target, plan.submission(prompt, plan.RetypeDelay)); err == nil {
				enterScreen, enteredAt = again.Screen, again.Entered
			}
		default:
			w.log().Info("submit: the prompt never showed after its retypes; Enter pressed again", "target", target)
			sess.SendKeys(ctx, target, "Enter")
			enterScreen, enteredAt = text, time.Now()
		}
		cancel()
	}
	return base, entered, nil
}

// transcriptWritten reads the agent's transcript's mtime now and returns a check that
// reports whether the transcript was written since: its mtime is later than now's (or,
// when it could not be located now, not earlier than now).
func (w *agentWork) transcriptWritten(target string) func() bool {
	before, had := w.transcriptMtime(target)
	if !had {
		before = time.Now().UnixMilli() - 1
	}
	return func() bool {
		now, ok := w.transcriptMtime(target)
		return ok && now > before
	}
}

// retypeAbsences is on how many polls in a row a prompt never seen must be missing from
// the screen before it is typed again (docs/lifecycle.md §9.2).
const retypeAbsences = 2

// retypeAfter is how long after it was typed a prompt never seen on screen must stay
// missing before it is typed again (docs/lifecycle.md §9.2).
const retypeAfter = 3 * time.Second

// enterUnread is how long after an Enter a screen that has not changed since it is taken
// for a TUI that has not read the Enter yet, and no other Enter is pressed
// (docs/lifecycle.md §9.2).
const enterUnread = 3 * time.Second

// transcriptQuiet is how long after its last write a transcript that does not hold a
// prompt never seen on screen is taken to mean the prompt was dropped
// (docs/lifecycle.md §9.2).
const transcriptQuiet = 2 * time.Second

// writtenWithin reports whether the agent's transcript was written less than d ago.
func (w *agentWork) writtenWithin(target string, d time.Duration) bool {
	at, ok := w.transcriptMtime(target)
	return ok && time.Since(time.UnixMilli(at)) < d
}

// transcriptHolds reports whether the agent's transcript's last user text contains
// probe (a prompt's probe, [promptProbe]).
func (w *agentWork) transcriptHolds(target, probe string) bool {
	if probe == "" {
		return false
	}
	path, ok := w.locateAt(target)
	if !ok {
		return false
	}
	text, ok := w.env.Transcripts.LastPrompt(w.st.Provider, path)
	return ok && strings.Contains(text, probe)
}

// transcriptMtime is the agent's transcript's mtime (unix ms), if it can be located
// ([agentWork.locateAt]).
func (w *agentWork) transcriptMtime(target string) (int64, bool) {
	path, ok := w.locateAt(target)
	if !ok {
		return 0, false
	}
	c, ok := w.env.Transcripts.Cursor(path)
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(c, 10, 64)
	return n, err == nil
}

// locateAt is the agent's transcript path, if it can be located. A first prompt's agent
// may have no session recorded yet (the row is not re-read during a delivery, and a
// restart's recovery runs before the monitor records it): herdr's report of the pane's
// session (target, a terminal or pane id) stands in for it. Without either, the
// provider's own rule decides (the mock's needs no session).
func (w *agentWork) locateAt(target string) (string, bool) {
	if w.env.Transcripts == nil {
		return "", false
	}
	tt := transcriptTarget(w.env.Home, w.st)
	if tt.SessionValue == "" {
		if a, ok := w.agentRow(target, true); ok && a.AgentSession != nil && a.AgentSession.Value != "" {
			tt.SessionKind, tt.SessionValue = a.AgentSession.Kind, a.AgentSession.Value
		}
	}
	path, err := w.env.Transcripts.Locate(tt)
	return path, err == nil
}

// waitReady waits (bounded) until herdr reports any status but unknown for the pane,
// or its visible text is non-empty and the same on two reads in a row. A pane that has
// shown nothing yet is waited for past ReadyBudget, up to BlankBudget: a TUI that has
// not drawn its first screen has not started reading its terminal, and text typed then
// reaches it in one chunk when it does, where claude took the Enter for a newline
// (docs/lifecycle.md §9.2).
func (w *agentWork) waitReady(target string, plan SubmitPlan) {
	poll := plan.readyPoll()
	start := time.Now()
	prev, drawn := "", false
	for readyWaitGoesOn(time.Since(start), drawn, plan) {
		if st, ok := w.paneStatus(target); ok && statusShowsReady(st) {
			return
		}
		if text, ok := w.screen(target); ok && strings.TrimSpace(text) != "" {
			if text == prev {
				return
			}
			prev, drawn = text, true
		}
		if !w.sleepCtx(poll) {
			return
		}
	}
	if !drawn {
		w.log().Warn("the pane showed nothing within the readiness wait; typing the input regardless", "target", target,
			"waited", time.Since(start).Round(time.Millisecond).String())
	}
}

// statusShowsReady reports whether herdr's status of a pane proves that its TUI is up
// and reading its terminal: working or blocked. idle does not: herdr reads a known
// agent whose screen matches none of its rules — a blank or half-drawn screen while
// claude or codex boots — as idle (docs/herdr.md §5.2).
func statusShowsReady(st herdr.Status) bool {
	return st == herdr.StatusWorking || st == herdr.StatusBlocked
}

// readyPoll is the readiness wait's poll interval: ReadyPoll, 400 ms when unset.
func (p SubmitPlan) readyPoll() time.Duration {
	if p.ReadyPoll <= 0 {
		return 400 * time.Millisecond
	}
	return p.ReadyPoll
}

// gateSettleGoesOn is the bound of a start's reads for a screen that takes no prompt
// after its readiness wait (docs/lifecycle.md §9.2): GateSettle.
func gateSettleGoesOn(elapsed time.Duration, plan SubmitPlan) bool {
	return elapsed < plan.GateSettle
}

// readyWaitGoesOn is the readiness wait's bound: ReadyBudget, and BlankBudget while
// nothing was drawn.
func readyWaitGoesOn(elapsed time.Duration, drawn bool, plan SubmitPlan) bool {
	return elapsed < plan.ReadyBudget || !drawn && elapsed < plan.BlankBudget
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

// recordDelivery writes what a delivery attempt of o's turn did, in the caller's
// transaction: on success the input delivered and logged (and its inbox item done), and
// either way the intent's applied event.
func (w *agentWork) recordDelivery(tx *store.Tx, o openedTurn, prompt string, entered time.Time, derr error) error {
	if derr == nil {
		var at int64
		if !entered.IsZero() {
			at = entered.UnixMilli()
		}
		if err := tx.MarkDelivered(w.uuid, o.seq, at); err != nil {
			return err
		}
		if err := tx.LogInput(w.uuid, o.seq, w.inputSource(), prompt); err != nil {
			return err
		}
		if w.inboxID != 0 {
			if err := ignoreStale(tx.InboxDone(w.uuid, w.inboxID)); err != nil {
				return err
			}
		}
	}
	_, err := tx.Applied(o.opID, derr == nil, errText(derr), &api.AgentInputApplied{InputSeq: o.seq})
	return err
}
