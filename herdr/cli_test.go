package herdr

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/orcr-go/orcr/herdr/herdrschema"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// buildStandin builds cmd/herdr-standin as "herdr" into a temp dir.
func buildStandin(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds a binary")
	}
	bin := filepath.Join(shortDir(t), "herdr")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/orcr-go/orcr/cmd/herdr-standin")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build herdr-standin: %v\n%s", err, out)
	}
	return bin
}

// ensureOwned bootstraps d's owned session and stops it at cleanup, with d's binary
// and environment.
func ensureOwned(t *testing.T, d *Driver) SessionInfo {
	t.Helper()
	row, err := d.EnsureOwned(context.Background())
	if err != nil {
		t.Fatalf("EnsureOwned: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if _, err := d.cfg.cli().run(ctx, "session", "stop", d.cfg.owned()); err != nil {
			t.Errorf("session stop: %v", err)
		}
	})
	return row
}

// herdrEnv is a private environment for the herdr processes of one test: a herdr config
// dir and a home of its own, nothing that would point a herdr CLI elsewhere, the
// stand-in playing its default herdr unless told otherwise. It goes to herdr through
// [Config.Env] and [cli], never through the test process's environment, so the tests
// that use it run in parallel.
type herdrEnv struct {
	xdg, home string
	env       []string
}

// privateHerdrEnv is a fresh [herdrEnv]; set holds KEY=VALUE entries on top.
func privateHerdrEnv(t *testing.T, set ...string) herdrEnv {
	t.Helper()
	e := herdrEnv{xdg: shortDir(t), home: shortDir(t)}
	over := append([]string{"XDG_CONFIG_HOME=" + e.xdg, "HOME=" + e.home, "HERDR_SOCKET_PATH=", "HERDR_SESSION=",
		"SHELL=/bin/sh", "HERDR_STANDIN_PROTOCOL=", "HERDR_STANDIN_COMPLETION_SEQ=", "HERDR_STANDIN_VERSION="}, set...)
	keys := map[string]bool{}
	for _, kv := range over {
		k, _, _ := strings.Cut(kv, "=")
		keys[k] = true
	}
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); !keys[k] {
			e.env = append(e.env, kv)
		}
	}
	e.env = append(e.env, over...)
	return e
}

// cli is bin run in e.
func (e herdrEnv) cli(bin string) cli { return cli{bin: bin, env: e.env} }

// getenv reads e as os.Getenv reads the process's environment (the last entry wins).
func (e herdrEnv) getenv(key string) string {
	v := ""
	for _, kv := range e.env {
		if k, val, _ := strings.Cut(kv, "="); k == key {
			v = val
		}
	}
	return v
}

// TestStandinCLI drives discovery through the herdr stand-in binary: binary lookup,
// live schema conformance, session list, bootstrap of the owned session, integration
// status, and a spawn through a driver that resolves sockets with the binary.
func TestStandinCLI(t *testing.T) {
	t.Parallel()
	bin := buildStandin(t)
	e := privateHerdrEnv(t, "ORCR_HERDR_BIN="+bin)
	xdg, home, herdr := e.xdg, e.home, e.cli(bin)
	ctx := context.Background()

	found, err := FindBinary("", e.getenv)
	if err != nil || found != bin {
		t.Fatalf("FindBinary: got %q %v, want %q", found, err, bin)
	}
	if err := herdr.checkLive(ctx); err != nil {
		t.Fatalf("CheckLive: %v", err)
	}

	hook := filepath.Join(home, ".claude", "hooks", "herdr-agent-state.sh")
	os.MkdirAll(filepath.Dir(hook), 0o755)
	os.WriteFile(hook, []byte("# HERDR_INTEGRATION_VERSION=11\n"), 0o755)
	st, err := herdr.integrationStatus(ctx)
	if err != nil {
		t.Fatalf("IntegrationStatus: %v", err)
	}
	i := slices.IndexFunc(st, func(s IntegrationState) bool { return s.Target == "claude" })
	if i < 0 || !st[i].Installed || st[i].Path != hook {
		t.Errorf("IntegrationStatus: claude row %+v (all %+v)", st[i], st)
	}
	if j := slices.IndexFunc(st, func(s IntegrationState) bool { return s.Target == "codex" }); j < 0 || st[j].Installed {
		t.Errorf("IntegrationStatus: codex should be listed and not installed: %+v", st)
	}

	d := newTestDriver(t, Config{Bin: bin, Owned: "orcr", Env: e.env})
	if s := d.Status(ctx); s.Bin == nil || !s.Reachable || s.SessionRunning || s.Socket != nil {
		t.Errorf("Status before bootstrap: %+v", s)
	}
	row := ensureOwned(t, d)
	if !row.Running || row.SocketPath != filepath.Join(xdg, "herdr", "sessions", "orcr", "herdr.sock") {
		t.Errorf("EnsureOwned: got %+v", row)
	}
	if again, err := d.EnsureOwned(ctx); err != nil || !again.Running {
		t.Errorf("EnsureOwned (running): got %+v %v", again, err)
	}
	rows, err := herdr.listSessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := FindSession(rows, "orcr"); !ok || !r.Running {
		t.Errorf("ListSessions: got %+v", rows)
	}
	if s := d.Status(ctx); !s.SessionRunning || s.Protocol == nil || *s.Protocol != 20 || s.Version == nil {
		t.Errorf("Status after bootstrap: %+v", s)
	}
	pl, err := d.Owned().Spawn(ctx, SpawnSpec{Workspace: "cli", Label: "cli/a", Argv: shellAgent("cli")})
	if err != nil {
		t.Fatalf("Spawn: %v", err)
	}
	waitScreen(t, d.Owned(), pl.TerminalID, "ready-cli")
}

