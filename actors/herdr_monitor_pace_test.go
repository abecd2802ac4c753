package actors

import (
	"fmt"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/orcr-go/orcr/herdr"
	"github.com/orcr-go/orcr/store"
	"github.com/orcr-go/orcr/tests/poll"
)

// The monitor polls at MonitorTick while an agent is active or herdr's view changed
// within MonitorLinger, and at MonitorIdleTick otherwise (docs/lifecycle.md §10.2).
func TestMonitorDelay(t *testing.T) {
	t0 := time.Unix(1000, 0)
	fast, slow := MonitorTick, MonitorIdleTick
	pace := monitorPace{fast: fast, slow: slow, linger: MonitorLinger}
	for _, c := range []struct {
		name   string
		active int
		since  time.Duration
		want   time.Duration
	}{
		{"an active agent, long after the last change", 1, time.Hour, fast},
		{"nothing active, a change just now", 0, 0, fast},
		{"nothing active, a change just inside the linger", 0, MonitorLinger - time.Millisecond, fast},
		{"nothing active, the linger over", 0, MonitorLinger, slow},
		{"nothing active for an hour", 0, time.Hour, slow},
	} {
		if got := monitorDelay(c.active, t0, t0.Add(c.since), pace); got != c.want {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
	if MonitorIdleTick <= MonitorTick {
		t.Errorf("MonitorIdleTick %v is not slower than MonitorTick %v", MonitorIdleTick, MonitorTick)
	}
}

// An agent is active while it starts or works, has a turn in flight (blocked on a
// question included) or a delivery waiting or running; idle, parked and ended agents
// are not (docs/lifecycle.md §10.2).
func TestAgentActive(t *testing.T) {
	for _, c := range []struct {
		name       string
		st         store.Status
		turn       int64
		delivering bool
		ended      bool
		want       bool
	}{
		{"idle", store.StatusIdle, 0, false, false, false},
		{"parked", store.StatusParked, 0, false, false, false},
		{"idle with a send on its way", store.StatusIdle, 0, true, false, true},
		{"parked with a send on its way", store.StatusParked, 0, true, false, true},
		{"starting", store.StatusStarting, 0, false, false, true},
		{"working", store.StatusWorking, 3, false, false, true},
		{"blocked in a turn", store.StatusBlocked, 3, false, false, true},
		{"idle with its turn not yet completed", store.StatusIdle, 3, false, false, true},
		{"ended", store.StatusEnded, 3, true, false, false},
		{"lost", store.StatusLost, 0, true, false, false},
		{"the actor finished", store.StatusWorking, 3, true, true, false},
	} {
		if got := agentActive(c.st, c.turn, c.delivering, c.ended); got != c.want {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
}

// The monitor's state feeds its pace: an agent turning active asks for a sooner poll
// once, the last active agent going quiet and any reported change restart the linger,
// and a poll that saw nothing new leaves it alone.
func TestMonitorPaceState(t *testing.T) {
	m := newMonitorState()
	t0 := time.Unix(1000, 0)
	m.changedAt = t0
	if !m.setActive(WatchActive{UUID: "a", Active: true}, t0) {
		t.Error("a turning active did not ask for a sooner poll")
	}
	if m.setActive(WatchActive{UUID: "a", Active: true}, t0) {
		t.Error("a repeated active asked again")
	}
	m.setActive(WatchActive{UUID: "b", Active: true}, t0)
	m.setActive(WatchActive{UUID: "a"}, t0.Add(time.Second))
	if len(m.active) != 1 || !m.changedAt.Equal(t0) {
		t.Errorf("a quiet with b active: active %v changedAt %v", m.active, m.changedAt)
	}
	m.setActive(WatchActive{UUID: "b"}, t0.Add(2*time.Second))
	if len(m.active) != 0 || !m.changedAt.Equal(t0.Add(2*time.Second)) {
		t.Errorf("the last active agent went quiet: active %v changedAt %v, want the linger restarted", m.active, m.changedAt)
	}
	m.setActive(WatchActive{UUID: "never"}, t0.Add(3*time.Second))
	if !m.changedAt.Equal(t0.Add(2 * time.Second)) {
		t.Errorf("a quiet agent that was never active moved changedAt to %v", m.changedAt)
	}

	m.track(TrackPane{UUID: "a", Terminal: "term_a", Pane: "w1:p1"})
	m.changedAt = t0
	row := []herdr.AgentInfo{{TerminalID: "term_a", PaneID: "w1:p1", AgentStatus: herdr.StatusIdle}}
	m.diff(row, t0.Add(10*time.Second))
	if !m.changedAt.Equal(t0.Add(10 * time.Second)) {
		t.Errorf("a first report left changedAt at %v", m.changedAt)
	}
	m.diff(row, t0.Add(20*time.Second))
	if !m.changedAt.Equal(t0.Add(10 * time.Second)) {
		t.Errorf("a poll with nothing new moved changedAt to %v", m.changedAt)
	}
}

// An idle monitor polls at its slow pace, and an agent turning active (a send, a run)
// wakes it at once, not after the slow period: here the slow period is an hour and the
// linger nothing, so only the wake can bring the polls (docs/lifecycle.md §10.2).
func TestMonitorWakesOnActive(t *testing.T) {
	sock, ln := fakeHerdrListener(t)
	var lists atomic.Int64
	serveFakeHerdr(t, ln, func(conn net.Conn, id, method string) {
		if method == "agent.list" {
			lists.Add(1)
			fmt.Fprintf(conn, `{"id":%q,"result":{"type":"agent_list","agents":[]}}`+"\n", id)
		}
	})

	sys, env := monitorEnvOn(t, sock)
	mon, err := sys.Root.SpawnNamed(NewMonitorProps(MonitorSpec{Env: env, Tick: 10 * time.Millisecond,
		IdleTick: time.Hour, Linger: time.Nanosecond}), "monitor")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sys.Root.PoisonFuture(mon).Wait(); env.Ops.Wait() })
	sys.Root.Send(mon, SetAgents{PID: mon})
	sys.Root.Send(mon, TrackPane{UUID: "a", Terminal: "term_a", Pane: "w1:p1"})
	sys.Root.Send(mon, WatchActive{UUID: "a", Active: true})
	poll.Eventually(t, 10*time.Second, "an agent turning active wakes the idle monitor", func() bool { return lists.Load() >= 1 })
	poll.Eventually(t, 10*time.Second, "the monitor keeps the fast pace while the agent is active", func() bool { return lists.Load() >= 4 })
}
