package main

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// minGapWorkMS is the least work simulated before each tool gap.
const minGapWorkMS = 150

// start creates the transcript, copies a resumed one into it, draws the first
// screen, reports idle and then, with ORCR_MOCK_SESSION_SOURCE, the session. It runs
// before the worker, so a.cfg may still change here.
func (a *agent) start() {
	path := os.Getenv("ORCR_PATH")
	if path == "" {
		path = "-"
	}
	a.tr.create()
	resumed := a.resume()
	a.scr.mu.Lock()
	a.scr.status = "idle"
	a.scr.mu.Unlock()
	line := "mock agent " + a.cfg.agentName + "  path " + path
	a.scr.setHeader(a.cfg.banner, line)
	if late := a.cfg.lateBanner; late != "" {
		time.AfterFunc(time.Duration(a.cfg.lateBannerMS)*time.Millisecond, func() { a.scr.setHeader(late, line) })
	}
	if resumed != "" {
		a.scr.addLines(resumed)
	}
	a.rep.report("idle")
	a.reportSession()
}

// resume copies the transcript named by --resume into ours and takes over the
// session id of its last entry that has one (unless ORCR_MOCK_SESSION_ID is set).
// It returns the line to show: "resumed <n> entries from <path>", or the error of a
// file it could not read (the session then starts fresh); "" without --resume.
func (a *agent) resume() string {
	from := a.cfg.resumeFrom
	if from == "" {
		return ""
	}
	n, sid, err := a.tr.copyFrom(from)
	if err != nil {
		a.log.Printf("resume: %v; starting a fresh session", err)
		return "cannot resume: " + err.Error() + "; starting a fresh session"
	}
	if sid != "" && !a.cfg.sessionIDSet {
		a.cfg.sessionID = sid
		if a.rep != nil {
			a.rep.sessionID = sid
		}
	}
	a.log.Printf("resumed %d entries from %s, session %q", n, from, a.cfg.sessionID)
	return fmt.Sprintf("resumed %d entries from %s", n, from)
}

// reportSession tells herdr, with ORCR_MOCK_SESSION_SOURCE set, where the
// transcript is. Without a transcript there is nothing to point at.
func (a *agent) reportSession() {
	switch {
	case a.cfg.sessionSource == "":
	case a.tr.path == "":
		a.log.Printf("no session report: no transcript")
	default:
		a.rep.reportSession(a.cfg.sessionSource, a.tr.path)
	}
}

// ui reads key events until input ends or the agent quits. It owns the input
// box.
func (a *agent) ui(d *decoder) {
	time.Sleep(time.Duration(a.cfg.busyMS) * time.Millisecond)
	var textAt time.Time // when text was last put into the input box
	var submitted []rune // the text the last submitting Enter took, and when
	var submittedAt time.Time
	for {
		ev := d.next()
		switch ev.kind {
		case keyText:
			textAt = time.Now() // before the draw: a reader that saw the text came after it
			first := len(a.input) == 0
			a.input = append(a.input, []rune(ev.text)...)
			a.scr.setInput(string(a.input))
			if first && a.cfg.textBusyMS > 0 {
				a.log.Printf("busy for %d ms after the text", a.cfg.textBusyMS)
				time.Sleep(time.Duration(a.cfg.textBusyMS) * time.Millisecond)
			}
		case keyBackspace:
			if len(a.input) > 0 {
				a.input = a.input[:len(a.input)-1]
				a.scr.setInput(string(a.input))
			}
		case keyCtrlU:
			a.input = a.input[:0]
			a.scr.setInput("")
		case keyEnter:
			// Enter on an empty input box answers a standing permission prompt.
			if len(a.input) == 0 && a.answer(true) {
				continue
			}
			if since := time.Since(textAt); len(a.input) > 0 && since < time.Duration(a.cfg.fastReturnMS)*time.Millisecond {
				a.log.Printf("an Enter %d ms after the text: taken as a newline", since.Milliseconds())
				a.input = append(a.input, '\n')
				a.scr.setInput(string(a.input))
				continue
			}
			if len(a.input) == 0 && len(submitted) > 0 && time.Since(submittedAt) < time.Duration(a.cfg.staleEnterMS)*time.Millisecond {
				a.log.Printf("an Enter %d ms after a submit: submits %q again", time.Since(submittedAt).Milliseconds(), clip(string(submitted), 200))
				a.input = append(a.input, submitted...)
			}
			text := append([]rune(nil), a.input...)
			if a.submit() {
				return
			}
			if len(a.input) == 0 && len(text) > 0 {
				submitted, submittedAt = text, time.Now()
			}
		case keyEsc:
			if !a.answer(false) {
				a.interrupt()
			}
		case keyCtrlC:
			if len(a.input) > 0 {
				a.input = a.input[:0]
				a.scr.setInput("")
			} else {
				a.interrupt()
			}
		case keyCtrlD:
			if len(a.input) == 0 {
				a.enqueue(workItem{kind: itemEOF})
				return
			}
		case keyEOF:
			if ev.err != nil && !errors.Is(ev.err, io.EOF) {
				a.shutdown("input error: " + ev.err.Error())
			} else {
				a.enqueue(workItem{kind: itemEOF})
			}
			return
		}
	}
}

