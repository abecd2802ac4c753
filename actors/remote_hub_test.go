package actors

import (
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/orcr-go/orcr/actors/actorkit"
)

// The tool allow list: fnmatch-style globs over tool names.
func TestPolicyAllows(t *testing.T) {
	for _, tc := range []struct {
		patterns []string
		name     string
		want     bool
	}{
		{nil, "Bash", false},
		{[]string{}, "Bash", false},
		{[]string{"Bash"}, "Bash", true},
		{[]string{"bash"}, "Bash", false},
		{[]string{"Gr*"}, "Grep", true},
		{[]string{"Gr?p"}, "Grep", true},
		{[]string{"Gr?p"}, "Greep", false},
		{[]string{"[BE]*"}, "Edit", true},
		{[]string{"Read", "Write"}, "Write", true},
		{[]string{"mcp__*"}, "mcp__github__create_issue", true},
		{[]string{"["}, "[", false}, // a malformed pattern matches nothing
		{[]string{"*"}, "", true},
	} {
		if got := PolicyAllows(tc.patterns, tc.name); got != tc.want {
			t.Errorf("PolicyAllows(%q, %q) = %v, want %v", tc.patterns, tc.name, got, tc.want)
		}
	}
}

// probe is an actor that hands every message it gets to a channel.
type probe struct{ got chan any }

func (p *probe) Receive(c actor.Context) {
	switch c.Message().(type) {
	case *actor.Started, *actor.Stopping, *actor.Stopped:
		return
	}
	p.got <- c.Message()
}

func newProbe(t *testing.T, sys *actor.ActorSystem) (*actor.PID, chan any) {
	t.Helper()
	ch := make(chan any, 16)
	pid := sys.Root.Spawn(actor.PropsFromProducer(func() actor.Actor { return &probe{got: ch} }))
	return pid, ch
}

func expectMsg[T any](t *testing.T, ch chan any, what string) {
	t.Helper()
	select {
	case m := <-ch:
		if _, ok := m.(T); !ok {
			t.Fatalf("%s: got %#v", what, m)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("%s: nothing arrived", what)
	}
}

func expectNothing(t *testing.T, ch chan any, what string) {
	t.Helper()
	select {
	case m := <-ch:
		t.Fatalf("%s: got %#v", what, m)
	case <-time.After(100 * time.Millisecond):
	}
}

// The hub's replay gate grants at most max slots, oldest waiter first, and frees the
// slot of a connection that dies; a newer connection supersedes the agent's older one;
// a revocation reaches only the connection that presented a revoked token.
func TestRemoteHub(t *testing.T) {
	sys := actorkit.NewSystem(nil, 10*time.Millisecond)
	defer sys.Shutdown()
	hub := sys.Root.Spawn(newRemoteHubProps(nil, 2))
	a, aCh := newProbe(t, sys)
	b, bCh := newProbe(t, sys)
	c, cCh := newProbe(t, sys)
	for _, p := range []*actor.PID{a, b, c} {
		sys.Root.Send(hub, replayAcquire{Conn: p})
	}
	expectMsg[replayGranted](t, aCh, "first waiter")
	expectMsg[replayGranted](t, bCh, "second waiter")
	expectNothing(t, cCh, "third waiter with two slots held")
	sys.Root.Send(hub, replayRelease{Conn: a})
	expectMsg[replayGranted](t, cCh, "third waiter after a release")
	sys.Root.Send(hub, hubRegister{Agent: "ag", Hash: "h1", Conn: b})
	sys.Root.StopFuture(b).Wait() // dies holding a slot: the hub gets Terminated
	sys.Root.Send(hub, replayAcquire{Conn: a})
	expectMsg[replayGranted](t, aCh, "a slot freed by a dead connection")
	res, err := sys.Root.RequestFuture(hub, RemoteStatsQuery{}, 5*time.Second).Result()
	if err != nil {
		t.Fatal(err)
	}
	if st := res.(RemoteStats); st.ReplaysPeak != 2 || st.ReplaysActive != 2 || st.Connections != 0 {
		t.Errorf("stats %+v, want peak 2, active 2, no connection", st)
	}

	sys.Root.Send(hub, hubRegister{Agent: "ag", Hash: "h1", Conn: a})
	sys.Root.Send(hub, hubRegister{Agent: "ag", Hash: "h2", Conn: c})
	expectMsg[streamSuperseded](t, aCh, "the older connection of the agent")
	sys.Root.Send(hub, hubRevoke{Agent: "ag", Hashes: []string{"h1"}})
	expectNothing(t, cCh, "a revocation of another token")
	sys.Root.Send(hub, hubRevoke{Agent: "ag", Hashes: []string{"h0", "h2"}})
	expectMsg[streamRevoked](t, cCh, "the connection that presented a revoked token")

	// A dashboard session's revocation names no agent: every connection that presented it.
	d, dCh := newProbe(t, sys)
	sys.Root.Send(hub, hubRegister{Agent: "bg", Hash: "s1", Conn: d})
	sys.Root.Send(hub, hubRevoke{Agent: "ag", Hashes: []string{"s1"}})
	expectNothing(t, dCh, "a revocation for another agent")
	sys.Root.Send(hub, hubRevoke{Hashes: []string{"s1"}})
	expectMsg[streamRevoked](t, dCh, "a revoked session on any agent")

	// The order of opening decides, not the order the actors register in: an older
	// connection whose actor started after the newer one's is the superseded one.
	newer, newerCh := newProbe(t, sys)
	older, olderCh := newProbe(t, sys)
	sys.Root.Send(hub, hubRegister{Agent: "cg", Hash: "t1", Conn: newer, Order: 11})
	sys.Root.Send(hub, hubRegister{Agent: "cg", Hash: "t1", Conn: older, Order: 10})
	expectMsg[streamSuperseded](t, olderCh, "the older connection, registered second")
	expectNothing(t, newerCh, "the newer connection")
	sys.Root.Send(hub, hubRevoke{Agent: "cg", Hashes: []string{"t1"}})
	expectMsg[streamRevoked](t, newerCh, "the newer connection is the agent's")

	// A connection that checked its token before the revocation and registers after the
	// hub handled it is revoked at registration.
	late, lateCh := newProbe(t, sys)
	sys.Root.Send(hub, hubRevoke{Agent: "dg", Hashes: []string{"u1"}})
	sys.Root.Send(hub, hubRegister{Agent: "dg", Hash: "u1", Conn: late, Order: 20})
	expectMsg[streamRevoked](t, lateCh, "a connection registering with a revoked token")
}
