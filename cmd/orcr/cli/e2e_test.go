package cli_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/orcr-go/orcr/cmd/orcr/cli"
	"github.com/orcr-go/orcr/socketapi/server"
)

// TestServerInProcess drives the real server through the CLI in one process:
// `server start --foreground` (wired to server.Run as main does), `server status
// --json`, `server stop`.
func TestServerInProcess(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.vars["ORCR_DISABLE_DISCOVERY"] = "1"
	h.serve = func(ctx context.Context, o cli.ServeOptions) (string, error) {
		return server.Run(ctx, server.Options{
			Home: o.Home, Getenv: o.Getenv, Warnf: o.Warnf,
			Log: slog.New(slog.DiscardHandler), NoSignals: true,
		})
	}
	// Auto-start must find the foreground server, never spawn one.
	h.spawn = func(string) error { return nil }

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var fgOut, fgErr syncBuffer
	done := make(chan int, 1)
	go func() { done <- cli.Run(ctx, []string{"server", "start", "--foreground"}, h.env(&fgOut, &fgErr)) }()

	got := h.run(t, "server", "status", "--json")
	if got.code != 0 {
		t.Fatalf("server status --json: exit %d %s %s", got.code, got.stdout, got.stderr)
	}
	env := decodeEnvelope(t, got.stdout)
	var st struct {
		Protocol int    `json:"protocol"`
		Version  string `json:"version"`
		Socket   string `json:"socket"`
		Store    string `json:"store"`
	}
	if err := json.Unmarshal(env.Result, &st); err != nil {
		t.Fatal(err)
	}
	if !env.OK || st.Protocol != 1 || st.Version != "0.1.0" || st.Socket != filepath.Join(h.home, "orcr.sock") || st.Store != filepath.Join(h.home, "orcr.db") {
		t.Errorf("server status --json: got %s", got.stdout)
	}

	want := fmt.Sprintf("server already running (pid %d)\n", os.Getpid())
	if got := h.run(t, "server", "start"); got.code != 0 || got.stdout != want {
		t.Errorf("server start: got %+v, want %q", got, want)
	}
	if got := h.run(t, "server", "stop"); got.code != 0 || got.stdout != "server stopped\n" {
		t.Errorf("server stop: got %+v", got)
	}
	if code := <-done; code != 0 || fgOut.String() != "server started\n" {
		t.Errorf("server start --foreground: got exit %d stdout %q stderr %q, want 0 %q", code, fgOut.String(), fgErr.String(), "server started\n")
	}
	if got := h.run(t, "server", "stop"); got.stdout != "server not_running\n" {
		t.Errorf("server stop after stop: got %+v", got)
	}
}
