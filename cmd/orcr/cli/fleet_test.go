package cli_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/socketapi/fleet"
	"github.com/orcr-go/orcr/socketapi/sockettest"
	"github.com/orcr-go/orcr/tests/poll"
)

// `orcr agent ls --fleet` on the hub lists every member's agents with their host, and a
// member that stopped answering as unreachable with its last-seen time and its agents as
// it last wrote them (marked stale), never as lost.
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
	// gpu1's view of its agents reaches the fleet within its heartbeat check.
	probe, err := fleet.Dial(config.Fleet{Host: "probe", TokenFile: tok}, hub.FleetHubURL(), "")
	if err != nil {
		t.Fatal(err)
	}
	defer probe.Close()
	poll.Eventually(t, 20*time.Second, "gpu1's view holds train/three", func() bool {
		seen, err := probe.LastSeen(context.Background(), "gpu1")
		return err == nil && seen != nil && len(seen.Agents) == 1 && seen.Agents[0].Path == "train/three"
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
			LastSeen  *int64 `json:"last_seen"`
		} `json:"hosts"`
		Agents []struct {
			Host   string `json:"host"`
			Target string `json:"target"`
			Path   string `json:"path"`
			Status string `json:"status"`
			Stale  bool   `json:"stale"`
		} `json:"agents"`
	}
	if err := json.Unmarshal(decodeEnvelope(t, o.stdout).Result, &res); err != nil {
		t.Fatal(err)
	}
	var hosts []string
	for _, h := range res.Hosts {
		hosts = append(hosts, fmt.Sprintf("%s %v %v", h.Host, h.Reachable, h.LastSeen != nil))
	}
	if got := strings.Join(hosts, ", "); got != "gpu1 false true, hub true false, web true false" {
		t.Fatalf("hosts %s, want gpu1 unreachable with a last-seen time, hub and web reachable", got)
	}
	targets := []string{}
	for _, a := range res.Agents {
		targets = append(targets, a.Target)
		if a.Target != a.Host+":"+a.Path || a.Status != "idle" || a.Stale != (a.Host == "gpu1") {
			t.Fatalf("agent %+v", a)
		}
	}
	if got := strings.Join(targets, " "); got != "gpu1:train/three hub:local/one web:review/two" {
		t.Fatalf("targets %q", got)
	}
	// A filter applies to the last view as to a live answer.
	o = h.run(t, "--json", "agent", "ls", "--fleet", "review/**")
	if err := json.Unmarshal(decodeEnvelope(t, o.stdout).Result, &res); err != nil || len(res.Agents) != 1 || res.Agents[0].Target != "web:review/two" {
		t.Fatalf("agent ls --fleet review/**: %s", o.stdout)
	}

	// The same fleet through the hub's server: its members, and a call on web.
	o = h.run(t, "fleet", "members")
	members := strings.Split(strings.TrimSuffix(o.stdout, "\n"), "\n")
	if o.code != 0 || len(members) != 4 || !strings.HasPrefix(members[1], "gpu1") || !strings.Contains(members[1], "unreachable") ||
		!strings.HasPrefix(members[2], "hub (this host)") || !strings.Contains(members[2], " reachable") ||
		!strings.HasPrefix(members[3], "web ") || !strings.Contains(members[3], " reachable") {
		t.Fatalf("fleet members (exit %d):\n%s%s", o.code, o.stdout, o.stderr)
	}
	o = h.run(t, "--json", "fleet", "call", "web", "agent.ls", `{"all": true}`)
	var call struct {
		Host   string
		Result api.LsResult
	}
	if err := json.Unmarshal(decodeEnvelope(t, o.stdout).Result, &call); err != nil || o.code != 0 || call.Host != "web" ||
		len(call.Result.Agents) != 1 || call.Result.Agents[0].Path != "review/two" {
		t.Fatalf("fleet call web agent.ls: exit %d %s %s", o.code, o.stdout, o.stderr)
	}
	wantError(t, h.run(t, "--json", "fleet", "call", "web", "agent.ls", "[1]"), 1, "invalid_request", "reason", wire.ReasonCLIParse)

	// The fleet's events (docs/cli.md §5.40): web's from its first, one line each; a
	// limit that cuts the read says on stderr how to read on; bad cursors are refused.
	for range 3 {
		if err := web.Client(t).Call(context.Background(), "__debug.emit_event", nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	var lines []string
	poll.Eventually(t, 20*time.Second, "web's events in the stream", func() bool {
		o = h.run(t, "fleet", "events", "--host", "web")
		lines = strings.Split(strings.TrimSuffix(o.stdout, "\n"), "\n")
		return o.code == 0 && len(lines) >= 4
	}, func() string { return o.stdout + o.stderr })
	if !strings.HasPrefix(lines[0], "web:1  ") {
		t.Fatalf("fleet events --host web (exit %d):\n%s%s", o.code, o.stdout, o.stderr)
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "web:") {
			t.Fatalf("fleet events --host web printed %q", l)
		}
	}
	o = h.run(t, "fleet", "events", "--host", "web", "--since", "web=1", "--limit", "1")
	if o.code != 0 || !strings.HasPrefix(o.stdout, "web:2  ") || strings.Count(o.stdout, "\n") != 1 ||
		!strings.Contains(o.stderr, "read on with --since web=2") {
		t.Fatalf("fleet events --since web=1 --limit 1 (exit %d):\n%s%s", o.code, o.stdout, o.stderr)
	}
	wantError(t, h.run(t, "--json", "fleet", "events", "--since", "web"), 1, "invalid_request", "reason", wire.ReasonCLIParse)
	wantError(t, h.run(t, "--json", "fleet", "events", "--since", "Web=1"), 1, "invalid_request", "reason", wire.ReasonBadFleetRead)

	o = h.run(t, "agent", "ls", "--fleet")
	lines = strings.Split(strings.TrimSuffix(o.stdout, "\n"), "\n")
	if o.code != 0 || len(lines) != 5 || !strings.HasPrefix(lines[0], "HOST  PATH") || !strings.HasPrefix(lines[1], "gpu1* train/three") ||
		!strings.HasPrefix(lines[2], "hub   local/one") || !strings.HasPrefix(lines[3], "web   review/two") ||
		!strings.HasPrefix(lines[4], "gpu1  unreachable: ") || !strings.HasSuffix(lines[4], " ago, its agents (gpu1*) as they were then") {
		t.Fatalf("agent ls --fleet (exit %d):\n%s", o.code, o.stdout)
	}
}

