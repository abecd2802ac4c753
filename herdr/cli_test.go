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

// ensureOwned bootstraps d's owned session with bin and stops it at cleanup.
func ensureOwned(t *testing.T, d *Driver, bin string) SessionInfo {
	t.Helper()
	row, err := d.EnsureOwned(context.Background())
	if err != nil {
		t.Fatalf("EnsureOwned: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if _, err := runCLI(ctx, bin, "session", "stop", d.cfg.owned()); err != nil {
			t.Errorf("session stop: %v", err)
		}
	})
	return row
}

// privateHerdrEnv gives t a herdr config dir and a home of its own (t.Setenv), with
// nothing that would point a herdr CLI elsewhere.
func privateHerdrEnv(t *testing.T) (xdg, home string) {
	t.Helper()
	xdg = shortDir(t)
	home = shortDir(t)
	t.Setenv("XDG_CONFIG_HOME", xdg)
	t.Setenv("HOME", home)
	t.Setenv("HERDR_SOCKET_PATH", "")
	t.Setenv("HERDR_SESSION", "")
	t.Setenv("SHELL", "/bin/sh")
	return xdg, home
}

// TestStandinCLI drives discovery through the herdr stand-in binary: binary lookup,
// live schema conformance, session list, bootstrap of the owned session, integration
// status, and a spawn through a driver that resolves sockets with the binary.
func TestStandinCLI(t *testing.T) {
	bin := buildStandin(t)
	xdg, home := privateHerdrEnv(t)
	t.Setenv("ORCR_HERDR_BIN", bin)
	t.Setenv("HERDR_STANDIN_PROTOCOL", "") // the default herdr, whatever the environment says
	t.Setenv("HERDR_STANDIN_COMPLETION_SEQ", "")
	ctx := context.Background()

	found, err := FindBinary("", nil)
	if err != nil || found != bin {
		t.Fatalf("FindBinary: got %q %v, want %q", found, err, bin)
	}
	if err := CheckLive(ctx, bin); err != nil {
		t.Fatalf("CheckLive: %v", err)
	}

	hook := filepath.Join(home, ".claude", "hooks", "herdr-agent-state.sh")
	os.MkdirAll(filepath.Dir(hook), 0o755)
	os.WriteFile(hook, []byte("# HERDR_INTEGRATION_VERSION=11\n"), 0o755)
	st, err := IntegrationStatus(ctx, bin)
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

	d := newTestDriver(t, Config{Bin: bin, Owned: "orcr"})
	if s := d.Status(ctx); s.Bin == nil || !s.Reachable || s.SessionRunning || s.Socket != nil {
		t.Errorf("Status before bootstrap: %+v", s)
	}
	row := ensureOwned(t, d, bin)
	if !row.Running || row.SocketPath != filepath.Join(xdg, "herdr", "sessions", "orcr", "herdr.sock") {
		t.Errorf("EnsureOwned: got %+v", row)
	}
	if again, err := d.EnsureOwned(ctx); err != nil || !again.Running {
		t.Errorf("EnsureOwned (running): got %+v %v", again, err)
	}
	rows, err := ListSessions(ctx, bin)
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
	bin := buildStandin(t)
	t.Setenv("XDG_CONFIG_HOME", shortDir(t))
	t.Setenv("HOME", shortDir(t))
	t.Setenv("HERDR_SOCKET_PATH", "")
	t.Setenv("HERDR_SESSION", "")
	t.Setenv("SHELL", "/bin/sh")
	t.Setenv("HERDR_STANDIN_PROTOCOL", "22")
	t.Setenv("HERDR_STANDIN_COMPLETION_SEQ", "")
	t.Setenv("HERDR_STANDIN_VERSION", "")
	ctx := context.Background()
	if err := CheckLive(ctx, bin); err != nil {
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

	d := newTestDriver(t, Config{Bin: bin, Owned: "orcr"})
	ensureOwned(t, d, bin)
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
