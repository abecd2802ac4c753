package server_test

// Fleet-wide provider caps (docs/fleet.md §4.7) against the herdr stand-in and the mock
// agent: a hub and a member, each with its own home and stand-in, share fleet.caps
// {"mock": 2}. What one member's agents hold, the other's queue waits for; a kill on one
// host lets a queued run start on the other; server.status shows the slots held.

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/fleet"
	"github.com/orcr-go/orcr/socketapi/sockettest"
	"github.com/orcr-go/orcr/tests/poll"
)

// capRow is what the test reads of a row: when it started and ended.
type capRow struct {
	UUID       string `json:"uuid"`
	Status     string `json:"status"`
	StartingAt *int64 `json:"starting_at"`
	EndedAt    *int64 `json:"ended_at"`
}

// ms prints an optional time in ms.
func ms(p *int64) string {
	if p == nil {
		return "never"
	}
	return fmt.Sprint(*p)
}

func capRowOf(t *testing.T, c *socketapi.Client, uuid string) capRow {
	t.Helper()
	var res struct{ Agents []capRow }
	if err := c.Call(context.Background(), "agent.ls", map[string]any{"pattern": uuid, "all": true}, &res); err != nil || len(res.Agents) != 1 {
		t.Fatalf("agent.ls %s: %+v, %v", uuid, res.Agents, err)
	}
	return res.Agents[0]
}

// leasesOf is srv's fleet.leases of server.status, and the mock provider's slots held.
func leasesOf(t *testing.T, srv *sockettest.Server) (*api.FleetLeases, int) {
	t.Helper()
	st := fleetStatus(t, srv)
	if st == nil || st.Leases == nil {
		t.Fatalf("server.status fleet %+v: want fleet.leases", st)
	}
	for _, p := range st.Leases.Providers {
		if p.Provider == "mock" {
			return st.Leases, p.Held
		}
	}
	t.Fatalf("fleet.leases %+v: no mock provider", st.Leases)
	return nil, 0
}

