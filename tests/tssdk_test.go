package tests

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/orcr-go/orcr/socketapi/sockettest"
)

// tsDir is the TypeScript SDK's package (socketapi/ts).
var tsDir = filepath.Join("..", "socketapi", "ts")

// tsx returns the package's tsx (installed by `npm ci` in socketapi/ts), skipping the
// test with the reason when Node or the dev dependencies are missing, or failing it when
// CI or ORCR_REQUIRE_NODE=1 says they must be there.
func tsx(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(tsDir, "node_modules", ".bin", "tsx")
	reason := ""
	if _, err := exec.LookPath("node"); err != nil {
		reason = "node is not on PATH"
	} else if _, err := os.Stat(bin); err != nil {
		reason = "socketapi/ts/node_modules is missing: run `npm ci` in socketapi/ts"
	} else {
		abs, err := filepath.Abs(bin)
		if err != nil {
			t.Fatal(err)
		}
		return abs
	}
	ci := strings.ToLower(os.Getenv("CI"))
	if ci == "1" || ci == "true" || os.Getenv("ORCR_REQUIRE_NODE") == "1" {
		t.Fatalf("%s (required: CI or ORCR_REQUIRE_NODE is set)", reason)
	}
	t.Skipf("skipped: %s", reason)
	return ""
}

// TestTypeScriptSDKLive runs the SDK's live tests (socketapi/ts/test/live) against a real
// server — which the SDK itself auto-starts from ORCR_BIN — with the herdr stand-in and
// the mock provider: every helper of docs/clients.md §2, from agent.run to loops, watch,
// attach leases and auto-start after a stop. Then the benchmark of bench/ls.ts (an SDK
// agent.ls against a raw socket round trip) runs briefly and its numbers are logged.
func TestTypeScriptSDKLive(t *testing.T) {
	t.Parallel() // mostly waits (turn windows, TUIs booting): see main_test.go
	heavy(t)
	tsxBin := tsx(t)
	b := sockettest.BuildBinaries(t)
	h, _ := herdrHome(t, "")
	env := append(h.env, "ORCR_BIN="+b.Orcr, "NODE_NO_WARNINGS=1")

	files, err := filepath.Glob(filepath.Join(tsDir, "test", "live", "*.test.ts"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no live tests in %s: %v", tsDir, err)
	}
	for i, f := range files {
		files[i], _ = filepath.Rel(tsDir, f)
	}
	out, err := runNode(t, 8*time.Minute, env, tsxBin, append([]string{"--test", "--test-concurrency=1", "--test-reporter=spec"}, files...)...)
	t.Logf("tsx --test %s:\n%s", strings.Join(files, " "), out)
	if err != nil {
		logTail(t, filepath.Join(h.dir, "logs", "server.log"), 80)
		t.Fatalf("the live TypeScript tests failed: %v", err)
	}

	out, err = runNode(t, 2*time.Minute, append(env, "ORCR_BENCH_N=300"), tsxBin, filepath.Join("bench", "ls.ts"))
	if err != nil {
		t.Fatalf("bench/ls.ts: %v\n%s", err, out)
	}
	t.Logf("bench/ls.ts:\n%s", out)
}

func runNode(t *testing.T, d time.Duration, env []string, name string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = tsDir
	cmd.Env = env
	cmd.WaitDelay = 5 * time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}