// fleetOf starts a hub and members on this machine, each in its own home with its own
// herdr stand-in and the mock provider: hub and web let the fleet run, send to and kill
// their agents (fleet.allow), gpu1 keeps the default read verbs; web and gpu1 carry the
// label gpu. It returns the servers
// by host and a CLI harness on the hub's home, once every member answers.
func fleetOf(t *testing.T) (map[string]*sockettest.Server, *harness) {
	t.Helper()
	const writes = `"allow": ["agent.ls", "server.status", "agent.logs", "agent.wait", "agent.run", "agent.send", "agent.kill", "agent.ask"]`
	hub := sockettest.NewServer(t, sockettest.WithHerdr(t),
		sockettest.WithConfig(`{"concurrency": {"max": 3}, "fleet": {"host": "hub", "hub": {"listen": "127.0.0.1:0"}, `+writes+`}}`))
	tok := filepath.Join(hub.Home, config.FleetDirName, fleet.HubTokenName)
	member := func(host, extra string) *sockettest.Server {
		return sockettest.NewServer(t, sockettest.WithHerdr(t), sockettest.WithConfig(fmt.Sprintf(
			`{"concurrency": {"max": 4}, "fleet": {"host": %q, "url": %q, "token_file": %q%s}}`, host, hub.FleetHubURL(), tok, extra)))
	}
	srvs := map[string]*sockettest.Server{"hub": hub, "web": member("web", `, "labels": ["gpu"], `+writes), "gpu1": member("gpu1", `, "labels": ["gpu"]`)}
	h := newHarness(t)
	h.home, h.vars["ORCR_HOME"], h.vars["HOME"] = hub.Home, hub.Home, hub.Home
	poll.Eventually(t, 30*time.Second, "three members answer in the fleet", func() bool {
		o := h.run(t, "agent", "ls", "--fleet")
		return o.code == 0 && o.stdout == "no agents\n"
	})
	return srvs, h
}

// agentsOf lists a member's agents on its own socket: path → status.
func agentsOf(t *testing.T, srv *sockettest.Server) map[string]string {
	t.Helper()
	var ls struct {
		Agents []struct{ Path, Status string }
	}
	if err := srv.Client(t).Call(context.Background(), "agent.ls", map[string]any{"all": true}, &ls); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, a := range ls.Agents {
		out[a.Path] = a.Status
	}
	return out
}

