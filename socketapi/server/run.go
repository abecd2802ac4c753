// Package server is the orcr server process: home and instance-lock handling, the store,
// the actor tree, and the socket listener that turns JSON envelopes into actor
// messages. `orcr server start --foreground` calls [Run].
package server

import (
	"context"
	"log/slog"
	"time"

	"github.com/orcr-go/orcr/socketapi/api"
)

// Options configures [Run]. The zero value plus Home is a production server.
type Options struct {
	// Home is the orcr home directory (already resolved).
	Home string
	// Getenv reads the environment; nil means os.Getenv.
	Getenv func(string) string
	// Log, if set, receives the server log instead of <home>/logs/server.log.
	Log *slog.Logger
	// NoSignals disables SIGTERM/SIGINT handling (tests).
	NoSignals bool
	// Warnf receives config warnings (the CLI prints them to stderr); nil drops them.
	Warnf func(format string, args ...any)
	// DeadLetterThrottle is the actor system's dead-letter log throttle (default 1 s).
	// Tests shorten it: the throttle keeps a goroutine alive for one interval.
	DeadLetterThrottle time.Duration
	// EnvKeys names the variables Getenv knows beyond the process environment (a test
	// seam: the environment map of an in-process server).
	EnvKeys []string
	// Methods replaces the method table api.Methods (a test seam: a test adds a
	// method and sees it dispatched and described).
	Methods []api.Spec
	// SystemdRunDir replaces /run/systemd/system, which exists when systemd runs the
	// machine (a test seam of server.status's loops_firing).
	SystemdRunDir string
}

// Outcomes of Run.
const (
	OutcomeStarted        = "started"         // this process served and stopped cleanly
	OutcomeAlreadyRunning = "already_running" // another healthy server answers
)

// Run makes this process the server for opts.Home and blocks until it is stopped by
// server.stop, SIGTERM/SIGINT or ctx. It returns OutcomeAlreadyRunning without serving
// when another server is healthy. Errors are *wire.Error (environment_error causes
// unsafe_home, config_invalid, store_locked, store_open_failed, store_version_mismatch,
// server_start_failed).
func Run(ctx context.Context, opts Options) (string, error) {
	s, outcome, err := Start(ctx, opts)
	if err != nil || s == nil {
		return outcome, err
	}
	return OutcomeStarted, s.Wait()
}
