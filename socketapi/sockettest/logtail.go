package sockettest

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
	"testing"
)

// logTailLines is how many of the server's last log lines a failed test prints.
const logTailLines = 200

// logTail keeps the last logTailLines lines written to it. slog's text handler writes
// one record per Write, so a line is never split between two writes.
type logTail struct {
	mu    sync.Mutex
	lines []string
	next  int // where the next line goes once the ring is full
}

func (r *logTail) Write(p []byte) (int, error) {
	line := string(bytes.TrimRight(p, "\n"))
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.lines) < logTailLines {
		r.lines = append(r.lines, line)
	} else {
		r.lines[r.next] = line
		r.next = (r.next + 1) % logTailLines
	}
	return len(p), nil
}

// kept returns the kept lines, oldest first.
func (r *logTail) kept() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append(append([]string(nil), r.lines[r.next:]...), r.lines[:r.next]...)
}

// tailLogger returns a debug-level logger into a fresh logTail and registers a cleanup
// that prints the tail when tb failed. Registered before the server's own cleanup, it
// runs after the server stopped, so the tail includes the shutdown.
func tailLogger(tb testing.TB) *slog.Logger {
	tail := &logTail{}
	tb.Cleanup(func() {
		// A server that never started logged nothing: no empty heading.
		if lines := tail.kept(); tb.Failed() && len(lines) > 0 {
			tb.Logf("the server's last %d log lines:\n%s", len(lines), strings.Join(lines, "\n"))
		}
	})
	return slog.New(slog.NewTextHandler(tail, &slog.HandlerOptions{Level: slog.LevelDebug}))
}
