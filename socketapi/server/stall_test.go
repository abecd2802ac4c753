package server_test

// The stall signal (docs/lifecycle.md §10.7) against the herdr stand-in and the mock
// agent: a turn whose screen and transcript stand still for stall_after is marked
// stalled (agent.stalled, the row, agent.ls, server.status), the pane changing clears
// the mark (agent.stall_cleared, reason progress), and so does a new turn (reason
// status) — the agent is never interrupted.

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/sockettest"
)

// stallEvents is uuid's stall events in order: "stalled" or "cleared:<reason>".
func stallEvents(evs []ev, uuid string) []string {
	var out []string
	for _, e := range evs {
		if e.UUID != uuid {
			continue
		}
		switch e.Kind {
		case "agent.stalled":
			out = append(out, "stalled")
		case "agent.stall_cleared":
			out = append(out, "cleared:"+e.Reason)
		}
	}
	return out
}

func TestStallMarkedClearedAndNeverActedOn(t *testing.T) {
	t.Parallel()
	// stall_after 1 s (probes every 250 ms); the mock settles 1.5 s after its last idle.
	srv := sockettest.NewServer(t, sockettest.WithHerdr(t),
		sockettest.WithConfig(`{"timings":{"stall_after":"1s"},"integrations":{"mock":{"idle_stable_ms":1500}}}`))
	c := srv.Client(t)
	rec := record(t, c)
	// The turn works 2.5 s in silence, goes idle for 800 ms (herdr reports it, the
	// screen changes), works 2.5 s more in silence and ends. The idle gap is what clears
	// the first mark: it must be long enough for a poll or a probe of a loaded machine
	// to fall inside it (a 300 ms gap once was not: no clear, no second mark), and
	// shorter than idle_stable_ms, or it would complete the turn.
	a := runOK(t, c, map[string]any{"path": "stall/one", "prompt": "say=late turn_ms=2500 tool_gaps=1 gap_ms=800"})

	evs := rec.waitFor(t, 20*time.Second, "agent.stalled", func(evs []ev) bool { return len(stallEvents(evs, a.UUID)) >= 1 })
	for _, e := range evs {
		if e.Kind == "agent.stalled" && (e.Row == nil || !e.Row.Stalled || e.Row.Status != "working") {
			t.Errorf("agent.stalled row: %+v, want working and stalled", e.Row)
		}
	}
	// While it is stalled, agent.ls and server.status say so (the first silence lasts
	// until 2.5 s; the mark came at 1–1.25 s).
	var rows []struct {
		Stalled   bool   `json:"stalled"`
		StalledAt *int64 `json:"stalled_at"`
		Status    string `json:"status"`
	}
	var ls api.LsResult
	if err := c.Call(context.Background(), "agent.ls", map[string]any{"pattern": a.UUID}, &ls); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(ls.Agents)
	json.Unmarshal(b, &rows)
	var st api.StatusResult
	if err := c.Call(context.Background(), "server.status", nil, &st); err != nil {
		t.Fatal(err)
	}
	if stall := stallEvents(rec.events(), a.UUID); len(stall) == 1 {
		if len(rows) != 1 || !rows[0].Stalled || rows[0].StalledAt == nil || rows[0].Status != "working" {
			t.Errorf("agent.ls while stalled: %+v", rows)
		}
		if st.Counts["stalled"] != 1 || len(st.Stalled) != 1 || st.Stalled[0].Path != "stall/one" {
			t.Errorf("server.status while stalled: counts %v stalled %+v", st.Counts, st.Stalled)
		}
	} else {
		t.Logf("the mark was cleared before agent.ls/server.status could look (%v); skipping those checks", stall)
	}

	// Stalled a second time, a send opens a new turn: that clears the mark.
	rec.waitFor(t, 20*time.Second, "the second agent.stalled", func(evs []ev) bool { return len(stallEvents(evs, a.UUID)) >= 3 })
	if err := c.Call(context.Background(), "agent.send", map[string]any{"target": a.UUID, "prompt": "say=next turn_ms=100"}, nil); err != nil {
		t.Fatalf("agent.send: %v", err)
	}
	evs = rec.waitFor(t, 10*time.Second, "the new turn's clear", func(evs []ev) bool { return len(stallEvents(evs, a.UUID)) >= 4 })
	final := waitStatus(t, c, a.UUID, "working", "idle")
	want := []string{"stalled", "cleared:progress", "stalled", "cleared:status"}
	if got := stallEvents(evs, a.UUID); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("stall events: got %v, want %v", got, want)
	}
	if final.ExitReason != "" {
		t.Errorf("the stalled agent ended (%s): a stall must never be acted on", final.ExitReason)
	}
	if err := c.Call(context.Background(), "server.status", nil, &st); err != nil {
		t.Fatal(err)
	}
	if st.Counts["stalled"] != 0 || len(st.Stalled) != 0 {
		t.Errorf("server.status after the clear: counts %v stalled %+v, want none", st.Counts, st.Stalled)
	}
}
