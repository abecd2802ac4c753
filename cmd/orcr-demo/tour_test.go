package main

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The README's main command, `go run ./cmd/orcr-demo`, works on a machine with no herdr
// and no provider: the whole tour runs through the real CLI and ends with its closing
// line, the remote stream step included.
func TestDemoTour(t *testing.T) {
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "orcr-demo")
	build := exec.Command("go", "build", "-o", bin, "./cmd/orcr-demo")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin)
	cmd.Dir = root
	cmd.Env = newcomerEnv()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("the demo failed: %v\n%s", err, out.String())
	}
	for _, want := range []string{"demo finished", "turn/start", `"source":"remote"`, "from_afar"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the tour's output lacks %q:\n%s", want, out.String())
		}
	}
}