// submit handles Enter. It reports whether the input side should stop.
func (a *agent) submit() bool {
	text := strings.TrimSpace(string(a.input))
	if text != "" && a.enterDrops < a.cfg.dropEnters {
		// An Enter lost: the text stays in the input box.
		a.enterDrops++
		a.log.Printf("dropped Enter %d/%d: %q stays in the input box", a.enterDrops, a.cfg.dropEnters, clip(text, 200))
		if a.cfg.dropTouches {
			a.tr.touch()
		}
		return false
	}
	a.input = a.input[:0]
	a.scr.setInput("")
	switch {
	case text == "":
		return false
	case text == "/quit":
		a.mu.Lock()
		a.quitByLine = true
		a.mu.Unlock()
		a.shutdown("/quit")
		return true
	case a.dropped < a.cfg.dropFirst:
		a.dropped++
		a.log.Printf("dropped send %d/%d: %q", a.dropped, a.cfg.dropFirst, clip(text, 200))
		if a.cfg.dropTouches {
			a.tr.touch()
		}
		return false
	}
	if _, ok := modelCommand(text); ok {
		a.enqueue(workItem{kind: itemModel, text: text})
		return false
	}
	a.enqueue(workItem{kind: itemPrompt, text: text})
	return false
}

// modelCommand reports whether text is the /model command, and returns its
// argument with the surrounding white space trimmed.
func modelCommand(text string) (name string, ok bool) {
	rest, ok := strings.CutPrefix(text, modelPrefix)
	if !ok || (rest != "" && !unicode.IsSpace(rune(rest[0]))) {
		return "", false
	}
	return strings.TrimSpace(rest), true
}

// modelPrefix starts the command that switches the model.
const modelPrefix = "/model"

// enqueue hands an item to the worker; if the queue is full it is dropped.
func (a *agent) enqueue(it workItem) {
	select {
	case a.queue <- it:
	default:
		a.log.Printf("queue full, dropping %q", clip(it.text, 200))
	}
}

// answer gives a standing permission prompt its verdict (approved or not). It
// reports whether a prompt stood.
func (a *agent) answer(approved bool) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.permit == nil {
		return false
	}
	if time.Now().Before(a.deafUntil) {
		a.log.Printf("permission prompt: key dropped (deaf_ms)")
		return true // the prompt stands; the key is gone
	}
	a.permit <- approved // buffered for one verdict; the prompt is gone after it
	a.permit = nil
	return true
}

// interrupt stops the running turn, or leaves a blocked state.
func (a *agent) interrupt() {
	a.mu.Lock()
	defer a.mu.Unlock()
	switch {
	case a.cancel != nil:
		a.log.Printf("interrupt")
		a.cancel()
	case a.blocked:
		a.enqueue(workItem{kind: itemUnblock})
	}
}

