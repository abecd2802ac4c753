package cli_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/fleet"
	"github.com/orcr-go/orcr/socketapi/sockettest"
	"github.com/orcr-go/orcr/tests/poll"
)

// `orcr agent ls --fleet` on the hub lists every member's agents with their host, and a
// member that stopped answering as unreachable, never its agents as lost.
func TestAgentLsFleet(t *testing.T) {
	t.Parallel()
	hub := sockettest.NewServer(t, sockettest.WithConfig(`{"fleet": {"host": "hub", "hub": {"listen": "127.0.0.1:0"}}}`))
	tok := filepath.Join(hub.Home, config.FleetDirName, fleet.HubTokenName)
	member := func(host string) *sockettest.Server {
		return sockettest.NewServer(t, sockettest.WithConfig(fmt.Sprintf(`{"fleet": {"host": %q, "url": %q, "token_file": %q}}`,
			host, hub.FleetHubURL(), tok)))
	}
	web, gpu := member("web"), member("gpu1")
	set := func(srv *sockettest.Server, uuid, path string) {
		if err := srv.Client(t).Call(context.Background(), "__debug.set_agent", map[string]any{"uuid": uuid, "path": path, "status": "idle"}, nil); err != nil {
			t.Fatal(err)
		}
	}
	set(hub, "0190a000-0000-7000-8000-0000000000a1", "local/one")
	set(web, "0190a000-0000-7000-8000-0000000000b1", "review/two")
	set(gpu, "0190a000-0000-7000-8000-0000000000c1", "train/three")
	h := newHarness(t)
	h.home, h.vars["ORCR_HOME"], h.vars["HOME"] = hub.Home, hub.Home, hub.Home
	// gpu1 registered once it published; then it stops answering.
	poll.Eventually(t, 20*time.Second, "three members in the fleet", func() bool {
		o := h.run(t, "agent", "ls", "--fleet")
		return o.code == 0 && strings.Count(o.stdout, "\n") == 4
	})
	gpu.Stop()
	if err := gpu.Wait(); err != nil {
		t.Fatal(err)
	}

	o := h.run(t, "--json", "agent", "ls", "--fleet")
	if o.code != 0 {
		t.Fatalf("exit %d: %s %s", o.code, o.stdout, o.stderr)
	}
	var res struct {
		Hosts []struct {
			Host      string `json:"host"`
			Reachable bool   `json:"reachable"`
		} `json:"hosts"`
		Agents []struct {
			Host   string `json:"host"`
			Target string `json:"target"`
			Path   string `json:"path"`
			Status string `json:"status"`
		} `json:"agents"`
	}
	if err := json.Unmarshal(decodeEnvelope(t, o.stdout).Result, &res); err != nil {
		t.Fatal(err)
	}
	hosts := fmt.Sprint(res.Hosts)
	if hosts != "[{gpu1 false} {hub true} {web true}]" {
		t.Fatalf("hosts %s, want gpu1 unreachable, hub and web reachable", hosts)
	}
	targets := []string{}
	for _, a := range res.Agents {
		targets = append(targets, a.Target)
		if a.Target != a.Host+":"+a.Path || a.Status != "idle" {
			t.Fatalf("agent %+v", a)
		}
	}
	if got := strings.Join(targets, " "); got != "hub:local/one web:review/two" {
		t.Fatalf("targets %q", got)
	}

	o = h.run(t, "agent", "ls", "--fleet")
	lines := strings.Split(strings.TrimSuffix(o.stdout, "\n"), "\n")
	if o.code != 0 || len(lines) != 4 || !strings.HasPrefix(lines[0], "HOST PATH") ||
		!strings.HasPrefix(lines[1], "hub  local/one") || !strings.HasPrefix(lines[2], "web  review/two") ||
		!strings.HasPrefix(lines[3], "gpu1 unreachable: ") {
		t.Fatalf("agent ls --fleet (exit %d):\n%s", o.code, o.stdout)
	}
}