// Agents across three members: `agent run --host web` runs on web (the --json result
// names the host), `web:<path>` sends to, waits for, reads and kills it, a plain path
// stays local, gpu1 refuses a run outside its fleet.allow and changes nothing, a host
// nobody serves fails at once, one call's targets on two hosts are refused, and `agent
// run --host any` goes to the member with the most free slots that allows it.
func TestFleetAgentsAcrossHosts(t *testing.T) {
	t.Parallel()
	srvs, h := fleetOf(t)

	o := h.run(t, "--json", "agent", "run", "--host", "web", "--name", "w1", "-a", "mock")
	var run struct {
		Host  string `json:"host"`
		Agent struct{ Path, UUID string }
	}
	if o.code != 0 || json.Unmarshal(decodeEnvelope(t, o.stdout).Result, &run) != nil || run.Host != "web" || run.Agent.Path != "w1" {
		t.Fatalf("agent run --host web: exit %d %s %s", o.code, o.stdout, o.stderr)
	}
	if got := agentsOf(t, srvs["web"]); got["w1"] == "" {
		t.Fatalf("web's agents after a run on web: %v", got)
	}
	if got := agentsOf(t, srvs["hub"]); len(got) != 0 {
		t.Fatalf("the hub's agents after a run on web: %v", got)
	}
	poll.Eventually(t, 30*time.Second, "w1 idle on web", func() bool { return agentsOf(t, srvs["web"])["w1"] == "idle" })

	if o = h.run(t, "agent", "send", "web:w1", "hello fleet"); o.code != 0 || !strings.HasPrefix(o.stdout, "web:w1 delivered (while idle)") {
		t.Fatalf("agent send web:w1: exit %d %q %q", o.code, o.stdout, o.stderr)
	}
	if o = h.run(t, "agent", "wait", "web:w1", "--timeout", "60s"); o.code != 0 || o.stdout != "web:w1  turn_complete\n" {
		t.Fatalf("agent wait web:w1: exit %d %q %q", o.code, o.stdout, o.stderr)
	}
	if o = h.run(t, "agent", "logs", "web:w1", "--last-response"); o.code != 0 || !strings.Contains(o.stdout, "RESPONSE: hello fleet") {
		t.Fatalf("agent logs web:w1: exit %d %q %q", o.code, o.stdout, o.stderr)
	}
	// A plain path is the local host's: the hub has no w1.
	wantError(t, h.run(t, "--json", "agent", "send", "w1", "hi"), 6, "not_found", "target", "w1")

	// gpu1 keeps the default policy: the run is refused, naming the method and the policy.
	o = h.run(t, "--json", "agent", "run", "--host", "gpu1", "--name", "g1", "-a", "mock")
	d := wantError(t, o, 1, "invalid_request", "reason", wire.ReasonFleetNotAllowed)
	if d["method"] != "agent.run" || d["host"] != "gpu1" || d["policy"] != "fleet.allow" {
		t.Fatalf("refused run on gpu1: details %v", d)
	}
	if got := agentsOf(t, srvs["gpu1"]); len(got) != 0 {
		t.Fatalf("gpu1's agents after a refused run: %v", got)
	}

	wantError(t, h.run(t, "--json", "agent", "kill", "-y", "ghost:x"), 2, "environment_error", "cause", wire.CauseFleetUnreachable)
	wantError(t, h.run(t, "--json", "agent", "run", "--host", "web", "--name", "w2", "-a", "mock", "--cwd", "rel"),
		1, "invalid_request", "reason", wire.ReasonFleetRelativeCwd)

	// One kill across two hosts: web kills w1; gpu1's fleet.allow refuses agent.kill,
	// which is its host's line and the exit code, and stops nothing on web.
	o = h.run(t, "--json", "agent", "kill", "-y", "web:w1", "gpu1:x")
	var kill struct {
		Killed []struct {
			Host, Target string
		}
		AllKilled bool `json:"all_killed"`
		Hosts     []struct {
			Host, State string
			Error       *wire.Error
		}
	}
	if err := json.Unmarshal(decodeEnvelope(t, o.stdout).Result, &kill); err != nil || o.code != 1 || len(kill.Killed) != 1 ||
		kill.Killed[0].Target != "web:w1" || kill.AllKilled || len(kill.Hosts) != 2 || kill.Hosts[0].State != "answered" ||
		kill.Hosts[1].Host != "gpu1" || kill.Hosts[1].State != "failed" || kill.Hosts[1].Error == nil ||
		kill.Hosts[1].Error.Details["reason"] != wire.ReasonFleetNotAllowed {
		t.Fatalf("agent kill web:w1 gpu1:x: exit %d %s %s (%v)", o.code, o.stdout, o.stderr, err)
	}
	poll.Eventually(t, 30*time.Second, "w1 ended on web", func() bool { return agentsOf(t, srvs["web"])["w1"] == "ended" })

	// --host any: gpu1 and web have 4 free slots, the hub 3. gpu1 ranks first (ties by
	// name) but its fleet.allow refuses agent.run, so the run goes to web.
	o = h.run(t, "--json", "agent", "run", "--host", "any", "--name", "a1", "-a", "mock")
	if o.code != 0 || json.Unmarshal(decodeEnvelope(t, o.stdout).Result, &run) != nil || run.Host != "web" ||
		!strings.Contains(o.stderr, "gpu1 does not allow agent.run") || !strings.Contains(o.stderr, "on web (4 free slot(s) for mock)") {
		t.Fatalf("agent run --host any: exit %d %s %s", o.code, o.stdout, o.stderr)
	}
	poll.Eventually(t, 30*time.Second, "a1 idle on web", func() bool { return agentsOf(t, srvs["web"])["a1"] == "idle" })
	// Now web and the hub both have 3 free; with --label gpu the hub, which has no
	// labels, is left out: web.
	o = h.run(t, "agent", "run", "--host", "any", "--label", "gpu", "--name", "l1", "-a", "mock")
	if o.code != 0 || !strings.HasPrefix(o.stdout, "web:l1 ") || !strings.Contains(o.stderr, "on web (3 free slot(s) for mock)") {
		t.Fatalf("agent run --host any --label gpu: exit %d %q %q", o.code, o.stdout, o.stderr)
	}
	d = wantError(t, h.run(t, "--json", "agent", "run", "--host", "any", "--label", "gpu", "--label", "tpu", "--name", "l2", "-a", "mock"),
		2, "environment_error", "cause", wire.CauseFleetUnreachable)
	if labels, _ := d["labels"].([]any); len(labels) != 2 {
		t.Fatalf("a run on labels nobody carries: details %v", d)
	}
	wantError(t, h.run(t, "--json", "agent", "run", "--host", "web", "--label", "gpu", "--name", "l3", "-a", "mock"),
		1, "invalid_request", "reason", wire.ReasonCLIParse)
	if got := agentsOf(t, srvs["hub"]); len(got) != 0 {
		t.Fatalf("the hub's agents after the runs on labels: %v", got)
	}
	// web has 2 free now, the hub 3: the hub.
	o = h.run(t, "agent", "run", "--host", "any", "--name", "a2", "-a", "mock")
	if o.code != 0 || !strings.HasPrefix(o.stdout, "hub:a2 ") || !strings.Contains(o.stderr, "on hub (3 free slot(s) for mock)") {
		t.Fatalf("second agent run --host any: exit %d %q %q", o.code, o.stdout, o.stderr)
	}
	if got := agentsOf(t, srvs["hub"]); got["a2"] == "" {
		t.Fatalf("the hub's agents after a run placed on it: %v", got)
	}

	// A member's CLI joins at fleet.url with its token: web kills the hub's a2.
	wh := newHarness(t)
	wh.home, wh.vars["ORCR_HOME"], wh.vars["HOME"] = srvs["web"].Home, srvs["web"].Home, srvs["web"].Home
	if o = wh.run(t, "agent", "kill", "-y", "hub:a2"); o.code != 0 || o.stdout != "killed hub:a2\n" {
		t.Fatalf("agent kill hub:a2 from web: exit %d %q %q", o.code, o.stdout, o.stderr)
	}
	poll.Eventually(t, 30*time.Second, "a2 ended on the hub", func() bool { return agentsOf(t, srvs["hub"])["a2"] == "ended" })

	// fleet.default_host: the hub's CLI runs on web without --host (the config file is
	// read by each invocation; the running server keeps the one it started with).
	cfgPath := filepath.Join(srvs["hub"].Home, "config.json")
	b, err := os.ReadFile(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	withDefault := strings.Replace(string(b), `"host": "hub",`, `"host": "hub", "default_host": "web",`, 1)
	if withDefault == string(b) {
		t.Fatalf("cannot add default_host to %s", b)
	}
	if err := os.WriteFile(cfgPath, []byte(withDefault), 0o600); err != nil {
		t.Fatal(err)
	}
	if o = h.run(t, "agent", "run", "--name", "d1", "-a", "mock"); o.code != 0 || !strings.HasPrefix(o.stdout, "web:d1 ") {
		t.Fatalf("agent run with fleet.default_host web: exit %d %q %q", o.code, o.stdout, o.stderr)
	}
	if got := agentsOf(t, srvs["web"]); got["d1"] == "" {
		t.Fatalf("web's agents after a run by the default host: %v", got)
	}

	// A home whose token is wrong is refused by the hub, and nothing reaches web.
	bad := newHarness(t)
	badTok := filepath.Join(bad.home, "bad.token")
	if err := os.WriteFile(badTok, []byte("not-the-token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bad.home, "config.json"), []byte(fmt.Sprintf(
		`{"fleet": {"host": "intruder", "url": %q, "token_file": %q}}`, srvs["hub"].FleetHubURL(), badTok)), 0o600); err != nil {
		t.Fatal(err)
	}
	wantError(t, bad.run(t, "--json", "agent", "kill", "-y", "web:a1"), 2, "environment_error", "cause", wire.CauseServerUnreachable)
	if got := agentsOf(t, srvs["web"])["a1"]; got != "idle" {
		t.Fatalf("web's a1 after a kill with a wrong token: %s, want idle", got)
	}
}