// shutdown makes the worker stop after interrupting any running turn.
func (a *agent) shutdown(reason string) {
	a.quitOnce.Do(func() {
		a.log.Printf("shutdown: %s", reason)
		close(a.quit)
	})
	a.mu.Lock()
	if a.cancel != nil {
		a.cancel()
	}
	a.mu.Unlock()
}

// lingerAfterQuit is ORCR_MOCK_QUIT_DELAY_MS: after "/quit" the program shows
// "quitting" and exits only the delay later, or at a terminating signal.
func (a *agent) lingerAfterQuit() {
	a.mu.Lock()
	byLine := a.quitByLine
	a.mu.Unlock()
	if !byLine || a.cfg.quitDelayMS == 0 {
		return
	}
	a.log.Printf("quitting in %d ms", a.cfg.quitDelayMS)
	a.scr.addLines("quitting")
	select {
	case <-time.After(time.Duration(a.cfg.quitDelayMS) * time.Millisecond):
	case <-a.signalled:
	}
}

// quitting reports whether shutdown was called.
func (a *agent) quitting() bool {
	select {
	case <-a.quit:
		return true
	default:
		return false
	}
}

// work runs queued turns one at a time until shutdown, end of input or the
// exit-after limit.
func (a *agent) work() {
	turns := 0
	for {
		select {
		case <-a.quit:
			return
		case it := <-a.queue:
			if a.quitting() {
				return
			}
			switch it.kind {
			case itemEOF:
				a.log.Printf("end of input")
				return
			case itemUnblock:
				a.mu.Lock()
				wasBlocked := a.blocked
				a.blocked = false
				a.mu.Unlock()
				if wasBlocked {
					a.scr.setStatus("idle")
					a.rep.report("idle")
				}
			case itemModel:
				a.switchModel(it.text)
			case itemPrompt:
				a.turn(it.text)
				turns++
				if a.cfg.exitAfter > 0 && turns >= a.cfg.exitAfter {
					a.log.Printf("exit after %d turns", turns)
					return
				}
			}
		}
	}
}

// switchModel runs "/model <name>": it records name as the model (the status line,
// mock.log and a user line of the transcript, never an assistant one) and reports
// idle without starting a turn. A missing or multi-line name is shown as a usage
// error and changes nothing, but idle is reported all the same.
func (a *agent) switchModel(text string) {
	a.mu.Lock()
	a.blocked = false
	a.mu.Unlock()
	name, _ := modelCommand(text)
	if name == "" || strings.ContainsAny(name, "\r\n") {
		a.log.Printf("model: bad command %q", clip(text, 200))
		a.scr.addLines("usage: " + modelPrefix + " <name>")
		a.setState("idle")
		return
	}
	a.log.Printf("model set to %q", name)
	a.tr.append(newModelLine(text, name, a.cfg.sessionID))
	a.scr.addLines("model set to " + name)
	a.scr.setModel(name)
	a.setState("idle")
}

// finish flushes the transcript and releases the pane's agent state.
func (a *agent) finish() {
	a.tr.close()
	a.rep.release()
	a.log.Printf("exit")
}

// turnParams are the effective settings of one turn.
type turnParams struct {
	turnMS, toolGaps, gapMS  int
	deafMS                   int  // a permission prompt drops the keys of its first deafMS ms
	callLateMS               int  // a call that asks writes its tool_use this long after blocked
	callSameMS               bool // that late write leaves the file's mtime as it was
	block, noWorking, digest bool
	say, write, tool, limit  string
	tokens                   *mockUsage
}

// params merges the prompt's directives over the knobs.
func (a *agent) params(prompt string) turnParams {
	d := parseDirectives(prompt)
	p := turnParams{
		turnMS:     a.cfg.turnMS,
		toolGaps:   a.cfg.toolGaps,
		gapMS:      a.cfg.gapMS,
		deafMS:     d.deafMS.v,
		callLateMS: d.callLateMS.v,
		callSameMS: d.callSameMS,
		block:      a.cfg.block || d.block,
		noWorking:  d.noWorking,
		digest:     d.digest,
		say:        d.say,
		write:      d.write,
		tool:       d.tool,
		limit:      d.limit,
		tokens:     d.tokens,
	}
	if d.turnMS.ok {
		p.turnMS = d.turnMS.v
	}
	if d.toolGaps.ok {
		p.toolGaps = d.toolGaps.v
	}
	if d.gapMS.ok {
		p.gapMS = d.gapMS.v
	}
	return p
}

