package server

import (
	"log/slog"

	"github.com/orcr-go/orcr/config/rotate"
)

// rotatingFile is the server log: JSON lines appended to <home>/logs/server.log,
// rotated to server.log.1 … server.log.N when the next line would pass maxBytes
// (docs/config.md §2.4).
type rotatingFile struct {
	*rotate.File
	// beforeClose, if set, runs at the start of Close, while writes still succeed.
	beforeClose func()
}

// newFileLog returns the server logger on f: JSON lines shaped by logAttr, with
// identical lines repeating within logRepeatWindow collapsed into one plus a summary
// (see repeatHandler). Closing f writes the summaries still pending first.
func newFileLog(f *rotatingFile) *slog.Logger {
	h := newRepeatHandler(slog.NewJSONHandler(f, &slog.HandlerOptions{ReplaceAttr: logAttr}), logRepeatWindow)
	f.beforeClose = h.flush
	return slog.New(h)
}

func openRotating(path string, maxBytes int64, maxFiles int) (*rotatingFile, error) {
	f, err := rotate.Open(path, maxBytes, maxFiles)
	if err != nil {
		return nil, err
	}
	return &rotatingFile{File: f}, nil
}

func (r *rotatingFile) Close() error {
	if r.beforeClose != nil {
		r.beforeClose()
	}
	return r.File.Close()
}