// `agent wait` with targets on several hosts (docs/fleet.md §4.5): one wait per host at
// once. With --any the first host whose target settles decides and the others' targets
// show as pending; without it every host answers and the exit code is the wait rule's
// over all targets; a host nobody serves fails a wait for all at once, and with --any
// only counts as its own line while the rest still wait. `agent ask --host` asks on
// that member (or on `any`), under its fleet.allow.
func TestFleetWaitAndAskAcrossHosts(t *testing.T) {
	t.Parallel()
	srvs, h := fleetOf(t)
	if o := h.run(t, "agent", "run", "--name", "h1", "-a", "mock", "--cwd", t.TempDir(), "-p", "turn_ms=120000 say=slow"); o.code != 0 {
		t.Fatalf("agent run h1: exit %d %q %q", o.code, o.stdout, o.stderr)
	}
	if o := h.run(t, "agent", "run", "--host", "web", "--name", "w1", "-a", "mock", "-p", "turn_ms=1000 say=quick"); o.code != 0 {
		t.Fatalf("agent run --host web w1: exit %d %q %q", o.code, o.stdout, o.stderr)
	}

	o := h.run(t, "agent", "wait", "h1", "web:w1", "--any", "--timeout", "90s")
	if o.code != 0 || o.stdout != "web:w1  turn_complete\nhub:h1  pending\n" {
		t.Fatalf("agent wait h1 web:w1 --any: exit %d %q %q", o.code, o.stdout, o.stderr)
	}

	o = h.run(t, "--json", "agent", "wait", "h1", "web:w1", "--timeout", "1s")
	if o.code != 3 {
		t.Fatalf("agent wait h1 web:w1 with h1 working: exit %d, want 3 (timed out) %q %q", o.code, o.stdout, o.stderr)
	}
	var r struct {
		Targets  []struct{ Host, Target, Reason string }
		AllOK    bool `json:"all_ok"`
		TimedOut bool `json:"timed_out"`
		Hosts    []struct{ Host, State string }
	}
	if err := json.Unmarshal(decodeEnvelope(t, o.stdout).Result, &r); err != nil {
		t.Fatal(err)
	}
	reasons := map[string]string{}
	for _, tg := range r.Targets {
		reasons[tg.Target] = tg.Host + " " + tg.Reason
	}
	if len(r.Targets) != 2 || reasons["hub:h1"] != "hub wait_timeout" || reasons["web:w1"] != "web turn_complete" ||
		!r.TimedOut || r.AllOK || len(r.Hosts) != 2 || r.Hosts[0].State != "answered" || r.Hosts[1].State != "answered" {
		t.Fatalf("agent wait --json across hosts: %s", o.stdout)
	}

	// --any: the host nobody serves is its own line; h1 still times out.
	o = h.run(t, "agent", "wait", "ghost:x", "h1", "--any", "--timeout", "2s")
	if o.code != 3 || o.stdout != "hub:h1  wait_timeout\nghost:x  fleet_unreachable\n" || !strings.Contains(o.stderr, "ghost") {
		t.Fatalf("agent wait ghost:x h1 --any: exit %d %q %q", o.code, o.stdout, o.stderr)
	}
	// Without --any the wait cannot be answered for ghost: it fails, at once.
	wantError(t, h.run(t, "--json", "agent", "wait", "web:w1", "ghost:x"), 2, "environment_error", "cause", wire.CauseFleetUnreachable)

	o = h.run(t, "--json", "agent", "ask", "--host", "web", "--name", "q1", "-a", "mock", "-p", "say=answer_from_web")
	var ask struct {
		Host     string
		Path     string
		Response struct{ Text string }
	}
	if o.code != 0 || json.Unmarshal(decodeEnvelope(t, o.stdout).Result, &ask) != nil || ask.Host != "web" || ask.Path != "q1" ||
		!strings.HasPrefix(ask.Response.Text, "answer_from_web") {
		t.Fatalf("agent ask --host web: exit %d %s %s", o.code, o.stdout, o.stderr)
	}
	if got := agentsOf(t, srvs["web"]); got["q1"] == "" {
		t.Fatalf("web's agents after an ask on web: %v", got)
	}
	d := wantError(t, h.run(t, "--json", "agent", "ask", "--host", "gpu1", "--name", "q2", "-a", "mock", "-p", "say=x"),
		1, "invalid_request", "reason", wire.ReasonFleetNotAllowed)
	if d["method"] != "agent.ask" || len(agentsOf(t, srvs["gpu1"])) != 0 {
		t.Fatalf("agent ask --host gpu1: details %v, gpu1's agents %v", d, agentsOf(t, srvs["gpu1"]))
	}
	// any: gpu1 ranks first by name among the members with 4 free slots, and refuses.
	o = h.run(t, "agent", "ask", "--host", "any", "--name", "q3", "-a", "mock", "-p", "say=answer_from_any")
	if o.code != 0 || !strings.HasPrefix(o.stdout, "answer_from_any") ||
		!strings.Contains(o.stderr, "gpu1 does not allow agent.ask") || !strings.Contains(o.stderr, "agent ask --host any: on ") {
		t.Fatalf("agent ask --host any: exit %d %q %q", o.code, o.stdout, o.stderr)
	}
}

