package herdr

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
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

// TestStandinCLI drives discovery through the herdr stand-in binary: binary lookup,
// live schema conformance, session list, bootstrap of the owned session, integration
// status, and a spawn through a driver that resolves sockets with the binary.
func TestStandinCLI(t *testing.T) {
	bin := buildStandin(t)
	xdg := shortDir(t)
	home := shortDir(t)
	t.Setenv("XDG_CONFIG_HOME", xdg)
	t.Setenv("HOME", home)
	t.Setenv("HERDR_SOCKET_PATH", "")
	t.Setenv("HERDR_SESSION", "")
	t.Setenv("SHELL", "/bin/sh")
	t.Setenv("ORCR_HERDR_BIN", bin)
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
	row, err := d.EnsureOwned(ctx)
	if err != nil {
		t.Fatalf("EnsureOwned: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if _, err := runCLI(ctx, bin, "session", "stop", "orcr"); err != nil {
			t.Errorf("session stop: %v", err)
		}
	})
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
