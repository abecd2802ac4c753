package server

import (
	"fmt"
	"log/slog"
	"os"
	"sync"
)

// rotatingFile is the server log: JSON lines appended to <home>/logs/server.log,
// rotated to server.log.1 … server.log.N when the next line would pass maxBytes
// (docs/config.md §2.4).
type rotatingFile struct {
	// beforeClose, if set, runs at the start of Close, while writes still succeed.
	beforeClose func()

	mu       sync.Mutex
	path     string
	maxBytes int64
	maxFiles int
	f        *os.File
	size     int64
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
	r := &rotatingFile{path: path, maxBytes: maxBytes, maxFiles: maxFiles}
	if err := r.open(); err != nil {
		return nil, err
	}
	return r, nil
}

func (r *rotatingFile) open() error {
	f, err := os.OpenFile(r.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return err
	}
	r.f, r.size = f, fi.Size()
	return nil
}

func (r *rotatingFile) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.f == nil {
		return 0, os.ErrClosed
	}
	if r.maxBytes > 0 && r.size > 0 && r.size+int64(len(p)) > r.maxBytes {
		r.rotate()
	}
	n, err := r.f.Write(p)
	r.size += int64(n)
	return n, err
}

func (r *rotatingFile) rotate() {
	r.f.Close()
	for k := r.maxFiles - 1; k >= 1; k-- {
		os.Rename(fmt.Sprintf("%s.%d", r.path, k), fmt.Sprintf("%s.%d", r.path, k+1))
	}
	if r.maxFiles >= 1 {
		os.Rename(r.path, r.path+".1")
	} else {
		os.Remove(r.path)
	}
	if err := r.open(); err != nil {
		r.f = nil
	}
}

func (r *rotatingFile) Close() error {
	if r.beforeClose != nil {
		r.beforeClose()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.f == nil {
		return nil
	}
	err := r.f.Close()
	r.f = nil
	return err
}
