package server

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"time"
)

// logRepeatWindow is how long the server log collapses identical lines.
const logRepeatWindow = 5 * time.Second

// maxRepeatKeys bounds the lines remembered at once; past it (a flood of distinct
// lines) records pass through unchanged.
const maxRepeatKeys = 1024

// repeatHandler wraps a slog.Handler so that a failure repeating in a tight loop cannot
// flood the log and rotate every older line away. A record identical to one written
// less than the window ago (same level, message, attributes and logger attributes; the
// time does not count) is not written but counted. When the window of the first one
// closes, one summary record follows: the same level, message and attributes, plus
// repeated=N, the number of copies left out. The next copy after that opens a new
// window and is written again. Records that differ in any attribute are all written.
type repeatHandler struct {
	next  slog.Handler
	scope string // the logger's own attributes and groups, part of every key
	st    *repeatState
}

// repeatState is shared by a repeatHandler and the handlers derived from it.
type repeatState struct {
	window time.Duration
	mu     sync.Mutex
	seen   map[string]*repeatEntry
	closed bool
}

// repeatEntry is one line whose window is open.
type repeatEntry struct {
	first time.Time
	next  slog.Handler // the handler that wrote the first copy (its logger's scope)
	rec   slog.Record  // the first copy
	n     int          // copies left out
	timer *time.Timer  // writes the summary at the window's end; set once n > 0
}

func newRepeatHandler(next slog.Handler, window time.Duration) *repeatHandler {
	return &repeatHandler{next: next, st: &repeatState{window: window, seen: map[string]*repeatEntry{}}}
}

func (h *repeatHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.next.Enabled(ctx, l)
}

func (h *repeatHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	var b strings.Builder
	b.WriteString(h.scope)
	for _, a := range attrs {
		writeAttr(&b, a)
	}
	return &repeatHandler{next: h.next.WithAttrs(attrs), scope: b.String(), st: h.st}
}

func (h *repeatHandler) WithGroup(name string) slog.Handler {
	return &repeatHandler{next: h.next.WithGroup(name), scope: h.scope + "[" + name + "]", st: h.st}
}

func (h *repeatHandler) Handle(ctx context.Context, r slog.Record) error {
	key := h.key(r)
	now := r.Time
	if now.IsZero() {
		now = time.Now()
	}
	st := h.st
	st.mu.Lock()
	if st.closed {
		st.mu.Unlock()
		return h.next.Handle(ctx, r)
	}
	var summary *repeatEntry
	if e := st.seen[key]; e != nil {
		if now.Sub(e.first) < st.window {
			e.n++
			if e.n == 1 {
				e.timer = time.AfterFunc(st.window-now.Sub(e.first), func() { st.expire(key, e) })
			}
			st.mu.Unlock()
			return nil
		}
		// The window is over but its summary has not been written yet: write it now,
		// ahead of the copy that opens the next window.
		if e.n > 0 && e.timer.Stop() {
			summary = e
		}
		delete(st.seen, key)
	}
	if len(st.seen) >= maxRepeatKeys {
		st.sweepLocked(now)
	}
	if len(st.seen) < maxRepeatKeys {
		st.seen[key] = &repeatEntry{first: now, next: h.next, rec: r.Clone()}
	}
	st.mu.Unlock()
	if summary != nil {
		summary.write()
	}
	return h.next.Handle(ctx, r)
}

// key identifies r: level, message, the logger's scope and r's attributes.
func (h *repeatHandler) key(r slog.Record) string {
	var b strings.Builder
	b.WriteString(r.Level.String())
	b.WriteByte(' ')
	b.WriteString(r.Message)
	b.WriteString(h.scope)
	r.Attrs(func(a slog.Attr) bool {
		writeAttr(&b, a)
		return true
	})
	return b.String()
}

func writeAttr(b *strings.Builder, a slog.Attr) {
	b.WriteByte(' ')
	b.WriteString(a.Key)
	b.WriteByte('=')
	b.WriteString(a.Value.Resolve().String())
}

// expire ends e's window from its timer and writes its summary.
func (st *repeatState) expire(key string, e *repeatEntry) {
	st.mu.Lock()
	if st.seen[key] == e {
		delete(st.seen, key)
	}
	st.mu.Unlock()
	e.write()
}

// sweepLocked forgets the entries whose window is over and that have nothing to
// summarize (those with a summary go when their timer fires).
func (st *repeatState) sweepLocked(now time.Time) {
	for k, e := range st.seen {
		if e.n == 0 && now.Sub(e.first) >= st.window {
			delete(st.seen, k)
		}
	}
}

// flush writes the summary of every open window now and makes the handler pass
// records through from then on; the server calls it before the log file closes.
func (h *repeatHandler) flush() {
	st := h.st
	st.mu.Lock()
	st.closed = true
	var pending []*repeatEntry
	for _, e := range st.seen {
		if e.n > 0 && e.timer.Stop() {
			pending = append(pending, e)
		}
	}
	st.seen = map[string]*repeatEntry{}
	st.mu.Unlock()
	for _, e := range pending {
		e.write()
	}
}

// write writes the summary record of e.
func (e *repeatEntry) write() {
	r := slog.NewRecord(time.Now(), e.rec.Level, e.rec.Message, 0)
	e.rec.Attrs(func(a slog.Attr) bool {
		r.AddAttrs(a)
		return true
	})
	r.AddAttrs(slog.Int("repeated", e.n))
	_ = e.next.Handle(context.Background(), r)
}
