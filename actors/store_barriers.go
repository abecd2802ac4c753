package actors

import (
	"context"
)

var contextBG = context.Background()

// Matcher reports whether a path falls under a kill barrier.
type Matcher interface {
	Match(path string) bool
}

// Barrier is one kill barrier (docs/decisions.md D4): while it stands, agent.run and
// agent.ask onto a matching path fail kill_in_progress and queued rows under it are not
// promoted.
type Barrier struct {
	Target string // what the kill named, for the error message
	M      Matcher
}

// AddBarriers installs a kill call's barriers in the store actor. Key identifies the
// call (see [System.Kill]); the reply is [BarriersAdded]. Because the store actor
// applies writes in mailbox order, every write that reaches it after this message sees
// the barriers.
type AddBarriers struct {
	Key      int64
	Barriers []Barrier
}

// BarriersAdded answers [AddBarriers].
type BarriersAdded struct{}

// LiftBarriers removes every barrier a kill call installed (a plain send). It may
// arrive before the barriers were added — the call gave up waiting — and then cancels
// them: a key once lifted is never installed.
type LiftBarriers struct{ Key int64 }

// BarrierView is what store ops see of the kill barriers: read-only, and only on the
// store actor's goroutine (inside the op), so the set needs no lock.
type BarrierView interface {
	// Covering returns the target of a barrier covering path.
	Covering(path string) (target string, ok bool)
}

// barrierSet is the store actor's barrier state: installed and removed only in the
// store actor's Receive, read only by ops the store actor runs. No write can leave a
// barrier standing: they are not written by ops at all.
type barrierSet struct {
	byKey  map[int64][]Barrier
	lifted map[int64]bool // lifted before they were added
}

func newBarrierSet() *barrierSet {
	return &barrierSet{byKey: map[int64][]Barrier{}, lifted: map[int64]bool{}}
}

func (b *barrierSet) add(key int64, bs []Barrier) {
	if b.lifted[key] {
		delete(b.lifted, key)
		return
	}
	b.byKey[key] = append(b.byKey[key], bs...)
}

func (b *barrierSet) lift(key int64) {
	if _, ok := b.byKey[key]; !ok {
		b.lifted[key] = true
		return
	}
	delete(b.byKey, key)
}

// Covering implements [BarrierView].
func (b *barrierSet) Covering(path string) (string, bool) {
	for _, bs := range b.byKey {
		for _, br := range bs {
			if br.M.Match(path) {
				return br.Target, true
			}
		}
	}
	return "", false
}

func (b *barrierSet) count() int {
	n := 0
	for _, bs := range b.byKey {
		n += len(bs)
	}
	return n
}
