package cli

import (
	"encoding/json"
	"fmt"
	"io"
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
	spawn := func() (socketapi.Spawned, error) { return socketapi.Spawned{}, a.env.Spawn(home) }
	if a.env.spawnDetached != nil {
		spawn = func() (socketapi.Spawned, error) { return a.env.spawnDetached(home) }
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
// (setsid) with stdio on /dev/null and environ plus ORCR_HOME=home, and returns without
// waiting. A pipe on the child's descriptor 3 (see [startReportFlag]) carries the error
// the child fails to start with; a goroutine reaps the child should it exit while this
// process lives and then delivers that error, or the exit status of a child that died
// without one, on Spawned.Exited (nil for a clean exit: a losing start racer).
func SpawnDetached(home string, environ []string) (socketapi.Spawned, error) {
	exe, err := os.Executable()
	if err != nil {
		return socketapi.Spawned{}, fmt.Errorf("cannot locate the orcr executable: %w", err)
	}
	if abs, err := filepath.EvalSymlinks(exe); err == nil {
		exe = abs
	}
	report, w, err := os.Pipe()
	if err != nil {
		return socketapi.Spawned{}, err
	}
	cmd := exec.Command(exe, "server", "start", "--foreground", startReportFlag+"=3")
	cmd.Env = append(append([]string(nil), environ...), "ORCR_HOME="+home)
	// nil Stdin/Stdout/Stderr are connected to the null device by os/exec.
	cmd.ExtraFiles = []*os.File{w} // descriptor 3 in the child
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = cmd.Start()
	w.Close()
	if err != nil {
		report.Close()
		return socketapi.Spawned{}, err
	}
	exited := make(chan error, 1)
	go func() {
		// EOF comes when the child exits (or closes the descriptor).
		b, _ := io.ReadAll(io.LimitReader(report, maxStartReport))
		report.Close()
		exited <- startFailure(b, cmd.Wait())
	}()
	return socketapi.Spawned{PID: cmd.Process.Pid, Exited: exited}, nil
}
