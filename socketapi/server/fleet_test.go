package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/socketapi/fleet"
	"github.com/orcr-go/orcr/socketapi/fleet/fleettest"
	"github.com/orcr-go/orcr/socketapi/sockettest"
	"github.com/orcr-go/orcr/tests/poll"
)

// fleetHub starts an orcr that serves the fleet (fleet.hub on loopback) and returns it
// with its address and the path of its generated token.
func fleetHub(t testing.TB, host string) (*sockettest.Server, string, string) {
	t.Helper()
	hub := sockettest.NewServer(t, sockettest.WithConfig(`{"fleet": {"host": "`+host+`", "hub": {"listen": "127.0.0.1:0"}}}`))
	tok := filepath.Join(hub.Home, config.FleetDirName, fleet.HubTokenName)
	fi, err := os.Stat(tok)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("hub token mode %v, want 0600", fi.Mode().Perm())
	}
	return hub, hub.FleetHubURL(), tok
}

// fleetMemberConfig is a member's config.json joining the hub at url with its token.
func fleetMemberConfig(host, url, tokenFile string) string {
	return fmt.Sprintf(`{"fleet": {"host": %q, "url": %q, "token_file": %q}}`, host, url, tokenFile)
}

// dialFleet connects a client to the fleet with the hub's token.
func dialFleet(t testing.TB, url, tokenFile string) *fleet.Member {
	t.Helper()
	m, err := fleet.Dial(config.Fleet{Host: "probe", TokenFile: tokenFile}, url, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	return m
}

// Three members on one machine, each its own home, with an embedded hub: a fleet-wide
// agent.ls sees every host's agents under its host, a write verb is refused by the
// default allow policy and changes nothing, a host nobody serves is unreachable.
func TestFleetLsAcrossHosts(t *testing.T) {
	t.Parallel()
	hub, url, tok := fleetHub(t, "hub")
	web := sockettest.NewServer(t, sockettest.WithConfig(fleetMemberConfig("web", url, tok)))
	gpu := sockettest.NewServer(t, sockettest.WithConfig(fleetMemberConfig("gpu1", url, tok)))
	setAgent(t, hub.Client(t), "0190a000-0000-7000-8000-0000000000a1", "hubwork/one", "idle")
	setAgent(t, web.Client(t), "0190a000-0000-7000-8000-0000000000b1", "webwork/two", "working")
	setAgent(t, gpu.Client(t), "0190a000-0000-7000-8000-0000000000c1", "gpuwork/three", "idle")

	m := dialFleet(t, url, tok)
	want := map[string]string{"hub": "hubwork/one", "web": "webwork/two", "gpu1": "gpuwork/three"}
	var got map[string][]string
	poll.Eventually(t, 20*time.Second, "agent.ls over the fleet lists every host's agents", func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		replies, err := m.CallAll(ctx, "agent.ls", map[string]any{})
		if err != nil {
			t.Fatal(err)
		}
		got = map[string][]string{}
		for _, r := range replies {
			if r.Err != nil {
				return false
			}
			var ls api.LsResult
			if err := json.Unmarshal(r.Result, &ls); err != nil {
				t.Fatal(err)
			}
			for _, a := range ls.Agents {
				got[r.Host] = append(got[r.Host], a.Path)
			}
		}
		return len(got) == 3
	})
	for host, path := range want {
		if !slices.Equal(got[host], []string{path}) {
			t.Fatalf("host %s lists %v, want [%s] (all: %v)", host, got[host], path, got)
		}
	}

	ctx := context.Background()
	_, werr := m.Call(ctx, "web", "agent.kill", map[string]any{"targets": []string{"webwork/two"}, "force": true})
	if werr == nil || werr.Code != wire.InvalidRequest || werr.Reason() != wire.ReasonFleetNotAllowed || werr.Details["method"] != "agent.kill" {
		t.Fatalf("agent.kill over the fleet: %v, want invalid_request fleet_not_allowed naming the method", werr)
	}
	var ls api.LsResult
	if err := web.Client(t).Call(ctx, "agent.ls", map[string]any{}, &ls); err != nil {
		t.Fatal(err)
	}
	if len(ls.Agents) != 1 || ls.Agents[0].Status != "working" {
		t.Fatalf("web's agents after a refused kill: %+v", ls.Agents)
	}
	// api.snapshot is a read verb of the default policy.
	raw, werr := m.Call(ctx, "gpu1", "api.snapshot", nil)
	var snap api.Snapshot
	if werr != nil || json.Unmarshal(raw, &snap) != nil || len(snap.Agents) != 1 || snap.Agents[0].Path != "gpuwork/three" || snap.SnapshotSeq < 1 {
		t.Fatalf("api.snapshot of gpu1 over the fleet: %s %v", raw, werr)
	}
	// The envelope is the socket's: an unknown method is unknown_method.
	if _, werr := m.Call(ctx, "web", "agent.fly", nil); werr == nil || werr.Reason() != wire.ReasonUnknownMethod {
		t.Fatalf("agent.fly over the fleet: %v, want unknown_method", werr)
	}
	short, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	if _, werr := m.Call(short, "ghost", "agent.ls", nil); werr == nil || werr.Cause() != wire.CauseFleetUnreachable || werr.Details["host"] != "ghost" {
		t.Fatalf("a call to a host nobody serves: %v, want environment_error fleet_unreachable", werr)
	}
}