// response is the assistant's answer to prompt.
func response(prompt string, p turnParams) string {
	if p.digest {
		sum := sha256.Sum256([]byte(prompt))
		return fmt.Sprintf("bytes=%d sha256=%x\nDONE", len(prompt), sum)
	}
	if p.limit != "" {
		return p.limit
	}
	if p.say != "" {
		return p.say + "\nDONE"
	}
	return "RESPONSE: " + prompt + "\nDONE"
}

// turn runs one prompt to completion or interruption.
func (a *agent) turn(prompt string) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a.mu.Lock()
	a.cancel = cancel
	a.blocked = false
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		a.cancel = nil
		a.mu.Unlock()
	}()
	if a.quitting() {
		cancel()
	}

	p := a.params(prompt)
	resp := response(prompt, p)
	a.scr.setTitle("")
	a.log.Printf("turn %q (%d bytes): %+v", clip(prompt, 200), len(prompt), p)
	if a.cfg.takeTouches {
		a.tr.touch()
	}
	if !a.cfg.noEcho {
		a.scr.addLines(quote(prompt))
	}

	// busy shows and reports the states inside the turn; no_working keeps the turn
	// idle throughout (a turn that ends between two polls of herdr's status).
	busy := func(state string) {
		if !p.noWorking {
			a.setState(state)
		}
	}
	// A tool turn writes its user line with the call; the rest write it at the end.
	lines := []transcriptLine{newTranscriptLine("user", prompt, a.cfg.sessionID, false)}
	if !sleep(ctx, a.cfg.delayWorkingMS) {
		a.interrupted(lines, resp)
		return
	}
	busy("working")
	for i := 0; i < p.toolGaps; i++ {
		if !sleep(ctx, max(p.turnMS, minGapWorkMS)) {
			a.interrupted(lines, resp)
			return
		}
		busy("idle")
		if !sleep(ctx, p.gapMS) {
			a.interrupted(lines, resp)
			return
		}
		busy("working")
	}
	if p.tool != "" {
		approved, ok := a.callTool(ctx, prompt, p, lines)
		lines = nil
		if !ok {
			a.interrupted(lines, resp)
			return
		}
		if !approved {
			resp = "DENIED: " + p.tool + "\nDONE"
		}
	}
	if !sleep(ctx, p.turnMS) {
		a.interrupted(lines, resp)
		return
	}

	answer := newTranscriptLine("assistant", resp, a.cfg.sessionID, false)
	if u := p.tokens; u != nil {
		answer.Message.ID, answer.Message.Model, answer.Message.Usage = "msg-"+answer.Timestamp, u.Model, u
	}
	lines = append(lines, answer)
	late := a.cfg.lateTranscriptMS
	if late == 0 {
		a.tr.append(lines...)
	}
	if p.write != "" {
		a.writeResponse(p.write, resp)
	}
	a.scr.addLines(resp)
	final := "idle"
	block := p.block || p.limit != ""
	if p.limit != "" {
		// A provider stopped by its usage limit: the title names it, so orcr classifies
		// the block as limit (docs/providers.md §7); the next turn clears it.
		a.scr.setTitle("mock: usage limit reached")
	}
	if block {
		final = "blocked"
	}
	a.mu.Lock()
	a.blocked = block
	a.mu.Unlock()
	a.setState(final)
	if late > 0 {
		a.tr.appendLater(time.Duration(late)*time.Millisecond, false, lines...)
	}
}

