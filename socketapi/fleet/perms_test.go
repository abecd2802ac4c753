package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/store"
	"github.com/orcr-go/orcr/tests/poll"
)

// lsFacade answers agent.ls with one agent named after its host; any other method of
// the facade is not reached in these tests.
type lsFacade struct {
	api.Facade
	host string
}

func (f lsFacade) Ls(context.Context, api.LsRequest) (api.LsResult, error) {
	return api.LsResult{Agents: []api.AgentRow{{Path: f.host + "/one"}}}, nil
}

// memberTokens is a hub's member tokens for a test: token → host, revocable.
type memberTokens struct {
	mu sync.Mutex
	m  map[string]string
}

func (t *memberTokens) auth(tok string) (string, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	h, ok := t.m[tok]
	return h, ok
}

func (t *memberTokens) revoke(tok string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.m, tok)
}

// refusals collects the NATS server's permission violations on a connection.
type refusals struct {
	mu  sync.Mutex
	got []string
}

func (r *refusals) handler(_ *nats.Conn, _ *nats.Subscription, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, err.Error())
}

func (r *refusals) saw(subject string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, g := range r.got {
		if strings.Contains(g, "Permissions Violation") && strings.Contains(g, subject) {
			return true
		}
	}
	return false
}

// joinAs connects host to the hub at url with tok, as a server does, and collects the
// hub's refusals on that connection.
func joinAs(t *testing.T, url, host, tok string) (*Member, *refusals) {
	t.Helper()
	m, err := Connect(config.Fleet{Host: host}, url, tok, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	r := &refusals{}
	m.nc.SetErrorHandler(r.handler)
	poll.Eventually(t, 10*time.Second, host+" connected", m.nc.IsConnected)
	return m, r
}

// A member token acts as its host only (docs/fleet.md §3.1): the member joins, publishes
// its events, writes its view, reads the fleet's stream and buckets, leases slots and
// answers and makes calls, each call carrying its host as the caller the answering
// member's policy is checked against; it cannot publish another host's events, call as
// another host, answer for one or read another's replies, and once its token is revoked
// the hub drops it and refuses it again.
func TestMemberTokenActsAsItsHostOnly(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	hubTok, err := EnsureToken(dir)
	if err != nil {
		t.Fatal(err)
	}
	toks := &memberTokens{m: map[string]string{"tok-web": "web", "tok-db": "db"}}
	hub, err := StartHub(dir, config.FleetHub{Listen: "127.0.0.1:0"}, hubTok, toks.auth)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(hub.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	h, _ := joinAs(t, hub.URL(), "hub", hubTok)
	if err := h.Setup(ctx, MemberInfo{Host: "hub", ID: "id-hub"}); err != nil {
		t.Fatal(err)
	}
	web, webRefused := joinAs(t, hub.URL(), "web", "tok-web")
	db, _ := joinAs(t, hub.URL(), "db", "tok-db")

	// What a member does with its own token.
	wp := web.Publisher(MemberInfo{Host: "web", ID: "id-web"})
	if err := wp.Publish(ctx, []store.Event{{Seq: 1, TS: 1, Kind: "server_started"}}); err != nil {
		t.Fatalf("web publishes its event: %v", err)
	}
	if err := wp.Heartbeat(ctx, nil); err != nil {
		t.Fatalf("web writes its view: %v", err)
	}
	if n, err := wp.Published(ctx); err != nil || n != 1 {
		t.Fatalf("web reads where it is in the stream: %d %v", n, err)
	}
	if hosts, err := web.Members(ctx); err != nil || len(hosts) != 2 {
		t.Fatalf("web lists the members: %v %v", hosts, err)
	}
	if _, _, err := web.LastSeenAt(ctx, "hub"); err != nil {
		t.Fatalf("web reads the hub's last-seen time: %v", err)
	}
	if page, err := web.Events(ctx, nil, nil, 10, 0); err != nil || len(page.Events) != 1 {
		t.Fatalf("web reads the fleet's events: %+v %v", page, err)
	}
	if got, err := web.Leases(MemberInfo{Host: "web", ID: "id-web"}, map[string]int{"claude": 2}, 5*time.Second).
		Lease(ctx, map[string]int{"claude": 1}); err != nil || got["claude"] != 1 {
		t.Fatalf("web leases a fleet slot: %v %v", got, err)
	}
	if err := db.Setup(ctx, MemberInfo{Host: "db", ID: "id-db"}); err != nil {
		t.Fatal(err)
	}
	policy := func(caller string) ([]string, string) {
		if caller == "hub" {
			return []string{"agent.ls"}, "fleet.allow_from.hub"
		}
		return []string{"server.status"}, "fleet.allow"
	}
	resp, err := db.Serve(lsFacade{host: "db"}, policy)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(resp.Close)

	// The caller is the host of the credential: the hub may list db's agents, web may not.
	raw, werr := h.CallHost(ctx, "db", "agent.ls", map[string]any{})
	var ls api.LsResult
	if werr != nil || json.Unmarshal(raw, &ls) != nil || len(ls.Agents) != 1 {
		t.Fatalf("the hub lists db's agents: %s %v", raw, werr)
	}
	_, werr = web.CallHost(ctx, "db", "agent.ls", map[string]any{})
	if werr == nil || werr.Reason() != wire.ReasonFleetNotAllowed || werr.Details["caller"] != "web" || werr.Details["policy"] != "fleet.allow" {
		t.Fatalf("web lists db's agents: %v, want fleet_not_allowed for caller web", werr)
	}

	// Acting as another host is refused by the hub.
	snoop := make(chan *nats.Msg, 16)
	for _, subj := range []string{APICalls("db"), InboxPrefix("hub") + ".>"} {
		if _, err := web.nc.ChanSubscribe(subj, snoop); err != nil {
			t.Fatal(err)
		}
	}
	forged := nats.NewMsg(APISubject("db", "hub"))
	forged.Reply = web.nc.NewInbox()
	forged.Data = []byte(`{"protocol":1,"id":1,"method":"agent.ls"}`)
	if err := web.nc.PublishMsg(forged); err != nil {
		t.Fatal(err)
	}
	pctx, pcancel := context.WithTimeout(ctx, 3*time.Second)
	_, err = web.js.Publish(pctx, EventSubject("hub"), []byte(`{}`))
	pcancel()
	if err == nil {
		t.Fatal("web published an event as the hub")
	}
	// A call the hub makes to db now: web sees neither the call nor its reply.
	if _, werr := h.CallHost(ctx, "db", "agent.ls", map[string]any{}); werr != nil {
		t.Fatal(werr)
	}
	for _, subj := range []string{APISubject("db", "hub"), EventSubject("hub"), APICalls("db"), InboxPrefix("hub") + ".>"} {
		poll.Eventually(t, 10*time.Second, "the hub refuses web's use of "+subj, func() bool { return webRefused.saw(subj) },
			func() string { return strings.Join(webRefused.got, "; ") })
	}
	select {
	case m := <-snoop:
		t.Fatalf("web read %s, a message not for it", m.Subject)
	default:
	}
	if seqs := hostSeqs(ctx, t, h, "hub"); len(seqs) != 0 {
		t.Fatalf("the stream holds events of hub published by web: %v", seqs)
	}

	// A revoked token: the hub drops the member and refuses it from then on.
	toks.revoke("tok-web")
	hub.Disconnect("web")
	poll.Eventually(t, 10*time.Second, "web dropped once its token is revoked", func() bool { return !web.nc.IsConnected() })
	if _, err := Dial(config.Fleet{Host: "web"}, hub.URL(), "tok-web"); err == nil || !strings.Contains(err.Error(), "uthorization") {
		t.Fatalf("a revoked token joins: %v", err)
	}
}

// hostSeqs reads host's events from the stream through m.
func hostSeqs(ctx context.Context, t *testing.T, m *Member, host string) []int64 {
	t.Helper()
	cons, err := m.js.OrderedConsumer(ctx, Stream, jetstream.OrderedConsumerConfig{FilterSubjects: []string{EventSubject(host)}})
	if err != nil {
		t.Fatal(err)
	}
	info, err := cons.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var seqs []int64
	if info.NumPending == 0 {
		return nil
	}
	batch, err := cons.FetchNoWait(int(info.NumPending))
	if err != nil && !errors.Is(err, jetstream.ErrNoMessages) {
		t.Fatal(err)
	}
	for msg := range batch.Messages() {
		seqs = append(seqs, hostSeq(msg.Data()))
	}
	return seqs
}

// docs/fleet.md §6 lists a member's permissions for a team's own NATS: exactly what the
// embedded hub gives a member token, so a team copying them gets the same binding.
func TestMemberPermissionsDocumented(t *testing.T) {
	b, err := os.ReadFile("../../docs/fleet.md")
	if err != nil {
		t.Fatal(err)
	}
	row := func(name string) []string {
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "| "+name+" |") {
				var subjects []string
				for _, part := range strings.Split(line, "`")[1:] {
					if part != "" && !strings.ContainsAny(part, " ,|") {
						subjects = append(subjects, part)
					}
				}
				slices.Sort(subjects)
				return subjects
			}
		}
		t.Fatalf("docs/fleet.md has no %q row", name)
		return nil
	}
	p := MemberPermissions("<h>")
	for _, c := range []struct {
		name string
		want []string
	}{{"publish", p.Publish.Allow}, {"subscribe", p.Subscribe.Allow}} {
		want := slices.Sorted(slices.Values(c.want))
		if got := row(c.name); !slices.Equal(got, want) {
			t.Errorf("docs/fleet.md's %s row %v, want %v", c.name, got, want)
		}
	}
}
