package herdr

import (
	"sync"
	"time"
)

// placeFresh is how long a workspace id a structural spawn found for a label is used
// by the spawns after it without looking again (docs/herdr.md §11). herdr never gives a
// vanished workspace's id to another while its server runs (ids count up; the cache is
// one connection's, and a restarted herdr is a new connection), so a stale id only
// fails workspace_not_found, which sends the spawn back to a structural turn. What the
// bound is for: a workspace the user renamed keeps receiving orcr's panes for at most
// this long, about what the one round trip between workspace.list and layout.apply
// already allowed.
const placeFresh = time.Second

// placeCache is one connection's workspace label → id, as structural spawns last found
// (or made) them; op goroutines share it.
type placeCache struct {
	fresh time.Duration // placeFresh, or a test's
	mu    sync.Mutex
	seen  map[string]placeSeen
}

type placeSeen struct {
	id string
	at time.Time
}

// get returns label's workspace id when found within c.fresh of now.
func (c *placeCache) get(label string, now time.Time) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.seen[label]
	if !ok || now.Sub(s.at) >= c.fresh || now.Before(s.at) {
		return "", false
	}
	return s.id, true
}

// put records that label's workspace was id at now.
func (c *placeCache) put(label, id string, now time.Time) {
	if label == "" || id == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.seen == nil {
		c.seen = map[string]placeSeen{}
	}
	c.seen[label] = placeSeen{id: id, at: now}
}

// drop forgets label's workspace if it still is id (herdr said it is gone).
func (c *placeCache) drop(label, id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.seen[label]; ok && s.id == id {
		delete(c.seen, label)
	}
}
