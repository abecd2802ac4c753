package herdr

import (
	"context"
	"time"
	"unicode/utf8"
)

// Bracketed-paste markers (xterm's DECSET 2004 mode). pane.send_text writes bytes
// unchanged (docs/herdr.md §6.4), so orcr writes the markers itself.
const (
	PasteStart = "\x1b[200~"
	PasteEnd   = "\x1b[201~"
)

// KeyEnter is the key that submits what the input box holds.
const KeyEnter = "Enter"

// Submission is one prompt delivery into a TUI's input box (docs/lifecycle.md §9.1):
// reset the box, type the text, pause, Enter.
type Submission struct {
	// Text is typed as is; text too large for one request is typed in several
	// pane.send_text calls, cut on rune boundaries.
	Text string
	// Paste wraps Text in bracketed-paste markers, the start marker in the first call
	// and the end marker in the last, so the TUI takes every newline as part of the
	// text and submits only on the Enter after it.
	Paste bool
	// Clear, when not empty, resets the input box first: with Paste a paste end marker
	// (which closes a paste an interrupted delivery left open, and is otherwise an
	// unknown sequence the TUI ignores), then these keys in one pane.send_keys call.
	Clear []string
	// ClearPause is the wait between the clear keys and the text.
	ClearPause time.Duration
	// Pause is the wait between the last text call and Enter.
	Pause time.Duration
	// Shows, when set, holds the Enter until the TUI has drawn the text: the screen is
	// read right before the text and then every ShowPoll until Shows(before, now)
	// holds, for at most ShowBudget; the Enter follows at least ShowGap after the read
	// that saw it (and never before Pause is over). A TUI whose event loop is busy
	// takes keys that arrived while it was busy in one burst, and gemini then reads an
	// Enter right after a paste as a newline (docs/lifecycle.md §9.1).
	Shows      func(before, now string) bool
	ShowBudget time.Duration
	ShowPoll   time.Duration
	ShowGap    time.Duration
}

// Typed is what a delivery did: when its Enter was sent, whether the TUI was seen to
// draw the text before it ([Submission.Shows]), and the last screen read before the
// Enter ("" when none was: no Shows, or no read succeeded). A screen still equal to it
// after the Enter is a TUI that has drawn nothing since, which may not have read the
// Enter yet (docs/lifecycle.md §9.2).
type Typed struct {
	Entered time.Time
	Shown   bool
	Screen  string
}

// Submit delivers s to target (a terminal id or a pane id). The pause is cut short
// (with ctx's error) when ctx ends. Errors of any call end the delivery.
func (r *Remote) Submit(ctx context.Context, target string, s Submission) error {
	_, err := r.SubmitAt(ctx, target, s)
	return err
}

// SubmitAt is [Remote.Submit] that also returns when the Enter was sent (taken right
// before the call that presses it, so whatever the TUI does with the input comes after
// it: a turn's delivered_at, docs/lifecycle.md §9.1; zero when the delivery failed
// before the Enter) and whether the text was seen on screen before it.
func (r *Remote) SubmitAt(ctx context.Context, target string, s Submission) (Typed, error) {
	pane, err := paneID(ctx, r, target)
	if err != nil {
		return Typed{}, err
	}
	if len(s.Clear) > 0 {
		if s.Paste {
			if err := r.sendTextCall(ctx, pane, PasteEnd); err != nil {
				return Typed{}, err
			}
		}
		if err := r.SendKeys(ctx, pane, s.Clear...); err != nil {
			return Typed{}, err
		}
		if err := sleepCtx(ctx, s.ClearPause); err != nil {
			return Typed{}, err
		}
	}
	before, readable := "", false
	if s.Shows != nil {
		rd, err := r.Read(ctx, pane, ReadVisible, 0)
		before, readable = rd.Text, err == nil
	}
	if s.Paste {
		err = r.sendPaste(ctx, pane, s.Text)
	} else {
		err = r.SendText(ctx, pane, s.Text)
	}
	if err != nil {
		return Typed{}, err
	}
	enterAt := time.Now().Add(s.Pause)
	shown, last := false, ""
	if readable {
		if shown, last, err = r.awaitShown(ctx, pane, before, s); err != nil {
			return Typed{}, err
		}
		if shown {
			enterAt = later(enterAt, time.Now().Add(s.ShowGap))
		}
	}
	if err := sleepCtx(ctx, time.Until(enterAt)); err != nil {
		return Typed{}, err
	}
	entered := time.Now()
	if err := r.SendKeys(ctx, pane, KeyEnter); err != nil {
		return Typed{}, err
	}
	return Typed{Entered: entered, Shown: shown, Screen: last}, nil
}