// TestStandinCLIProtocol22 plays herdr 0.9.x with the stand-in binary: the live schema
// (protocol 22, our construction) passes the contract check, the handshake accepts
// protocol 22, and agent rows carry completion_seq. A protocol-22 schema that lacks a
// field orcr reads still fails the check with herdr_version_skew.
func TestStandinCLIProtocol22(t *testing.T) {
	t.Parallel()
	bin := buildStandin(t)
	e := privateHerdrEnv(t, "HERDR_STANDIN_PROTOCOL=22")
	ctx := context.Background()
	if err := e.cli(bin).checkLive(ctx); err != nil {
		t.Fatalf("CheckLive at protocol 22: %v", err)
	}

	// The same check on a protocol-22 schema without agent.list's agent_status.
	dir := shortDir(t)
	broken := alterSchema(t, herdrschema.Protocol22, func(doc map[string]any) {
		delete(path(doc, "schemas", "success_response", "$defs", "AgentInfo", "properties"), "agent_status")
	})
	if err := os.WriteFile(filepath.Join(dir, "schema.json"), broken, 0o600); err != nil {
		t.Fatal(err)
	}
	fake := filepath.Join(dir, "herdr")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\nexec cat "+filepath.Join(dir, "schema.json")+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := CheckLive(ctx, fake); !wire.Is(err, wire.EnvironmentError, wire.CauseHerdrVersionSkew) || !strings.Contains(err.Error(), "agent.list result.agents[].agent_status") {
		t.Errorf("CheckLive on a protocol-22 schema without agent_status: got %v, want herdr_version_skew naming it", err)
	}

	d := newTestDriver(t, Config{Bin: bin, Owned: "orcr", Env: e.env})
	ensureOwned(t, d)
	if s := d.Status(ctx); s.Protocol == nil || *s.Protocol != 22 || s.Version == nil || *s.Version != "0.9.0" {
		t.Errorf("Status at protocol 22: %+v", s)
	}
	pl, err := d.Owned().Spawn(ctx, SpawnSpec{Workspace: "cli", Label: "cli/a", Argv: shellAgent("cli")})
	if err != nil {
		t.Fatalf("Spawn: %v", err)
	}
	rows, err := d.Sessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	row, _ := FindSession(rows, "orcr")
	r := NewRemote(row.SocketPath)
	for _, state := range []string{"working", "idle"} {
		if err := r.ReportAgent(ctx, pl.PaneID, "orcr:mock", "mock", state, ""); err != nil {
			t.Fatalf("ReportAgent %s: %v", state, err)
		}
	}
	agents, err := d.Owned().AgentList(ctx)
	if err != nil || len(agents) != 1 || agents[0].CompletionSeq == nil || *agents[0].CompletionSeq != 1 {
		t.Fatalf("AgentList after working → idle: %+v %v, want completion_seq 1", agents, err)
	}
}
