package cli_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/orcr-go/orcr/cmd/orcr/cli"
	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/tests/poll"
)

// When the server the CLI auto-starts refuses to start, the CLI reports the server's
// own error as soon as the server has exited, not server_start_failed after the 15 s
// readiness deadline. These homes pass the CLI's own checks (docs/cli.md §1.3); only the
// server, about to bind its socket, refuses them. The server is this test binary (see
// TestMain), started for real by cli.SpawnDetached.
func TestAutoStartReportsTheServersRefusal(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		home  func(t *testing.T) string
		cause string
	}{
		{"symlinked socket", func(t *testing.T) string {
			home := shortHome(t)
			if err := os.WriteFile(filepath.Join(home, "elsewhere"), nil, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(filepath.Join(home, "elsewhere"), filepath.Join(home, config.SocketName)); err != nil {
				t.Fatal(err)
			}
			return home
		}, "unsafe_home"},
		{"socket path too long", func(t *testing.T) string {
			home := filepath.Join(shortHome(t), strings.Repeat("h", config.MaxSocketPath))
			if err := os.Mkdir(home, 0o700); err != nil {
				t.Fatal(err)
			}
			return home
		}, "socket_path_too_long"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			home := tc.home(t)
			t.Cleanup(func() { stopServer(t, home) })
			var out, errb syncBuffer
			start := time.Now()
			code := cli.Run(context.Background(), []string{"--json", "agent", "ls"}, spawningEnv(home, &out, &errb))
			elapsed := time.Since(start)
			env := decodeEnvelope(t, out.String())
			if code != 2 || env.Error == nil || env.Error.Cause() != tc.cause {
				t.Fatalf("orcr agent ls: got exit %d %s (stderr %q), want 2 environment_error %s from the server", code, out.String(), errb.String(), tc.cause)
			}
			if elapsed > 10*time.Second {
				t.Errorf("the refusal took %v, want it as soon as the server exits", elapsed)
			}
		})
	}
}

// spawningEnv is the environment of a CLI run on home whose auto-start really spawns a
// server: the default Spawn (cli.SpawnDetached) starts this test binary as orcr.
func spawningEnv(home string, stdout, stderr *syncBuffer) cli.Env {
	vars := map[string]string{"ORCR_HOME": home, "HOME": home}
	return cli.Env{
		Stdout: stdout, Stderr: stderr,
		Getenv:  func(k string) string { return vars[k] },
		Environ: func() []string { return []string{asOrcr + "=1", "HOME=" + home, "ORCR_DISABLE_DISCOVERY=1"} },
	}
}

// stopServer stops a server still answering for home (none should).
func stopServer(t *testing.T, home string) {
	c := &socketapi.Client{Socket: filepath.Join(home, config.SocketName)}
	if _, err := c.Handshake(context.Background()); err == nil {
		t.Errorf("a server runs for the refused home %s", home)
		_ = c.Call(context.Background(), "server.stop", nil, nil)
	}
}

// A server auto-started through cli.SpawnDetached that comes up is used as before, and
// the start-report descriptor it keeps is close-on-exec: the herdr and agent processes
// it starts must not hold the CLI's pipe open.
func TestAutoStartedServerKeepsItsReportPrivate(t *testing.T) {
	t.Parallel()
	home := shortHome(t)
	var out, errb syncBuffer
	code := cli.Run(context.Background(), []string{"--json", "server", "start"}, spawningEnv(home, &out, &errb))
	c := &socketapi.Client{Socket: filepath.Join(home, config.SocketName)}
	var res struct {
		Status string `json:"status"`
		PID    int    `json:"pid"`
	}
	env := decodeEnvelope(t, out.String())
	if code != 0 || json.Unmarshal(env.Result, &res) != nil || res.Status != "started" {
		_ = c.Call(context.Background(), "server.stop", nil, nil)
		t.Fatalf("orcr server start: got exit %d %s, want started", code, out.String())
	}
	// The server is this process's child: SpawnDetached's goroutine reaps it once it
	// has exited, which server.stop does not wait for; goleak checks after the tests.
	t.Cleanup(func() {
		_ = c.Call(context.Background(), "server.stop", nil, nil)
		poll.Eventually(t, 30*time.Second, "the auto-started server exited and reaped", func() bool {
			return errors.Is(syscall.Kill(res.PID, 0), syscall.ESRCH)
		})
	})
	info, err := os.ReadFile(fmt.Sprintf("/proc/%d/fdinfo/3", res.PID))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return // descriptor 3 is closed: nothing for a child to inherit
	case err != nil:
		t.Fatalf("reading the server's descriptor 3: %v", err)
	}
	var flags int
	for _, line := range strings.Split(string(info), "\n") {
		if v, ok := strings.CutPrefix(line, "flags:"); ok {
			fmt.Sscanf(strings.TrimSpace(v), "%o", &flags)
		}
	}
	if flags&syscall.O_CLOEXEC == 0 {
		t.Errorf("the server's descriptor 3 has flags %#o, want O_CLOEXEC:\n%s", flags, info)
	}
}
