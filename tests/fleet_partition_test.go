package tests

import (
	"bytes"
	"context"
	"fmt"
	mrand "math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/orcr-go/orcr/config"
	fleetpkg "github.com/orcr-go/orcr/socketapi/fleet"
	"github.com/orcr-go/orcr/socketapi/fleet/fleettest"
	"github.com/orcr-go/orcr/socketapi/sockettest"
	"github.com/orcr-go/orcr/tests/poll"
)

// netns is a network namespace of the test's own, joined to this one by a veth pair:
// hostIP on this side, nsIP inside. Cut and Heal take the link down and up again: a
// real partition, in which packets are lost rather than refused.
type netns struct {
	t            *testing.T
	name, veth   string
	hostIP, nsIP string
}

// ip runs `ip args…` and fails the test when it fails.
func (n *netns) ip(args ...string) {
	n.t.Helper()
	if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
		n.t.Fatalf("ip %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// newNetns makes the namespace and its link, removed when the test ends. It needs
// root (CI runs as root); without it the test cannot make a partition and is skipped,
// but never under CI=1.
func newNetns(t *testing.T) *netns {
	t.Helper()
	if os.Geteuid() != 0 {
		if os.Getenv("CI") != "" {
			t.Fatal("a network partition needs root (network namespaces); CI runs as root")
		}
		t.Skip("a network partition needs root (network namespaces)")
	}
	id := mrand.Uint32N(1 << 24)
	subnet := fmt.Sprintf("10.%d.%d", 100+id%100, (id>>8)%256)
	n := &netns{t: t, name: fmt.Sprintf("orcrp%06x", id), veth: fmt.Sprintf("orv%06x", id),
		hostIP: subnet + ".1", nsIP: subnet + ".2"}
	n.ip("netns", "add", n.name)
	t.Cleanup(func() { _ = exec.Command("ip", "netns", "del", n.name).Run() })
	inside := n.veth + "n"
	n.ip("link", "add", n.veth, "type", "veth", "peer", "name", inside)
	t.Cleanup(func() { _ = exec.Command("ip", "link", "del", n.veth).Run() })
	n.ip("link", "set", inside, "netns", n.name)
	n.ip("addr", "add", n.hostIP+"/30", "dev", n.veth)
	n.ip("link", "set", n.veth, "up")
	n.ip("netns", "exec", n.name, "ip", "addr", "add", n.nsIP+"/30", "dev", inside)
	n.ip("netns", "exec", n.name, "ip", "link", "set", inside, "up")
	n.ip("netns", "exec", n.name, "ip", "link", "set", "lo", "up")
	return n
}

func (n *netns) Cut()  { n.ip("link", "set", n.veth, "down") }
func (n *netns) Heal() { n.ip("link", "set", n.veth, "up") }

// startIn starts h's server inside the namespace (its socket, on the shared file
// system, is reached from here as any other).
func (n *netns) startIn(h *home) {
	n.t.Helper()
	cmd := exec.Command("ip", "netns", "exec", n.name, bins.orcr, "server", "start")
	cmd.Env = h.env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		n.t.Fatalf("server start in %s: %v\n%s", n.name, err, out.String())
	}
}

// A real partition (docs/fleet.md §5.2): the hub listens with TLS on a veth address,
// the member web runs in a network namespace of its own behind it, and the link goes
// down. Cut off, web keeps committing; its status says it is cut off and holds its
// events back; the hub's `agent ls --fleet` says within seconds that web does not
// answer and shows its agent as web last wrote it. Healed, web catches up: the stream
// holds every one of its events once, in order, and nothing is held back.
func TestFleetPartitionInNetns(t *testing.T) {
	t.Parallel()
	ns := newNetns(t)
	l, err := net.Listen("tcp", ns.hostIP+":0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cert, key, _ := sockettest.SelfSigned(t, ns.hostIP)
	url := fmt.Sprintf("tls://%s:%d", ns.hostIP, port)
	hub := fleetHome(t, fmt.Sprintf(`{"fleet": {"host": "hub", "hub": {"listen": "%s:%d", "cert": %q, "key": %q}}}`, ns.hostIP, port, cert, key))
	if r := hub.run("server", "start"); r.exit != 0 {
		t.Fatalf("hub start: %+v", r)
	}
	tok := filepath.Join(hub.dir, config.FleetDirName, fleetpkg.HubTokenName)
	web := fleetHome(t, fmt.Sprintf(`{"fleet": {"host": "web", "url": %q, "token_file": %q, "ca": %q}}`, url, tok, cert))
	ns.startIn(web)
	setDebugAgent(t, web, "0190c000-0000-7000-8000-0000000000e1", "edge/one", "idle")
	head := emitEvents(t, web, 10)
	// The test reads the stream from this side of the link, over TLS like the member.
	seqs := func() []int64 { return fleettest.StreamSeqsTLS(t, url, tok, cert, "web") }
	poll.Eventually(t, 30*time.Second, "web's events in the stream", func() bool { return len(seqs()) >= int(head) })
	poll.Eventually(t, 20*time.Second, "the hub to list web's agent", func() bool {
		r := hub.run("agent", "ls", "--fleet")
		return r.exit == 0 && strings.HasPrefix(lineOf(r.stdout, "edge/one"), "web ")
	})
	// What the hub shows of web cut off is the view web last wrote (within 5 s of a
	// commit): the partition comes once that view holds the agent.
	probe, err := fleetpkg.Dial(config.Fleet{Host: "probe", TokenFile: tok, CA: cert}, url, "")
	if err != nil {
		t.Fatal(err)
	}
	defer probe.Close()
	poll.Eventually(t, 20*time.Second, "web's seen view to hold its agent", func() bool {
		s, err := probe.LastSeen(context.Background(), "web")
		return err == nil && s != nil && len(s.Agents) == 1
	})

	ns.Cut()
	cut := time.Now()
	head = emitEvents(t, web, 20) // web works on, cut off
	fleetStatus := func() map[string]any {
		_, st, _ := web.jsonRun(t, "server.status", 0, "server", "status")
		f, _ := st["fleet"].(map[string]any)
		return f
	}
	poll.Eventually(t, 90*time.Second, "web's status: cut off, its new events held back", func() bool {
		f := fleetStatus()
		lag, _ := f["lag"].(float64)
		return f["connection"] != "connected" && lag >= 20
	}, func() string { return fmt.Sprintf("web's fleet status: %v", fleetStatus()) })
	t.Logf("web saw the partition %s after the cut", time.Since(cut).Round(time.Second))
	r := hub.run("agent", "ls", "--fleet")
	if !strings.HasPrefix(lineOf(r.stdout, "edge/one"), "web* ") || !strings.Contains(lineOf(r.stdout, "unreachable: "), "web") {
		t.Errorf("agent ls --fleet on the hub during the partition (exit %d):\n%s%s", r.exit, r.stdout, r.stderr)
	}

	ns.Heal()
	var got []int64
	poll.Eventually(t, 90*time.Second, "web caught up after the partition healed", func() bool {
		got = seqs()
		f := fleetStatus()
		return len(got) >= int(head) && f["connection"] == "connected" && f["lag"] == float64(0)
	}, func() string {
		return fmt.Sprintf("stream holds %d of %d; web's fleet status %v", len(got), head, fleetStatus())
	})
	if !fleettest.Gapless(got, int64(len(got))) {
		t.Fatalf("web's events after the partition: %v, want 1..%d once each", got, len(got))
	}
}
