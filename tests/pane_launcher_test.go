package tests

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// orcr's pane launcher (`orcr __pane-exec`, one per agent's pane, for the pane's whole
// life) starts before the heavy part of the binary is initialized: no package of orcr,
// SQLite, the actor system, NATS or the CLI's parser runs its init first
// (docs/lifecycle.md §8.2). Go's own init trace names every package initialized.
func TestPaneLauncherStartsBeforeTheRestOfOrcr(t *testing.T) {
	t.Parallel()
	status := filepath.Join(t.TempDir(), "pane_exit.json")
	cmd := exec.Command(bins.orcr, "__pane-exec", "--status-file", status, "--hold", "1ms", "--", "sh", "-c", "exit 4")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	if code := cmd.ProcessState.ExitCode(); code != 4 {
		t.Fatalf("the launcher exited %d (%v), want the child's 4; stderr:\n%s", code, err, stderr.String())
	}
	if b, err := os.ReadFile(status); err != nil || !strings.Contains(string(b), `"code":4`) {
		t.Errorf("status file %q, %v: want exit code 4", b, err)
	}
	var inits []string
	for _, l := range strings.Split(stderr.String(), "\n") {
		if f := strings.Fields(l); len(f) > 2 && f[0] == "init" {
			inits = append(inits, f[1])
		}
	}
	if len(inits) == 0 {
		t.Fatalf("no init trace on stderr:\n%s", stderr.String())
	}
	for _, pkg := range inits {
		for _, heavy := range []string{module + "/", "modernc.org/", "github.com/asynkron/", "github.com/nats-io/", "github.com/alecthomas/kong", "google.golang.org/protobuf"} {
			if strings.HasPrefix(pkg, heavy) {
				t.Errorf("%s was initialized before the launcher ran", pkg)
			}
		}
	}
	t.Logf("%d packages initialized before the launcher ran: %s", len(inits), strings.Join(inits, " "))
}
