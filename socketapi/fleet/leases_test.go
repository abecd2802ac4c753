package fleet_test

import (
	"context"
	"maps"
	"testing"
	"time"

	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/socketapi/fleet"
	"github.com/orcr-go/orcr/tests/poll"
)

// leaseHub starts an embedded hub and returns its url and token.
func leaseHub(t *testing.T) (url, token string) {
	t.Helper()
	dir := t.TempDir()
	token, err := fleet.EnsureToken(dir)
	if err != nil {
		t.Fatal(err)
	}
	hub, err := fleet.StartHub(dir, config.FleetHub{Listen: "127.0.0.1:0"}, token, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(hub.Close)
	return hub.URL(), token
}

func leaseMember(t *testing.T, url, token, host, id string, caps map[string]int, ttl time.Duration) *fleet.Leases {
	t.Helper()
	m, err := fleet.Connect(config.Fleet{Host: host}, url, token, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	return m.Leases(fleet.MemberInfo{Host: host, ID: id}, caps, ttl)
}

func lease(t *testing.T, l *fleet.Leases, want map[string]int) map[string]int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	got, err := l.Lease(ctx, want)
	if err != nil {
		t.Fatalf("Lease(%v): %v", want, err)
	}
	return got
}

// The fleet cap holds across members: what one holds another cannot take; a slot let
// go, released at a stop or left to expire by a member that died is taken by the next;
// a restarted member takes its own slots back; a provider without a fleet cap takes no
// slot (docs/fleet.md §4.7).
func TestLeasesHoldTheFleetCap(t *testing.T) {
	t.Parallel()
	url, token := leaseHub(t)
	caps := map[string]int{"claude": 3}
	const ttl = 2 * time.Second
	a := leaseMember(t, url, token, "a", "id-a", caps, ttl)
	b := leaseMember(t, url, token, "b", "id-b", caps, ttl)

	if got := lease(t, a, map[string]int{"claude": 2, "codex": 5}); !maps.Equal(got, map[string]int{"claude": 2}) {
		t.Fatalf("a wants 2 of 3: holds %v", got)
	}
	if got := lease(t, b, map[string]int{"claude": 2}); got["claude"] != 1 {
		t.Fatalf("b wants 2 with 1 free: holds %v, want 1", got)
	}
	if got := lease(t, a, map[string]int{"claude": 3}); got["claude"] != 2 {
		t.Fatalf("a wants 3 with none free: holds %v, want its 2", got)
	}
	// a lets one go: b takes it.
	if got := lease(t, a, map[string]int{"claude": 1}); got["claude"] != 1 {
		t.Fatalf("a wants 1: holds %v", got)
	}
	if got := lease(t, b, map[string]int{"claude": 2}); got["claude"] != 2 {
		t.Fatalf("b wants 2 after a let one go: holds %v", got)
	}
	// a's successor (same id, a restart) takes a's slot back at once.
	a2 := leaseMember(t, url, token, "a", "id-a", caps, ttl)
	if got := lease(t, a2, map[string]int{"claude": 1}); got["claude"] != 1 {
		t.Fatalf("a restarted: holds %v, want its slot back", got)
	}
	// b releases everything (a stop): a2 can take them.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := b.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if got := lease(t, a2, map[string]int{"claude": 3}); got["claude"] != 3 {
		t.Fatalf("after b's release: a holds %v, want 3", got)
	}
	// a2 dies (no renewal, no release): after the TTL, b takes its slots.
	if got := lease(t, b, map[string]int{"claude": 1}); got["claude"] != 0 {
		t.Fatalf("b while a holds all: %v, want 0", got)
	}
	poll.Eventually(t, 4*ttl, "a dead member's slots taken after the lease TTL", func() bool {
		return lease(t, b, map[string]int{"claude": 3})["claude"] == 3
	})
	holders, err := b.Holders(ctx, "claude")
	if err != nil || !maps.Equal(holders, map[string]int{"b": 3}) {
		t.Fatalf("holders: %v, %v; want b 3", holders, err)
	}
}

// A member that renews keeps its slots past the TTL.
func TestLeasesRenewed(t *testing.T) {
	t.Parallel()
	url, token := leaseHub(t)
	caps := map[string]int{"mock": 1}
	const ttl = time.Second
	a := leaseMember(t, url, token, "a", "id-a", caps, ttl)
	b := leaseMember(t, url, token, "b", "id-b", caps, ttl)
	if got := lease(t, a, map[string]int{"mock": 1}); got["mock"] != 1 {
		t.Fatalf("a: %v", got)
	}
	// Renewed at the pace the actor keeps (a tick well inside a third of the TTL), for
	// three TTLs.
	tick := time.NewTicker(ttl / 5)
	defer tick.Stop()
	for end := time.Now().Add(3 * ttl); time.Now().Before(end); <-tick.C {
		if got := lease(t, a, map[string]int{"mock": 1}); got["mock"] != 1 {
			t.Fatalf("a lost its renewed slot: %v", got)
		}
		if got := lease(t, b, map[string]int{"mock": 1}); got["mock"] != 0 {
			t.Fatalf("b took a renewed slot: %v", got)
		}
	}
}
