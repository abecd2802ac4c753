package herdr

import (
	"context"
	"errors"
	"os"
	"sync"
)

// paneCache maps terminal ids to the pane ids that held them when last seen, so that a
// call aimed at a terminal does not read herdr's whole pane list first
// (docs/herdr.md §4.1). One cache belongs to one connection incarnation of a session
// (a reconnect starts empty) and is fed by every answer that names panes: a full
// pane.list replaces it, agent.list, pane.get, spawns and moves add to it, closes
// remove from it.
//
// A cached id is only ever wrong by being gone: herdr never hands out a pane id twice
// in a server's life, and a moved pane's old id stays an alias of the same terminal.
// A gone id (pane_not_found) is dropped and the terminal looked up afresh. What a
// restarted herdr server would break — its ids start over — is caught by the socket
// file: a server that binds the socket again makes a new file, and the cache empties
// when the file is not the one it was filled against.
type paneCache struct {
	socket string
	// off keeps nothing: every lookup reads the pane list, as before the cache (the
	// recorded live passes replay that call sequence).
	off bool

	mu    sync.Mutex
	file  os.FileInfo // the socket file the entries were learnt against
	panes map[string]string
	// gone holds terminals a fresh lookup did not find: a terminal id is never handed
	// out again, so one gone stays gone, and a later call on it is answered
	// pane_not_found without another pane.list (a kill's close after its grace).
	gone map[string]bool
	// next is the fresh lookup callers wait for: a pane.list that starts after they
	// joined; running is the one in flight.
	next, running *paneFlight
}

// paneFlight is one shared pane.list; done closes when it ended with err.
type paneFlight struct {
	done  chan struct{}
	err   error
	panes map[string]PaneInfo // what it read, by terminal
}

func newPaneCache(socket string, off bool) *paneCache {
	c := &paneCache{socket: socket, off: off, panes: map[string]string{}, gone: map[string]bool{}}
	c.file, _ = os.Stat(socket)
	return c
}

// checkLocked empties the cache when the socket file changed under it (a restarted
// herdr server). Callers hold mu.
func (c *paneCache) checkLocked() {
	fi, err := os.Stat(c.socket)
	if err == nil && c.file != nil && os.SameFile(fi, c.file) && fi.ModTime().Equal(c.file.ModTime()) {
		return
	}
	clear(c.panes)
	clear(c.gone)
	c.file = fi
}

// maxGone bounds the gone set; past it the set starts over (a lookup then costs a
// pane.list again).
const maxGone = 4096

// get returns the cached pane of terminal.
func (c *paneCache) get(terminal string) (string, bool) {
	p, ok, _ := c.lookup(terminal)
	return p, ok
}

// lookup returns the cached pane of terminal, or whether a fresh lookup found it gone.
func (c *paneCache) lookup(terminal string) (pane string, ok, gone bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.checkLocked()
	pane, ok = c.panes[terminal]
	return pane, ok, c.gone[terminal]
}

func notFound(terminal string) error {
	return &Error{Code: "pane_not_found", Message: "no pane holds terminal " + terminal, Method: MethodPaneList}
}

// put records that pane holds terminal.
func (c *paneCache) put(terminal, pane string) {
	if terminal == "" || pane == "" || c.off {
		return
	}
	c.mu.Lock()
	c.checkLocked()
	c.panes[terminal] = pane
	c.mu.Unlock()
}

// putAgents records the terminal → pane of every agent row, with one look at the
// socket file for the batch.
func (c *paneCache) putAgents(list []AgentInfo) {
	if c.off || len(list) == 0 {
		return
	}
	c.mu.Lock()
	c.checkLocked()
	for _, a := range list {
		if a.TerminalID != "" && a.PaneID != "" {
			c.panes[a.TerminalID] = a.PaneID
		}
	}
	c.mu.Unlock()
}

// forget drops terminal's entry when it still names pane.
func (c *paneCache) forget(terminal, pane string) {
	c.mu.Lock()
	if c.panes[terminal] == pane {
		delete(c.panes, terminal)
	}
	c.mu.Unlock()
}

// replace makes a full pane list the whole cache.
func (c *paneCache) replace(panes []PaneInfo) {
	if c.off {
		return
	}
	c.mu.Lock()
	c.checkLocked()
	clear(c.panes)
	for _, p := range panes {
		if p.TerminalID != "" {
			c.panes[p.TerminalID] = p.PaneID
		}
	}
	c.mu.Unlock()
}

