package top

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/google/go-cmp/cmp"

	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/sockettest"
	"github.com/orcr-go/orcr/store/agentpath"
)

// setAgent writes a row through the server's __debug.set_agent (the events a real
// transition emits, each carrying the row) and returns the last seq.
func setAgent(t *testing.T, c *socketapi.Client, uuid, path, status, kind string) int64 {
	t.Helper()
	var r struct {
		Seq int64 `json:"seq"`
	}
	p := map[string]any{"uuid": uuid, "path": path, "status": status}
	if kind != "" {
		p["blocked_kind"] = kind
	}
	if err := c.Call(t.Context(), "__debug.set_agent", p, &r); err != nil {
		t.Fatalf("set_agent %s %s %s: %v", uuid, path, status, err)
	}
	return r.Seq
}

func uuidN(i int) string { return fmt.Sprintf("0190c000-0000-7000-8000-%012d", i) }

// The filter rule: for every query, the agents in top's tree are exactly the rows
// `agent ls` returns (the same agentpath.Filter decides both), with and without a
// caller scope.
func TestFilterParityWithLs(t *testing.T) {
	srv := sockettest.NewServer(t)
	c := srv.Client(t)
	paths := []string{"a/one", "a/two", "a/b/three", "a/b/c/four", "x", "y/z", "team/lead", "team/lead/sub", "team/w1", "team/w2"}
	// No "queued": a queued row of __debug.set_agent holds no place in the queue, which
	// agent.ls reads (real queued rows are in the parity test of tests/top_test.go).
	statuses := []string{"idle", "working", "blocked", "parked", "idle", "lost", "starting", "ended"}
	for i, p := range paths {
		setAgent(t, c, uuidN(i), p, statuses[i%len(statuses)], "")
	}
	snap, err := c.Snapshot(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, scope := range []struct{ id, path, scope string }{{}, {uuidN(6), "team/lead", "team"}} {
		for _, pat := range []string{"", "**", "*", "a/**", "a/*", "a/b/**", "x", "team/*", "team/**", "lead", "*/sub", "nosuch/**"} {
			for _, f := range []agentpath.ListFilter{{}, {Managed: true}, {Unmanaged: true}, {Status: "idle"}, {Status: "parked"}, {Agent: "mock"}, {Agent: "claude"}} {
				f.Pattern = pat
				req := api.LsRequest{Caller: api.Caller{CallerID: scope.id, CallerPath: scope.path}, Pattern: pat,
					Agent: f.Agent, Status: f.Status, Managed: f.Managed, Unmanaged: f.Unmanaged}
				ls, err := c.Ls(t.Context(), req)
				var want []string
				if err == nil {
					for _, a := range ls.Agents {
						want = append(want, a.Path)
					}
				}
				keep, cerr := agentpath.CompileFilter(scope.scope, f)
				if (err == nil) != (cerr == nil) {
					t.Errorf("scope %q %+v: ls error %v, top's filter error %v", scope.scope, f, err, cerr)
					continue
				}
				if cerr != nil {
					continue
				}
				got := Build(snap, Options{Keep: keep}).AgentPaths()
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("scope %q %+v: tree vs agent ls (-ls +top):\n%s", scope.scope, f, diff)
				}
			}
		}
	}
}

// feed runs Feed against c, handing its messages to the returned channel.
func feed(t *testing.T, c *socketapi.Client) (<-chan tea.Msg, context.CancelFunc) {
	ctx, cancel := context.WithCancel(t.Context())
	ch := make(chan tea.Msg, 4096)
	done := make(chan struct{})
	go func() {
		defer close(done)
		Feed(ctx, c, func(m tea.Msg) {
			select {
			case ch <- m:
			case <-ctx.Done():
			}
		})
	}()
	t.Cleanup(func() { cancel(); <-done })
	return ch, cancel
}

