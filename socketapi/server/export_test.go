package server

import (
	"log/slog"
	"time"
)

// Internals for the black-box tests in package server_test.
var (
	AcceptConns     = acceptConns
	NextAcceptDelay = nextAcceptDelay
)

// NewRepeatHandler returns the server log's repeat-collapsing handler over next and a
// function that flushes its pending summaries.
func NewRepeatHandler(next slog.Handler, window time.Duration) (slog.Handler, func()) {
	h := newRepeatHandler(next, window)
	return h, h.flush
}

// OpenFileLog opens the server log at path as the server does and returns the logger and
// the file's Close.
func OpenFileLog(path string) (*slog.Logger, func() error, error) {
	f, err := openRotating(path, 1<<20, 2)
	if err != nil {
		return nil, nil, err
	}
	return newFileLog(f), f.Close, nil
}