// awaitShown reads pane's screen every s.ShowPoll until s.Shows(before, screen) holds
// (true) or s.ShowBudget is over (false), and returns the last screen it read ("" when
// no read succeeded). A failed read counts as not shown; only ctx's end is an error.
func (r *Remote) awaitShown(ctx context.Context, pane, before string, s Submission) (shown bool, last string, err error) {
	poll := s.ShowPoll
	if poll <= 0 {
		poll = 100 * time.Millisecond
	}
	deadline := time.Now().Add(s.ShowBudget)
	for {
		if rd, err := r.Read(ctx, pane, ReadVisible, 0); err == nil {
			if last = rd.Text; s.Shows(before, last) {
				return true, last, nil
			}
		}
		if !time.Now().Add(poll).Before(deadline) {
			return false, last, ctx.Err()
		}
		if err := sleepCtx(ctx, poll); err != nil {
			return false, last, err
		}
	}
}

// later is the later of a and b.
func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// sendPaste types text as one bracketed paste, in as many calls as the request limit
// needs. The markers are never split across calls: a TUI that sees a lone ESC at the
// end of one write and the rest later may take it for the Escape key. Empty text types
// nothing.
func (r *Remote) sendPaste(ctx context.Context, paneID, text string) error {
	if text == "" {
		return nil
	}
	markers := EscapedLen(PasteStart) + EscapedLen(PasteEnd)
	chunks := chunkText(text, sendTextBudget(paneID)-markers)
	chunks[0] = PasteStart + chunks[0]
	chunks[len(chunks)-1] += PasteEnd
	for _, c := range chunks {
		if err := r.sendTextCall(ctx, paneID, c); err != nil {
			return err
		}
	}
	return nil
}

// maxRequestID is the longest id [encodeRequest] can give a request.
const maxRequestID = requestIDPrefix + "18446744073709551615"

// sendTextBudget is how many bytes the JSON-escaped text of one pane.send_text request
// to paneID may take so that the whole request line, newline included, stays within
// [MaxRequest] whatever its id.
func sendTextBudget(paneID string) int {
	line, err := encodeRequestID(maxRequestID, MethodPaneSendText, map[string]any{"pane_id": paneID, "text": ""})
	if err != nil {
		return 0 // a pane id near 1 MiB: nothing fits
	}
	return MaxRequest - len(line)
}

// EscapedLen is the length of s inside a JSON string as encoding/json writes it
// (HTML-safe escaping), without the quotes. A test holds it to json.Marshal.
func EscapedLen(s string) int {
	n := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		n += escapedRuneLen(r, size)
		i += size
	}
	return n
}

// escapedRuneLen is the JSON-escaped length of one decoded rune of size bytes (an
// invalid byte decodes as utf8.RuneError of size 1 and is written as \ufffd).
func escapedRuneLen(r rune, size int) int {
	switch {
	case r == '"' || r == '\\' || r == '\b' || r == '\f' || r == '\n' || r == '\r' || r == '\t':
		return 2
	case r < 0x20 || r == '<' || r == '>' || r == '&' || r == '\u2028' || r == '\u2029':
		return 6
	case r == utf8.RuneError && size == 1:
		return 6
	}
	return size
}

// chunkText cuts s into pieces whose JSON-escaped length is at most budget, each as
// long as possible, never inside a rune. An empty s yields one empty piece (herdr
// accepts it). A budget below one rune's escaped length still makes progress, one rune
// a piece (the request is then refused by [Client.Call]).
func chunkText(s string, budget int) []string {
	if len(s) <= budget/6 { // nothing escapes to more than 6 bytes a byte
		return []string{s}
	}
	var out []string
	start, used := 0, 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		n := escapedRuneLen(r, size)
		if used+n > budget && i > start {
			out = append(out, s[start:i])
			start, used = i, 0
		}
		used += n
		i += size
	}
	return append(out, s[start:])
}

// sleepCtx waits d (nothing when d ≤ 0), or until ctx ends (its error).
func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
