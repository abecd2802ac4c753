package server

import (
	"sync"
	"time"
)

// tracker counts request goroutines. Unlike a WaitGroup it can be closed: after
// close, start refuses new work, so a stop can wait for the requests in flight while
// connections are still open without racing new ones.
type tracker struct {
	mu     sync.Mutex
	n      int
	closed bool
	zero   chan struct{} // closed when n drops to 0 after close
}

// start registers one request; false once the tracker is closed.
func (t *tracker) start() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return false
	}
	t.n++
	return true
}

func (t *tracker) done() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.n--
	if t.closed && t.n == 0 && t.zero != nil {
		close(t.zero)
		t.zero = nil
	}
}

// close refuses new requests and returns a channel closed once none is in flight.
func (t *tracker) close() <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.closed = true
	ch := make(chan struct{})
	if t.n == 0 {
		close(ch)
	} else {
		t.zero = ch
	}
	return ch
}

// waitFor waits on ch up to d (0 = forever).
func waitFor(ch <-chan struct{}, d time.Duration) {
	if d <= 0 {
		<-ch
		return
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-ch:
	case <-tm.C:
	}
}
