package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"

	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/wire"
)

// resolveHome resolves the home without touching it (server stop, server logs).
func (a *app) resolveHome() (string, error) {
	return config.ResolveHome(a.env.Getenv)
}

// prepareHome is the ensure step of docs/cli.md §1.3: resolve, create + safety-check the
// home, load the config (warnings to stderr). A config or home error aborts before the
// server is contacted (environment_error, exit 2).
func (a *app) prepareHome() (string, error) {
	home, err := a.resolveHome()
	if err != nil {
		return "", err
	}
	if err := config.EnsureHome(home); err != nil {
		return "", err
	}
	_, warnings, err := config.Load(home, a.env.Getenv)
	if err != nil {
		return "", err
	}
	for _, w := range warnings {
		a.stderr("warning: %s", w)
	}
	return home, nil
}

func clientFor(home string) *socketapi.Client {
	return &socketapi.Client{Socket: config.NewPaths(home).Socket}
}

// ensureRunning auto-starts the server of home (docs/protocol.md §1.7) and returns the
// client, the outcome (socketapi.Started or socketapi.AlreadyRunning) and the pid of the
// server that answered.
func (a *app) ensureRunning(home string) (*socketapi.Client, string, int, error) {
	c := clientFor(home)
	spawn := func() (int, error) { return 0, a.env.Spawn(home) }
	if a.env.spawnPID != nil {
		spawn = func() (int, error) { return a.env.spawnPID(home) }
	}
	outcome, pid, err := c.EnsureRunning(a.ctx, spawn)
	if err != nil {
		return nil, "", 0, err
	}
	return c, outcome, pid, nil
}

// connect is the full preamble of every verb in the first row of docs/cli.md §1.3.
func (a *app) connect() (*socketapi.Client, error) {
	home, err := a.prepareHome()
	if err != nil {
		return nil, err
	}
	c, _, _, err := a.ensureRunning(home)
	return c, err
}

// call connects (auto-starting) and sends one request, returning the raw result.
func (a *app) call(method string, params any) (json.RawMessage, error) {
	c, err := a.connect()
	if err != nil {
		return nil, err
	}
	var raw json.RawMessage
	if err := c.Call(a.ctx, method, params, &raw); err != nil {
		return nil, err
	}
	return raw, nil
}

// decodeResult decodes the raw result of method into v; a result that does not
// decode is an internal "decode" error naming the method.
func decodeResult(method string, raw json.RawMessage, v any) error {
	if err := json.Unmarshal(raw, v); err != nil {
		return wire.Internal("decode", "cannot decode "+method+" result: "+err.Error())
	}
	return nil
}

// request sends method with params and prints the result via human (see [app.emit]).
func (a *app) request(method string, params any, human func(json.RawMessage) error) error {
	raw, err := a.call(method, params)
	if err != nil {
		return err
	}
	return a.emit(raw, human)
}

// withCaller adds caller_id/caller_path from ORCR_ID/ORCR_PATH (docs/cli.md §2.1); empty
// values count as unset.
func (a *app) withCaller(p map[string]any) map[string]any {
	if id := a.env.Getenv("ORCR_ID"); id != "" {
		p["caller_id"] = id
	}
	if path := a.env.Getenv("ORCR_PATH"); path != "" {
		p["caller_path"] = path
	}
	return p
}

// SpawnDetached starts `<os.Executable()> server start --foreground` in a new session
// (setsid) with stdio on /dev/null and environ plus ORCR_HOME=home, and returns its pid
// without waiting; a goroutine reaps the child should it exit while this process lives.
func SpawnDetached(home string, environ []string) (pid int, err error) {
	exe, err := os.Executable()
	if err != nil {
		return 0, fmt.Errorf("cannot locate the orcr executable: %w", err)
	}
	if abs, err := filepath.EvalSymlinks(exe); err == nil {
		exe = abs
	}
	cmd := exec.Command(exe, "server", "start", "--foreground")
	cmd.Env = append(append([]string(nil), environ...), "ORCR_HOME="+home)
	// nil Stdin/Stdout/Stderr are connected to the null device by os/exec.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	go func() { _ = cmd.Wait() }()
	return cmd.Process.Pid, nil
}
