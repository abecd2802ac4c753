package actors

import (
	"errors"
	"maps"
	"testing"
	"time"
)

// leaseWant: the slots held and queued, within the member's own cap for the provider,
// concurrency.max and the fleet cap; a slot in use is never given up while the fleet
// cap allows it; a provider without a fleet cap wants none.
func TestLeaseWant(t *testing.T) {
	own := func(p string) (int, bool) {
		if p == "codex" {
			return 1, true
		}
		return 0, false
	}
	tests := []struct {
		name         string
		used, queued map[string]int64
		caps         map[string]int
		maxCap       int
		want         map[string]int
	}{
		{"idle", nil, nil, map[string]int{"claude": 4}, 25, map[string]int{"claude": 0}},
		{"used and queued", map[string]int64{"claude": 1}, map[string]int64{"claude": 2}, map[string]int{"claude": 4}, 25, map[string]int{"claude": 3}},
		{"fleet cap", map[string]int64{"claude": 3}, map[string]int64{"claude": 5}, map[string]int{"claude": 4}, 25, map[string]int{"claude": 4}},
		{"own cap", map[string]int64{"codex": 0}, map[string]int64{"codex": 5}, map[string]int{"codex": 4}, 25, map[string]int{"codex": 1}},
		{"own cap below use keeps the used", map[string]int64{"codex": 2}, map[string]int64{"codex": 5}, map[string]int{"codex": 4}, 25, map[string]int{"codex": 2}},
		{"concurrency.max", nil, map[string]int64{"claude": 9}, map[string]int{"claude": 8}, 3, map[string]int{"claude": 3}},
		{"uncapped provider", map[string]int64{"mock": 3}, nil, map[string]int{"claude": 2}, 25, map[string]int{"claude": 0}},
	}
	for _, tt := range tests {
		if got := leaseWant(tt.used, tt.queued, tt.caps, own, tt.maxCap); !maps.Equal(got, tt.want) {
			t.Errorf("%s: leaseWant = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// The lease book: capped providers start nothing until the fleet answers, then as many
// as the slots held; a failure counts only once the fleet has not answered for a TTL,
// and then the own caps alone hold (cap ok false) until it answers again.
func TestLeaseBook(t *testing.T) {
	t0 := time.UnixMilli(1_000_000)
	b := newLeaseBook(map[string]int{"claude": 2}, 30*time.Second, t0)
	if n, ok := b.cap("claude"); !ok || n != 0 {
		t.Fatalf("waiting: cap %d %v, want 0 true", n, ok)
	}
	if _, ok := b.cap("codex"); ok {
		t.Fatalf("an uncapped provider is bound by the book")
	}
	if !b.set(map[string]int{"claude": 2}, nil, t0.Add(time.Second)) {
		t.Errorf("two slots taken: no poke")
	}
	if n, ok := b.cap("claude"); !ok || n != 2 {
		t.Fatalf("up: cap %d %v, want 2 true", n, ok)
	}
	fail := errors.New("nats: timeout")
	if b.set(nil, fail, t0.Add(20*time.Second)) {
		t.Errorf("a failure within the TTL pokes the queue")
	}
	if n, ok := b.cap("claude"); !ok || n != 2 || b.status().State != leasesUp || b.status().Error == nil {
		t.Fatalf("failed within the TTL: cap %d %v, status %+v; want still up with its leases and the error", n, ok, b.status())
	}
	if !b.set(nil, fail, t0.Add(32*time.Second)) {
		t.Errorf("down: no poke")
	}
	if _, ok := b.cap("claude"); ok || b.status().State != leasesDown {
		t.Fatalf("a TTL without an answer: still bound, status %+v", b.status())
	}
	if !b.set(map[string]int{"claude": 1}, nil, t0.Add(40*time.Second)) {
		t.Errorf("up again: no poke")
	}
	if n, ok := b.cap("claude"); !ok || n != 1 || b.status().Error != nil {
		t.Fatalf("up again: cap %d %v, status %+v", n, ok, b.status())
	}
	if b.set(map[string]int{"claude": 1}, nil, t0.Add(41*time.Second)) {
		t.Errorf("nothing changed: a poke")
	}
	var none *leaseBook
	if _, ok := none.cap("claude"); ok || none.status() != nil {
		t.Errorf("no fleet caps: the book binds")
	}
}
