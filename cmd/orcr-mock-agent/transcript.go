package main

import (
	"bytes"
	"encoding/json"
	"os"
	"sync"
	"time"
)

// transcriptMessage is the claude-style "message" object of a transcript line.
type transcriptMessage struct {
	Role string `json:"role"`
	// Content is the text (a string), or for a tool line one tool block in an array.
	Content any `json:"content"`
	// An answer of a turn given tokens=: its id, model and usage, as claude writes them.
	ID    string     `json:"id,omitempty"`
	Model string     `json:"model,omitempty"`
	Usage *mockUsage `json:"usage,omitempty"`
}

// mockUsage is the usage of an answer, with claude's field names.
type mockUsage struct {
	Input      int64  `json:"input_tokens"`
	Output     int64  `json:"output_tokens"`
	CacheRead  int64  `json:"cache_read_input_tokens"`
	CacheWrite int64  `json:"cache_creation_input_tokens"`
	Model      string `json:"-"`
}

// transcriptLine is one line of transcript.jsonl; see the package comment for
// the format.
type transcriptLine struct {
	Type        string            `json:"type"`
	Role        string            `json:"role"`
	Kind        string            `json:"kind"`
	Text        string            `json:"text"`
	Tool        string            `json:"tool,omitempty"`
	Model       string            `json:"model,omitempty"` // a /model line: the model set
	Timestamp   string            `json:"timestamp"`
	SessionID   string            `json:"session_id,omitempty"`
	Interrupted bool              `json:"interrupted,omitempty"`
	Message     transcriptMessage `json:"message"`
}

// toolUseBlock is the claude-style block of a tool call.
type toolUseBlock struct {
	Type  string            `json:"type"` // "tool_use"
	ID    string            `json:"id"`
	Name  string            `json:"name"`
	Input map[string]string `json:"input"`
}

// toolResultBlock is the claude-style block of a tool result.
type toolResultBlock struct {
	Type      string `json:"type"` // "tool_result"
	ToolUseID string `json:"tool_use_id"`
	Content   string `json:"content"`
	IsError   bool   `json:"is_error"`
}

// newLine builds a line of role and kind with text, now, with content as its
// message content.
func newLine(role, kind, text, sessionID string, content any) transcriptLine {
	return transcriptLine{
		Type:      role,
		Role:      role,
		Kind:      kind,
		Text:      text,
		Timestamp: time.Now().UTC().Format(time.RFC3339Nano),
		SessionID: sessionID,
		Message:   transcriptMessage{Role: role, Content: content},
	}
}

// newTranscriptLine builds a text entry for role ("user" or "assistant").
func newTranscriptLine(role, text, sessionID string, interrupted bool) transcriptLine {
	l := newLine(role, "text", text, sessionID, text)
	l.Interrupted = interrupted
	return l
}

// newModelLine builds the user line of the command text that set model.
func newModelLine(text, model, sessionID string) transcriptLine {
	l := newTranscriptLine("user", text, sessionID, false)
	l.Model = model
	return l
}

// newToolUseLine builds the assistant's call of tool name with id, its input
// {"prompt": prompt}.
func newToolUseLine(id, name, prompt, sessionID string) transcriptLine {
	l := newLine("assistant", "tool_use", "", sessionID, []toolUseBlock{
		{Type: "tool_use", ID: id, Name: name, Input: map[string]string{"prompt": prompt}},
	})
	l.Tool = name
	return l
}

// newToolResultLine builds the result of the call id: text, an error when isError.
func newToolResultLine(id, text string, isError bool, sessionID string) transcriptLine {
	return newLine("user", "tool_result", text, sessionID, []toolResultBlock{
		{Type: "tool_result", ToolUseID: id, Content: text, IsError: isError},
	})
}

// transcript appends entries to the transcript file. Delayed appends (the
// late-transcript knob) are kept in order: any append, and close, first
// writes whatever delayed entries are still pending. A transcript with an
// empty path writes nothing.
type transcript struct {
	path string
	logf func(format string, args ...any)

	mu      sync.Mutex
	pending []pendingWrite
}

// pendingWrite is a delayed append. keepMtime: the write leaves the file's mtime as it
// was (an append within the same millisecond as the write before it, which a reader
// that compares mtimes in ms cannot tell from no write).
type pendingWrite struct {
	due       time.Time
	lines     []transcriptLine
	timer     *time.Timer
	keepMtime bool
}