// A client without the hub's credential, or with a wrong one, is refused.
func TestFleetRefusesWithoutCredential(t *testing.T) {
	t.Parallel()
	_, url, _ := fleetHub(t, "hub")
	if m, err := fleet.Dial(config.Fleet{Host: "probe"}, url, ""); err == nil {
		m.Close()
		t.Fatal("a client without a credential joined the fleet")
	}
	bad := filepath.Join(t.TempDir(), "bad.token")
	if err := os.WriteFile(bad, []byte("not-the-token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	m, err := fleet.Dial(config.Fleet{Host: "probe", TokenFile: bad}, url, "")
	if err == nil {
		m.Close()
		t.Fatal("a client with a wrong token joined the fleet")
	}
	if !wire.Is(err, wire.EnvironmentError, wire.CauseServerUnreachable) {
		t.Fatalf("wrong token: %v, want environment_error server_unreachable", err)
	}
}

// snapshotSeq is the member's latest committed event.
func snapshotSeq(t *testing.T, srv *sockettest.Server) int64 {
	t.Helper()
	var snap api.Snapshot
	if err := srv.Client(t).Call(context.Background(), "api.snapshot", nil, &snap); err != nil {
		t.Fatal(err)
	}
	return snap.SnapshotSeq
}

// A member's committed events reach the stream once each, with no gap, across a
// restart whose cursor file lags the stream (an ack lost before the cursor was stored):
// it resumes from the stream's last seq of its host, not from its file.
func TestFleetEventsNoGapNoDuplicateAcrossRestart(t *testing.T) {
	t.Parallel()
	_, url, tok := fleetHub(t, "hub")
	home := sockettest.TempHome(t)
	cfg := fleetMemberConfig("web", url, tok)
	web := sockettest.NewServer(t, sockettest.WithHome(home), sockettest.WithConfig(cfg))
	for i := range 5 {
		setAgent(t, web.Client(t), fmt.Sprintf("0190a000-0000-7000-8000-0000000001%02d", i), fmt.Sprintf("ev/a%d", i), "idle")
	}
	head := snapshotSeq(t, web)
	if head < 5 {
		t.Fatalf("head %d after five agents", head)
	}
	var seqs []int64
	poll.Eventually(t, 20*time.Second, "every event of web in the stream", func() bool {
		seqs = fleettest.StreamSeqs(t, url, tok, "web")
		return len(seqs) >= int(head)
	})
	if !fleettest.Gapless(seqs, head) {
		t.Fatalf("stream holds %v, want 1..%d once each", seqs, head)
	}
	web.Stop()
	if err := web.Wait(); err != nil {
		t.Fatal(err)
	}
	cursor := filepath.Join(home, config.FleetDirName, fleet.CursorName)
	if got, err := os.ReadFile(cursor); err != nil || string(got) != fmt.Sprintf("%d\n", head) {
		t.Fatalf("cursor file %q (%v), want %d", got, err, head)
	}
	// The cursor file lags: the acks of the last batch were lost.
	if err := os.WriteFile(cursor, []byte("1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	web = sockettest.NewServer(t, sockettest.WithHome(home))
	for i := range 3 {
		setAgent(t, web.Client(t), fmt.Sprintf("0190a000-0000-7000-8000-0000000002%02d", i), fmt.Sprintf("ev/b%d", i), "idle")
	}
	head = snapshotSeq(t, web)
	poll.Eventually(t, 20*time.Second, "the events after the restart in the stream", func() bool {
		seqs = fleettest.StreamSeqs(t, url, tok, "web")
		return len(seqs) >= int(head)
	})
	if !fleettest.Gapless(seqs, head) {
		t.Fatalf("stream holds %v after the restart, want 1..%d once each", seqs, head)
	}

	// The other way round: the stream lost what web's cursor says it acknowledged (here
	// deleted whole, as a hub's crash could lose its last writes). At its next start web
	// publishes again from what the stream holds: every retained event, once each, more
	// than one batch of them.
	for range 300 {
		if err := web.Client(t).Call(context.Background(), "__debug.emit_event", nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	head = snapshotSeq(t, web)
	poll.Eventually(t, 30*time.Second, "web's 300 more events in the stream", func() bool {
		return len(fleettest.StreamSeqs(t, url, tok, "web")) >= int(head)
	})
	web.Stop()
	if err := web.Wait(); err != nil {
		t.Fatal(err)
	}
	fleettest.DeleteStream(t, url, tok)
	web = sockettest.NewServer(t, sockettest.WithHome(home))
	poll.Eventually(t, 20*time.Second, "web's events published again into the new stream", func() bool {
		seqs = fleettest.StreamSeqs(t, url, tok, "web")
		return len(seqs) >= int(head)
	})
	if !fleettest.Gapless(seqs, int64(len(seqs))) {
		t.Fatalf("stream holds %v after it was lost, want 1..%d or more, once each", seqs, head)
	}
}

// fleetStatus is a member's server.status fleet object (nil when it has none).
func fleetStatus(t *testing.T, srv *sockettest.Server) *api.FleetStatus {
	t.Helper()
	st, err := srv.Client(t).Status(context.Background())
	if err != nil {
		t.Fatalf("server.status: %v", err)
	}
	return st.Fleet
}

// A member cut off from the fleet keeps working locally; when the hub comes back (same
// home, same port, its stream on disk) the member catches up from its cursor: the stream
// holds every event of the member once, with no gap. server.status says so all along:
// connected with no lag, then cut off with the events it holds back and the error, then
// connected again with no lag (docs/fleet.md §5.1).
func TestFleetMemberCatchesUpAfterHubRestart(t *testing.T) {
	t.Parallel()
	hub, url, tok := fleetHub(t, "hub")
	web := sockettest.NewServer(t, sockettest.WithConfig(fleetMemberConfig("web", url, tok)))
	c := web.Client(t)
	setAgent(t, c, "0190a000-0000-7000-8000-000000000301", "cut/before", "idle")
	poll.Eventually(t, 20*time.Second, "web's first events in the stream", func() bool {
		return fleettest.Gapless(fleettest.StreamSeqs(t, url, tok, "web"), snapshotSeq(t, web))
	})
	var st *api.FleetStatus
	poll.Eventually(t, 20*time.Second, "web's status: connected, nothing held back", func() bool {
		st = fleetStatus(t, web)
		return st != nil && st.Connection == "connected" && st.Lag == 0 && st.Published == snapshotSeq(t, web)
	}, func() string { return fmt.Sprintf("%+v", st) })
	if st.Host != "web" || st.Hub || st.URL == nil || !strings.HasPrefix(*st.URL, "nats://127.0.0.1:") || st.LastPublishAt == nil || st.Error != nil {
		t.Errorf("web's fleet status %+v, want host web, no hub, its url, a last publish and no error", st)
	}
	if hs := fleetStatus(t, hub); hs == nil || hs.Host != "hub" || !hs.Hub || hs.Connection != "connected" {
		t.Errorf("the hub's fleet status %+v, want host hub, hub, connected", hs)
	}
	hub.Stop()
	if err := hub.Wait(); err != nil {
		t.Fatal(err)
	}
	// Cut off: the member still serves its own socket and commits.
	for i := range 3 {
		setAgent(t, c, fmt.Sprintf("0190a000-0000-7000-8000-0000000003%02d", 10+i), fmt.Sprintf("cut/during%d", i), "working")
	}
	var ls api.LsResult
	if err := c.Call(context.Background(), "agent.ls", map[string]any{}, &ls); err != nil || len(ls.Agents) != 4 {
		t.Fatalf("agent.ls on a member cut off: %d agents, %v", len(ls.Agents), err)
	}
	poll.Eventually(t, 20*time.Second, "web's status: cut off, holding back its new events", func() bool {
		st = fleetStatus(t, web)
		return st.Connection != "connected" && st.URL == nil && st.Lag >= 3 && st.Error != nil
	}, func() string { return fmt.Sprintf("%+v", st) })
	_, port, _ := strings.Cut(strings.TrimPrefix(url, "nats://"), ":")
	sockettest.NewServer(t, sockettest.WithHome(hub.Home),
		sockettest.WithConfig(`{"fleet": {"host": "hub", "hub": {"listen": "127.0.0.1:`+port+`"}}}`))
	head := snapshotSeq(t, web)
	var seqs []int64
	poll.Eventually(t, 30*time.Second, "web caught up after the hub came back", func() bool {
		seqs = fleettest.StreamSeqs(t, url, tok, "web")
		return len(seqs) >= int(head)
	})
	if !fleettest.Gapless(seqs, head) {
		t.Fatalf("stream holds %v, want 1..%d once each", seqs, head)
	}
	poll.Eventually(t, 20*time.Second, "web's status: connected again, nothing held back", func() bool {
		st = fleetStatus(t, web)
		return st.Connection == "connected" && st.Lag == 0 && st.Error == nil
	}, func() string { return fmt.Sprintf("%+v", st) })
}

// A second orcr claiming a host another home registered publishes nothing: its events
// would otherwise be dropped as duplicates of the first one's, or mixed into its seqs.
func TestFleetRefusesATakenHost(t *testing.T) {
	t.Parallel()
	_, url, tok := fleetHub(t, "hub")
	web := sockettest.NewServer(t, sockettest.WithConfig(fleetMemberConfig("web", url, tok)))
	setAgent(t, web.Client(t), "0190a000-0000-7000-8000-000000000401", "one/a", "idle")
	poll.Eventually(t, 20*time.Second, "web registered and published", func() bool {
		return fleettest.Gapless(fleettest.StreamSeqs(t, url, tok, "web"), snapshotSeq(t, web))
	})
	var log sockettest.SyncBuffer
	twin := sockettest.NewServer(t, sockettest.WithConfig(fleetMemberConfig("web", url, tok)),
		sockettest.WithLog(slog.New(slog.NewTextHandler(&log, nil))))
	for i := range 3 {
		setAgent(t, twin.Client(t), fmt.Sprintf("0190a000-0000-7000-8000-0000000004%02d", 10+i), fmt.Sprintf("two/b%d", i), "idle")
	}
	poll.Eventually(t, 20*time.Second, "the twin refused by the members bucket", func() bool {
		return strings.Contains(log.String(), "fleet host web is registered by another orcr")
	})
	if seqs, head := fleettest.StreamSeqs(t, url, tok, "web"), snapshotSeq(t, web); !fleettest.Gapless(seqs, head) {
		t.Fatalf("stream holds %v for web, want web's own 1..%d", seqs, head)
	}
	// Calls to web reach the first web only.
	m := dialFleet(t, url, tok)
	for range 5 {
		raw, werr := m.Call(context.Background(), "web", "agent.ls", map[string]any{})
		var ls api.LsResult
		if werr != nil || json.Unmarshal(raw, &ls) != nil || len(ls.Agents) != 1 || ls.Agents[0].Path != "one/a" {
			t.Fatalf("agent.ls of web: %s %v, want the first web's one/a", raw, werr)
		}
	}
}

// server.status's slots count the managed agents holding a slot against concurrency.max
// and each provider's cap: what `agent run --host any` places a run by.
func TestStatusSlots(t *testing.T) {
	t.Parallel()
	srv := sockettest.NewServer(t, sockettest.WithHerdr(t), sockettest.WithConfig(`{"concurrency": {"max": 3, "mock": 2}}`))
	c := srv.Client(t)
	ctx := context.Background()
	if err := c.Call(ctx, "agent.run", map[string]any{"path": "slots/one", "agent": "mock"}, nil); err != nil {
		t.Fatal(err)
	}
	var st api.StatusResult
	poll.Eventually(t, 30*time.Second, "one mock agent holds a slot", func() bool {
		if err := c.Call(ctx, "server.status", nil, &st); err != nil {
			t.Fatal(err)
		}
		return st.Slots.Used == 1
	})
	mock := st.Slots.Providers["mock"]
	if st.Slots.Max != 3 || st.Slots.Free != 2 || st.Slots.DefaultAgent != "claude" || mock.Cap == nil || *mock.Cap != 2 ||
		mock.Used != 1 || mock.Free != 1 || st.Slots.FreeFor("mock") != 1 || st.Slots.FreeFor("codex") != 2 {
		t.Fatalf("slots %+v, mock %+v", st.Slots, mock)
	}
}

// A member that is connected but does not answer (hung, or not holding its host) fails
// a call within fleet.PingTimeout, long before the caller's own deadline; one not
// connected fails at once; one that goes away during a long call ends it. All are
// environment_error fleet_unreachable naming the host.
func TestFleetCallToHungMemberFailsFast(t *testing.T) {
	t.Parallel()
	_, url, tok := fleetHub(t, "hub")
	token, err := fleet.ReadToken(tok)
	if err != nil {
		t.Fatal(err)
	}
	// "slow" takes every request on its subjects and answers none.
	nc, err := nats.Connect(url, nats.Token(token))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	for _, subj := range []string{fleet.PingSubject("slow"), fleet.APICalls("slow")} {
		if _, err := nc.Subscribe(subj, func(*nats.Msg) {}); err != nil {
			t.Fatal(err)
		}
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	m := dialFleet(t, url, tok)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, host := range []string{"slow", "ghost"} {
		_, werr := m.CallHost(ctx, host, "agent.kill", map[string]any{"targets": []string{"x"}})
		if werr == nil || werr.Cause() != wire.CauseFleetUnreachable || werr.Details["host"] != host || ctx.Err() != nil {
			t.Fatalf("a call to %s: %v (caller's deadline passed: %v), want fleet_unreachable before the deadline", host, werr, ctx.Err())
		}
	}

	// "fading" answers the probe, takes an agent.wait and goes away: the wait ends with
	// fleet_unreachable once a probe in flight fails, not at the caller's deadline.
	ping, err := nc.Subscribe(fleet.PingSubject("fading"), func(msg *nats.Msg) { _ = msg.Respond([]byte("{}")) })
	if err != nil {
		t.Fatal(err)
	}
	took := make(chan struct{})
	if _, err := nc.Subscribe(fleet.APICalls("fading"), func(*nats.Msg) { close(took) }); err != nil {
		t.Fatal(err)
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	done := make(chan *wire.Error, 1)
	go func() {
		_, werr := m.CallHost(ctx, "fading", "agent.wait", map[string]any{"targets": []string{"x"}})
		done <- werr
	}()
	<-took
	if err := ping.Unsubscribe(); err != nil {
		t.Fatal(err)
	}
	if werr := <-done; werr == nil || werr.Cause() != wire.CauseFleetUnreachable || werr.Details["host"] != "fading" || ctx.Err() != nil {
		t.Fatalf("a wait on a member gone meanwhile: %v (caller's deadline passed: %v), want fleet_unreachable before the deadline", werr, ctx.Err())
	}
}

// fleet.call and fleet.members answer on a member's own socket, through its fleet
// connection (docs/fleet.md §4.6): a read on the hub with the hub's answer, the hub's
// refusal of a run outside its fleet.allow, a host nobody serves, a call without its
// host; the members with self, reachable and last_seen; a server in no fleet refuses.
func TestFleetCallThroughSocket(t *testing.T) {
	t.Parallel()
	hub, url, tok := fleetHub(t, "hub")
	setAgent(t, hub.Client(t), "0190a000-0000-7000-8000-000000000601", "onhub/one", "idle")
	web := sockettest.NewServer(t, sockettest.WithConfig(fleetMemberConfig("web", url, tok)))
	c := web.Client(t)
	ctx := context.Background()

	var got api.FleetCallResult
	poll.Eventually(t, 20*time.Second, "fleet.call agent.ls on the hub from web's socket", func() bool {
		return c.Call(ctx, "fleet.call", map[string]any{"host": "hub", "method": "agent.ls"}, &got) == nil
	})
	var ls api.LsResult
	if err := json.Unmarshal(got.Result, &ls); err != nil || got.Host != "hub" || len(ls.Agents) != 1 || ls.Agents[0].Path != "onhub/one" {
		t.Fatalf("fleet.call agent.ls on hub: %+v (%s), %v", got, got.Result, err)
	}
	wantErr := func(params map[string]any, code wire.Code, key, value string) {
		t.Helper()
		err := c.Call(ctx, "fleet.call", params, nil)
		pe, ok := wire.As(err)
		if !ok || pe.Code != code || fmt.Sprint(pe.Details[key]) != value {
			t.Fatalf("fleet.call %v: %v, want %s with %s=%s", params, err, code, key, value)
		}
	}
	wantErr(map[string]any{"host": "hub", "method": "agent.run", "params": map[string]any{"name": "x", "agent": "mock"}},
		wire.InvalidRequest, "reason", wire.ReasonFleetNotAllowed)
	wantErr(map[string]any{"host": "ghost", "method": "agent.ls"}, wire.EnvironmentError, "cause", wire.CauseFleetUnreachable)
	wantErr(map[string]any{"method": "agent.ls"}, wire.InvalidRequest, "missing", "host")

	var members api.FleetMembersResult
	poll.Eventually(t, 20*time.Second, "fleet.members: both reachable, both seen", func() bool {
		if err := c.Call(ctx, "fleet.members", nil, &members); err != nil || len(members.Members) != 2 {
			return false
		}
		for _, m := range members.Members {
			if !m.Reachable || m.LastSeen == nil {
				return false
			}
		}
		return true
	}, func() string { return fmt.Sprintf("%+v", members) })
	if m := members.Members; m[0].Host != "hub" || m[0].Self || m[1].Host != "web" || !m[1].Self {
		t.Fatalf("fleet.members %+v, want hub then web (self)", m)
	}

	alone := sockettest.NewServer(t)
	err := alone.Client(t).Call(ctx, "fleet.members", nil, nil)
	if pe, ok := wire.As(err); !ok || pe.Code != wire.EnvironmentError || pe.Cause() != wire.CauseConfigInvalid {
		t.Fatalf("fleet.members on a server in no fleet: %v, want environment_error config_invalid", err)
	}
}

// An answer larger than the fleet's NATS max_payload comes back in parts
// (docs/fleet.md §4.8): on a NATS server of the team's own that takes 64 KiB, agent.ls
// over the fleet of a member holding several times that in rows returns every row; a
// request over the limit is refused as frame_too_large naming the limit, not reported
// as a member that did not answer; the member's seen view is cut to fit and marked
// truncated.
func TestFleetAnswerBeyondMaxPayload(t *testing.T) {
	t.Parallel()
	const limit = 64 << 10
	url, tok := fleettest.NATS(t, limit)
	gpu := sockettest.NewServer(t, sockettest.WithConfig(fleetMemberConfig("gpu1", url, tok)))
	c := gpu.Client(t)
	const rows = 800
	for i := range rows {
		setAgent(t, c, fmt.Sprintf("0190a000-0000-7000-8000-%012d", i), fmt.Sprintf("big/batch/agent%04d", i), "idle")
	}
	m := dialFleet(t, url, tok)
	var res json.RawMessage
	poll.Eventually(t, 30*time.Second, "agent.ls over the fleet to answer", func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		var werr *wire.Error
		res, werr = m.Call(ctx, "gpu1", "agent.ls", map[string]any{})
		if werr != nil && werr.Cause() != wire.CauseFleetUnreachable {
			t.Fatalf("agent.ls over the fleet: %v", werr)
		}
		return werr == nil
	})
	var ls api.LsResult
	if err := json.Unmarshal(res, &ls); err != nil {
		t.Fatal(err)
	}
	if len(res) < 3*limit || len(ls.Agents) != rows {
		t.Fatalf("agent.ls over the fleet: %d rows in %d bytes, want %d rows in more than %d bytes", len(ls.Agents), len(res), rows, 3*limit)
	}

	_, werr := m.Call(context.Background(), "gpu1", "agent.send", map[string]any{"target": "big/batch/agent0001", "prompt": strings.Repeat("p", limit)})
	if werr == nil || werr.Code != wire.InvalidRequest || werr.Reason() != wire.ReasonFrameTooLarge || werr.Details["limit_bytes"] != int64(limit) {
		t.Fatalf("a request over max_payload: %v, want invalid_request frame_too_large with limit_bytes %d", werr, limit)
	}

	poll.Eventually(t, 30*time.Second, "gpu1's seen view, cut to fit", func() bool {
		s, err := m.LastSeen(context.Background(), "gpu1")
		if err != nil {
			t.Fatal(err)
		}
		return s != nil && s.Truncated && len(s.Agents) > 0 && len(s.Agents) < rows
	})
}

// The Go SDK's host-qualified client (Client.OnHost, docs/fleet.md §4.6): typed calls
// go to the member through the local server with the member's results (in the client's
// scope), a verb outside the member's fleet.allow is its typed refusal, a host nobody
// serves is fleet_unreachable, a stream is refused up front, and the fleet methods stay
// local.
func TestClientOnHost(t *testing.T) {
	t.Parallel()
	hub, url, tok := fleetHub(t, "hub")
	setAgent(t, hub.Client(t), "0190a000-0000-7000-8000-000000000701", "team/one", "idle")
	setAgent(t, hub.Client(t), "0190a000-0000-7000-8000-000000000702", "other/two", "idle")
	web := sockettest.NewServer(t, sockettest.WithConfig(fleetMemberConfig("web", url, tok)))
	ctx := context.Background()
	onHub := web.Client(t).OnHost("hub")
	if onHub.Host() != "hub" {
		t.Fatalf("Host() = %q", onHub.Host())
	}
	var ls api.LsResult
	poll.Eventually(t, 20*time.Second, "agent.ls on the hub through web's server", func() bool {
		var err error
		ls, err = onHub.Ls(ctx, api.LsRequest{})
		return err == nil
	})
	if len(ls.Agents) != 2 {
		t.Fatalf("hub's agents through OnHost: %+v", ls.Agents)
	}
	scoped, err := onHub.Scope("team")
	if err != nil {
		t.Fatal(err)
	}
	if ls, err := scoped.Ls(ctx, api.LsRequest{}); err != nil || len(ls.Agents) != 1 || ls.Agents[0].Path != "team/one" {
		t.Fatalf("hub's agents in scope team through OnHost: %+v %v", ls.Agents, err)
	}
	_, err = onHub.Kill(ctx, api.KillRequest{Targets: []string{"team/one"}, Force: true})
	if pe, ok := wire.As(err); !ok || pe.Reason() != wire.ReasonFleetNotAllowed || pe.Details["host"] != "hub" {
		t.Fatalf("a kill outside the hub's fleet.allow: %v, want fleet_not_allowed naming hub", err)
	}
	if rows, _ := hub.Client(t).Ls(ctx, api.LsRequest{}); len(rows.Agents) != 2 {
		t.Fatalf("the refused kill changed the hub: %+v", rows.Agents)
	}
	short, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if _, err := web.Client(t).OnHost("ghost").Ls(short, api.LsRequest{}); !wire.Is(err, wire.EnvironmentError, wire.CauseFleetUnreachable) {
		t.Fatalf("a host nobody serves: %v, want fleet_unreachable", err)
	}
	// Streams of the member come from the fleet's stream: events.subscribe from a
	// cursor, in the member's seq order with no gap, and Watch, its model kept current.
	wctx, stopWatch := context.WithTimeout(ctx, time.Minute)
	defer stopWatch()
	st, err := onHub.Subscribe(wctx, "events.subscribe", map[string]any{"since_seq": 0})
	if err != nil {
		t.Fatalf("events.subscribe on a host client: %v", err)
	}
	for want := int64(1); want <= 2; want++ {
		f, err := st.Next()
		if err != nil || f.Seq != want {
			t.Fatalf("event %d of the hub through web: %+v %v", want, f, err)
		}
	}
	st.Close()
	if _, err := onHub.Subscribe(ctx, "agent.attach.prepare", nil); !wire.Is(err, wire.InvalidRequest, wire.ReasonFleetNotAllowed) {
		t.Fatalf("another stream on a host client: %v, want fleet_not_allowed", err)
	}
	steps := 0
	for m, err := range onHub.Watch(wctx) {
		if err != nil {
			t.Fatalf("Watch on a host client: %v", err)
		}
		steps++
		if steps == 1 {
			if m.Len() != 2 {
				t.Fatalf("the hub's snapshot through web: %+v", m.Snapshot().Agents)
			}
			setAgent(t, hub.Client(t), "0190a000-0000-7000-8000-000000000701", "team/one", "working")
			continue
		}
		if a, ok := m.Agent("0190a000-0000-7000-8000-000000000701"); ok && a.Status == "working" {
			break
		}
	}
	var members api.FleetMembersResult
	if err := onHub.Call(ctx, "fleet.members", nil, &members); err != nil || len(members.Members) != 2 {
		t.Fatalf("fleet.members on a host client (local): %+v %v", members, err)
	}
}

// fleet.events reads every member's events from the fleet's stream after a cursor per
// host (docs/fleet.md §5.3): from web's socket, both hosts' events, each host's in its
// own order with no gap; a read from the cursors it returned gets only what was
// committed since; a limit cuts the read and says so, and reading on from its cursors
// gets the rest with no gap and no duplicate; a read with nothing new waits for the
// next event; a host or cursor that is no such thing is refused and changes nothing.
func TestFleetEventsRead(t *testing.T) {
	t.Parallel()
	hub, url, tok := fleetHub(t, "hub")
	web := sockettest.NewServer(t, sockettest.WithConfig(fleetMemberConfig("web", url, tok)))
	c := web.Client(t)
	ctx := context.Background()
	emit := func(srv *sockettest.Server, n int) int64 {
		t.Helper()
		for range n {
			if err := srv.Client(t).Call(ctx, "__debug.emit_event", nil, nil); err != nil {
				t.Fatal(err)
			}
		}
		return snapshotSeq(t, srv)
	}
	read := func(req api.FleetEventsRequest) api.FleetEventsResult {
		t.Helper()
		var res api.FleetEventsResult
		if err := c.Call(ctx, "fleet.events", req, &res); err != nil {
			t.Fatalf("fleet.events %+v: %v", req, err)
		}
		return res
	}
	// byHost checks each host's seqs run on from its cursor with no gap, and returns them.
	byHost := func(res api.FleetEventsResult, since map[string]int64) map[string][]int64 {
		t.Helper()
		got := map[string][]int64{}
		for _, e := range res.Events {
			want := since[e.Host] + int64(len(got[e.Host])) + 1
			if e.Seq != want || len(e.Event) == 0 || e.Event[0] != '{' {
				t.Fatalf("%s's event %d where %d was due (%s)", e.Host, e.Seq, want, e.Event)
			}
			got[e.Host] = append(got[e.Host], e.Seq)
		}
		for h, seqs := range got {
			if res.Cursors[h] != seqs[len(seqs)-1] {
				t.Fatalf("cursor of %s %d, want its last event %d", h, res.Cursors[h], seqs[len(seqs)-1])
			}
		}
		return got
	}
	hubHead, webHead := emit(hub, 3), emit(web, 4)
	var all api.FleetEventsResult
	poll.Eventually(t, 20*time.Second, "both hosts' events in the stream", func() bool {
		all = read(api.FleetEventsRequest{})
		return all.Cursors["hub"] >= hubHead && all.Cursors["web"] >= webHead
	}, func() string { return fmt.Sprintf("%+v", all.Cursors) })
	byHost(all, nil)
	if all.More {
		t.Fatalf("a read under the limit says more")
	}

	// From the cursors: only what came since.
	hubHead2, webHead2 := emit(hub, 2), emit(web, 2)
	var next api.FleetEventsResult
	poll.Eventually(t, 20*time.Second, "the new events after the cursors", func() bool {
		next = read(api.FleetEventsRequest{Since: all.Cursors})
		return next.Cursors["hub"] >= hubHead2 && next.Cursors["web"] >= webHead2
	})
	byHost(next, all.Cursors)

	// A limit: the first part says more, the rest follows on from its cursors.
	first := read(api.FleetEventsRequest{Limit: 3})
	if len(first.Events) != 3 || !first.More {
		t.Fatalf("limit 3: %d events, more %v", len(first.Events), first.More)
	}
	byHost(first, nil)
	rest := read(api.FleetEventsRequest{Since: first.Cursors})
	got := byHost(rest, first.Cursors)
	if n := len(first.Events) + len(rest.Events); int64(n) != next.Cursors["hub"]+next.Cursors["web"] || len(got) == 0 {
		t.Fatalf("the two parts hold %d events, want %d", n, next.Cursors["hub"]+next.Cursors["web"])
	}

	// One host only, and a wait for its next event.
	only := read(api.FleetEventsRequest{Hosts: []string{"web"}, Since: map[string]int64{"web": next.Cursors["web"] - 1}})
	if len(only.Events) != 1 || only.Events[0].Host != "web" || only.Cursors["hub"] != 0 {
		t.Fatalf("web only, from its last but one: %+v", only)
	}
	waited := make(chan api.FleetEventsResult, 1)
	go func() {
		var res api.FleetEventsResult
		c.Call(ctx, "fleet.events", api.FleetEventsRequest{Since: next.Cursors, WaitMS: 20000}, &res)
		waited <- res
	}()
	emit(hub, 1)
	select {
	case res := <-waited:
		if len(res.Events) == 0 || res.Events[0].Host != "hub" || res.Events[0].Seq != next.Cursors["hub"]+1 {
			t.Fatalf("the waiting read got %+v, want hub's next event", res)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("a waiting read did not return the event committed meanwhile")
	}

	for _, bad := range []map[string]any{
		{"since": map[string]any{"Not A Host": 1}}, {"since": map[string]any{"web": -1}}, {"hosts": []string{"x y"}},
		{"limit": 10001}, {"limit": -1}, {"wait_ms": 25001},
	} {
		err := c.Call(ctx, "fleet.events", bad, nil)
		if pe, ok := wire.As(err); !ok || pe.Code != wire.InvalidRequest || pe.Details["reason"] != wire.ReasonBadFleetRead {
			t.Errorf("fleet.events %v: %v, want invalid_request bad_fleet_read", bad, err)
		}
	}
}

// A kill over the fleet that outlasts the member's 10 s bound on a call — each agent
// takes its whole 12 s grace to go — completes (docs/fleet.md §4.9): the member serves
// it without that bound and writes its progress frames to the caller, web's server
// passes them on to its own client, whose 8 s timeout then bounds the wait for the next
// frame, not the call.
func TestFleetKillProgress(t *testing.T) {
	t.Parallel()
	hub := sockettest.NewServer(t, sockettest.WithHerdr(t), sockettest.WithEnv("ORCR_MOCK_QUIT_DELAY_MS", "60000"),
		sockettest.WithConfig(`{"integrations": {"mock": {"shutdown_grace_ms": 12000}},
			"fleet": {"host": "hub", "hub": {"listen": "127.0.0.1:0"}, "allow": ["agent.ls", "agent.kill"]}}`))
	tok := filepath.Join(hub.Home, config.FleetDirName, fleet.HubTokenName)
	web := sockettest.NewServer(t, sockettest.WithConfig(fleetMemberConfig("web", hub.FleetHubURL(), tok)))
	spawnIdle(t, hub.Client(t), "slow", 2)

	var mu sync.Mutex
	var frames []wire.Progress
	c := &socketapi.Client{Socket: web.Socket(), Timeout: 8 * time.Second, OnProgress: func(method string, p wire.Progress) {
		mu.Lock()
		defer mu.Unlock()
		frames = append(frames, p)
	}}
	poll.Eventually(t, 20*time.Second, "the hub answers web's fleet calls", func() bool {
		return c.Call(context.Background(), "fleet.call", map[string]any{"host": "hub", "method": "agent.ls"}, nil) == nil
	})
	var got api.FleetCallResult
	start := time.Now()
	err := c.Call(context.Background(), "fleet.call", map[string]any{"host": "hub", "method": "agent.kill",
		"params": map[string]any{"targets": []string{"slow/**"}}}, &got)
	took := time.Since(start)
	var res api.KillResult
	if err != nil || json.Unmarshal(got.Result, &res) != nil || len(res.Killed) != 2 {
		t.Fatalf("a kill over the fleet longer than the member's bound: %v %s", err, got.Result)
	}
	if took < 11*time.Second {
		t.Errorf("the kill took %s, less than the grace it waits out: the test shows nothing", took)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(frames) < 5 || frames[len(frames)-1].Total != 2 {
		t.Errorf("progress frames %+v, want one a second or so, total 2", frames)
	}
}