// pump applies messages to m until cond holds.
func pump(t *testing.T, m *Model, ch <-chan tea.Msg, what string, cond func() bool) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for !cond() {
		select {
		case msg := <-ch:
			m.Update(msg)
		case <-deadline:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// Acceptance 1: a random sequence of 1,000 events over 100 agents (created, moved
// through every status, ended, loops with runs) leaves top's model equal to the final
// api.snapshot, and its tree equal to the tree built from that snapshot.
func TestEventApplicationEndsAtSnapshot(t *testing.T) {
	srv := sockettest.NewServer(t, sockettest.WithHerdr(t)) // runs need the real orcr binary
	c := srv.Client(t)
	m := NewModel(Config{Options: Options{Keep: filter(t, "", agentpath.ListFilter{Managed: true})}, Width: 120, Height: 40})
	ch, _ := feed(t, c)
	pump(t, m, ch, "the first snapshot", func() bool { return m.data != nil })

	for _, name := range []string{"nightly", "hourly"} {
		if _, err := c.LoopCreate(t.Context(), api.LoopCreateRequest{Name: name, Cron: "0 3 * * *", MaxConcurrency: 4,
			Command: []string{"sleep", "0.2"}, Cwd: t.TempDir()}); err != nil {
			t.Fatal(err)
		}
	}
	began := time.Now()
	rng := rand.New(rand.NewPCG(1, 2))
	// Not "queued": __debug.set_agent does not take a place in the queue, so its queued
	// rows have no real position (the SDK model's queue arithmetic is checked against a
	// real queue in socketapi's TestWatchModelEqualsSnapshotUnderChurn).
	statuses := []string{"starting", "working", "idle", "blocked", "parked", "lost", "ended"}
	kinds := []string{"question", "limit", "login", ""}
	segs := []string{"a", "b", "c", "team", "w"}
	type live struct{ uuid, path string }
	agents := map[int]live{}
	next, last, events := 0, int64(0), 0
	for events < 1000 {
		i := rng.IntN(100)
		a, ok := agents[i]
		if !ok {
			a = live{uuidN(next), fmt.Sprintf("%s/%s/n%d", segs[rng.IntN(len(segs))], segs[rng.IntN(len(segs))], next)}
			next++
			agents[i] = a
		}
		st := statuses[rng.IntN(len(statuses))]
		kind := ""
		if st == "blocked" {
			kind = kinds[rng.IntN(len(kinds))]
		}
		seq := setAgent(t, c, a.uuid, a.path, st, kind)
		events += int(seq - last)
		last = seq
		if st == "ended" {
			delete(agents, i) // an ended row stays ended: the slot takes a new agent
		}
		if rng.IntN(40) == 0 {
			// A manual run of a loop: loop_run.* events as it starts and ends.
			_, _ = c.LoopRunStart(t.Context(), []string{"nightly", "hourly"}[rng.IntN(2)])
		}
	}
	t.Logf("%d events written in %v", events, time.Since(began))
	want, err := c.Snapshot(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	pump(t, m, ch, fmt.Sprintf("seq %d", want.SnapshotSeq), func() bool { return m.data.Seq >= want.SnapshotSeq })
	m.Update(frameMsg{})
	if diff := cmp.Diff(want, m.data.Snapshot()); diff != "" {
		t.Errorf("top's model differs from api.snapshot at seq %d (-snapshot +model):\n%s", want.SnapshotSeq, diff)
	}
	if diff := cmp.Diff(Build(want, m.opts).Canonical(), m.tree.Canonical()); diff != "" {
		t.Errorf("tree (-from snapshot +top):\n%s", diff)
	}
	if len(want.Agents) < 20 {
		t.Errorf("only %d agents at the end; the churn should leave more", len(want.Agents))
	}
}

// A stopped server shows reconnecting… with the last tree kept; a server started
// again on the same home is found, and its snapshot replaces the tree.
func TestFeedReconnectsAfterRestart(t *testing.T) {
	home := sockettest.TempHome(t)
	srv := sockettest.NewServer(t, sockettest.WithHome(home))
	c := srv.Client(t)
	setAgent(t, c, uuidN(1), "keep/one", "idle", "")
	m := NewModel(Config{Options: Options{Keep: filter(t, "", agentpath.ListFilter{Managed: true})}, Width: 100, Height: 30})
	ch, _ := feed(t, c)
	pump(t, m, ch, "the first snapshot", func() bool { return m.tree.Node("keep/one") != nil })
	srv.Stop()
	if err := srv.Wait(); err != nil {
		t.Fatal(err)
	}
	pump(t, m, ch, "reconnecting…", func() bool { return m.banner != "" })
	if m.tree.Node("keep/one") == nil {
		t.Errorf("the tree was dropped while disconnected")
	}
	again := sockettest.NewServer(t, sockettest.WithHome(home))
	setAgent(t, again.Client(t), uuidN(2), "keep/two", "working", "")
	pump(t, m, ch, "the new server's tree", func() bool { m.Update(frameMsg{}); return m.tree.Node("keep/two") != nil && m.banner == "" })
	if m.gen < 2 {
		t.Errorf("generation %d after a reconnect", m.gen)
	}
}