// writePendingLocked writes pw. t.mu is held.
func (t *transcript) writePendingLocked(pw pendingWrite) {
	var before time.Time
	if pw.keepMtime && t.path != "" {
		if fi, err := os.Stat(t.path); err == nil {
			before = fi.ModTime()
		}
	}
	t.writeLocked(pw.lines)
	if !before.IsZero() {
		if err := os.Chtimes(t.path, time.Now(), before); err != nil {
			t.logf("transcript chtimes: %v", err)
		}
	}
}

// create makes sure the transcript file exists.
func (t *transcript) create() {
	if t.path == "" {
		return
	}
	f, err := os.OpenFile(t.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.logf("transcript create: %v", err)
		return
	}
	f.Close()
}

// touch creates the transcript if need be and sets its mtime to now, writing nothing.
func (t *transcript) touch() {
	t.create()
	if t.path == "" {
		return
	}
	now := time.Now()
	if err := os.Chtimes(t.path, now, now); err != nil {
		t.logf("transcript touch: %v", err)
	}
}

// append writes lines now, after any pending delayed lines.
func (t *transcript) append(lines ...transcriptLine) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.flushLocked()
	t.writeLocked(lines)
}

// appendLater writes lines after delay (or earlier, when another append or
// close comes first); keepMtime leaves the file's mtime as it was before that write.
func (t *transcript) appendLater(delay time.Duration, keepMtime bool, lines ...transcriptLine) {
	t.mu.Lock()
	defer t.mu.Unlock()
	pw := pendingWrite{due: time.Now().Add(delay), lines: lines, keepMtime: keepMtime}
	pw.timer = time.AfterFunc(delay, t.flushDue)
	t.pending = append(t.pending, pw)
}

// flushDue writes, in order, the pending lines whose time has come.
func (t *transcript) flushDue() {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := time.Now()
	for len(t.pending) > 0 && !t.pending[0].due.After(now) {
		t.writePendingLocked(t.pending[0])
		t.pending = t.pending[1:]
	}
}

// close writes all pending delayed lines.
func (t *transcript) close() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.flushLocked()
}

// flushLocked writes pending lines and stops their timers. t.mu is held.
func (t *transcript) flushLocked() {
	for _, pw := range t.pending {
		pw.timer.Stop()
		t.writePendingLocked(pw)
	}
	t.pending = nil
}

// copyFrom appends every non-blank line of the file src to the transcript, verbatim
// and in one write (a last line without a newline gets one), after any pending delayed
// lines. It returns how many lines it copied and the session_id of the last of them
// that has one. When src is the transcript itself nothing is written, and with an
// empty path nothing is either; src is still read and counted. An error is only
// returned for a src that cannot be read.
func (t *transcript) copyFrom(src string) (n int, sessionID string, err error) {
	b, err := os.ReadFile(src)
	if err != nil {
		return 0, "", err
	}
	var buf []byte
	for _, l := range bytes.Split(b, []byte("\n")) {
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		n++
		var e struct {
			SessionID string `json:"session_id"`
		}
		if json.Unmarshal(l, &e) == nil && e.SessionID != "" {
			sessionID = e.SessionID
		}
		buf = append(append(buf, l...), '\n')
	}
	if t.path == "" || sameFile(src, t.path) {
		return n, sessionID, nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.flushLocked()
	t.writeBytesLocked(buf)
	return n, sessionID, nil
}

// sameFile reports whether a and b name the same existing file.
func sameFile(a, b string) bool {
	sa, err := os.Stat(a)
	if err != nil {
		return false
	}
	sb, err := os.Stat(b)
	return err == nil && os.SameFile(sa, sb)
}

// writeLocked appends lines to the file in one write. t.mu is held.
func (t *transcript) writeLocked(lines []transcriptLine) {
	if t.path == "" || len(lines) == 0 {
		return
	}
	var buf []byte
	for _, l := range lines {
		b, err := json.Marshal(l)
		if err != nil {
			t.logf("transcript encode: %v", err)
			return
		}
		buf = append(append(buf, b...), '\n')
	}
	t.writeBytesLocked(buf)
}

// writeBytesLocked appends buf to the file in one write. t.mu is held.
func (t *transcript) writeBytesLocked(buf []byte) {
	if t.path == "" || len(buf) == 0 {
		return
	}
	f, err := os.OpenFile(t.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.logf("transcript open: %v", err)
		return
	}
	defer f.Close()
	if _, err := f.Write(buf); err != nil {
		t.logf("transcript write: %v", err)
	}
}
