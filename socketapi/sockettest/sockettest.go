// Package sockettest starts in-process orcr servers for tests: a short temporary home,
// no signal handling, a log kept in memory (its tail printed when the test failed)
// unless asked otherwise, and cleanup that stops the server and checks it stopped.
package sockettest

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/server"
)

// Server is a started in-process orcr server.
type Server struct {
	*server.Server
	Home string
	Env  map[string]string
}

// Option adjusts a test server before it starts.
type Option func(*config)

type config struct {
	env     map[string]string
	log     *slog.Logger
	home    string
	config  string
	methods []api.Spec
	runDir  string
}

// WithSystemdRunDir makes the server take dir for /run/systemd/system, which exists
// when systemd runs the machine (server.status's loops_firing).
func WithSystemdRunDir(dir string) Option { return func(c *config) { c.runDir = dir } }

// WithEnv sets an environment variable seen by the server (ORCR_EVENT_RETENTION,
// ORCR_DEBUG_METHODS, …).
func WithEnv(k, v string) Option { return func(c *config) { c.env[k] = v } }

// WithHome uses an existing home instead of a fresh temporary one.
func WithHome(home string) Option { return func(c *config) { c.home = home } }

// WithConfig writes doc as <home>/config.json (creating the home, mode 0700) before
// the server starts.
func WithConfig(doc string) Option { return func(c *config) { c.config = doc } }

// WithMethods serves table instead of api.Methods.
func WithMethods(table []api.Spec) Option { return func(c *config) { c.methods = table } }

// WithLog sends the server log to l.
func WithLog(l *slog.Logger) Option { return func(c *config) { c.log = l } }

// TempHome returns a fresh short home directory (Unix socket paths must stay under
// ~104 bytes, so t.TempDir's long names are avoided), removed at cleanup.
func TempHome(tb testing.TB) string {
	tb.Helper()
	dir, err := os.MkdirTemp("", "o")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { os.RemoveAll(dir) })
	home := dir + "/h"
	return home
}

// NewServer starts a server on a fresh home (debug methods on) and stops it at cleanup.
func NewServer(tb testing.TB, opts ...Option) *Server {
	tb.Helper()
	c := newConfig(opts)
	if c.home == "" {
		c.home = TempHome(tb)
	}
	if c.log == nil {
		c.log = tailLogger(tb)
	}
	s, err := c.start()
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		s.Stop()
		if err := s.Wait(); err != nil {
			tb.Errorf("server stop: %v", err)
		}
	})
	return s
}

func newConfig(opts []Option) *config {
	// A loop run starts `<ORCR_RUN_SHIM> __run-shim`, by default this very executable:
	// in a test binary that would run the tests again, once per run. Without WithHerdr
	// (which names the real orcr binary) runs fail to start instead.
	// IS_SANDBOX: the tests' claude is a script in a stand-in pane, not the real claude,
	// so a server running as root (CI) must not refuse its permission bypass
	// (docs/providers.md §3.2).
	c := &config{env: map[string]string{"ORCR_DEBUG_METHODS": "1", "ORCR_RUN_SHIM": "/nonexistent/orcr-run-shim",
		"IS_SANDBOX": "1"}}
	for _, o := range opts {
		o(c)
	}
	return c
}

// start writes the config file, if any, and starts the server on c.home.
func (c *config) start() (*Server, error) {
	if c.config != "" {
		if err := os.MkdirAll(c.home, 0o700); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(c.home, "config.json"), []byte(c.config), 0o600); err != nil {
			return nil, err
		}
	}
	getenv := func(k string) string { return c.env[k] }
	s, outcome, err := server.Start(context.Background(), server.Options{
		Home: c.home, Getenv: getenv, Log: c.log, NoSignals: true,
		DeadLetterThrottle: 10 * time.Millisecond, Methods: c.methods, SystemdRunDir: c.runDir, EnvKeys: slices.Collect(maps.Keys(c.env)),
	})
	if err != nil {
		return nil, fmt.Errorf("server.Start: %w", err)
	}
	if s == nil {
		return nil, fmt.Errorf("server.Start: outcome %s, want a started server", outcome)
	}
	return &Server{Server: s, Home: c.home, Env: c.env}, nil
}

// Client returns a client of s whose every received frame is validated against the
// schema document (failures are reported on tb).
func (s *Server) Client(tb testing.TB) *socketapi.Client {
	return &socketapi.Client{Socket: s.Socket(), Dial: ValidatingDial(tb)}
}
