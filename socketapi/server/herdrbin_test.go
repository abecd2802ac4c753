package server_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/socketapi/sockettest"
)

// herdrBinConfig is a config.json whose herdr.bin is bin.
func herdrBinConfig(bin string) sockettest.Option {
	return sockettest.WithConfig(`{"herdr": {"bin": "` + bin + `"}}`)
}

// refusedHerdrMissing checks that agent.run and agent.ask of params fail at once with
// environment_error herdr_missing whose message points at installing herdr, and that
// nothing was enqueued.
func refusedHerdrMissing(t *testing.T, srv *sockettest.Server, c *socketapi.Client, params map[string]any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, method := range []string{"agent.run", "agent.ask"} {
		p := map[string]any{}
		for k, v := range params {
			p[k] = v
		}
		err := c.Call(ctx, method, p, nil)
		if !wire.Is(err, wire.EnvironmentError, "herdr_missing") {
			t.Errorf("%s %v: got %v, want environment_error herdr_missing", method, params, err)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, "install herdr (https://") || strings.Contains(msg, "integration install") {
			t.Errorf("%s %v: message %q should say how to install herdr, not an integration", method, params, msg)
		}
	}
	if rows := ls(t, c, map[string]any{"all": true}); len(rows) != 0 {
		t.Errorf("refused runs enqueued %+v", rows)
	}
	if ents, _ := os.ReadDir(filepath.Join(srv.Home, "data")); len(ents) != 0 {
		t.Errorf("refused runs left data dirs: %v", ents)
	}
}

// A configured herdr.bin that is missing, not executable, or executable but no program
// (a text file with its x bits set, such as /etc/hostname on some systems) refuses
// agent.run and agent.ask synchronously (it used to be acknowledged and fail at spawn),
// for the mock too: every agent needs a herdr pane. server.status says so: not
// reachable, herdr_missing.
func TestRunRefusesUnusableHerdrBin(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	plain := filepath.Join(dir, "herdr-plain")
	if err := os.WriteFile(plain, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	text := filepath.Join(dir, "herdr-text")
	if err := os.WriteFile(text, []byte("localhost\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, bin string }{
		{"missing", filepath.Join(dir, "no", "herdr")},
		{"not executable", plain},
		{"not a program", text},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := sockettest.NewServer(t, sockettest.WithHerdr(t), herdrBinConfig(tc.bin))
			c := srv.Client(t)
			refusedHerdrMissing(t, srv, c, map[string]any{"name": "a", "agent": "mock", "prompt": "say=x"})
			err := c.Call(context.Background(), "agent.run", map[string]any{"name": "a", "agent": "mock"}, nil)
			if pe, _ := wire.As(err); pe == nil || pe.Details["bin"] != tc.bin || pe.Details["origin"] != "herdr.bin" {
				t.Errorf("agent.run: got %v, want details naming bin %s from herdr.bin", err, tc.bin)
			}
			var st api.StatusResult
			if err := c.Call(context.Background(), "server.status", nil, &st); err != nil {
				t.Fatal(err)
			}
			if h := st.Herdr; h.Reachable || h.Error == nil || h.Error.Cause() != "herdr_missing" {
				t.Errorf("server.status herdr: reachable %v error %v, want not reachable with herdr_missing", h.Reachable, h.Error)
			}
		})
	}
}

// With no herdr anywhere, `agent run -a claude` says how to install herdr, not
// `herdr integration install claude`.
func TestRunWithoutHerdrSaysInstallHerdr(t *testing.T) {
	t.Parallel()
	srv := sockettest.NewServer(t)
	refusedHerdrMissing(t, srv, srv.Client(t), map[string]any{"name": "a", "agent": "claude", "prompt": "hi"})
}

// Discovery runs again at each agent.run: a herdr installed after the server started
// is found and used, without a restart.
func TestRunFindsHerdrInstalledAfterStart(t *testing.T) {
	t.Parallel()
	bin := filepath.Join(t.TempDir(), "herdr")
	srv := sockettest.NewServer(t, sockettest.WithHerdr(t), herdrBinConfig(bin))
	c := srv.Client(t)
	refusedHerdrMissing(t, srv, c, map[string]any{"name": "a", "agent": "mock"})

	if err := os.Symlink(sockettest.BuildBinaries(t).HerdrBin, bin); err != nil {
		t.Fatal(err)
	}
	a, err := run(t, c, map[string]any{"name": "a", "prompt": "say=found"})
	if err != nil {
		t.Fatalf("agent.run after installing herdr: %v", err)
	}
	if row := waitStatus(t, c, a.UUID, "idle", "ended"); row.Status != "idle" || row.PaneID == nil {
		t.Fatalf("agent after installing herdr: got %+v, want idle with a pane", row)
	}
}
