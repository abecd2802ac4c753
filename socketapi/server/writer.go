package server

import (
	"net"
	"sync"
)

// connWriter owns the write side of one client connection. Frames are queued without
// blocking the enqueuer (actors must never block on a slow client) and written by one
// goroutine, so a frame is always written whole and frames never interleave. Flow
// control for event streams lives in the subscription actor (credit returned through
// the onWritten callbacks); responses are bounded by the requests a client sends.
type connWriter struct {
	conn net.Conn
	wmu  sync.Mutex // held while writing to conn, so frames never interleave

	mu      sync.Mutex
	cond    *sync.Cond
	queue   []queued
	closing bool // no more frames accepted; drain then close
	closed  bool // the socket is closed; drop everything
	done    chan struct{}
}

type queued struct {
	frame     []byte
	onWritten func()
}

func newConnWriter(conn net.Conn) *connWriter {
	w := &connWriter{conn: conn, done: make(chan struct{})}
	w.cond = sync.NewCond(&w.mu)
	go w.loop()
	return w
}

// Enqueue queues frame (a JSON document without newline). onWritten, if not nil, runs
// after the write, or when the frame is dropped because the connection ended.
func (w *connWriter) Enqueue(frame []byte, onWritten func()) {
	w.mu.Lock()
	if w.closing || w.closed {
		w.mu.Unlock()
		if onWritten != nil {
			onWritten()
		}
		return
	}
	w.queue = append(w.queue, queued{frame: frame, onWritten: onWritten})
	w.mu.Unlock()
	w.cond.Signal()
}

// WriteNow writes frame on the caller's goroutine, blocking until the socket took it
// (or failed). Edge code only — request goroutines and the connection reader — never an
// actor. after, if not nil, runs once the frame was written or dropped.
func (w *connWriter) WriteNow(frame []byte, after func()) {
	w.mu.Lock()
	gone := w.closing || w.closed
	w.mu.Unlock()
	if !gone {
		buf := make([]byte, 0, len(frame)+1)
		buf = append(append(buf, frame...), '\n')
		w.wmu.Lock()
		_, err := w.conn.Write(buf)
		w.wmu.Unlock()
		if err != nil {
			w.Close()
		}
	}
	if after != nil {
		after()
	}
}

// CloseAfterFlush stops accepting frames, writes what is queued, then closes the socket.
func (w *connWriter) CloseAfterFlush() {
	w.mu.Lock()
	w.closing = true
	w.mu.Unlock()
	w.cond.Signal()
}

// Close closes the socket at once and drops queued frames.
func (w *connWriter) Close() {
	w.mu.Lock()
	w.closing, w.closed = true, true
	w.mu.Unlock()
	w.conn.Close()
	w.cond.Signal()
}

// Done is closed once the writer goroutine has exited and the socket is closed.
func (w *connWriter) Done() <-chan struct{} { return w.done }

func (w *connWriter) loop() {
	defer close(w.done)
	var buf []byte
	for {
		w.mu.Lock()
		for len(w.queue) == 0 && !w.closing {
			w.cond.Wait()
		}
		batch := w.queue
		w.queue = nil
		closed, closing := w.closed, w.closing
		w.mu.Unlock()

		if !closed {
			buf = buf[:0]
			for _, q := range batch {
				buf = append(buf, q.frame...)
				buf = append(buf, '\n')
			}
			if len(buf) > 0 {
				w.wmu.Lock()
				_, err := w.conn.Write(buf)
				w.wmu.Unlock()
				if err != nil {
					w.mu.Lock()
					w.closing, w.closed = true, true
					w.mu.Unlock()
					w.conn.Close()
				}
			}
		}
		for _, q := range batch {
			if q.onWritten != nil {
				q.onWritten()
			}
		}
		if closing && len(batch) == 0 {
			w.conn.Close()
			w.mu.Lock()
			w.closed = true
			rest := w.queue
			w.queue = nil
			w.mu.Unlock()
			for _, q := range rest {
				if q.onWritten != nil {
					q.onWritten()
				}
			}
			return
		}
	}
}
