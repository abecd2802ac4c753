package sockettest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
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

// EnvKeepLogs names a directory where every test server also writes its whole log, one
// file per test (<test name>.<n>.log), for a failure whose cause left the kept tail.
const EnvKeepLogs = "ORCR_TEST_KEEP_LOGS"

// tailLogger returns a debug-level logger into a fresh logTail and registers a cleanup
// that prints the tail when tb failed. Registered before the server's own cleanup, it
// runs after the server stopped, so the tail includes the shutdown. With EnvKeepLogs
// set the whole log also goes to a file there.
func tailLogger(tb testing.TB) *slog.Logger {
	tail := &logTail{}
	var out io.Writer = tail
	if dir := os.Getenv(EnvKeepLogs); dir != "" {
		if f, err := keptLog(dir, tb.Name()); err != nil {
			tb.Logf("keeping the server's log: %v", err)
		} else {
			tb.Cleanup(func() { f.Close() })
			out = io.MultiWriter(tail, f)
		}
	}
	tb.Cleanup(func() {
		// A server that never started logged nothing: no empty heading.
		if lines := tail.kept(); tb.Failed() && len(lines) > 0 {
			tb.Logf("the server's last %d log lines:\n%s", len(lines), strings.Join(lines, "\n"))
		}
	})
	return slog.New(slog.NewTextHandler(out, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// keptLog creates the next free <name>.<n>.log in dir (a test's name has its slashes
// replaced).
func keptLog(dir, name string) (*os.File, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	base := filepath.Join(dir, strings.ReplaceAll(name, "/", "_"))
	for n := 1; ; n++ {
		f, err := os.OpenFile(fmt.Sprintf("%s.%d.log", base, n), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
}