// callTool makes the turn's call of tool name: the user line (pending) and the
// tool_use go to the transcript. With --skip-permissions the tool "runs" at once;
// otherwise the permission prompt is shown, blocked reported and the verdict
// awaited, then working reported (with call_late_ms the lines go to the transcript
// that long after blocked, or with the next line appended, whichever is first).
// Either way the tool_result follows. approved is the verdict; ok is false when the
// turn was interrupted while waiting (the call is then answered as interrupted, as
// claude does).
func (a *agent) callTool(ctx context.Context, prompt string, p turnParams, pending []transcriptLine) (approved, ok bool) {
	name, deafMS := p.tool, p.deafMS
	a.toolCalls++
	id := fmt.Sprintf("toolu_mock_%s_%d", a.toolPrefix, a.toolCalls)
	sid := a.cfg.sessionID
	call := append(pending, newToolUseLine(id, name, prompt, sid))
	late := time.Duration(p.callLateMS) * time.Millisecond
	if late == 0 || a.cfg.skipPermissions {
		a.tr.append(call...)
	}
	a.scr.addLines("tool " + name + " (" + id + ")")
	a.log.Printf("tool call %s %s", id, name)
	if a.cfg.skipPermissions {
		a.toolResult(id, name, true)
		return true, true
	}
	verdict := make(chan bool, 1)
	a.mu.Lock()
	a.permit = verdict
	a.deafUntil = time.Now().Add(time.Duration(deafMS) * time.Millisecond)
	a.mu.Unlock()
	a.scr.setDialog(permissionPrompt(name))
	a.setState("blocked")
	if late > 0 {
		a.tr.appendLater(late, p.callSameMS, call...)
	}
	select {
	case approved = <-verdict:
	case <-ctx.Done():
		a.mu.Lock()
		a.permit = nil
		a.mu.Unlock()
		a.scr.setDialog("")
		a.tr.append(newToolResultLine(id, "interrupted by user", true, sid))
		a.log.Printf("tool call %s interrupted", id)
		return false, false
	}
	a.scr.setDialog("")
	a.toolResult(id, name, approved)
	a.setState("working")
	return approved, true
}

// permissionPrompt is the dialog that asks whether tool name may run.
func permissionPrompt(name string) string {
	return "Allow tool " + name + "? [Enter] yes  [Esc] no"
}

// toolResult writes and shows the result of the call id of tool name: "ok: <name>"
// when approved, else the error "denied by user".
func (a *agent) toolResult(id, name string, approved bool) {
	text := "ok: " + name
	if !approved {
		text = "denied by user"
	}
	a.tr.append(newToolResultLine(id, text, !approved, a.cfg.sessionID))
	a.scr.addLines("  " + text)
	a.log.Printf("tool result %s: %s", id, text)
}

// interrupted finishes an interrupted turn: what it has — lines not written yet
// (the user line, unless a tool call wrote it) and the partial response — goes to
// the transcript at once, then idle is reported.
func (a *agent) interrupted(lines []transcriptLine, resp string) {
	partial := strings.TrimSuffix(resp, "\nDONE") + "\nINTERRUPTED"
	a.tr.append(append(lines, newTranscriptLine("assistant", partial, a.cfg.sessionID, true))...)
	a.scr.addLines(partial)
	a.setState("idle")
}

// setState shows and reports state.
func (a *agent) setState(state string) {
	a.scr.setStatus(state)
	a.rep.report(state)
}

// writeResponse writes resp to rel inside the data dir, refusing paths that
// would leave it.
func (a *agent) writeResponse(rel, resp string) {
	if !filepath.IsLocal(rel) {
		a.log.Printf("write=%q refused: not a local relative path", rel)
		return
	}
	path := filepath.Join(a.cfg.dataDir, rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		a.log.Printf("write=%q: %v", rel, err)
		return
	}
	if err := os.WriteFile(path, []byte(resp), 0o644); err != nil {
		a.log.Printf("write=%q: %v", rel, err)
	}
}

// quote renders a prompt for the conversation area: "> " before the first
// line, two spaces before the others.
func quote(prompt string) string {
	return "> " + strings.ReplaceAll(prompt, "\n", "\n  ")
}

// sleep waits ms milliseconds; it returns false if ctx ended first.
func sleep(ctx context.Context, ms int) bool {
	if ctx.Err() != nil {
		return false
	}
	if ms <= 0 {
		return true
	}
	t := time.NewTimer(time.Duration(ms) * time.Millisecond)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// clip shortens s to at most n bytes (on a rune boundary) for a log line.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
