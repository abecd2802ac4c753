package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/fleet"
	"github.com/orcr-go/orcr/socketapi/fleet/fleettest"
	"github.com/orcr-go/orcr/socketapi/sockettest"
	"github.com/orcr-go/orcr/tests/poll"
)

// benchFleet starts a hub and the members web and gpu1, each an in-process server in
// its own home, and waits until all three are registered.
func benchFleet(b *testing.B) (srvs []*sockettest.Server, url, tok string) {
	b.Helper()
	hub, url, tok := fleetHub(b, "hub")
	srvs = []*sockettest.Server{hub}
	for _, host := range []string{"web", "gpu1"} {
		srvs = append(srvs, sockettest.NewServer(b, sockettest.WithConfig(fleetMemberConfig(host, url, tok))))
	}
	probe := dialFleet(b, url, tok)
	poll.Eventually(b, 30*time.Second, "three members registered", func() bool {
		hosts, err := probe.Members(context.Background())
		return err == nil && len(hosts) == 3
	})
	return srvs, url, tok
}

// BenchmarkFleetLs (issue 30): what `agent ls --fleet` asks of the fleet — agent.ls on
// every member at once over NATS, each answer decoded — over three members of N agents
// each (ORCR_BENCH_FLEET_N, default 300), against its baseline in the same run: the
// sum of the three members' local agent.ls over their own sockets, one after another.
func BenchmarkFleetLs(b *testing.B) {
	n := 300
	if v, err := strconv.Atoi(os.Getenv("ORCR_BENCH_FLEET_N")); err == nil && v > 0 {
		n = v
	}
	srvs, url, tok := benchFleet(b)
	clients := make([]*socketapi.Client, len(srvs))
	for s, srv := range srvs {
		clients[s] = srv.Client(b)
		for i := range n {
			setAgent(b, clients[s], fmt.Sprintf("0190c%03d-0000-7000-8000-%012d", s, i), fmt.Sprintf("bench/a%04d", i), "idle")
		}
	}
	probe := dialFleet(b, url, tok)
	ctx := context.Background()
	count := func(raw json.RawMessage) (int, error) {
		var ls api.LsResult
		err := json.Unmarshal(raw, &ls)
		return len(ls.Agents), err
	}
	local := func() error {
		for _, c := range clients {
			ls, err := c.Ls(ctx, api.LsRequest{})
			if err == nil && len(ls.Agents) != n {
				err = fmt.Errorf("local agent.ls: %d agents, want %d", len(ls.Agents), n)
			}
			if err != nil {
				return err
			}
		}
		return nil
	}
	overFleet := func() error {
		replies, err := probe.CallAll(ctx, api.AgentLs.Name, api.LsRequest{})
		if err != nil {
			return err
		}
		for _, r := range replies {
			if r.Err != nil {
				return r.Err
			}
			if got, err := count(r.Result); err != nil || got != n {
				return fmt.Errorf("agent.ls of %s: %d agents (%v), want %d", r.Host, got, err, n)
			}
		}
		return nil
	}
	b.ResetTimer()
	sockettest.CompareCalls(b, "local-sum", local, "fleet", overFleet)
}

// BenchmarkFleetEventLatency (issue 30): an event committed on the member web
// (__debug.emit_event) until a JetStream consumer of web's events on the hub's stream
// receives it, against a bare events.subscribe subscriber on web's own socket receiving
// the same event, in the same run: medians and p95 of both over b.N events.
func BenchmarkFleetEventLatency(b *testing.B) {
	srvs, url, tok := benchFleet(b)
	web := srvs[1].Client(b)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	localAt := bareSubscriber(ctx, b, web)

	js, done := fleettest.Connect(b, url, tok)
	defer done()
	cons, err := js.OrderedConsumer(ctx, fleet.Stream, jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{fleet.EventSubject("web")}, DeliverPolicy: jetstream.DeliverNewPolicy})
	if err != nil {
		b.Fatal(err)
	}
	var mu sync.Mutex
	fleetSeen := map[int64]time.Time{}
	arrived := make(chan struct{}, 1)
	cc, err := cons.Consume(func(msg jetstream.Msg) {
		at := time.Now()
		ev, err := fleet.DecodeEventMsg(msg.Data())
		if err != nil {
			return
		}
		mu.Lock()
		fleetSeen[ev.Seq] = at
		mu.Unlock()
		select {
		case arrived <- struct{}{}:
		default:
		}
	})
	if err != nil {
		b.Fatal(err)
	}
	defer cc.Stop()
	fleetAt := func(seq int64) time.Time {
		deadline := time.After(30 * time.Second)
		for {
			mu.Lock()
			at, ok := fleetSeen[seq]
			mu.Unlock()
			if ok {
				return at
			}
			select {
			case <-arrived:
			case <-deadline:
				b.Fatalf("the fleet consumer never received web's seq %d", seq)
			}
		}
	}
	var fleetDelay, localDelay []time.Duration
	b.ResetTimer()
	for range b.N {
		var out struct{ Seq int64 }
		start := time.Now()
		if err := web.Call(ctx, "__debug.emit_event", nil, &out); err != nil {
			b.Fatal(err)
		}
		localDelay = append(localDelay, localAt(out.Seq).Sub(start))
		fleetDelay = append(fleetDelay, fleetAt(out.Seq).Sub(start))
	}
	b.StopTimer()
	b.ReportMetric(micros(quantile(fleetDelay, 0.5)), "fleet-p50-µs")
	b.ReportMetric(micros(quantile(fleetDelay, 0.95)), "fleet-p95-µs")
	b.ReportMetric(micros(quantile(localDelay, 0.5)), "local-p50-µs")
	b.ReportMetric(micros(quantile(localDelay, 0.95)), "local-p95-µs")
	b.ReportMetric(float64(quantile(fleetDelay, 0.5))/float64(quantile(localDelay, 0.5)), "ratio-p50-vs-local")
}

// BenchmarkFleetIdleCPU (issue 30): the process's CPU over an idle window (31 s: every
// member's 30 s heartbeat falls in it) with a hub and two members serving the fleet and
// no agent, against three servers without a fleet section in the same process, measured
// first. The servers share the process, so this is the fleet's whole cost at rest —
// the embedded NATS server, the connections, the publishers and the heartbeats — not the
// hub's alone. Run with -benchtime 1x.
func BenchmarkFleetIdleCPU(b *testing.B) {
	window := 31 * time.Second
	if v, err := time.ParseDuration(os.Getenv("ORCR_BENCH_IDLE_WINDOW")); err == nil && v > 0 {
		window = v
	}
	idle := func() float64 {
		time.Sleep(3 * time.Second) // past the start's own work; the measurement is of time passing
		c0, t0 := processCPU(b), time.Now()
		time.Sleep(window)
		return float64(processCPU(b)-c0) / float64(time.Since(t0)) * 1e3 // ms of CPU a second
	}
	var plain []*sockettest.Server
	for range 3 {
		plain = append(plain, sockettest.NewServer(b))
	}
	base := idle()
	for _, s := range plain {
		s.Stop()
		if err := s.Wait(); err != nil {
			b.Fatal(err)
		}
	}
	benchFleet(b)
	withFleet := idle()
	b.ReportMetric(base, "no-fleet-cpu-ms/s")
	b.ReportMetric(withFleet, "fleet-cpu-ms/s")
	b.ReportMetric(withFleet/base, "ratio-vs-no-fleet")
}