// len is the number of entries (tests).
func (c *paneCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.panes)
}

// refresh reads the pane list afresh and makes it the cache. Callers that arrive while
// a list is in flight share the next one (which starts after they arrived, so what it
// reads is fresh for all of them): N misses at once cost one or two pane.list calls,
// not N.
func (c *paneCache) refresh(ctx context.Context, r *Remote) (*paneFlight, error) {
	for attempt := 0; ; attempt++ {
		f, err := c.joinRefresh(ctx, r)
		// A flight another caller ran ended with that caller's context: try again
		// with ours.
		if err == nil || ctx.Err() != nil || attempt > 0 ||
			(!errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)) {
			return f, err
		}
	}
}

func (c *paneCache) joinRefresh(ctx context.Context, r *Remote) (*paneFlight, error) {
	c.mu.Lock()
	if c.next == nil {
		c.next = &paneFlight{done: make(chan struct{})}
	}
	f := c.next
	for c.running != nil {
		cur := c.running
		c.mu.Unlock()
		select {
		case <-cur.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		c.mu.Lock()
		if c.next != f { // another caller started our flight
			c.mu.Unlock()
			select {
			case <-f.done:
				return f, f.err
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
	}
	c.next, c.running = nil, f
	c.mu.Unlock()

	panes, err := r.PaneList(ctx, "")
	if err == nil {
		c.replace(panes)
		f.panes = make(map[string]PaneInfo, len(panes))
		for _, p := range panes {
			f.panes[p.TerminalID] = p
		}
	}
	c.mu.Lock()
	f.err = err
	c.running = nil
	close(f.done)
	c.mu.Unlock()
	return f, err
}

// fresh looks terminal up in a fresh pane list: one that started after the caller
// asked, so a terminal it does not hold is gone.
func (c *paneCache) fresh(ctx context.Context, r *Remote, terminal string) (PaneInfo, error) {
	f, err := c.refresh(ctx, r)
	if err != nil {
		return PaneInfo{}, err
	}
	if p, ok := f.panes[terminal]; ok {
		return p, nil
	}
	if !c.off {
		c.mu.Lock()
		if len(c.gone) >= maxGone {
			clear(c.gone)
		}
		c.gone[terminal] = true
		c.mu.Unlock()
	}
	return PaneInfo{}, notFound(terminal)
}

// onPane runs f with the pane of target (a terminal id or a pane id). A terminal's pane
// comes from the cache; when herdr says a cached pane is gone, the terminal is looked
// up afresh and f runs once more on what that finds — f never runs on a pane the cache
// only guessed at twice.
func (c *paneCache) onPane(ctx context.Context, r *Remote, target string, f func(pane string) error) error {
	if !isTerminalID(target) {
		return f(target)
	}
	pane, cached, gone := c.lookup(target)
	if gone {
		return notFound(target)
	}
	if !cached {
		p, err := c.fresh(ctx, r, target)
		if err != nil {
			return err
		}
		pane = p.PaneID
	}
	err := f(pane)
	if cached && IsCode(err, "pane_not_found") {
		c.forget(target, pane)
		p, ferr := c.fresh(ctx, r, target)
		if ferr != nil {
			return ferr
		}
		pane = p.PaneID
		err = f(pane)
	}
	if IsCode(err, "pane_not_found") {
		c.forget(target, pane)
	}
	return err
}

// resolve is [Remote.ResolvePane] through the cache: a cached pane is fetched with
// pane.get and kept only when it still holds target.
func (c *paneCache) resolve(ctx context.Context, r *Remote, target string) (PaneInfo, error) {
	if !isTerminalID(target) {
		return r.PaneGet(ctx, target)
	}
	pane, ok, gone := c.lookup(target)
	if gone {
		return PaneInfo{}, notFound(target)
	}
	if ok {
		p, err := r.PaneGet(ctx, pane)
		if err == nil && p.TerminalID == target {
			c.put(target, p.PaneID)
			return p, nil
		}
		if err != nil && !IsCode(err, "pane_not_found") {
			return PaneInfo{}, err
		}
		c.forget(target, pane)
	}
	return c.fresh(ctx, r, target)
}