// `orcr agent kill` of another host's agents that takes longer than a bounded fleet
// verb's 15 s — each agent waits out its whole 17 s grace — completes, printing its
// progress on stderr as a local kill does (docs/fleet.md §4.9); before, the CLI gave up
// after 15 s with fleet_unreachable while the member went on killing.
func TestFleetKillOutlastsTheVerbTimeout(t *testing.T) {
	t.Parallel()
	hub := sockettest.NewServer(t, sockettest.WithHerdr(t), sockettest.WithEnv("ORCR_MOCK_QUIT_DELAY_MS", "60000"),
		sockettest.WithConfig(`{"integrations": {"mock": {"shutdown_grace_ms": 17000}},
			"fleet": {"host": "hub", "hub": {"listen": "127.0.0.1:0"}, "allow": ["agent.ls", "agent.kill"]}}`))
	tok := filepath.Join(hub.Home, config.FleetDirName, fleet.HubTokenName)
	web := sockettest.NewServer(t, sockettest.WithConfig(fmt.Sprintf(`{"fleet": {"host": "web", "url": %q, "token_file": %q}}`,
		hub.FleetHubURL(), tok)))
	for _, p := range []string{"slow/a", "slow/b"} {
		if err := hub.Client(t).Call(context.Background(), "agent.run", map[string]any{"path": p, "agent": "mock"}, nil); err != nil {
			t.Fatal(err)
		}
	}
	poll.Eventually(t, 60*time.Second, "both agents idle on the hub", func() bool {
		a := agentsOf(t, hub)
		return a["slow/a"] == "idle" && a["slow/b"] == "idle"
	})
	h := newHarness(t)
	h.home, h.vars["ORCR_HOME"], h.vars["HOME"] = web.Home, web.Home, web.Home
	start := time.Now()
	o := h.run(t, "agent", "kill", "-y", "hub:slow/**")
	took := time.Since(start)
	if o.code != 0 || !strings.Contains(o.stdout, "hub:slow/a") || !strings.Contains(o.stdout, "hub:slow/b") {
		t.Fatalf("agent kill hub:slow/** (exit %d after %s):\n%s%s", o.code, took, o.stdout, o.stderr)
	}
	if took < 16*time.Second {
		t.Errorf("the kill took %s, less than the grace it waits out: the test shows nothing", took)
	}
	if !strings.Contains(o.stderr, "killed 0 of 2") {
		t.Errorf("stderr %q, want the kill's progress lines", o.stderr)
	}
}
