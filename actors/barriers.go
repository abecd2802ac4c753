package actors

import (
	"context"
	"sync"
)

var contextBG = context.Background()

// Matcher reports whether a path falls under a kill barrier.
type Matcher interface {
	Match(path string) bool
}

// Barriers are the kill barriers of decisions.md D4: while one stands, agent.run /
// agent.ask onto a matching path fail kill_in_progress and queued rows under it are not
// promoted. They are installed and lifted through store ops (so they take effect in the
// same order as the writes they guard) and live in memory only: a server restart ends
// the kill call and its barriers with it.
type Barriers struct {
	mu   sync.Mutex
	next int64
	set  map[int64]barrier
}

type barrier struct {
	target string
	m      Matcher
}

// NewBarriers returns an empty set.
func NewBarriers() *Barriers { return &Barriers{set: map[int64]barrier{}} }

// Add installs a barrier for target and returns its id.
func (b *Barriers) Add(target string, m Matcher) int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.next++
	b.set[b.next] = barrier{target: target, m: m}
	return b.next
}

// Remove lifts the barriers ids.
func (b *Barriers) Remove(ids ...int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, id := range ids {
		delete(b.set, id)
	}
}

// Matches reports whether any barrier covers path.
func (b *Barriers) Matches(path string) bool {
	_, ok := b.Match(path)
	return ok
}

// Match returns the target of a barrier covering path.
func (b *Barriers) Match(path string) (string, bool) {
	if b == nil {
		return "", false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, br := range b.set {
		if br.m.Match(path) {
			return br.target, true
		}
	}
	return "", false
}
