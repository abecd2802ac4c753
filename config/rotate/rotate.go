// Package rotate is an append-only file bounded in size, rotated into numbered
// siblings: the server log (docs/config.md §2.4) and each run log (docs/loops.md §6.5).
package rotate

import (
	"fmt"
	"os"
	"sync"
)

// File appends to one path. A Write that would take the file past maxBytes rotates it
// first: path.<k> becomes path.<k+1> for k from maxFiles-1 down to 1 (so path.<maxFiles>
// is overwritten: the oldest is dropped), path becomes path.1 (or is removed when
// maxFiles < 1), and a fresh path is started. A write to an empty file is never held
// back for its size, so an oversized one still lands whole; maxBytes < 1 never rotates.
// Each Write is one write(2) on an O_APPEND file, so a reader never sees two writes
// mixed. A File is safe for concurrent use.
type File struct {
	mu       sync.Mutex
	path     string
	maxBytes int64
	maxFiles int
	f        *os.File
	size     int64
	// broken is why a rotation could not start the fresh file; every later Write
	// fails with it.
	broken error
}

// Open opens (or creates, mode 0600) path for appending.
func Open(path string, maxBytes int64, maxFiles int) (*File, error) {
	r := &File{path: path, maxBytes: maxBytes, maxFiles: maxFiles}
	if err := r.open(); err != nil {
		return nil, err
	}
	return r, nil
}

func (r *File) open() error {
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

// Write appends p, rotating first when p would not fit.
func (r *File) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.broken != nil:
		return 0, r.broken
	case r.f == nil:
		return 0, os.ErrClosed
	}
	if r.maxBytes > 0 && r.size > 0 && r.size+int64(len(p)) > r.maxBytes {
		if err := r.rotateLocked(); err != nil {
			return 0, err
		}
	}
	n, err := r.f.Write(p)
	r.size += int64(n)
	return n, err
}

func (r *File) rotateLocked() error {
	r.f.Close()
	r.f = nil
	for k := r.maxFiles - 1; k >= 1; k-- {
		os.Rename(fmt.Sprintf("%s.%d", r.path, k), fmt.Sprintf("%s.%d", r.path, k+1))
	}
	if r.maxFiles >= 1 {
		os.Rename(r.path, r.path+".1")
	} else {
		os.Remove(r.path)
	}
	if err := r.open(); err != nil {
		r.broken = err
		return err
	}
	return nil
}

// Close closes the file; later Writes fail with os.ErrClosed.
func (r *File) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.f == nil {
		return nil
	}
	err := r.f.Close()
	r.f = nil
	return err
}