func TestFleetCapsAcrossMembers(t *testing.T) {
	t.Parallel()
	// A TTL no renewal misses on a loaded machine: nothing here waits for one to expire.
	caps := `"caps": {"mock": 2}, "lease_ttl": "10s"`
	hub := sockettest.NewServer(t, sockettest.WithHerdr(t),
		sockettest.WithConfig(`{"fleet": {"host": "hub", "hub": {"listen": "127.0.0.1:0"}, `+caps+`}}`))
	url, tok := hub.FleetHubURL(), filepath.Join(hub.Home, config.FleetDirName, fleet.HubTokenName)
	web := sockettest.NewServer(t, sockettest.WithHerdr(t),
		sockettest.WithConfig(fmt.Sprintf(`{"fleet": {"host": "web", "url": %q, "token_file": %q, %s}}`, url, tok, caps)))
	hc, wc := hub.Client(t), web.Client(t)

	a1 := runOK(t, hc, map[string]any{"path": "caps/a1", "gc": "never"})
	a2 := runOK(t, hc, map[string]any{"path": "caps/a2", "gc": "never"})
	waitStatus(t, hc, a1.UUID, "idle")
	waitStatus(t, hc, a2.UUID, "idle")
	poll.Eventually(t, 20*time.Second, "the hub holding both fleet-wide mock slots", func() bool {
		l, held := leasesOf(t, hub)
		return l.State == "up" && held == 2
	})
	// web's run waits in its queue: its own caps would let it start.
	b1 := runOK(t, wc, map[string]any{"path": "caps/b1", "gc": "never"})
	var l *api.FleetLeases
	poll.Eventually(t, 20*time.Second, "web's leases answered, none held, its run queued", func() bool {
		var held int
		l, held = leasesOf(t, web)
		return l.State == "up" && held == 0 && capRowOf(t, wc, b1.UUID).Status == "queued"
	}, func() string { return fmt.Sprintf("web's leases %+v, b1 %+v", l, capRowOf(t, wc, b1.UUID)) })
	if p := l.Providers[0]; len(l.Providers) != 1 || p.Cap != 2 || l.Error != nil {
		t.Errorf("web's fleet.leases %+v, want mock with cap 2 and no error", l)
	}

	// A kill on the hub frees a slot: web's run takes it, not before.
	if _, _, err := kill(t, hc, a1.UUID); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, wc, b1.UUID, "idle")
	ended, started := capRowOf(t, hc, a1.UUID), capRowOf(t, wc, b1.UUID)
	if ended.EndedAt == nil || started.StartingAt == nil || *started.StartingAt < *ended.EndedAt {
		t.Errorf("web's run started at %s, the hub's slot freed at %s: want it after", ms(started.StartingAt), ms(ended.EndedAt))
	}
	// The other way: the hub's next run waits for web's slot.
	a3 := runOK(t, hc, map[string]any{"path": "caps/a3", "gc": "never"})
	poll.Eventually(t, 20*time.Second, "the hub's third run queued behind the fleet cap", func() bool {
		_, held := leasesOf(t, hub)
		return held == 1 && capRowOf(t, hc, a3.UUID).Status == "queued"
	})
	if _, _, err := kill(t, wc, b1.UUID); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, hc, a3.UUID, "idle")
	ended, started = capRowOf(t, wc, b1.UUID), capRowOf(t, hc, a3.UUID)
	if ended.EndedAt == nil || started.StartingAt == nil || *started.StartingAt < *ended.EndedAt {
		t.Errorf("the hub's run started at %s, web's slot freed at %s: want it after", ms(started.StartingAt), ms(ended.EndedAt))
	}
	poll.Eventually(t, 20*time.Second, "the hub holding both slots, web none", func() bool {
		_, h := leasesOf(t, hub)
		_, w := leasesOf(t, web)
		return h == 2 && w == 0
	})
}

// A member the fleet does not answer falls back to its own caps once the lease TTL has
// passed (docs/fleet.md §4.7): its queued run starts, and server.status says down.
func TestFleetCapsDownFallsBackToOwnCaps(t *testing.T) {
	t.Parallel()
	caps := `"caps": {"mock": 1}, "lease_ttl": "1s"`
	hub := sockettest.NewServer(t, sockettest.WithConfig(`{"fleet": {"host": "hub", "hub": {"listen": "127.0.0.1:0"}, `+caps+`}}`))
	url, tok := hub.FleetHubURL(), filepath.Join(hub.Home, config.FleetDirName, fleet.HubTokenName)
	web := sockettest.NewServer(t, sockettest.WithHerdr(t),
		sockettest.WithConfig(fmt.Sprintf(`{"fleet": {"host": "web", "url": %q, "token_file": %q, %s}}`, url, tok, caps)))
	wc := web.Client(t)
	b1 := runOK(t, wc, map[string]any{"path": "down/b1", "gc": "never"})
	waitStatus(t, wc, b1.UUID, "idle")
	poll.Eventually(t, 20*time.Second, "web holding the one slot", func() bool {
		l, held := leasesOf(t, web)
		return l.State == "up" && held == 1
	})
	b2 := runOK(t, wc, map[string]any{"path": "down/b2", "gc": "never"})
	stopAt := time.Now().UnixMilli()
	hub.Stop()
	if err := hub.Wait(); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, wc, b2.UUID, "idle")
	if r := capRowOf(t, wc, b2.UUID); r.StartingAt == nil || *r.StartingAt < stopAt {
		t.Errorf("web's second run started at %s, the hub stopped at %d: want it after", ms(r.StartingAt), stopAt)
	}
	if l, _ := leasesOf(t, web); l.State != "down" || l.Error == nil {
		t.Errorf("web's fleet.leases with the hub gone: %+v, want down with the error", l)
	}
}
